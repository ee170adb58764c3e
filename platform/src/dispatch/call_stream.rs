//! The core's end of the call stream ([`mediaops_proto::call_stream`]):
//! many calls of one gateway as messages on one bidirectional gRPC stream.
//!
//! Each call runs the whole pipeline of a unary call
//! ([`Pipeline::call_in_process`], every step of the module docs of
//! [`super`]) in a task of its own, so the calls of one stream run side by
//! side. "Charged only when delivered" (docs/billing.md "When a call is
//! charged") holds as over a unary call's acknowledgement: a success's
//! settlement waits here for the gateway's `delivered`. `true` commits it;
//! `false`, the stream's end or break, or `ACK_WAIT` (60 s) without a word
//! releases it. `delivered: false` for a call still running stops it (its
//! task is aborted; a reserve under way is finished and released, as when a
//! unary caller goes away).
//!
//! When the core stops accepting (the end of its shutdown notice) it sends
//! `goaway` on every stream: the gateway moves its new calls elsewhere and
//! ends the stream once its calls are settled.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use mediaops_listener::Draining;
use mediaops_proto::call_stream::{self, AnswerFrame, CallFrame, answer_frame, call_frame};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::Pipeline;
use super::acknowledgement::ACK_WAIT;
use super::in_process::{InProcessAnswer, InProcessDelivery};

/// How often the settlements waiting for a `delivered` are checked against
/// [`ACK_WAIT`].
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Answers sent ahead of the gateway reading them, per stream.
const ANSWERS_BUFFERED: usize = 1024;

/// The gRPC service of [`call_stream::PATH`]; cheap to clone.
#[derive(Clone)]
pub struct CallStreamService {
    pipeline: Arc<Pipeline>,
    /// Tells when the core's port stops accepting: every stream then says
    /// `goaway`.
    draining: Draining,
}

impl CallStreamService {
    /// The service over `pipeline`; `draining` is the core's port's, which
    /// tells when it stops accepting (the end of its shutdown notice).
    pub fn new(pipeline: Arc<Pipeline>, draining: Draining) -> CallStreamService {
        CallStreamService { pipeline, draining }
    }
}

impl tonic::server::NamedService for CallStreamService {
    const NAME: &'static str = "mediaops.transport.v1.CallStream";
}

type Answers = Pin<Box<dyn tokio_stream::Stream<Item = Result<AnswerFrame, tonic::Status>> + Send>>;

impl tonic::server::StreamingService<CallFrame> for CallStreamService {
    type Response = AnswerFrame;
    type ResponseStream = Answers;
    type Future = Pin<Box<dyn Future<Output = Result<tonic::Response<Answers>, tonic::Status>> + Send>>;

    fn call(&mut self, request: tonic::Request<tonic::Streaming<CallFrame>>) -> Self::Future {
        let (out, answers) = mpsc::channel(ANSWERS_BUFFERED);
        let stream = Stream::new(self.pipeline.clone(), out);
        tokio::spawn(stream.run(request.into_inner(), self.draining.clone()));
        let answers: Answers = Box::pin(tokio_stream::wrappers::ReceiverStream::new(answers));
        Box::pin(async move { Ok(tonic::Response::new(answers)) })
    }
}

impl tower::Service<http::Request<tonic::body::Body>> for CallStreamService {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let service = self.clone();
        Box::pin(async move {
            let codec = tonic_prost::ProstCodec::<AnswerFrame, CallFrame>::default();
            let mut grpc = tonic::server::Grpc::new(codec)
                .max_decoding_message_size(call_stream::FRAME_LIMIT)
                .max_encoding_message_size(call_stream::FRAME_LIMIT);
            Ok(grpc.streaming(service, request).await)
        })
    }
}

/// A call's end, from its task to the stream's loop.
type Done = (u64, Result<InProcessAnswer, tonic::Status>);

/// Sends a call's end to the stream's loop; dropped unsent (its task
/// panicked, or was aborted, which the loop has already forgotten), it
/// sends a failure, so no call waits for an answer that will not come.
struct Reporter {
    id: u64,
    done: Option<mpsc::UnboundedSender<Done>>,
}

impl Reporter {
    fn report(mut self, result: Result<InProcessAnswer, tonic::Status>) {
        if let Some(done) = self.done.take() {
            let _ = done.send((self.id, result));
        }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        if let Some(done) = self.done.take() {
            let _ = done.send((self.id, Err(tonic::Status::internal("the call ended without an answer"))));
        }
    }
}

/// The failure of a call whose `what` (request message or answer) is over
/// [`call_stream::MESSAGE_LIMIT`].
fn too_large(what: &str, bytes: usize) -> tonic::Status {
    tonic::Status::out_of_range(format!(
        "the {what} is {bytes} bytes, more than the {} a call may carry",
        call_stream::MESSAGE_LIMIT
    ))
}

