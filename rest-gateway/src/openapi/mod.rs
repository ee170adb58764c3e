//! The OpenAPI 3.1 document of the REST API (docs/openapi.md), generated
//! once at start-up from the same descriptors as the catalogs and the route
//! table, and its docs page. Public routes, no key needed:
//!
//! - `GET /openapi.json`, `GET /openapi.yaml`: the document, with `ETag`,
//!   `Cache-Control` and `304` on `If-None-Match`;
//! - `GET /docs`: Swagger UI on that document, served from the binary.
//!
//! docs/openapi.md describes the document's rules (operationIds, aliases,
//! error statuses, extensions).

pub mod components;
pub mod docs_page;
pub mod document;
pub mod paths;
pub mod static_answer;
pub mod statuses;

use axum::Router;
use axum::http::HeaderMap;
use axum::routing::get;
use prost_reflect::DescriptorPool;

use static_answer::{REVALIDATE, StaticAnswer};

/// The public routes of the document and the docs page for `pool`.
///
/// # Errors
/// A route table that cannot be built, a document that cannot be written
/// as YAML.
pub fn router(pool: &DescriptorPool) -> anyhow::Result<Router> {
    let document = document::document(pool)?;
    let json = StaticAnswer::new(serde_json::to_vec(&document)?, "application/json", REVALIDATE);
    let yaml = StaticAnswer::new(serde_norway::to_string(&document)?, "application/yaml", REVALIDATE);
    tracing::debug!(json_bytes = json.len(), yaml_bytes = yaml.len(), "OpenAPI document built");
    Ok(Router::new()
        .route("/openapi.json", get(move |headers: HeaderMap| async move { json.respond(&headers) }))
        .route("/openapi.yaml", get(move |headers: HeaderMap| async move { yaml.respond(&headers) }))
        .merge(docs_page::router()))
}
