//! Settling a call when its answer is delivered, not when its handler
//! returns ("settle only on a delivered success").
//!
//! The pipeline leaves a successful call's [`Settlement`] in the response's
//! extensions ([`PendingSettlement`]); the operation service wraps the
//! encoded response body in [`SettleOnDelivery`]. When the transport asks
//! for the last frame (the trailers with `grpc-status: 0`), the message has
//! been handed over; the charge is committed then, and the trailers are
//! sent once the commit is done, so a client that sees the success also
//! sees the charge in its balance. A body dropped before that (the stream
//! was reset, the connection broke, the client went away) drops the
//! settlement, which releases the hold at once.
//!
//! A caller that passes the answer on (the gateway) acknowledges it
//! ([`super::acknowledgement`]): the commit then waits for its word, and a
//! caller that could not deliver the answer has the hold released.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

use super::acknowledgement::AckWaiter;
use super::settlement::Settlement;

/// A successful call's settlement and answer, carried from the pipeline to
/// the response body in the response extensions (which must be `Clone`).
#[derive(Clone)]
pub struct PendingSettlement(Arc<Mutex<Option<(Settlement, Bytes)>>>);

impl PendingSettlement {
    pub fn new(settlement: Settlement, answer: Bytes) -> PendingSettlement {
        PendingSettlement(Arc::new(Mutex::new(Some((settlement, answer)))))
    }

    /// The settlement, once.
    pub fn take(&self) -> Option<(Settlement, Bytes)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// A gRPC response body that settles its call when its last frame is
/// taken; see the module docs.
pub struct SettleOnDelivery {
    inner: tonic::body::Body,
    pending: Option<(Settlement, Bytes, AckWaiter)>,
    /// The commit under way; it runs to its end even if this body is
    /// dropped meanwhile.
    committing: Option<tokio::task::JoinHandle<i64>>,
    /// The trailers, held back until the commit is done.
    trailers: Option<Frame<Bytes>>,
}

impl SettleOnDelivery {
    pub fn new(inner: tonic::body::Body, settlement: Settlement, answer: Bytes, ack: AckWaiter) -> SettleOnDelivery {
        SettleOnDelivery { inner, pending: Some((settlement, answer, ack)), committing: None, trailers: None }
    }
}

/// Whether a trailers frame says the call succeeded (`grpc-status: 0`).
fn is_success(frame: &Frame<Bytes>) -> bool {
    frame.trailers_ref().and_then(|t| t.get("grpc-status")).is_some_and(|status| status == "0")
}

impl Body for SettleOnDelivery {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        let this = &mut *self;
        loop {
            if let Some(commit) = &mut this.committing {
                let _ = ready!(Pin::new(commit).poll(cx));
                this.committing = None;
                return Poll::Ready(this.trailers.take().map(Ok));
            }
            let frame = ready!(Pin::new(&mut this.inner).poll_frame(cx));
            let last = match &frame {
                None => true,
                Some(Ok(frame)) => frame.is_trailers(),
                Some(Err(_)) => false,
            };
            if !last {
                return Poll::Ready(frame);
            }
            let Some((settlement, answer, ack)) = this.pending.take() else { return Poll::Ready(frame) };
            let frame = frame.and_then(Result::ok);
            if frame.as_ref().is_some_and(|f| !is_success(f)) {
                // Not a success after all (an encoding failure): dropping
                // the settlement releases the hold.
                drop(settlement);
                return Poll::Ready(frame.map(Ok));
            }
            this.trailers = frame;
            // In the call's span, so the `ok` line names its trace id.
            let span = settlement.span();
            let commit = async move {
                if ack.delivered().await {
                    settlement.delivered(&answer).await
                } else {
                    // The caller could not pass the answer on: dropping
                    // the settlement releases the hold.
                    drop(settlement);
                    0
                }
            };
            this.committing = Some(tokio::spawn(tracing::Instrument::instrument(commit, span)));
        }
    }

    fn is_end_stream(&self) -> bool {
        self.pending.is_none() && self.committing.is_none() && self.trailers.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
