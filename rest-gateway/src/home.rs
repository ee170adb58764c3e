//! `GET /`: a plain page pointing at the API reference, the OpenAPI
//! document and the probes. Placeholder until the web workbench (issue 18)
//! takes `/` over; this module is all it replaces.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

/// The page, with the service's version.
fn page() -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>mediaops</title><link rel="icon" href="data:,"></head>
<body>
<h1>mediaops {version}</h1>
<p>Data, trend and skill service for Chinese new-media operations teams. The web workbench is not built yet;
this port serves the REST API (every call takes <code>Authorization: Bearer &lt;API key&gt;</code>).</p>
<ul>
<li><a href="docs">API reference</a> (<code>/docs</code>)</li>
<li><a href="openapi.json">OpenAPI document</a> (<code>/openapi.json</code>, also <a href="openapi.yaml">YAML</a>)</li>
<li><a href="healthz">Liveness</a> (<code>/healthz</code>) and <a href="readyz">readiness</a> (<code>/readyz</code>)</li>
</ul>
</body>
</html>
"#,
        version = env!("CARGO_PKG_VERSION")
    )
}

/// The route of `/`.
pub fn router() -> Router {
    let page = page();
    Router::new().route(
        "/",
        get(move || {
            let page = page.clone();
            async move { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response() }
        }),
    )
}
