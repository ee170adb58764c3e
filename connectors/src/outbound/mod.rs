//! Everything the core sends out of the process (docs/outbound.md).
//!
//! - [`ConnectorClient`]: the client of one *configured* upstream (images
//!   API, WeChat, search engine, vendor): base URL from config, timeouts,
//!   bounded retries with backoff for idempotent requests only.
//! - [`GuardedFetcher`]: the only way to fetch a link a *caller* supplied
//!   (a share link, a reference image): http/https only, refused address
//!   classes checked before connecting, at connect time and on every
//!   redirect, body and time caps, an allow-list from config.
//! - [`OutboundError`]: both sides' failures; [`OutboundError::to_service_error`]
//!   makes the 400 (bad link, naming its field) or the 502
//!   `upstream_unavailable` (with `error.upstream`) the handlers return.
//!
//! Settings: `[outbound]`, `MEDIAOPS_OUTBOUND__…` ([`OutboundSettings`]).

pub mod body;
pub mod connector;
pub mod error;
pub mod fetch;
pub mod policy;
pub mod resolve;
pub mod settings;

pub use connector::{ConnectorClient, Retry};
pub use error::OutboundError;
pub use fetch::{FetchLimits, FetchedBody, GuardedFetcher};
pub use policy::{AddressPolicy, Refusal, refused_class};
pub use resolve::{NameResolver, SystemResolver};
pub use settings::OutboundSettings;
