//! What every handler shares, below the router ([`crate::server`]) and the
//! handlers it mounts (`call`, `feeds`, `mcp`, `workbench`): the
//! [`AppState`] and the 404 envelope.

use axum::response::Response;
use mediaops_listener::Draining;
use mediaops_proto::error_code::ErrorCode;

use crate::core_client::CoreClient;
use crate::envelope::{self, ApiError};

/// State shared by every request.
pub struct AppState {
    /// The gRPC client of the core(s).
    pub core: CoreClient,
    /// Required fields and string limits of every message.
    pub rules: crate::transcode::decode::FieldRules,
    /// Largest request body accepted (413 above).
    pub max_body_bytes: usize,
    /// Set once the gateway begins to stop: `/readyz` answers 503.
    pub draining: Draining,
}

/// The 404 envelope for a path nothing serves.
pub(crate) async fn not_found(request: axum::extract::Request) -> Response {
    let request_id = envelope::request_id(request.headers());
    let error =
        ApiError::new(ErrorCode::NotFound, format!("no operation at {} {}", request.method(), request.uri().path()));
    envelope::failure(&request_id, &error)
}
