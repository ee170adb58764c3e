//! The gateway's end of the call stream ([`mediaops_proto::call_stream`],
//! `MEDIAOPS_CORE_TRANSPORT=stream`): the calls to the cores as messages on
//! a few long-lived bidirectional gRPC streams, instead of one HTTP/2
//! stream per call (docs/performance.md "Calls as messages on a stream").
//!
//! The gateway keeps `MEDIAOPS_CORE_CONNECTIONS` streams open on each core
//! that [`crate::core_set`] has in use (serving), over a connection of
//! their own to that core, and hands its calls to all the streams in turn,
//! so the cores share the calls evenly. A core that joins gets its streams
//! at the next call after the core set's round that found it. A stream is
//! retired (no new calls; its side ends once its calls are settled, the
//! core's side then) when its core says `goaway` (it stops accepting), when
//! its core leaves the set, when it has been open for one refresh interval,
//! or when it breaks (its calls waiting for an answer fail with
//! `unavailable`: 502 `upstream_unavailable`, nothing charged). A core on
//! which a stream cannot be opened is skipped for one refresh interval.
//!
//! A call whose caller goes away before its answer tells the core
//! `delivered: false`, which stops it; an answer is settled through
//! [`Settle`] (docs/billing.md "When a call is charged").

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use mediaops_proto::call_stream::{self, AnswerFrame, CallFrame, answer_frame, call_frame};
use tokio::sync::{mpsc, oneshot};

use crate::core_service::{CoreService, TransportError};
use crate::core_set::InUse;

/// What a call waits for: the core's answer, or the status it failed with.
type Reply = Result<tonic::Response<Bytes>, tonic::Status>;

/// The gateway's call streams to the cores; cheap to share.
pub struct CallStreams {
    /// The balanced channel: the streams opened before the core set's
    /// first round has named the cores.
    balanced: CoreService,
    /// The cores in use.
    cores: InUse,
    /// Streams kept open at once per core in use.
    per_core: usize,
    /// How long a stream takes new calls.
    lifetime: Duration,
    open: Mutex<Open>,
    /// Held while a stream is being opened.
    opening: tokio::sync::Mutex<()>,
    /// The next stream's turn.
    turn: AtomicUsize,
}

/// The streams taking new calls, and where they may go.
#[derive(Default)]
struct Open {
    streams: Vec<Arc<Stream>>,
    /// The cores in use as last read, and their generation.
    cores: (u64, Arc<[SocketAddr]>),
    /// A channel per core in use, for its streams.
    channels: HashMap<SocketAddr, CoreService>,
    /// Cores a stream could not be opened on lately, and when.
    failed: HashMap<SocketAddr, Instant>,
}

impl Open {
    /// The next stream's turn (`turn` counts the turns), if any is open.
    fn next(&self, turn: &AtomicUsize) -> Option<Arc<Stream>> {
        (!self.streams.is_empty())
            .then(|| self.streams[turn.fetch_add(1, Ordering::Relaxed) % self.streams.len()].clone())
    }
}

/// Where a stream goes: a core, or (before the cores are known) wherever
/// the balanced channel sends it.
type Place = Option<SocketAddr>;

impl CallStreams {
    /// Streams to the cores `cores` (over `balanced`, the balanced channel
    /// to them, until the first round of the core set names them):
    /// `per_core` of them on each core in use, each taking new calls for
    /// `lifetime`.
    pub fn new(balanced: CoreService, cores: InUse, per_core: usize, lifetime: Duration) -> CallStreams {
        CallStreams {
            balanced,
            cores,
            per_core: per_core.max(1),
            lifetime,
            open: Mutex::new(Open { cores: (u64::MAX, Arc::from([])), ..Open::default() }),
            opening: tokio::sync::Mutex::new(()),
            turn: AtomicUsize::new(0),
        }
    }

