//! The mediaops core (ARCHITECTURE.md, docs/architecture.md): the
//! composition root. [`server::Core`] builds every operation of
//! `mediaops-ops` and `mediaops-connectors` into the registry and call
//! pipeline of `mediaops-platform`, over the stores of `mediaops-store`, and
//! serves them on one gRPC server; [`settings`] reads the configuration.
//!
//! The modules of the lower crates are re-exported under their old paths
//! (`core_service::rankings`, `core_service::billing`, …) for the binaries,
//! tests and benches that compose the whole core.

pub mod server;
pub mod settings;

pub use mediaops_connectors::{hotlists, images, outbound, vendors, web_search, wechat};
pub use mediaops_ops::{
    admin, articles, charter, data_api, feeds, rankings, safety, services, sync, task_reader, tracking, trend, watch,
};
pub use mediaops_platform::{
    account, auth, billing, bootstrap, call, catalog, dispatch, error, fields, maintenance, metrics, persist, quota,
    rate_limit, read_cache, readiness, redis_connection, registry, source, structs, tasks, validate,
};
pub use mediaops_store::{chinese_count, clock, offload, rules, store, text};

pub use error::ServiceError;
pub use server::Core;
pub use settings::CoreSettings;
