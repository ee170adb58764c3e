//! The mediaops core (ARCHITECTURE.md): every operation of the spec behind one
//! gRPC server, with the call pipeline (authenticate → validate → run) in
//! front of each, the catalogs generated from the proto descriptors, and the
//! positioning-charter store.

pub mod account;
pub mod admin;
pub mod articles;
pub mod auth;
pub mod billing;
pub mod bootstrap;
pub mod catalog;
pub mod charter;
pub mod chinese_count;
pub mod clock;
pub mod data_api;
pub mod dispatch;
pub mod error;
pub mod feeds;
pub mod fields;
pub mod hotlists;
pub mod images;
pub mod maintenance;
pub mod metrics;
pub mod outbound;
pub mod persist;
pub mod rankings;
pub mod rate_limit;
pub mod read_cache;
pub mod readiness;
pub mod redis_connection;
pub mod registry;
pub mod safety;
pub mod server;
pub mod settings;
pub mod source;
pub mod store;
pub mod structs;
pub mod sync;
pub mod tasks;
pub mod trend;
pub mod validate;
pub mod vendors;
pub mod watch;
pub mod web_search;
pub mod wechat;

pub use error::ServiceError;
pub use server::Core;
pub use settings::CoreSettings;