    /// Runs one call: the unary RPC at `path` with `message` (encoded) and
    /// `metadata` (as gRPC headers).
    ///
    /// # Errors
    /// The core's status for the call; `unavailable` when no stream could
    /// be opened or the call's stream broke before its answer.
    pub async fn call(
        &self,
        path: &str,
        message: Bytes,
        metadata: Vec<call_stream::Entry>,
    ) -> Result<(tonic::Response<Bytes>, Settle), tonic::Status> {
        let call = call_stream::Call { path: path.to_owned(), metadata, message };
        let mut frame = CallFrame { id: 0, frame: Some(call_frame::Frame::Call(call)) };
        let (mut waiting, answer) = loop {
            let stream = self.pick().await?;
            frame.id = stream.next_id.fetch_add(1, Ordering::Relaxed);
            let id = frame.id;
            let (reply, answer) = oneshot::channel();
            match stream.begin(reply, frame) {
                // From here the call is the guard's until its answer comes:
                // a caller gone meanwhile stops it.
                Ok(()) => break (Waiting { stream, id, answered: false }, answer),
                // The stream ended its side since it was picked: another one.
                Err(back) => frame = back,
            }
        };
        let reply = answer.await.unwrap_or_else(|_| Err(broken()));
        waiting.answered = true;
        let (stream, id) = (waiting.stream.clone(), waiting.id);
        match reply {
            Ok(response) => Ok((response, Settle { stream: Some(stream), id })),
            Err(status) => {
                // A failure owes the core no word.
                stream.settled();
                Err(status)
            }
        }
    }

    /// A stream taking new calls: the next one's turn once every core in
    /// use has its `per_core` streams; else a new one on a core short of
    /// them, opened by one call while the others keep to the open streams
    /// (a stream renewed every refresh interval holds no call up). A core
    /// where a stream cannot be opened is skipped for one refresh interval,
    /// while the others take its calls.
    async fn pick(&self) -> Result<Arc<Stream>, tonic::Status> {
        if let Ok(stream) = self.short_place() {
            return Ok(stream);
        }
        let _opening = match self.opening.try_lock() {
            Ok(opening) => opening,
            Err(_) => match self.next_open() {
                Some(stream) => return Ok(stream),
                None => self.opening.lock().await,
            },
        };
        // Where a stream is short now: another call may have opened one,
        // or found a core failing, while this one waited to open.
        let (place, service) = match self.short_place() {
            Ok(stream) => return Ok(stream),
            Err(short) => short,
        };
        match Stream::open(service, place).await {
            Ok(stream) => {
                self.lock_open().streams.push(stream.clone());
                Ok(stream)
            }
            Err(status) => {
                let mut open = self.lock_open();
                if let Some(core) = place {
                    tracing::warn!(%core, error = %status.message(), "cannot open a call stream to a core; its calls go to the others");
                    open.failed.insert(core, Instant::now());
                }
                drop(open);
                self.next_open().ok_or(status)
            }
        }
    }

    /// The next stream's turn when no core in use is short of streams
    /// (`Ok`); else where to open one and over which service (`Err`).
    /// Retires the streams past their lifetime or on a core no longer in
    /// use.
    fn short_place(&self) -> Result<Arc<Stream>, (Place, CoreService)> {
        let mut open = self.lock_open();
        if open.cores.0 != self.cores.generation() {
            open.cores = self.cores.addrs();
            let cores = open.cores.1.clone();
            open.channels.retain(|addr, _| cores.contains(addr));
        }
        let cores = open.cores.1.clone();
        open.failed.retain(|_, at| at.elapsed() < self.lifetime);
        open.streams.retain(|stream| {
            let placed = match stream.place {
                Some(core) => cores.contains(&core),
                None => cores.is_empty(),
            };
            if !placed || stream.opened.elapsed() >= self.lifetime {
                stream.retire();
            }
            !stream.retiring.load(Ordering::Acquire)
        });
        let on = |place: Place| open.streams.iter().filter(|s| s.place == place).count();
        let short = if cores.is_empty() {
            (on(None) < self.per_core).then_some(None)
        } else {
            cores
                .iter()
                .find(|core| on(Some(**core)) < self.per_core && !open.failed.contains_key(core))
                .map(|c| Some(*c))
        };
        let place = match short {
            Some(place) => place,
            None => match open.next(&self.turn) {
                Some(stream) => return Ok(stream),
                // Every core failed lately and no stream is open: try the first.
                None => cores.first().copied(),
            },
        };
        Err((place, self.service_for(&mut open, place)))
    }

