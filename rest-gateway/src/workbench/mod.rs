//! The web workbench (docs/workbench.md), served by the gateway on the REST port: `GET /`
//! (the app's page), `GET /assets/…` (its hashed, embedded files) and
//! `GET /workbench/routes.json` (each operation's REST route and gRPC
//! method, for building calls and "copy as curl/grpcurl"). Everything else
//! the app shows comes from the catalogs (spec 2.2-2.4). None of these
//! need a key: the app asks for one and sends it on its API calls.

mod assets;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::routes::Route;

/// `Cache-Control` of hashed assets: their names change with their content.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The workbench routes, for the operations of `routes` (the REST route
/// table; the first path of an operation is its primary one).
///
/// # Errors
/// The embedded files are inconsistent (`assets::Assets::load`).
pub fn router(routes: &[Arc<Route>]) -> anyhow::Result<Router> {
    let assets = Arc::new(assets::Assets::load()?);
    let index_assets = assets.clone();
    let table = Arc::new(routes_json(routes).to_string());
    Ok(Router::new()
        .route("/", get(move || index(index_assets.clone())))
        .route("/assets/{*path}", get(move |request: Request| asset(assets.clone(), request)))
        .route("/workbench/routes.json", get(move || routes_table(table.clone()))))
}

async fn index(assets: Arc<assets::Assets>) -> Response {
    let mut response = axum::response::Html(assets.index.clone()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(csp) = HeaderValue::from_str(&assets.csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

async fn asset(assets: Arc<assets::Assets>, request: Request) -> Response {
    let Some(file) = assets.get(request.uri().path()) else {
        return crate::state::not_found(request).await;
    };
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(file.content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE)),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        ],
        file.bytes,
    )
        .into_response()
}

async fn routes_table(table: Arc<String>) -> Response {
    ([(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-cache")], table.as_str().to_owned())
        .into_response()
}

/// `{routes: {operationKey: {method, path, bodyField, grpcMethod}}}`:
/// the primary route of every operation; `bodyField` is the JSON name of
/// the request field the body fills, or null when the body is the whole
/// request; `grpcMethod` is `package.Service/Method` (grpcurl's syntax).
fn routes_json(routes: &[Arc<Route>]) -> serde_json::Value {
    let mut table = BTreeMap::new();
    for route in routes {
        table.entry(route.operation_key.clone()).or_insert_with(|| {
            json!({
                "method": route.method.as_str(),
                "path": route.path,
                "bodyField": route.body_field.as_ref().map(|f| f.json_name().to_owned()),
                "grpcMethod": route.grpc_path.trim_start_matches('/'),
            })
        });
    }
    json!({ "routes": table })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_its_primary_route() {
        let routes: Vec<_> =
            crate::routes::routes(mediaops_proto::descriptor_pool()).unwrap().into_iter().map(Arc::new).collect();
        let table = routes_json(&routes);
        let charter = &table["routes"]["ip-profile.charter.put"];
        assert_eq!(charter["method"], "PUT");
        assert_eq!(charter["path"], "/api/ip-profile/{id}/charter");
        assert_eq!(charter["bodyField"], "charter");
        assert_eq!(charter["grpcMethod"], "mediaops.charter.v1.CharterService/PutCharter");
        let keys: std::collections::BTreeSet<_> = routes.iter().map(|r| r.operation_key.as_str()).collect();
        assert_eq!(table["routes"].as_object().unwrap().len(), keys.len());
    }
}
