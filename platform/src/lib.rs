//! The call pipeline of mediaops (ARCHITECTURE.md, docs/architecture.md):
//! the operation [`registry`] filled from the generated service traits,
//! [`dispatch`] (authenticate → validate → price → reserve → run → settle,
//! with maintenance, timeouts and metrics), the points [`billing`] ledgers
//! (Redis or embedded), [`rate_limit`], [`tasks`] for long work, the
//! [`maintenance`] switch and the [`catalog`]s built from the proto
//! descriptors. It knows no operation and no upstream: `mediaops-connectors`
//! and `mediaops-ops` build on it; `core-service` composes them.

pub mod account;
pub mod auth;
pub mod billing;
pub mod bootstrap;
pub mod call;
pub mod catalog;
pub mod closed_sets;
pub mod dispatch;
pub mod fields;
pub mod maintenance;
pub mod metrics;
pub mod persist;
pub mod quota;
pub mod rate_limit;
pub mod read_cache;
pub mod readiness;
pub mod redis_connection;
pub mod registry;
pub mod source;
pub mod structs;
pub mod tasks;
pub mod validate;
