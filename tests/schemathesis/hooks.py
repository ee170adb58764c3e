"""Schemathesis hooks of the OpenAPI fuzz run (docs/openapi.md).

Loaded with SCHEMATHESIS_HOOKS=hooks (this directory on PYTHONPATH).
"""

import itertools

import schemathesis


@schemathesis.check
def only_documented_502_503(ctx, response, case):
    """No 5xx answer but a 502 or 503 that the operation documents.

    Replaces schemathesis' `not_a_server_error`, which fails on any 5xx: here
    an unreachable data source (502 `upstream_unavailable`) and an operation
    under maintenance, not configured or not built (503) are expected answers,
    documented for every operation; 500 `internal` never is.
    """
    status = response.status_code
    if status < 500:
        return None
    documented = {str(code) for code in case.operation.responses.status_codes}
    if status not in (502, 503) or str(status) not in documented:
        raise AssertionError(
            f"{case.operation.label} answered {status}; only a documented 502 or 503 is allowed "
            f"(documented: {', '.join(sorted(documented))})"
        )
    return None


_IDEMPOTENCY_KEY = "Idempotency-Key"
_calls = itertools.count()


@schemathesis.hook
def before_call(context, case, kwargs):
    """Makes each well-formed generated `Idempotency-Key` unique to its call.

    Generated keys repeat ("0", "00", ...), and the service rightly answers a
    key reused for another request with 409 `conflict` (docs/billing.md):
    without this most calls of an operation would stop there. A malformed
    key (the negative cases) is sent as generated.
    """
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() != _IDEMPOTENCY_KEY.lower():
            continue
        key = headers[name]
        suffix = f".{next(_calls)}"
        if isinstance(key, str) and 0 < len(key) <= 255 - len(suffix) and all("!" <= c <= "~" for c in key):
            headers[name] = key + suffix
