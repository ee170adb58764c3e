//! Assembles the core: state, registry with every built handler, and the
//! tonic server with reflection (v1 and v1alpha), `grpc.health.v1` (fed by
//! [`mediaops_platform::readiness`]), the
//! operation service and, over HTTP/1.1 on the same port, `GET /metrics`
//! (docs/metrics.md).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::settings::CoreSettings;
use mediaops_ops::charter::CharterService;
use mediaops_platform::billing::Ledger;
use mediaops_platform::billing::embedded::EmbeddedLedger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::bootstrap::{Bootstrap, ensure_bootstrap_key};
use mediaops_platform::call::Limits;
use mediaops_platform::catalog::Catalog;
use mediaops_platform::dispatch::pricing::Pricing;
use mediaops_platform::dispatch::{OperationService, Pipeline};
use mediaops_platform::maintenance::{Maintenance, SwitchStore};
use mediaops_platform::registry::Registry;
use mediaops_platform::validate::FieldChecks;
use mediaops_proto::mediaops::{
    account::v1::account_service, admin::v1::admin_service, articles::v1::articles_service,
    catalog::v1::catalog_service, channels::v1::channels_service, charter::v1::charter_service,
    clipapp::v1::clipapp_service, feeds::v1::feed_service, intlshort::v1::intlshort_service,
    lifestyle::v1::lifestyle_service, microblog::v1::microblog_service, multi::v1::multi_service,
    safety::v1::content_safety_service, shortvideo::v1::shortvideo_service, skills::v1::skills_service,
    studio::v1::article_studio_service, tasks::v1::task_service, tool::v1::tool_service,
    tracking::v1::tracking_service, trend::v1::trend_service, videosite::v1::videosite_service,
    watch::v1::watchlist_service,
};
use mediaops_proto::value_lists::ValueLists;
use mediaops_store::clock::Clock;

