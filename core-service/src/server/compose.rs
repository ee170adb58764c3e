//! The composition: every proto service's type built from the stores and
//! the settings, held in the generated [`Services`] (one field per proto
//! service, so a service left out is a compile error), with what runs
//! beside the calls (tasks, sync workers, the watch-list scheduler, the
//! board builder, retention, readiness, the WeChat listener).
//!
//! To add a proto service: write its type in `mediaops-ops`
//! (`services/<service>.rs`), build it here, and fill its field of
//! [`Services`] with `<service>_service::registration(Arc::new(…))`
//! (docs/architecture.md "Generated service traits").

use std::sync::Arc;

use crate::settings::CoreSettings;
use mediaops_ops::banned_words::cached_words::CachedWordStore;
use mediaops_platform::billing::Ledger;
use mediaops_platform::catalog::Catalog;
use mediaops_platform::maintenance::Maintenance;
use mediaops_platform::registry::Registry;
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
use mediaops_proto::services::Services;
use mediaops_proto::value_lists::ValueLists;
use mediaops_store::clock::Clock;

/// Every service, not registered yet, and what runs beside them.
pub(super) struct Composed {
    /// One registration per proto service ([`Services::register`]).
    pub services: Services<Registry>,
    /// The catalog, which learns every operation's `dataSources` once the
    /// registry is complete (`mediaops sources`, docs/data-sources.md).
    pub catalog: Arc<Catalog>,
    /// The configured vendors' chains: `finish` registers the upstream-only
    /// operations once the services are registered.
    pub sources: mediaops_connectors::vendors::chain::Plan,
    /// The metrics, with the collectors' and vendors' registered.
    pub metrics: mediaops_platform::metrics::Metrics,
    /// Runs the asynchronous tasks.
    pub tasks: Arc<mediaops_platform::tasks::TaskRunner>,
    /// Sync jobs (docs/sync.md).
    pub sync: Arc<mediaops_ops::sync::SyncService>,
    /// The watch-list scheduler (docs/watchlists.md).
    pub watch: Arc<mediaops_ops::watch::runner::Runner>,
    /// The tracking lists (docs/tracking.md): the runner is built once the
    /// pipeline is, since its runs call operations through it.
    pub tracking: Arc<dyn mediaops_store::tracking::TrackingStore>,
    /// The ranking-board builder and the interval of its runs (zero = off).
    pub boards: (Arc<mediaops_ops::rankings::boards::builder::Builder>, std::time::Duration),
    /// The snapshot retention job (docs/store.md "Retention").
    pub pruner: mediaops_store::retention::Pruner,
    /// Checks the ledger and the store for `grpc.health.v1`.
    pub readiness: mediaops_platform::readiness::Readiness,
    /// The WeChat-facing listener, when `wechat.callback_addr` is set.
    pub wechat_callback: Option<mediaops_connectors::wechat::callback::CallbackListener>,
    /// Feed tokens, which the pipeline reads to authenticate feed calls.
    pub feed_tokens: Arc<dyn mediaops_store::feed_token::FeedTokenStore>,
}

