//! The accept loop of one port: the connection cap, `TCP_NODELAY`, accept
//! errors that never end the server, and the graceful drain.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Instant;

use crate::connection::{self, Phase};
use crate::draining::Draining;
use crate::settings::ListenerSettings;

/// The cap warning is repeated at most this often while the port stays full.
const CAP_WARNING_EVERY: Duration = Duration::from_secs(60);

/// Pause after an accept error that is not the client's (e.g. `EMFILE`:
/// out of file descriptors), so the loop does not spin.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_secs(1);

/// After the grace period, how long closing the remaining connections may take.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Serves `router` on `listener` until `shutdown` resolves, then drains.
///
/// Every accepted socket gets `TCP_NODELAY` and is served as HTTP/1.1 or
/// HTTP/2 (cleartext; gRPC needs HTTP/2, `/metrics` and REST clients may use
/// HTTP/1.1) with the limits of `settings` (see [`ListenerSettings`]). At
/// most `max_connections` are served at once; when that many are open the
/// loop stops accepting (clients wait in the kernel backlog) and logs one
/// WARN line naming the limit and `MEDIAOPS_MAX_CONNECTIONS` (again at most
/// once a minute while it stays full).
///
/// On `shutdown`: `draining` is marked ([`Draining::begin`], so readiness
/// answers "not ready") and the port keeps accepting for
/// `shutdown_notice_secs`; then the listener is closed
/// ([`Draining::stop_accepting`]), every connection
/// finishes its in-flight requests and closes (HTTP/1.1 after its current
/// response, HTTP/2 by GOAWAY), and after `shutdown_grace_secs` those still
/// open are closed. `port` names the port in log lines ("REST", "gRPC").
///
/// # Errors
/// None today: accept errors are logged and retried. The `Result` leaves
/// room for setup failures.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    settings: &ListenerSettings,
    port: &'static str,
    shutdown: impl Future<Output = ()> + Send,
    draining: &Draining,
) -> std::io::Result<()> {
    // Every handler turned into its route once, here, as axum's own `serve`
    // does: a `Router` called as a service without it clones and boxes the
    // matched handler into a route on every request (docs/performance.md
    // "Instructions per call: the routes, the log line").
    let router = router.with_state(());
    let notice = settings.shutdown_notice();
    let shutdown = async move {
        shutdown.await;
        draining.begin();
        if !notice.is_zero() {
            tracing::info!(
                port,
                notice_secs = notice.as_secs(),
                "reporting not ready; still accepting for {} s so load balancers stop routing here \
                 (MEDIAOPS_SHUTDOWN_NOTICE_SECS)",
                notice.as_secs()
            );
            tokio::time::sleep(notice).await;
        }
    };
    let settings = Arc::new(settings.clone());
    let builder = Arc::new(connection::builder(&settings));
    let slots = Arc::new(Semaphore::new(settings.max_connections));
    let (phase, watching) = watch::channel(Phase::Serving);
    let mut cap_warned: Option<Instant> = None;
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = slot(&slots, &settings, port, &mut cap_warned) => permit,
            () = &mut shutdown => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) if is_per_connection(&error) => continue,
            Err(error) => {
                tracing::warn!(port, %error, "cannot accept a connection; retrying in 1 s");
                tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                continue;
            }
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(port, %error, "cannot set TCP_NODELAY");
        }
        let (builder, router, settings, watching) =
            (builder.clone(), router.clone(), settings.clone(), watching.clone());
        // On the next shard when the process runs shards (its calls then stay
        // on that thread), else on this runtime.
        mediaops_proto::runtime::spawn_connection(async move {
            connection::serve(stream, builder, router, settings, watching).await;
            drop(permit);
        });
    }
    drop(listener);
    draining.stop_accepting();
    drain(&slots, &phase, &settings, port).await;
    Ok(())
}

/// A connection slot; waits (after one WARN line) while all are taken.
async fn slot(
    slots: &Arc<Semaphore>,
    settings: &ListenerSettings,
    port: &'static str,
    warned: &mut Option<Instant>,
) -> OwnedSemaphorePermit {
    if let Ok(permit) = slots.clone().try_acquire_owned() {
        return permit;
    }
    if warned.is_none_or(|at| at.elapsed() >= CAP_WARNING_EVERY) {
        *warned = Some(Instant::now());
        tracing::warn!(
            port,
            limit = settings.max_connections,
            "connection limit reached: {} connections open on the {port} port (MEDIAOPS_MAX_CONNECTIONS); \
             new connections wait until one closes",
            settings.max_connections
        );
    }
    // The semaphore is never closed, so this only fails if that changes.
    loop {
        if let Ok(permit) = slots.clone().acquire_owned().await {
            return permit;
        }
        tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
    }
}

/// Lets open connections finish within the grace period, then closes them.
async fn drain(slots: &Semaphore, phase: &watch::Sender<Phase>, settings: &ListenerSettings, port: &'static str) {
    let all = u32::try_from(settings.max_connections).unwrap_or(u32::MAX);
    let open = settings.max_connections.saturating_sub(slots.available_permits());
    tracing::info!(port, open, grace_secs = settings.shutdown_grace_secs, "stopped accepting; draining connections");
    let _ = phase.send(Phase::Draining);
    if tokio::time::timeout(settings.shutdown_grace(), slots.acquire_many(all)).await.is_ok() {
        tracing::info!(port, "all connections closed");
        return;
    }
    let open = settings.max_connections.saturating_sub(slots.available_permits());
    tracing::warn!(port, open, "grace period over (MEDIAOPS_SHUTDOWN_GRACE_SECS); closing the remaining connections");
    let _ = phase.send(Phase::Closing);
    let _ = tokio::time::timeout(CLOSE_WAIT, slots.acquire_many(all)).await;
}

/// Accept errors that concern one connection only (it was reset before we
/// took it); the next accept is unaffected.
fn is_per_connection(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(error.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset)
}
