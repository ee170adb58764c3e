//! The axum application: one route per RPC `http` option (plus aliases),
//! `POST /mcp` (the MCP server, [`crate::mcp`]), `GET /healthz` (liveness),
//! `GET /readyz` (readiness), `GET /openapi.json`, `/openapi.yaml` and
//! `/docs` ([`crate::openapi`]), the workbench ([`crate::workbench`]: `/`,
//! `/assets/…`), the Atom feeds ([`crate::feeds`]), and JSON envelopes
//! for unknown paths (404) and wrong methods (405), wrapped in the HTTP
//! layers of [`crate::middleware`] (trace, CORS, timeout, compression, ETag).

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
use crate::routes::{Route, routes};
pub use crate::state::AppState;
use crate::state::not_found;
use mediaops_listener::Draining;

/// Builds the router over `core` with the layers `settings` configure
/// (`max_body_bytes`, `cors_origins`, `request_timeout_secs`); `draining`
/// is the stop state [`serve`] marks (pass the same one).
///
/// # Errors
/// A bad `cors_origins` ([`crate::middleware::cors`]).
pub fn router(core: CoreClient, settings: &crate::GatewaySettings, draining: Draining) -> anyhow::Result<Router> {
    let max_body_bytes = settings.max_body_bytes;
    let pool = mediaops_proto::descriptor_pool();
    let rules = mediaops_proto::options::FieldRules::from_pool(pool);
    let state = Arc::new(AppState { core, rules, max_body_bytes, draining });
    let routes: Vec<Arc<Route>> = routes(pool)?.into_iter().map(Arc::new).collect();
    let tools = Arc::new(crate::mcp::tools::ToolTable::build(pool, &routes)?);
    let mut by_path: HashMap<String, MethodRouter> = HashMap::new();
    let workbench = crate::workbench::router(&routes)?;
    for route in routes {
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
            Method::DELETE => entry.delete(handler),
            _ => entry.post(handler),
        };
        by_path.insert(path, entry);
    }
    let mut router = Router::new();
    for (path, methods) in by_path {
        router = router.route(&path, methods);
    }
    // Only the operation routes are tagged (route_layer: before the
    // probes and fallbacks are added).
    router = router.route_layer(crate::etag::ETagLayer);
    router = router.merge(crate::mcp::router(state.clone(), tools));
    // The public document and its docs page (docs/openapi.md).
    router = router.merge(crate::openapi::router(pool)?);
    let ready_state = state.clone();
    let routed = router
        .merge(workbench)
        .route("/healthz", get(healthz))
        .route("/api/feeds/hotlists/{file}", get(crate::feeds::hotlist).with_state(state.clone()))
        .route("/readyz", get(move || readyz(ready_state.clone())))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Handlers turned into routes once (as `mediaops_listener::serve`
        // does for the outer router): called as a service, a router would
        // otherwise box the matched handler on every request.
        .with_state(());
    let timeout = std::time::Duration::from_secs(settings.request_timeout_secs);
    // The layers wrap the router once, outermost first, rather than each
    // route (`Router::layer` boxes every layer around every route, and a
    // call then clones and boxes each of them again: docs/performance.md
    // "The point cache's check through SQLite's mapping, the layers around
    // the router"), each a plain tower service ("Plain tower layers").
    // Compression is inside the ETag marking, the timeout inside both (its
    // 408 is the router's body type then, and answers are compressed after
    // their future resolves, so the timeout covers the same work), all
    // inside CORS and the span.
    let layered = tower::ServiceBuilder::new()
        .layer(
            tower_http::trace::TraceLayer::new_for_http().make_span_with(crate::middleware::make_span).on_failure(()),
        )
        .option_layer(crate::middleware::cors(&settings.cors_origins)?)
        .map_response(crate::etag::mark_encoding)
        .layer(crate::middleware::CompressionLayer::new())
        .layer(crate::middleware::TimeoutLayer::new(timeout))
        .layer(axum::extract::DefaultBodyLimit::disable())
        // `GET /api/watchlists/{id}.atom` is a feed, served before the
        // watch-list route (and outside its ETag layer: the feed has its
        // own validators).
        .layer(crate::feeds::WatchlistFeedLayer::new(state))
        .service(routed);
    // Still a `Router` for the listener and the tests: one route, the stack.
    Ok(Router::new().fallback_service(layered))
}

