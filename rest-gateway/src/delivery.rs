//! The gateway's side of "charged only when delivered" (docs/billing.md
//! "When a call is charged"): each call to the core keeps its request
//! stream open after the request message
//! ([`mediaops_proto::delivery::ACK_METADATA`]); the core holds the charge
//! until the stream ends. [`Delivery`] ends it once the listener has
//! written the answer to the client's connection
//! ([`mediaops_listener::WhenWritten`]), or resets it when it could not,
//! so the core releases the points at once. In one process the gateway
//! tells the core's settlement itself ([`crate::core_client::LocalCore`]):
//! no stream. On a call stream ([`crate::call_stream`]) it sends the call's
//! `delivered` message.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::oneshot;

/// The log target of the one line per answer saying whether it was written
/// (`written`), at debug level.
pub const LOG_TARGET: &str = "mediaops::delivery";

/// What is left of one call once its answer is read: tell the core whether
/// the answer reached the client. Dropped without [`Delivery::written`],
/// the answer counts as not delivered.
pub struct Delivery {
    way: Option<Way>,
    request_id: String,
}

/// How the word reaches the core.
enum Way {
    /// Over gRPC: the request stream's end (delivered) or reset.
    Stream {
        ack: oneshot::Sender<()>,
        /// The rest of the core's answer: its trailers, sent after the commit.
        rest: Box<tonic::Streaming<Bytes>>,
    },
    /// In one process: the core's settlement itself
    /// ([`crate::core_client::LocalAnswer::settle`]).
    Local(Box<dyn FnOnce(bool) + Send>),
    /// On a call stream: its `delivered` message ([`crate::call_stream`]).
    Streamed(crate::call_stream::Settle),
}

impl Delivery {
    pub(crate) fn new(ack: oneshot::Sender<()>, rest: tonic::Streaming<Bytes>, request_id: &str) -> Delivery {
        Delivery { way: Some(Way::Stream { ack, rest: Box::new(rest) }), request_id: request_id.to_owned() }
    }

    pub(crate) fn streamed(settle: crate::call_stream::Settle, request_id: &str) -> Delivery {
        Delivery { way: Some(Way::Streamed(settle)), request_id: request_id.to_owned() }
    }

    pub(crate) fn local(settle: Box<dyn FnOnce(bool) + Send>, request_id: &str) -> Delivery {
        Delivery { way: Some(Way::Local(settle)), request_id: request_id.to_owned() }
    }

    /// The answer was (`true`) or was not written to the client's
    /// connection: the core commits or releases the call.
    pub fn written(mut self, written: bool) {
        tracing::debug!(target: LOG_TARGET, request_id = self.request_id, written, "answer delivery");
        match self.way.take() {
            Some(Way::Local(settle)) => settle(written),
            Some(Way::Streamed(settle)) => settle.delivered(written),
            // Not written: dropping the sender resets the stream.
            Some(Way::Stream { ack, mut rest }) if written => {
                let _ = ack.send(());
                let request_id = std::mem::take(&mut self.request_id);
                // The stream stays open until the core's trailers: dropping it
                // earlier would reset it and release the call.
                tokio::spawn(async move {
                    if let Err(status) = rest.message().await {
                        tracing::warn!(request_id, error = %status.message(), "the core did not confirm the charge of a delivered answer");
                    }
                });
            }
            Some(Way::Stream { .. }) | None => {}
        }
    }

    /// A response whose answer is charged when the listener has written it,
    /// or at once when nothing will tell (a request not served by
    /// [`mediaops_listener`], an MCP tool answer).
    pub fn attach(self, watched: bool, response: &mut axum::response::Response) {
        if watched {
            response.extensions_mut().insert(mediaops_listener::WhenWritten::new(move |written| self.written(written)));
        } else {
            self.written(true);
        }
    }
}

/// The receiving end of a call's acknowledgement, carried to the channel in
/// the request's extensions (which must be `Clone`).
#[derive(Clone)]
pub(crate) struct AckGate(Arc<Mutex<Option<oneshot::Receiver<()>>>>);

impl AckGate {
    pub(crate) fn new(receiver: oneshot::Receiver<()>) -> AckGate {
        AckGate(Arc::new(Mutex::new(Some(receiver))))
    }
}

/// Holds the end of a request body whose extensions carry an [`AckGate`]
/// until the acknowledgement comes (or fails it, which resets the stream).
pub(crate) fn gate(mut request: http::Request<tonic::body::Body>) -> http::Request<tonic::body::Body> {
    let receiver = request
        .extensions_mut()
        .remove::<AckGate>()
        .and_then(|gate| gate.0.lock().unwrap_or_else(|e| e.into_inner()).take());
    match receiver {
        Some(receiver) => {
            request.map(|body| tonic::body::Body::new(Gated { inner: body, inner_done: false, gate: Some(receiver) }))
        }
        None => request,
    }
}

/// A request body that ends only on the acknowledgement.
struct Gated {
    inner: tonic::body::Body,
    inner_done: bool,
    gate: Option<oneshot::Receiver<()>>,
}

impl Body for Gated {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        let this = &mut *self;
        if !this.inner_done {
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(frame) => return Poll::Ready(Some(frame)),
                None => this.inner_done = true,
            }
        }
        let Some(gate) = &mut this.gate else { return Poll::Ready(None) };
        let verdict = ready!(Pin::new(gate).poll(cx));
        this.gate = None;
        Poll::Ready(match verdict {
            Ok(()) => None,
            Err(_) => Some(Err(tonic::Status::cancelled("the answer could not be delivered to the client"))),
        })
    }

    fn is_end_stream(&self) -> bool {
        self.gate.is_none() && (self.inner_done || self.inner.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