/// How often every core releases expired reservations.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

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
    pruner: mediaops_store::store::retention::Pruner,
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
        tokio::task::spawn_blocking(mediaops_platform::catalog::search::warm_up);

        let mut registry = Registry::from_pool(pool)?;
        // The service clock (`MEDIAOPS_NOW`): date rules and every stored
        // time stamp (`charterUpdatedAt`, themes' and word lists' `updatedAt`,
        // maintenance switches' `changedAt`).
        let clock = Clock::from_setting(settings.now.as_deref())?;
        let maintenance = Arc::new(Maintenance::new(&registry, open_switch_store(settings).await?, clock));
        let catalog = Arc::new(Catalog::build(pool, ledger.clone(), maintenance.clone())?);
        catalog_service::register(&mut registry, &Arc::new(mediaops_ops::services::catalog::Catalog(catalog)))?;
        // Every durable state but the ledger's and the switches' is in the
        // store's database (docs/state.md).
        let store_pool = mediaops_store::store::PoolSettings {
            acquire_timeout: std::time::Duration::from_secs(settings.store_acquire_timeout_secs),
        };
        let mut opened =
            mediaops_store::store::open_all(settings.database_url.as_deref(), &settings.data_dir, store_pool)
                .await
                .map_err(|e| anyhow::anyhow!("cannot open the content store: {e}"))?;
        if settings.database_url.is_none() {
            // One process owns a SQLite store: its word lists can be kept
            // in memory (a shared PostgreSQL store's cannot).
            opened.words = Arc::new(mediaops_ops::safety::cached_words::CachedWordStore::new(opened.words));
        }
        let charter = Arc::new(CharterService::new(opened.charters, ValueLists::from_pool(pool), clock));
        charter_service::register(&mut registry, &Arc::new(mediaops_ops::services::charter::Charter(charter)))?;
        let articles = Arc::new(mediaops_ops::articles::ArticleStudio::new(
            mediaops_ops::articles::themes::ThemeCatalog::new(opened.themes, clock),
        ));
        mediaops_ops::articles::ArticleStudio::warm_up();
        let safety = Arc::new(mediaops_ops::safety::SafetyService::new(opened.words, clock)?);
        let content_safety = Arc::new(mediaops_ops::services::content_safety::ContentSafety(safety.clone()));
        content_safety_service::register(&mut registry, &content_safety)?;
        let store = opened.content;
        let tasks = mediaops_platform::tasks::TaskRunner::new(opened.tasks, ledger.clone());
        let reader = mediaops_ops::task_reader::TaskReader { runner: tasks.clone(), sync_jobs: opened.sync.clone() };
        task_service::register(&mut registry, &Arc::new(mediaops_ops::services::task::Tasks(reader)))?;
        let web_search = mediaops_connectors::web_search::configure(
            &settings.web_search,
            &settings.outbound,
            &tasks,
            &mut registry,
        )?;
        let collectors =
            mediaops_connectors::hotlists::collector::Collectors::new(settings.hotlists.clone(), store.clone(), clock)?;
        if settings.hotlists.enabled {
            collectors.spawn();
        }
        let mut metrics = mediaops_platform::metrics::Metrics::new();
        metrics
            .register_collector(Box::new(mediaops_connectors::hotlists::metrics::CollectorMetrics(collectors.clone())));
        let data = Arc::new(mediaops_ops::data_api::DataApi { store, clock });
        let boards = (
            mediaops_ops::rankings::boards::builder::Builder::with_retention(
                data.clone(),
                settings.snapshot_retention_days,
            ),
            std::time::Duration::from_secs(settings.boards_interval_secs),
        );
        let env = |name: &str| std::env::var(name).ok();
        let cache = match &settings.redis_url {
            Some(url) if !settings.vendors.files.is_empty() || !settings.vendors.packs.is_empty() => {
                mediaops_connectors::vendors::cache::CacheBackend::redis(url, &settings.redis_prefix).await?
            }
            _ => mediaops_connectors::vendors::cache::CacheBackend::Memory,
        };
        let sources = mediaops_connectors::vendors::chain::Plan::build(
            &settings.vendors,
            &registry,
            &settings.outbound,
            &env,
            &cache,
            Some(data.store.clone()),
            clock,
        )?;
        registry.set_fallbacks(sources.fallbacks.clone());
        metrics.register_collector(Box::new(mediaops_connectors::vendors::metrics::VendorMetrics(
            sources.vendors.clone(),
        )));
        let trend = mediaops_ops::trend::Trends::new(data.clone());
        trend_service::register(&mut registry, &Arc::new(mediaops_ops::services::trend::Trend(trend.clone())))?;
        multi_service::register(&mut registry, &Arc::new(mediaops_ops::services::multi::Multi(data.clone())))?;
        microblog_service::register(
            &mut registry,
            &Arc::new(mediaops_ops::services::microblog::Microblog(data.clone())),
        )?;
        intlshort_service::register(
            &mut registry,
            &Arc::new(mediaops_ops::services::intlshort::Intlshort(data.clone())),
        )?;
        videosite_service::register(
            &mut registry,
            &Arc::new(mediaops_ops::services::videosite::Videosite(data.clone())),
        )?;
        channels_service::register(&mut registry, &Arc::new(mediaops_ops::services::channels::Channels(data.clone())))?;
        clipapp_service::register(&mut registry, &Arc::new(mediaops_ops::services::clipapp::Clipapp(data.clone())))?;
        let fetchers = sources
            .sync
            .iter()
            .map(|(key, (vendor, operation))| {
                (
                    key.clone(),
                    mediaops_ops::sync::fetch::SyncFetch { vendor: vendor.clone(), operation: operation.clone() },
                )
            })
            .collect();
        let redis = settings.redis_url.as_deref().map(|url| (url, settings.redis_prefix.as_str()));
        let sync =
            mediaops_ops::sync::SyncService::open(&settings.sync, redis, opened.sync, data.store.clone(), fetchers)
                .await?;
        let articles_ops = mediaops_ops::services::articles::Articles { api: data.clone(), sync: Some(sync.clone()) };
        articles_service::register(&mut registry, &Arc::new(articles_ops))?;
        let lifestyle_ops =
            mediaops_ops::services::lifestyle::Lifestyle { api: data.clone(), sync: Some(sync.clone()) };
        lifestyle_service::register(&mut registry, &Arc::new(lifestyle_ops))?;
        let shortvideo_ops =
            mediaops_ops::services::shortvideo::Shortvideo { api: data.clone(), sync: Some(sync.clone()) };
        shortvideo_service::register(&mut registry, &Arc::new(shortvideo_ops))?;
        let admin = mediaops_ops::services::admin::Admin {
            ledger: ledger.clone(),
            default_limit: settings.rate_limit.default_limit()?,
            collectors,
            maintenance: maintenance.clone(),
            sync: sync.clone(),
        };
        admin_service::register(&mut registry, &Arc::new(admin))?;
        let fetcher = mediaops_connectors::outbound::GuardedFetcher::new(&settings.outbound)?;
        let watchlists = mediaops_ops::watch::WatchService::new(
            opened.watch.clone(),
            clock,
            fetcher.clone(),
            settings.watchlists.clone(),
        );
        let watchlists = mediaops_ops::services::watchlist::Watchlists(Arc::new(watchlists));
        watchlist_service::register(&mut registry, &Arc::new(watchlists))?;
        let tracking_lists = mediaops_ops::tracking::TrackingService::new(opened.tracking.clone(), clock);
        let tracking_lists = mediaops_ops::services::tracking::Tracking(Arc::new(tracking_lists));
        tracking_service::register(&mut registry, &Arc::new(tracking_lists))?;
        let trends = mediaops_ops::trend::Trends::new(data.clone());
        let feeds =
            mediaops_ops::feeds::FeedService::new(opened.feed_tokens.clone(), opened.watch.clone(), trends.clone());
        feed_service::register(&mut registry, &Arc::new(mediaops_ops::services::feed::Feeds(Arc::new(feeds))))?;
        let watch = mediaops_ops::watch::runner::Runner::new(
            opened.watch,
            ledger.clone(),
            trends,
            clock,
            fetcher.clone(),
            settings.watchlists.clone(),
            &settings.outbound,
        )
        .counting_into(metrics.watch_deliveries.clone());
        let watch = Arc::new(watch);
        let links = Arc::new(mediaops_ops::data_api::parse_link::LinkParser {
            store: data.store.clone(),
            fetcher: fetcher.clone(),
        });
        let tool = mediaops_ops::services::tool::Tool { safety: safety.clone(), links };
        tool_service::register(&mut registry, &Arc::new(tool))?;
        let images = mediaops_connectors::images::client::ImagesApi::from_settings(
            &settings.images,
            &settings.outbound,
            fetcher.clone(),
        )?;
        let image_skills =
            Arc::new(mediaops_connectors::images::ImageSkills { api: images, settings: settings.images.clone() });
        let skills = mediaops_ops::services::skills::Skills {
            api: data.clone(),
            trends: trend,
            safety: safety.clone(),
            images: image_skills,
            web_search,
        };
        skills_service::register(&mut registry, &Arc::new(skills))?;
        let account = mediaops_ops::services::account::Account { ledger: ledger.clone() };
        account_service::register(&mut registry, &Arc::new(account))?;
        let wechat_tokens = match redis {
            Some((url, prefix)) => mediaops_connectors::wechat::tokens::TokenCache::redis(url, prefix).await?,
            None => mediaops_connectors::wechat::tokens::TokenCache::in_process(),
        };
        let wechat = Arc::new(mediaops_connectors::wechat::Wechat::new(
            settings.wechat.clone(),
            &settings.outbound,
            opened.wechat,
            wechat_tokens,
            fetcher,
        )?);
        let wechat_callback = mediaops_connectors::wechat::callback::CallbackListener::bind(&wechat).await?;
        let studio = mediaops_ops::services::article_studio::Studio { articles, wechat };
        article_studio_service::register(&mut registry, &Arc::new(studio))?;
        extra(&mut registry)?;
        maintenance.watch_vendors(sources.finish(&mut registry)?);

        let limits = Limits {
            reservation_ttl: std::time::Duration::from_secs(settings.reservation_ttl_secs),
            operation_timeout: std::time::Duration::from_secs(settings.operation_timeout_secs),
        };
        spawn_sweeper(Arc::downgrade(&ledger));
        let pruner =
            mediaops_store::store::retention::Pruner::new(&data.store, clock, settings.snapshot_retention_days);
        let readiness = mediaops_platform::readiness::Readiness::new(
            ledger.clone(),
            data.store.clone(),
            std::time::Duration::from_secs(settings.readiness_interval_secs),
        );
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
            metrics: Arc::new(metrics),
            maintenance,
            rate_limiter,
            feed_tokens: opened.feed_tokens,
        });
        // Its runs call operations through the pipeline, as the lists' owners.
        let tracking = Arc::new(mediaops_ops::tracking::runner::Runner::new(
            opened.tracking,
            pipeline.clone(),
            clock,
            settings.tracking.clone(),
        ));
        Ok(Core {
            pipeline,
            tasks,
            sync,
            watch,
            tracking,
            boards,
            pruner,
            bootstrap,
            wechat_callback,
            readiness,
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
        let reflection_v1 = reflection().build_v1()?;
        let reflection_v1alpha = reflection().build_v1alpha()?;
        let (health_reporter, health) = tonic_health::server::health_reporter();
        let services = mediaops_proto::descriptor_pool().services().map(|s| s.full_name().to_owned()).collect();
        let draining = mediaops_listener::Draining::new();
        let readiness = self.readiness.start(health_reporter, services, draining.clone()).await;
        let callback = self.wechat_callback.map(|callback| {
            let draining = draining.clone();
            tokio::spawn(callback.serve(async move { draining.started().await }))
        });
        let mut routes = tonic::service::Routes::builder();
        routes.add_service(reflection_v1).add_service(reflection_v1alpha).add_service(health);
        let in_flight = self.pipeline.metrics.in_flight.clone();
        let metrics = self.pipeline.metrics.clone().router();
        let router =
            routes.routes().into_axum_router().merge(metrics).fallback_service(OperationService::new(self.pipeline));
        Ok(Serving {
            router,
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

/// A started core: its gRPC service and what runs beside it.
pub struct Serving {
    router: axum::Router,
    tasks: Arc<mediaops_platform::tasks::TaskRunner>,
    sync: Arc<mediaops_ops::sync::SyncService>,
    /// The watch-list scheduler's loop, when it runs.
    watch: Option<tokio::task::JoinHandle<()>>,
    /// The tracking scheduler's loop, when it runs.
    tracking: Option<tokio::task::JoinHandle<()>>,
    /// The ranking-board builder's loop, when it runs.
    boards: Option<tokio::task::JoinHandle<()>>,
    /// The retention job's loop, unless the retention is 0.
    pruner: Option<tokio::task::JoinHandle<()>>,
    /// The readiness checks feeding `grpc.health.v1`; they report
    /// NOT_SERVING once `draining` begins.
    readiness: tokio::task::JoinHandle<()>,
    /// Marked when the stop begins: readiness, the WeChat listener and the
    /// gRPC port follow it.
    draining: mediaops_listener::Draining,
    /// Calls not settled yet; waited for before the process exits.
    in_flight: Arc<mediaops_platform::dispatch::in_flight::InFlight>,
    callback: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    listener: mediaops_listener::ListenerSettings,
    /// When the stop began, if before this server's own `shutdown` (the
    /// one-process binary stops its gateway first): the drained figures
    /// count from there.
    stop_began: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl Serving {
    /// The core's gRPC service (gRPC requests in, responses out) to call in
    /// process; cheap to clone.
    pub fn service(&self) -> axum::Router {
        self.router.clone()
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

    /// Serves on `listener` until `shutdown` resolves, then stops (issue 16
    /// item 3): reports NOT_SERVING on `grpc.health.v1` and keeps accepting
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

/// A reflection builder that knows our files and the standard services we
/// serve, so `grpcurl list` shows health and both reflection versions too.
fn reflection() -> tonic_reflection::server::Builder<'static> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(mediaops_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET)
}

/// The ledger the settings name.
pub async fn open_ledger(settings: &CoreSettings) -> anyhow::Result<Arc<dyn Ledger>> {
    Ok(match &settings.redis_url {
        Some(url) => Arc::new(RedisLedger::connect(url, &settings.redis_prefix).await?),
        None => Arc::new(EmbeddedLedger::open(&settings.data_dir)?),
    })
}

/// Where run-time maintenance switches live: the ledger's Redis when
/// `MEDIAOPS_REDIS_URL` is set (shared by every core), else the data dir.
async fn open_switch_store(settings: &CoreSettings) -> anyhow::Result<Arc<dyn SwitchStore>> {
    Ok(match &settings.redis_url {
        Some(url) => Arc::new(
            mediaops_platform::maintenance::redis::RedisSwitchStore::connect(url, &settings.redis_prefix).await?,
        ),
        None => Arc::new(mediaops_platform::maintenance::file::FileSwitchStore::new(&settings.data_dir)),
    })
}

/// Releases expired reservations every [`SWEEP_EVERY`] while the ledger
/// lives (the task holds only a weak reference, so it ends with the core).
fn spawn_sweeper(ledger: std::sync::Weak<dyn Ledger>) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(SWEEP_EVERY).await;
            let Some(ledger) = ledger.upgrade() else { break };
            match ledger.release_expired().await {
                Ok(0) => {}
                Ok(released) => tracing::warn!(released, "released expired reservations"),
                Err(e) => tracing::warn!(error = %e, "reservation sweep failed"),
            }
        }
    });
}