/// One stream's calls.
struct Stream {
    pipeline: Arc<Pipeline>,
    out: mpsc::Sender<Result<AnswerFrame, tonic::Status>>,
    /// Calls running, by id.
    running: HashMap<u64, AbortHandle>,
    /// Successes answered and waiting for `delivered`, by id, with when
    /// they were answered.
    answered: HashMap<u64, (InProcessDelivery, Instant)>,
    done: (mpsc::UnboundedSender<Done>, mpsc::UnboundedReceiver<Done>),
}

impl Stream {
    fn new(pipeline: Arc<Pipeline>, out: mpsc::Sender<Result<AnswerFrame, tonic::Status>>) -> Stream {
        Stream { pipeline, out, running: HashMap::new(), answered: HashMap::new(), done: mpsc::unbounded_channel() }
    }

    /// Reads the gateway's frames until its side ends or breaks; then stops
    /// what still runs and releases what was not delivered (dropping a
    /// settlement releases its hold).
    async fn run(mut self, mut inbound: tonic::Streaming<CallFrame>, draining: Draining) {
        let not_accepting = draining.not_accepting();
        tokio::pin!(not_accepting);
        let mut goaway_sent = false;
        let mut sweep = tokio::time::interval(SWEEP_EVERY);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                frame = inbound.message() => match frame {
                    Ok(Some(frame)) => self.take(frame).await,
                    Ok(None) => break,
                    Err(status) => {
                        tracing::info!(
                            error = %status.message(),
                            unsettled = self.running.len() + self.answered.len(),
                            "a gateway's call stream broke; its unsettled calls are stopped or released"
                        );
                        break;
                    }
                },
                Some((id, result)) = self.done.1.recv() => self.answer(id, result).await,
                () = &mut not_accepting, if !goaway_sent => {
                    goaway_sent = true;
                    let goaway = AnswerFrame { id: 0, frame: Some(answer_frame::Frame::Goaway(true)) };
                    let _ = self.out.send(Ok(goaway)).await;
                }
                _ = sweep.tick() => self.answered.retain(|_, (_, at)| at.elapsed() < ACK_WAIT),
            }
        }
        for (_, running) in self.running.drain() {
            running.abort();
        }
        // Dropping the settlements releases their holds.
        self.answered.clear();
    }

    /// One frame of the gateway.
    async fn take(&mut self, frame: CallFrame) {
        let id = frame.id;
        match frame.frame {
            Some(call_frame::Frame::Call(call)) => self.start(id, call).await,
            Some(call_frame::Frame::Delivered(delivered)) => {
                if let Some(running) = self.running.remove(&id) {
                    running.abort();
                } else if let Some((delivery, _)) = self.answered.remove(&id) {
                    delivery.settle(delivered);
                }
            }
            None => {}
        }
    }

    /// Starts a call in a task of its own.
    async fn start(&mut self, id: u64, call: call_stream::Call) {
        let metadata = match call_stream::metadata(call.metadata) {
            Ok(metadata) => metadata,
            Err(status) => return self.send(id, call_stream::failure(&status)).await,
        };
        if self.running.contains_key(&id) || self.answered.contains_key(&id) {
            let status = tonic::Status::invalid_argument(format!("call id {id} is already in use on this stream"));
            return self.send(id, call_stream::failure(&status)).await;
        }
        if call.message.len() > call_stream::MESSAGE_LIMIT {
            let status = too_large("request message", call.message.len());
            return self.send(id, call_stream::failure(&status)).await;
        }
        let request = tonic::Request::from_parts(metadata, http::Extensions::new(), call.message);
        let pipeline = self.pipeline.clone();
        let reporter = Reporter { id, done: Some(self.done.0.clone()) };
        let task = tokio::spawn(async move {
            reporter.report(pipeline.call_in_process(&call.path, request).await);
        });
        self.running.insert(id, task.abort_handle());
    }

    /// A call's end: its answer to the gateway, its settlement kept for the
    /// gateway's word. A call stopped meanwhile is dropped (released).
    async fn answer(&mut self, id: u64, result: Result<InProcessAnswer, tonic::Status>) {
        if self.running.remove(&id).is_none() {
            return;
        }
        let answer = match result {
            Ok(answer) if answer.response.get_ref().len() > call_stream::MESSAGE_LIMIT => {
                // As a unary caller's decoder refuses it; dropping the
                // settlement releases the hold.
                call_stream::failure(&too_large("answer", answer.response.get_ref().len()))
            }
            Ok(answer) => {
                let (metadata, message, _) = answer.response.into_parts();
                self.answered.insert(id, (answer.delivery, Instant::now()));
                call_stream::Answer {
                    metadata: call_stream::entries(metadata),
                    message_bytes: message,
                    ..call_stream::Answer::default()
                }
            }
            Err(status) => call_stream::failure(&status),
        };
        self.send(id, answer).await;
    }

    async fn send(&mut self, id: u64, answer: call_stream::Answer) {
        let frame = AnswerFrame { id, frame: Some(answer_frame::Frame::Answer(answer)) };
        // A gateway gone: the loop ends on its side's break.
        let _ = self.out.send(Ok(frame)).await;
    }
}
