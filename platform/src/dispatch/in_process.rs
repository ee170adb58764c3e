//! Calls of a gateway in the same process (the one-process `mediaops`):
//! the whole pipeline of a gRPC call (every step of the module docs of
//! [`super`]), handed the request message and its metadata as they are,
//! without gRPC framing, HTTP/2 bodies or the acknowledgement stream
//! (`dispatch/acknowledgement.rs`).
//!
//! "Charged only when delivered" (docs/billing.md "When a call is charged")
//! holds as over a connection: a success comes back with its
//! [`InProcessDelivery`], which the gateway settles once its listener has
//! written the answer to the client ([`InProcessDelivery::settle`] with
//! `true`: commit), or not (`false`, or the value dropped: the hold is
//! released at once, usage `cancelled`). There is no acknowledgement
//! timeout as on a connection (`ACK_WAIT`): the gateway's answer is in this
//! process, and a response dropped unwritten drops its delivery with it.

use bytes::Bytes;

use super::Pipeline;
use super::delivery::PendingSettlement;
use super::settlement::Settlement;

/// A successful in-process call: the encoded answer with the metadata a
/// gRPC client would get (request id, warnings, task id, replay and
/// rate-limit notes), and what is left to settle.
pub struct InProcessAnswer {
    /// The answer (the RPC's output message, encoded) and its metadata.
    pub response: tonic::Response<Bytes>,
    /// The charge to settle once the answer reached the client.
    pub delivery: InProcessDelivery,
}

/// A successful call's settlement, waiting for the caller's word that the
/// answer was delivered; dropped without it, the call is released.
pub struct InProcessDelivery {
    pending: Option<(Settlement, Bytes)>,
}

impl InProcessDelivery {
    /// The answer was (`true`) or was not (`false`) written to the client:
    /// commit the hold and record usage `ok`, in the background and in the
    /// call's span (`Settlement::delivered_in_background`); or release it
    /// at once (usage `cancelled`).
    pub fn settle(mut self, delivered: bool) {
        let Some((settlement, answer)) = self.pending.take() else { return };
        if !delivered {
            return; // dropping the settlement releases the hold
        }
        settlement.delivered_in_background(answer);
    }
}

impl Pipeline {
    /// Runs the RPC at `grpc_path` (`/mediaops.videosite.v1.VideositeService/QueryWork`)
    /// with `request` (its input message, encoded, and the caller's
    /// metadata: `authorization`, `x-request-id`, `idempotency-key`,
    /// `traceparent`) exactly as the gRPC service does, without the
    /// transport.
    ///
    /// # Errors
    /// The [`tonic::Status`] a gRPC client would get (with the request id
    /// and the standard error details): `unimplemented` for an unknown
    /// path, then every error of the pipeline.
    pub async fn call_in_process(
        &self,
        grpc_path: &str,
        request: tonic::Request<Bytes>,
    ) -> Result<InProcessAnswer, tonic::Status> {
        let Some(op) = self.registry.get(grpc_path).cloned() else {
            return Err(tonic::Status::unimplemented(format!("unknown method {grpc_path}")));
        };
        let mut response = self.call(&op, request).await?;
        let pending = response.extensions_mut().remove::<PendingSettlement>().and_then(|p| p.take());
        Ok(InProcessAnswer { response, delivery: InProcessDelivery { pending } })
    }
}
