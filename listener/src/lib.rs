//! How both mediaops ports serve (docs/errors.md "Limits of a request"): the REST gateway's port and the
//! core's gRPC port share this one listener, so a slow or idle client can
//! neither hold a connection forever nor exhaust the process's file
//! descriptors, and SIGINT/SIGTERM drain in-flight calls before exit.
//!
//! - [`bind`]: a server port, shared with other processes when
//!   [`ListenerSettings::reuse_port`] says so.
//! - [`serve`]: an axum router on a `TcpListener` with a connection cap,
//!   header/body/idle timeouts and a graceful drain ([`ListenerSettings`]).
//! - [`shutdown_signal`]: resolves on SIGINT or SIGTERM.
//! - [`Draining`]: the notice phase of a stop, which readiness reports.
//! - [`delivery`]: whether an answer was written to the transport, for a
//!   handler that puts a [`WhenWritten`] in its response.
//! - [`body_timeout`]: tells a too-slow request body from other body errors
//!   (the gateway answers it with 408 `request_timeout`).

mod bind;
mod body;
pub mod config_file;
mod connection;
pub mod delivery;
mod draining;
mod serve;
pub mod settings;
mod signal;
pub mod unknown_keys;

pub use bind::bind;
pub use body::{BodyTimeout, body_timeout};
pub use config_file::ConfigFile;
pub use delivery::{Watching, WhenWritten};
pub use draining::Draining;
pub use serve::serve;
pub use settings::ListenerSettings;
pub use signal::shutdown_signal;