/// Opens the content store and the durable state (docs/state.md), builds
/// every service over them and `ledger`, and sets the registry's vendor
/// fallbacks (the services answered through a source chain need them when
/// they are registered).
///
/// # Errors
/// A store cannot be opened, a setting is refused by the part it configures
/// (vendors, images, WeChat, sync, rate limits), or Redis cannot be reached.
pub(super) async fn compose(
    settings: &CoreSettings,
    ledger: &Arc<dyn Ledger>,
    registry: &mut Registry,
    maintenance: &Arc<Maintenance>,
    clock: Clock,
) -> anyhow::Result<Composed> {
    let pool = mediaops_proto::descriptor_pool();
    let catalog = Arc::new(Catalog::build(pool, ledger.clone(), maintenance.clone())?);
    // Every durable state but the ledger's and the switches' is in the
    // store's database (docs/state.md).
    let store_pool = mediaops_store::PoolSettings {
        acquire_timeout: std::time::Duration::from_secs(settings.store_acquire_timeout_secs),
        sqlite_mmap_bytes: settings.sqlite_mmap_mib << 20,
        ..mediaops_store::PoolSettings::default()
    };
    let mut opened = mediaops_store::open_all(settings.database_url.as_deref(), &settings.data_dir, store_pool)
        .await
        .map_err(|e| anyhow::anyhow!("cannot open the content store: {e}"))?;
    // The word lists are kept in memory: a SQLite store's one process is
    // their only writer; a shared PostgreSQL store's changes are heard
    // through its notices (docs/store.md "Point reads on PostgreSQL").
    opened.words = Arc::new(match opened.notices.clone() {
        Some(notices) => CachedWordStore::notified(opened.words, notices),
        None => CachedWordStore::new(opened.words),
    });
    let charters = Arc::new(mediaops_ops::charter::Charters::new(opened.charters, ValueLists::from_pool(pool), clock));
    let articles = Arc::new(mediaops_ops::articles::ArticleStudio::new(
        mediaops_ops::articles::themes::ThemeCatalog::new(opened.themes, clock),
    ));
    mediaops_ops::articles::ArticleStudio::warm_up();
    let banned_words = Arc::new(mediaops_ops::banned_words::BannedWordChecker::new(opened.words, clock)?);
    let store = opened.content;
    let tasks = mediaops_platform::tasks::TaskRunner::new(opened.tasks, ledger.clone());
    let reader = mediaops_ops::task_reader::TaskReader { runner: tasks.clone(), sync_jobs: opened.sync.clone() };
    let web_search =
        mediaops_connectors::web_search::configure(&settings.web_search, &settings.outbound, &tasks, registry)?;
    let collectors =
        mediaops_connectors::hotlists::collector::Collectors::new(settings.hotlists.clone(), store.clone(), clock)?;
    if settings.hotlists.enabled {
        collectors.spawn();
    }
    let mut metrics = mediaops_platform::metrics::Metrics::new();
    metrics.register_collector(Box::new(mediaops_connectors::hotlists::metrics::CollectorMetrics(collectors.clone())));
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
        registry,
        &settings.outbound,
        &env,
        &cache,
        Some(data.store.clone()),
        clock,
    )?;
    registry.set_fallbacks(sources.fallbacks.clone());
    sources.record_calls(&opened.vendor_calls);
    metrics.register_collector(Box::new(mediaops_connectors::vendors::metrics::VendorMetrics(sources.vendors.clone())));
    let trend = mediaops_ops::trend::Trends::new(data.clone());
    let fetchers = sources
        .sync
        .iter()
        .map(|(key, (vendor, operation))| {
            (key.clone(), mediaops_ops::sync::fetch::SyncFetch { vendor: vendor.clone(), operation: operation.clone() })
        })
        .collect();
    let redis = settings.redis_url.as_deref().map(|url| (url, settings.redis_prefix.as_str()));
    let sync =
        mediaops_ops::sync::SyncService::open(&settings.sync, redis, opened.sync, data.store.clone(), fetchers).await?;
    let admin = mediaops_ops::services::admin::Admin {
        ledger: ledger.clone(),
        default_limit: settings.rate_limit.default_limit()?,
        collectors,
        maintenance: maintenance.clone(),
        sync: sync.clone(),
    };
    let fetcher = mediaops_connectors::outbound::GuardedFetcher::new(&settings.outbound)?;
    let watchlists = mediaops_ops::watch::WatchService::new(
        opened.watch.clone(),
        clock,
        fetcher.clone(),
        settings.watchlists.clone(),
    );
    let feeds = mediaops_ops::feeds::FeedService::new(opened.feed_tokens.clone(), opened.watch.clone(), trend.clone());
    let watch = mediaops_ops::watch::runner::Runner::new(
        opened.watch,
        ledger.clone(),
        trend.clone(),
        clock,
        fetcher.clone(),
        settings.watchlists.clone(),
        &settings.outbound,
    )
    .counting_into(metrics.watch_deliveries.clone());
    let links = Arc::new(mediaops_ops::data_api::parse_link::LinkParser {
        store: data.store.clone(),
        fetcher: fetcher.clone(),
    });
    let images = mediaops_connectors::images::client::ImagesApi::from_settings(
        &settings.images,
        &settings.outbound,
        fetcher.clone(),
    )?;
    let image_skills =
        Arc::new(mediaops_connectors::images::ImageSkills { api: images, settings: settings.images.clone() });
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
    use mediaops_ops::services as ops;
    let services = Services {
        account: account_service::registration(Arc::new(ops::account::Account { ledger: ledger.clone() })),
        admin: admin_service::registration(Arc::new(admin)),
        article_studio: article_studio_service::registration(Arc::new(ops::article_studio::Studio {
            articles,
            wechat,
        })),
        articles: articles_service::registration(Arc::new(ops::articles::Articles {
            api: data.clone(),
            sync: Some(sync.clone()),
        })),
        catalog: catalog_service::registration(Arc::new(ops::catalog::Catalog(catalog.clone()))),
        channels: channels_service::registration(Arc::new(ops::channels::Channels(data.clone()))),
        charter: charter_service::registration(Arc::new(ops::charter::Charter(charters))),
        clipapp: clipapp_service::registration(Arc::new(ops::clipapp::Clipapp(data.clone()))),
        content_safety: content_safety_service::registration(Arc::new(ops::content_safety::ContentSafety(
            banned_words.clone(),
        ))),
        feed: feed_service::registration(Arc::new(ops::feed::Feeds(Arc::new(feeds)))),
        history: mediaops_proto::mediaops::history::v1::history_service::registration(Arc::new(ops::history::History(
            data.clone(),
        ))),
        intlshort: intlshort_service::registration(Arc::new(ops::intlshort::Intlshort(data.clone()))),
        lifestyle: lifestyle_service::registration(Arc::new(ops::lifestyle::Lifestyle {
            api: data.clone(),
            sync: Some(sync.clone()),
        })),
        microblog: microblog_service::registration(Arc::new(ops::microblog::Microblog(data.clone()))),
        multi: multi_service::registration(Arc::new(ops::multi::Multi(data.clone()))),
        shortvideo: shortvideo_service::registration(Arc::new(ops::shortvideo::Shortvideo {
            api: data.clone(),
            sync: Some(sync.clone()),
        })),
        skills: skills_service::registration(Arc::new(ops::skills::Skills {
            api: data.clone(),
            trends: trend.clone(),
            banned_words: banned_words.clone(),
            images: image_skills,
            web_search,
        })),
        task: task_service::registration(Arc::new(ops::task::Tasks(reader))),
        tool: tool_service::registration(Arc::new(ops::tool::Tool { banned_words, links })),
        tracking: tracking_service::registration(Arc::new(ops::tracking::Tracking(Arc::new(
            mediaops_ops::tracking::TrackingService::new(opened.tracking.clone(), clock),
        )))),
        trend: trend_service::registration(Arc::new(ops::trend::Trend(trend))),
        videosite: videosite_service::registration(Arc::new(ops::videosite::Videosite(data.clone()))),
        watchlist: watchlist_service::registration(Arc::new(ops::watchlist::Watchlists(Arc::new(watchlists)))),
    };
    let pruner = mediaops_store::retention::Pruner::new(&data.store, clock, settings.snapshot_retention_days);
    let readiness = mediaops_platform::readiness::Readiness::new(
        ledger.clone(),
        data.store.clone(),
        std::time::Duration::from_secs(settings.readiness_interval_secs),
    );
    Ok(Composed {
        services,
        catalog,
        sources,
        metrics,
        tasks,
        sync,
        watch: Arc::new(watch),
        tracking: opened.tracking,
        boards,
        pruner,
        readiness,
        wechat_callback,
        feed_tokens: opened.feed_tokens,
    })
}
