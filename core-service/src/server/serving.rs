//! A started core and how it stops (docs/errors.md "Limits and timeouts", shutdown): the
//! gRPC service to serve or call in process, and the drain on shutdown
//! (NOT_SERVING, the notice period, in-flight calls finishing within the
//! grace, reservations settled, the background jobs stopped).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::net::TcpListener;

/// A started core: its gRPC service and what runs beside it.
pub struct Serving {
    pub(super) router: axum::Router,
    pub(super) pipeline: Arc<mediaops_platform::dispatch::Pipeline>,
    pub(super) tasks: Arc<mediaops_platform::tasks::TaskRunner>,
    pub(super) sync: Arc<mediaops_ops::sync::SyncService>,
    /// The watch-list scheduler's loop, when it runs.
    pub(super) watch: Option<tokio::task::JoinHandle<()>>,
    /// The tracking scheduler's loop, when it runs.
    pub(super) tracking: Option<tokio::task::JoinHandle<()>>,
    /// The ranking-board builder's loop, when it runs.
    pub(super) boards: Option<tokio::task::JoinHandle<()>>,
    /// The retention job's loop, unless the retention is 0.
    pub(super) pruner: Option<tokio::task::JoinHandle<()>>,
    /// The readiness checks feeding `grpc.health.v1`; they report
    /// NOT_SERVING once `draining` begins.
    pub(super) readiness: tokio::task::JoinHandle<()>,
    /// Marked when the stop begins: readiness, the WeChat listener and the
    /// gRPC port follow it.
    pub(super) draining: mediaops_listener::Draining,
    /// Calls not settled yet; waited for before the process exits.
    pub(super) in_flight: Arc<mediaops_platform::dispatch::in_flight::InFlight>,
    pub(super) callback: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    pub(super) listener: mediaops_listener::ListenerSettings,
    /// When the stop began, if before this server's own `shutdown` (the
    /// one-process binary stops its gateway first): the drained figures
    /// count from there.
    pub(super) stop_began: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl Serving {
    /// The core's gRPC service (gRPC requests in, responses out) to call in
    /// process; cheap to clone.
    pub fn service(&self) -> axum::Router {
        self.router.clone()
    }

    /// The core's call pipeline, for a gateway in this process to call
    /// without the transport
    /// ([`mediaops_platform::dispatch::Pipeline::call_in_process`]).
    pub fn pipeline(&self) -> Arc<mediaops_platform::dispatch::Pipeline> {
        self.pipeline.clone()
    }

    /// Sets the notice period of [`Serving::serve`] (the settings'
    /// `shutdown_notice_secs` by default). The one-process binary stops its
    /// core without one, after the gateway in front of it had its own.
    pub fn with_notice(mut self, notice: std::time::Duration) -> Serving {
        self.listener.shutdown_notice_secs = notice.as_secs();
        self
    }

    /// Counts the calls in flight at the stop from `began` (the signal)
    /// rather than from [`Serving::serve`]'s `shutdown`, which the
    /// one-process binary resolves only after its gateway has drained: the
    /// drain log line then says how many calls were in flight at the signal.
    pub fn counting_from(mut self, began: impl Future<Output = ()> + Send + 'static) -> Serving {
        self.stop_began = Some(Box::pin(began));
        self
    }

    /// Serves on `listener` until `shutdown` resolves, then stops
    /// (docs/errors.md "Limits and timeouts", shutdown): reports NOT_SERVING on `grpc.health.v1` and keeps accepting
    /// for `shutdown_notice_secs`; stops accepting; lets in-flight calls
    /// finish within `shutdown_grace_secs`; waits (within the same grace)
    /// until every call that holds points is settled or released; stops
    /// what runs beside the calls. One log line gives the drained figures.
    pub async fn serve(
        mut self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let in_flight = self.in_flight.clone();
        let at_signal = Arc::new(std::sync::Mutex::new(None));
        // The figures at the first of: the stop's beginning, this server's
        // own shutdown.
        let note = {
            let (in_flight, noted) = (in_flight.clone(), at_signal.clone());
            move || {
                noted.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert((in_flight.count(), in_flight.settled()));
            }
        };
        let noting = self.stop_began.take().map(|began| {
            let note = note.clone();
            tokio::spawn(async move {
                began.await;
                note();
            })
        });
        let shutdown = async move {
            shutdown.await;
            note();
        };
        // HTTP/2 for gRPC, HTTP/1.1 too for `GET /metrics`.
        let served =
            mediaops_listener::serve(listener, self.router, &self.listener, "gRPC", shutdown, &self.draining).await;
        let all_settled = self.in_flight.wait_idle(self.listener.shutdown_grace()).await;
        if let Some(noting) = noting {
            noting.abort();
        }
        let (in_flight_then, settled_then) =
            at_signal.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
        let drained = self.in_flight.settled().saturating_sub(settled_then);
        if all_settled {
            tracing::info!(
                in_flight_at_signal = in_flight_then,
                settled_since = drained,
                "drained: {in_flight_then} calls were in flight when the stop began; {drained} calls settled since; \
                 none is left unsettled"
            );
        } else {
            tracing::warn!(
                in_flight_at_signal = in_flight_then,
                settled_since = drained,
                unsettled = self.in_flight.count(),
                "grace period over with calls unsettled; their reservations expire and are released by another core"
            );
        }
        self.readiness.abort();
        // Tasks still running stop here and are resumed by the next start.
        self.tasks.shutdown().await;
        self.sync.workers().stop();
        for handle in [self.watch, self.tracking, self.boards, self.pruner].into_iter().flatten() {
            // Awaited, so the loops (and the ledger and store they hold)
            // are gone when the server returns.
            handle.abort();
            let _ = handle.await;
        }
        served?;
        if let Some(callback) = self.callback {
            callback.await??;
        }
        Ok(())
    }
}
