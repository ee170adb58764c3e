//! The axum application: one route per RPC `http` option (plus aliases),
//! `GET /healthz`, and JSON envelopes for unknown paths (404) and wrong
//! methods (405).

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use mediaops_proto::error_code::ErrorCode;
use serde_json::json;

use crate::call::{self, PathParams};
use crate::core_client::CoreClient;
use crate::envelope::{self, ApiError};
use crate::routes::routes;

/// State shared by every request.
pub struct AppState {
    pub core: CoreClient,
    /// Required fields by message full name.
    pub required: crate::transcode::decode::RequiredTable,
    pub max_body_bytes: usize,
}

/// Builds the router over `core`.
pub fn router(core: CoreClient, max_body_bytes: usize) -> anyhow::Result<Router> {
    let pool = mediaops_proto::descriptor_pool();
    let state = Arc::new(AppState { core, required: mediaops_proto::options::required_fields(pool), max_body_bytes });
    let mut by_path: HashMap<String, MethodRouter> = HashMap::new();
    for route in routes(pool)? {
        let route = Arc::new(route);
        let method = route.method.clone();
        let path = route.path.clone();
        let state = state.clone();
        let handler = move |params: Option<PathParams>, request: axum::extract::Request| {
            call::handle(state.clone(), route.clone(), params, request)
        };
        let entry = by_path.remove(&path).unwrap_or_default();
        let entry = match method {
            Method::GET => entry.get(handler),
            Method::PUT => entry.put(handler),
            _ => entry.post(handler),
        };
        by_path.insert(path, entry);
    }
    let mut router = Router::new();
    for (path, methods) in by_path {
        router = router.route(&path, methods);
    }
    let health_state = state.clone();
    Ok(router
        .route("/healthz", get(move || healthz(health_state.clone())))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::disable()))
}

/// Serves `router` on `listener` with the port limits of `limits`
/// (`mediaops_listener::serve`: connection cap, header/body/idle timeouts)
/// until `shutdown` resolves; in-flight requests then finish within
/// `limits.shutdown_grace_secs`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: &mediaops_listener::ListenerSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    mediaops_listener::serve(listener, router, limits, "REST", shutdown).await?;
    Ok(())
}

/// `GET /healthz`: 200 `{status: "ok", core: "serving"}` when the core
/// answers its health check, else 503 with the reason. Needs no key.
async fn healthz(state: Arc<AppState>) -> Response {
    let check = tokio::time::timeout(std::time::Duration::from_secs(2), state.core.health()).await;
    match check {
        Ok(Ok(status)) if status == tonic_health::pb::health_check_response::ServingStatus::Serving => {
            (StatusCode::OK, axum::Json(json!({"status": "ok", "core": "serving"}))).into_response()
        }
        Ok(Ok(status)) => {
            (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({"status": "degraded", "core": status.as_str_name()})))
                .into_response()
        }
        Ok(Err(e)) => (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({"status": "degraded", "core": e.message()})))
            .into_response(),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({"status": "degraded", "core": "timeout"})))
            .into_response(),
    }
}

async fn not_found(request: axum::extract::Request) -> Response {
    let request_id = envelope::request_id(request.headers());
    let error =
        ApiError::new(ErrorCode::NotFound, format!("no operation at {} {}", request.method(), request.uri().path()));
    envelope::failure(&request_id, &error)
}

async fn method_not_allowed(request: axum::extract::Request) -> Response {
    let request_id = envelope::request_id(request.headers());
    let error = ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{} is not allowed on {}", request.method(), request.uri().path()),
    );
    envelope::failure(&request_id, &error)
}
