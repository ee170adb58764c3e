//! One accepted connection: HTTP/1.1 or HTTP/2 (hyper-util's auto builder
//! tells them apart by the preface), a watchdog that closes it when no
//! request arrives in time or it idles too long, and the drain on shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::TcpStream;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tower::ServiceExt;

use crate::body::TimedBody;
use crate::delivery::{Delivering, Flushes, Transport, Watched, Watching, WhenWritten};
use crate::settings::ListenerSettings;

/// How long a connection closed by a timeout may take to say goodbye
/// (HTTP/2 GOAWAY and its ping) before it is dropped.
const CLOSE_LINGER: Duration = Duration::from_secs(2);

/// HTTP/2 keep-alive: a ping after this much silence while streams are
/// open; a peer that does not answer within [`PING_TIMEOUT`] is dropped.
const PING_INTERVAL: Duration = Duration::from_secs(20);
const PING_TIMEOUT: Duration = Duration::from_secs(20);

/// Where the server is in its life; connections watch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Serving,
    /// Finish in-flight requests, take no new ones, then close.
    Draining,
    /// The grace period is over: close now.
    Closing,
}

/// The hyper builder every connection of a port uses.
pub(crate) fn builder(settings: &ListenerSettings) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(settings.header_read_timeout()).keep_alive(true);
    builder.http2().timer(TokioTimer::new()).keep_alive_interval(PING_INTERVAL).keep_alive_timeout(PING_TIMEOUT);
    builder
}

/// What the watchdog knows of a connection's requests.
struct Activity {
    state: Mutex<ActivityState>,
    /// Woken when the last request in flight ends.
    idle: Notify,
}

struct ActivityState {
    in_flight: usize,
    /// When the last request ended, or the connection was accepted.
    since: Instant,
    /// Whether any request has started.
    seen: bool,
}

impl Activity {
    fn new() -> Arc<Activity> {
        Arc::new(Activity {
            state: Mutex::new(ActivityState { in_flight: 0, since: Instant::now(), seen: false }),
            idle: Notify::new(),
        })
    }

    fn begin(self: &Arc<Self>) -> InFlight {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.in_flight += 1;
        state.seen = true;
        InFlight(self.clone())
    }

    fn in_flight(&self) -> usize {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).in_flight
    }

    /// When the connection is due to close if nothing happens: `None` while a
    /// request is in flight.
    fn idle_deadline(&self, settings: &ListenerSettings) -> Option<Instant> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match (state.in_flight, state.seen) {
            (0, false) => Some(state.since + settings.header_read_timeout()),
            (0, true) => Some(state.since + settings.idle_timeout()),
            _ => None,
        }
    }
}

/// One request in flight; dropped when its response has been sent.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        state.in_flight -= 1;
        if state.in_flight == 0 {
            state.since = Instant::now();
            self.0.idle.notify_one();
        }
    }
}

/// The hyper service of one connection: `router` with a read deadline on
/// every request body but a call stream's, the request counted until its response is sent, and
/// a response's [`WhenWritten`] told whether it was written
/// ([`crate::delivery`]).
#[derive(Clone)]
struct Tracked {
    router: axum::Router,
    activity: Arc<Activity>,
    body_read_timeout: Duration,
    /// What the connection's socket has flushed (HTTP/1.1).
    flushes: Flushes,
}

type Answer = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;

impl hyper::service::Service<http::Request<Incoming>> for Tracked {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: http::Request<Incoming>) -> Answer {
        let in_flight = self.activity.begin();
        let deadline = Instant::now() + self.body_read_timeout;
        let secs = self.body_read_timeout.as_secs();
        let transport = match request.version() {
            http::Version::HTTP_2 => Transport::Http2,
            _ => Transport::Http1(self.flushes.clone()),
        };
        // A gateway's call stream stays open by design, its frames coming
        // when its calls do (mediaops_proto::call_stream): no body deadline.
        let mut request = if request.uri().path() == mediaops_proto::call_stream::PATH {
            request.map(Body::new)
        } else {
            request.map(|body| Body::new(TimedBody::new(body, deadline, secs)))
        };
        request.extensions_mut().insert(Watching);
        let answer = self.router.clone().oneshot(request);
        Box::pin(async move {
            let mut response = answer.await?;
            let written = response.extensions_mut().remove::<WhenWritten>();
            Ok(response.map(|body| Body::new(Delivering::new(body, written, transport, in_flight))))
        })
    }
}

/// Serves `stream` until it closes, a timeout closes it, or `phase` says so.
pub(crate) async fn serve(
    stream: TcpStream,
    builder: Arc<auto::Builder<TokioExecutor>>,
    router: axum::Router,
    settings: Arc<ListenerSettings>,
    mut phase: watch::Receiver<Phase>,
) {
    let activity = Activity::new();
    let flushes = Flushes::default();
    let service = Tracked {
        router,
        activity: activity.clone(),
        body_read_timeout: settings.body_read_timeout(),
        flushes: flushes.clone(),
    };
    let connection = builder.serve_connection(TokioIo::new(Watched::new(stream, flushes)), service);
    tokio::pin!(connection);
    // Set once the connection was asked to close: when to drop it if it
    // has not closed by then (`None`: wait for its requests).
    let mut closing: Option<Option<Instant>> = None;
    if *phase.borrow_and_update() != Phase::Serving {
        return;
    }
    loop {
        let wake = match closing {
            None => activity.idle_deadline(&settings),
            Some(hard) => hard.filter(|_| activity.in_flight() == 0),
        };
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "connection ended with an error");
                }
                return;
            }
            changed = phase.changed() => {
                let now = if changed.is_err() { Phase::Closing } else { *phase.borrow_and_update() };
                match now {
                    Phase::Serving => {}
                    Phase::Draining if closing.is_none() => {
                        connection.as_mut().graceful_shutdown();
                        closing = Some(None);
                    }
                    Phase::Draining => {}
                    Phase::Closing => return,
                }
            }
            () = activity.idle.notified() => {}
            () = sleep_until(wake), if wake.is_some() => match closing {
                None if activity.idle_deadline(&settings).is_some_and(|d| d <= Instant::now()) => {
                    connection.as_mut().graceful_shutdown();
                    closing = Some(Some(Instant::now() + CLOSE_LINGER));
                }
                None => {}
                Some(_) => return,
            },
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
