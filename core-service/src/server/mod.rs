//! Assembles the core (the composition root): the state it opens first
//! (`state.rs`), every service built and registered (`compose.rs`, through
//! the generated `Services` with one field per proto service), the call
//! pipeline, and the gRPC router with reflection (v1 and v1alpha),
//! `grpc.health.v1` (fed by [`mediaops_platform::readiness`]), the
//! operation service and, over HTTP/1.1 on the same port, `GET /metrics`
//! (docs/metrics.md) (`routes.rs`); [`Serving`] serves it and drains it.

mod compose;
mod routes;
mod serving;
mod state;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::settings::CoreSettings;
use mediaops_platform::billing::Ledger;
use mediaops_platform::bootstrap::{Bootstrap, ensure_bootstrap_key};
use mediaops_platform::call::Limits;
use mediaops_platform::dispatch::Pipeline;
use mediaops_platform::dispatch::pricing::Pricing;
use mediaops_platform::maintenance::Maintenance;
use mediaops_platform::registry::Registry;
use mediaops_platform::validate::FieldChecks;
use mediaops_store::clock::Clock;

pub use serving::Serving;
pub use state::open_ledger;

/// A core ready to serve.
pub struct Core {
    pipeline: Arc<Pipeline>,
    /// Runs the asynchronous tasks; stopped when the server stops.
    tasks: Arc<mediaops_platform::tasks::TaskRunner>,
    /// Sync jobs: their workers start when the server serves.
    sync: Arc<mediaops_ops::sync::SyncService>,
    /// The watch-list scheduler: it starts when the server serves.
    watch: Arc<mediaops_ops::watch::runner::Runner>,
    /// The tracking scheduler (docs/tracking.md): it starts when the server serves.
    tracking: Arc<mediaops_ops::tracking::runner::Runner>,
    /// The ranking-board builder and the interval of its runs (zero = off);
    /// it starts when the server serves.
    boards: (Arc<mediaops_ops::rankings::boards::builder::Builder>, std::time::Duration),
    /// The snapshot retention job (docs/store.md "Retention"): it starts
    /// when the server serves.
    pruner: mediaops_store::retention::Pruner,
    /// What the bootstrap step did; the binary prints it.
    pub bootstrap: Bootstrap,
    /// The WeChat-facing listener, when `wechat.callback_addr` is set.
    wechat_callback: Option<mediaops_connectors::wechat::callback::CallbackListener>,
    /// Checks the ledger and the store for `grpc.health.v1` once serving.
    readiness: mediaops_platform::readiness::Readiness,
    /// Timeouts and the connection cap of the gRPC port.
    listener: mediaops_listener::ListenerSettings,
}

impl Core {
    /// Opens the ledger (Redis when `MEDIAOPS_REDIS_URL` is set, else the
    /// embedded one in the data dir), runs the bootstrap key rule and
    /// registers every built operation.
    pub async fn open(settings: &CoreSettings) -> anyhow::Result<Core> {
        settings.check()?;
        let ledger = open_ledger(settings).await?;
        Core::open_with_ledger(settings, ledger, |_| Ok(())).await
    }

    /// [`Core::open`] over a given ledger; `extra` may register more
    /// handlers (tests use it to drive billing through operations that are
    /// not built yet).
    pub async fn open_with_ledger(
        settings: &CoreSettings,
        ledger: Arc<dyn Ledger>,
        extra: impl FnOnce(&mut Registry) -> anyhow::Result<()>,
    ) -> anyhow::Result<Core> {
        std::fs::create_dir_all(&settings.data_dir)
            .map_err(|e| anyhow::anyhow!("cannot create data dir {}: {e}", settings.data_dir.display()))?;
        let pool = mediaops_proto::descriptor_pool();
        let bootstrap =
            ensure_bootstrap_key(ledger.as_ref(), settings.bootstrap_key.as_deref(), settings.bootstrap_points).await?;
        tokio::task::spawn_blocking(mediaops_store::text::warm_up);

        let mut registry = Registry::from_pool(pool)?;
        // The service clock (`MEDIAOPS_NOW`): date rules and every stored
        // time stamp (`charterUpdatedAt`, themes' and word lists' `updatedAt`,
        // maintenance switches' `changedAt`).
        let clock = Clock::from_setting(settings.now.as_deref())?;
        let maintenance = Arc::new(Maintenance::new(&registry, state::open_switch_store(settings).await?, clock));
        let composed = compose::compose(settings, &ledger, &mut registry, &maintenance, clock).await?;
        composed.services.register(&mut registry)?;
        extra(&mut registry)?;
        // Before `finish` registers the vendor-only chains: the registry as
        // `mediaops sources` sees it.
        composed.catalog.set_sources(data_sources(&settings.vendors, &registry)?);
        maintenance.watch_vendors(composed.sources.finish(&mut registry)?);

        let limits = Limits {
            reservation_ttl: std::time::Duration::from_secs(settings.reservation_ttl_secs),
            operation_timeout: std::time::Duration::from_secs(settings.operation_timeout_secs),
        };
        state::spawn_sweeper(Arc::downgrade(&ledger));
        let rate_limiter = mediaops_platform::rate_limit::open(
            &settings.rate_limit,
            settings.redis_url.as_deref(),
            &settings.redis_prefix,
            ledger.clone(),
        )
        .await?;
        let pipeline = Arc::new(Pipeline {
            pricing: Pricing::from_registry(&registry),
            registry,
            ledger,
            required: FieldChecks::from_pool(pool),
            admin_token: settings.admin_token.clone(),
            limits,
            metrics: Arc::new(composed.metrics),
            maintenance,
            rate_limiter,
            feed_tokens: composed.feed_tokens,
        });
        // Its runs call operations through the pipeline, as the lists' owners.
        let tracking = Arc::new(mediaops_ops::tracking::runner::Runner::new(
            composed.tracking,
            pipeline.clone(),
            clock,
            settings.tracking.clone(),
        ));
        Ok(Core {
            pipeline,
            tasks: composed.tasks,
            sync: composed.sync,
            watch: composed.watch,
            tracking,
            boards: composed.boards,
            pruner: composed.pruner,
            bootstrap,
            wechat_callback: composed.wechat_callback,
            readiness: composed.readiness,
            listener: settings.listener.clone(),
        })
    }

