//! The mediaops core (ARCHITECTURE.md, docs/architecture.md): the
//! composition root. [`server::Core`] builds every operation of
//! `mediaops-ops` and `mediaops-connectors` into the registry and call
//! pipeline of `mediaops-platform`, over the stores of `mediaops-store`, and
//! serves them on one gRPC server; [`settings`] reads the configuration.
//!
//! It re-exports nothing of the lower crates: every item is named by its
//! owning crate (`mediaops_store`, `mediaops_platform::billing`, …;
//! docs/architecture.md "Crates").

pub mod server;
pub mod settings;

pub use server::Core;
pub use settings::CoreSettings;