/// Serves `router` on `listener` with the port limits of `limits`
/// (`mediaops_listener::serve`: connection cap, header/body/idle timeouts)
/// until `shutdown` resolves; then `/readyz` answers 503 (`draining`) while
/// the port still accepts for `limits.shutdown_notice_secs`, and in-flight
/// requests finish within `limits.shutdown_grace_secs`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: &mediaops_listener::ListenerSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
    draining: &Draining,
) -> anyhow::Result<()> {
    mediaops_listener::serve(listener, router, limits, "REST", shutdown, draining).await?;
    Ok(())
}

/// The split-deployment gateway (`mediaops gateway`, `rest-gateway`): binds
/// `settings.rest_addr`, calls the cores of `settings.core_addr`
/// ([`CoreClient::connect`]) and serves until SIGINT/SIGTERM, then drains.
/// Prints the listening line on stdout.
///
/// # Errors
/// A bad `core_addr`, a port that cannot be bound.
pub async fn run(settings: &crate::GatewaySettings) -> anyhow::Result<()> {
    let client = CoreClient::connect(&settings.core_addr, settings.core_refresh(), settings.core_transport)?;
    let draining = Draining::new();
    let router = router(client, settings, draining.clone())?;
    let listener = mediaops_listener::bind(&settings.rest_addr, &settings.listener, "MEDIAOPS_REST_ADDR").await?;
    println!("REST  listening on http://{} (cores {})", listener.local_addr()?, settings.core_addr);
    serve(listener, router, &settings.listener, mediaops_listener::shutdown_signal(), &draining).await
}

/// How long `/readyz` waits for the core's health answers.
const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// `GET /healthz`, liveness: 200 `{status: "ok"}` while this process
/// serves HTTP, whatever its dependencies say (docs/errors.md "Liveness and
/// readiness"). Needs no key.
async fn healthz() -> Response {
    (StatusCode::OK, axum::Json(json!({"status": "ok"}))).into_response()
}

/// `GET /readyz`, readiness: 200 `{status: "ready"}` when the core answers
/// `grpc.health.v1` SERVING for `""`; else 503 `{status: "not_ready",
/// down: [...]}` naming what is down: `gateway` (this gateway is stopping),
/// `core` (unreachable or no answer in 2 s) or the core's dependencies
/// `ledger` and/or `store` ([`mediaops_proto::readiness`]). Needs no key.
async fn readyz(state: Arc<AppState>) -> Response {
    let not_ready = |down: Vec<&str>| {
        (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({"status": "not_ready", "down": down}))).into_response()
    };
    if state.draining.is_draining() {
        return not_ready(vec!["gateway"]);
    }
    let serving = tonic_health::pb::health_check_response::ServingStatus::Serving;
    match tokio::time::timeout(READY_TIMEOUT, state.core.health()).await {
        Ok(Ok(status)) if status == serving => (StatusCode::OK, axum::Json(json!({"status": "ready"}))).into_response(),
        Ok(Ok(_)) => {
            let mut down = Vec::new();
            for (name, service) in mediaops_proto::readiness::DEPENDENCIES {
                let status = tokio::time::timeout(READY_TIMEOUT, state.core.health_of(service)).await;
                if !matches!(status, Ok(Ok(s)) if s == serving) {
                    down.push(name);
                }
            }
            not_ready(down)
        }
        Ok(Err(_)) | Err(_) => not_ready(vec!["core"]),
    }
}

async fn method_not_allowed(request: axum::extract::Request) -> Response {
    let request_id = envelope::request_id(request.headers());
    let error = ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{} is not allowed on {}", request.method(), request.uri().path()),
    );
    envelope::failure(&request_id, &error)
}