    /// The next open stream's turn, if any is open.
    fn next_open(&self) -> Option<Arc<Stream>> {
        self.lock_open().next(&self.turn)
    }

    /// The service a stream at `place` is opened over.
    fn service_for(&self, open: &mut Open, place: Place) -> CoreService {
        match place {
            None => self.balanced.clone(),
            Some(core) => open.channels.entry(core).or_insert_with(|| core_service(core)).clone(),
        }
    }

    fn lock_open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A channel of its own to `core`, as a [`CoreService`].
fn core_service(core: SocketAddr) -> CoreService {
    use tower::ServiceExt;
    CoreService::new(crate::core_set::channel_to(core).map_err(|e| TransportError(e.into())))
}

/// The status of a call whose stream broke before its answer.
fn broken() -> tonic::Status {
    tonic::Status::unavailable("the call stream to the core broke before the answer came")
}

/// One stream to a core.
struct Stream {
    /// The gateway's side; `None` once ended.
    sender: Mutex<Option<mpsc::UnboundedSender<CallFrame>>>,
    /// Calls waiting for their answer, by id.
    waiting: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    next_id: AtomicU64,
    /// Calls not settled yet: waiting for their answer, or answered and
    /// owing the core `delivered`.
    unsettled: AtomicUsize,
    /// No new calls; the side ends once none is unsettled.
    retiring: AtomicBool,
    opened: Instant,
    /// The core it was opened on.
    place: Place,
}

impl Stream {
    /// Opens a stream at `place` over `service`, and the task that reads
    /// its answers.
    async fn open(service: CoreService, place: Place) -> Result<Arc<Stream>, tonic::Status> {
        let (sender, frames) = mpsc::unbounded_channel();
        let mut grpc = tonic::client::Grpc::new(service)
            .max_decoding_message_size(call_stream::FRAME_LIMIT)
            .max_encoding_message_size(call_stream::FRAME_LIMIT);
        grpc.ready().await.map_err(|e| tonic::Status::unavailable(format!("core not ready: {e}")))?;
        let request = tonic::Request::new(tokio_stream::wrappers::UnboundedReceiverStream::new(frames));
        let path = http::uri::PathAndQuery::from_static(call_stream::PATH);
        let codec = tonic_prost::ProstCodec::<CallFrame, AnswerFrame>::default();
        let answers = grpc.streaming(request, path, codec).await?.into_inner();
        let stream = Arc::new(Stream {
            sender: Mutex::new(Some(sender)),
            waiting: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            unsettled: AtomicUsize::new(0),
            retiring: AtomicBool::new(false),
            opened: Instant::now(),
            place,
        });
        tokio::spawn(stream.clone().read(answers));
        Ok(stream)
    }

