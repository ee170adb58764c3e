"""Reads a failed mediaops gRPC call the way Python clients do (docs/openapi.md).
(Not named grpc_status.py: that would shadow the grpcio-status package.)

Usage: python3 tests/read_grpc_status.py HOST:PORT KEY
Calls LifestyleService/SearchUser with an empty request (400: keyword is
required), reads the status with grpcio-status's `rpc_status.from_call` and
prints what its details hold as JSON. Needs `pip install grpcio grpcio-status`.
Run by `grpcio_rpc_status_reads_the_details` in tests/e2e/grpc.rs.
"""

import json
import sys

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


def main() -> None:
    target, key = sys.argv[1], sys.argv[2]
    with grpc.insecure_channel(target) as channel:
        call = channel.unary_unary("/mediaops.lifestyle.v1.LifestyleService/SearchUser")
        try:
            call(b"", metadata=[("authorization", f"Bearer {key}")], timeout=30)
        except grpc.RpcError as error:
            status = rpc_status.from_call(error)
            request_id = dict(error.trailing_metadata()).get("x-request-id")
            out = {"code": error.code().name, "message": status.message, "requestId": request_id}
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                bad = error_details_pb2.BadRequest()
                if detail.Unpack(info):
                    out["errorInfo"] = {"reason": info.reason, "domain": info.domain, "metadata": dict(info.metadata)}
                elif detail.Unpack(bad):
                    out["badRequest"] = [{"field": v.field, "description": v.description} for v in bad.field_violations]
            print(json.dumps(out, ensure_ascii=False))
            return
    sys.exit("the call unexpectedly succeeded")


if __name__ == "__main__":
    main()
