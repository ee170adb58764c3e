//! Upstream data vendors (docs/vendors.md): declarative mappings
//! that connect a commercial data API without Rust ([`mapping`], jq
//! [`filter`]s), each vendor with its key, rate limit and circuit
//! [`breaker`] ([`vendor`]), and the `upstream:<vendor>` sources that source
//! chains put after or instead of the content store ([`chain`]).

pub mod breaker;
pub mod cache;
pub mod chain;
pub mod filter;
pub mod mapping;
pub mod metrics;
pub mod packs;
pub mod routes;
pub mod settings;
pub mod single_flight;
pub mod vendor;

pub use vendor::Vendor;