    /// Hands each answer to its call; on `goaway` retires the stream; on
    /// the end or a break fails the calls still waiting.
    async fn read(self: Arc<Stream>, mut answers: tonic::Streaming<AnswerFrame>) {
        let ended = loop {
            match answers.message().await {
                Ok(Some(AnswerFrame { id, frame: Some(answer_frame::Frame::Answer(answer)) })) => {
                    // Out of the map first: the answer is read without its lock.
                    let reply = self.lock_waiting().remove(&id);
                    if let Some(reply) = reply {
                        let _ = reply.send(call_stream::read_answer(answer));
                    }
                }
                Ok(Some(AnswerFrame { frame: Some(answer_frame::Frame::Goaway(_)), .. })) => self.retire(),
                Ok(Some(AnswerFrame { frame: None, .. })) => {}
                Ok(None) => break None,
                Err(status) => break Some(status.message().to_owned()),
            }
        };
        // The core ends its side only after the gateway has ended its own:
        // an end before that is a break.
        let unasked = ended.is_some() || self.sender.lock().unwrap_or_else(|e| e.into_inner()).is_some();
        if unasked {
            let error = ended.as_deref().unwrap_or("the core ended it");
            tracing::warn!(error, "the call stream to a core broke; the calls waiting on it fail (502)");
        }
        self.retiring.store(true, Ordering::Release);
        // Nothing more can be answered here: the side ends (a call begun
        // after this picks another stream), then dropping the replies fails
        // the calls still waiting with `broken()`.
        self.sender.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.lock_waiting().clear();
    }

    /// Sends the call of `frame`, which then waits for its answer in
    /// `reply` and counts as unsettled; gives `frame` back when the side
    /// has ended. Under the side's lock, so a retiring side cannot end
    /// between the count and the send.
    fn begin(&self, reply: oneshot::Sender<Reply>, frame: CallFrame) -> Result<(), CallFrame> {
        let sender = self.sender.lock().unwrap_or_else(|e| e.into_inner());
        let Some(sender) = &*sender else { return Err(frame) };
        self.lock_waiting().insert(frame.id, reply);
        self.unsettled.fetch_add(1, Ordering::AcqRel);
        // A closed side: the reader fails the waiting calls.
        let _ = sender.send(frame);
        Ok(())
    }

    fn send(&self, frame: CallFrame) {
        if let Some(sender) = &*self.sender.lock().unwrap_or_else(|e| e.into_inner()) {
            // A closed side: the reader fails the waiting calls.
            let _ = sender.send(frame);
        }
    }

    /// Tells the core `delivered` for call `id`, and counts it settled.
    fn deliver(&self, id: u64, delivered: bool) {
        self.send(CallFrame { id, frame: Some(call_frame::Frame::Delivered(delivered)) });
        self.settled();
    }

    /// One call fewer to settle; a retiring stream's side ends at none.
    fn settled(&self) {
        if self.unsettled.fetch_sub(1, Ordering::AcqRel) == 1 && self.retiring.load(Ordering::Acquire) {
            self.end_if_settled();
        }
    }

    fn retire(&self) {
        self.retiring.store(true, Ordering::Release);
        self.end_if_settled();
    }

    fn end_if_settled(&self) {
        let mut sender = self.sender.lock().unwrap_or_else(|e| e.into_inner());
        if self.unsettled.load(Ordering::Acquire) == 0 {
            sender.take();
        }
    }

    fn lock_waiting(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Reply>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A call sent and not answered yet; dropped so (its caller went away), it
/// tells the core `delivered: false`, which stops the call.
struct Waiting {
    stream: Arc<Stream>,
    id: u64,
    answered: bool,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if !self.answered {
            self.stream.lock_waiting().remove(&self.id);
            self.stream.deliver(self.id, false);
        }
    }
}

/// An answered call's settlement: [`Settle::delivered`] tells the core
/// whether the answer reached the client; dropped without it, not.
pub struct Settle {
    stream: Option<Arc<Stream>>,
    id: u64,
}

impl Settle {
    /// The answer was (`true`: the core commits the charge) or was not
    /// (`false`: released) written to the client.
    pub fn delivered(mut self, delivered: bool) {
        if let Some(stream) = self.stream.take() {
            stream.deliver(self.id, delivered);
        }
    }
}

impl Drop for Settle {
    fn drop(&mut self) {
        if let Some(stream) = self.stream.take() {
            stream.deliver(self.id, false);
        }
    }
}