    /// Where the WeChat-facing listener listens, if it is configured.
    pub fn wechat_callback_addr(&self) -> Option<std::net::SocketAddr> {
        self.wechat_callback.as_ref().and_then(|c| c.local_addr().ok())
    }

    /// The registry, for status listings.
    pub fn registry(&self) -> &Registry {
        &self.pipeline.registry
    }

    /// Serves gRPC (and `GET /metrics` over HTTP/1.1) on `listener` with the
    /// port limits of the settings (`mediaops_listener::serve`) until
    /// `shutdown` resolves; in-flight calls then finish within
    /// `shutdown_grace_secs` and running tasks are stopped for the next
    /// start to resume ([`Core::start`], then [`Serving::serve`]).
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        self.start().await?.serve(listener, shutdown).await
    }

    /// Starts what runs beside the calls (task and sync workers, the
    /// readiness checks, the WeChat listener) and builds the core's gRPC
    /// service: reflection (v1 and v1alpha), `grpc.health.v1`, `GET /metrics`
    /// and every operation. [`Serving::serve`] serves it on a port; the
    /// one-process binary also calls it in process ([`Serving::service`]).
    pub async fn start(self) -> anyhow::Result<Serving> {
        // Tasks left running by a previous process are claimed from here on
        // (a core opened only to list its operations never runs tasks).
        self.tasks.start();
        self.sync.workers().start();
        let watch = self.watch.spawn();
        let tracking = self.tracking.spawn();
        let boards = mediaops_ops::rankings::boards::schedule::spawn(&self.boards.0, self.boards.1);
        let pruner = self.pruner.spawn();
        let (health_reporter, health) = tonic_health::server::health_reporter();
        let services = mediaops_proto::descriptor_pool().services().map(|s| s.full_name().to_owned()).collect();
        let draining = mediaops_listener::Draining::new();
        let readiness = self.readiness.start(health_reporter, services, draining.clone()).await;
        let callback = self.wechat_callback.map(|callback| {
            let draining = draining.clone();
            tokio::spawn(callback.serve(async move { draining.started().await }))
        });
        let in_flight = self.pipeline.metrics.in_flight.clone();
        let pipeline = self.pipeline.clone();
        let router = routes::router(self.pipeline, health, draining.clone())?;
        Ok(Serving {
            router,
            pipeline,
            tasks: self.tasks,
            sync: self.sync,
            watch,
            tracking,
            boards,
            pruner,
            readiness,
            draining,
            in_flight,
            callback,
            listener: self.listener,
            stop_began: None,
        })
    }
}

/// Each operation's `dataSources` for the catalog: the lines of
/// `mediaops sources` ([`mediaops_connectors::vendors::routes::lines`]).
fn data_sources(
    vendors: &mediaops_connectors::vendors::settings::VendorSettings,
    registry: &Registry,
) -> anyhow::Result<std::collections::HashMap<String, mediaops_proto::mediaops::catalog::v1::DataSources>> {
    Ok(mediaops_connectors::vendors::routes::lines(vendors, registry)?
        .into_iter()
        .map(|line| {
            let sources = mediaops_proto::mediaops::catalog::v1::DataSources {
                kind: line.kind.name().to_owned(),
                chain: line.chain,
                packs: line.packs,
            };
            (line.operation_key, sources)
        })
        .collect())
}
