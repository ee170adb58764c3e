//! `GET /docs`: a browsable reference of the OpenAPI document, rendered by Swagger UI vendored from the npm package
//! `swagger-ui-dist` (`rest-gateway/assets/swagger-ui/README.md`: version,
//! licence, checksums) and embedded in the binary, so no CDN is needed at
//! run time. Every URL the page loads is relative to this origin, and a
//! `Content-Security-Policy` keeps the browser from fetching anything
//! elsewhere (no validator badge, no fonts, no telemetry).

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;

use super::static_answer::{IMMUTABLE, REVALIDATE, StaticAnswer};

/// The vendored Swagger UI release (`rest-gateway/assets/swagger-ui/README.md`).
pub const SWAGGER_UI_VERSION: &str = "5.35.0";

/// Where the assets are served: the version is in the path, so they are
/// cached for a year.
pub fn assets_path() -> String {
    format!("/docs/assets/swagger-ui-{SWAGGER_UI_VERSION}")
}

/// What the page may load: only this origin; inline styles, which Swagger
/// UI sets on elements; `data:` images (its icons).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' \
    'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'";

/// The routes of the page and its assets.
pub fn router() -> Router {
    let page = StaticAnswer::new(
        include_str!("../../assets/docs.html").replace("{{SWAGGER_UI}}", &format!("swagger-ui-{SWAGGER_UI_VERSION}")),
        "text/html; charset=utf-8",
        REVALIDATE,
    );
    let assets = [
        (
            "swagger-ui-bundle.js",
            asset(include_bytes!("../../assets/swagger-ui/swagger-ui-bundle.js"), "text/javascript"),
        ),
        ("swagger-ui.css", asset(include_bytes!("../../assets/swagger-ui/swagger-ui.css"), "text/css")),
        ("init.js", asset(include_bytes!("../../assets/docs-init.js"), "text/javascript")),
        ("LICENSE", asset(include_bytes!("../../assets/swagger-ui/LICENSE"), "text/plain; charset=utf-8")),
        ("NOTICE", asset(include_bytes!("../../assets/swagger-ui/NOTICE"), "text/plain; charset=utf-8")),
    ];
    let mut router = Router::new()
        .route("/docs", get(move |headers: HeaderMap| async move { with_policy(page.respond(&headers)) }))
        // Relative links need the page at `/docs`: `/docs/` goes there.
        .route("/docs/", get(|| async { Redirect::permanent("../docs") }));
    let base = assets_path();
    for (name, answer) in assets {
        router = router
            .route(&format!("{base}/{name}"), get(move |headers: HeaderMap| async move { answer.respond(&headers) }));
    }
    router
}

fn asset(bytes: &'static [u8], content_type: &'static str) -> StaticAnswer {
    StaticAnswer::new(bytes, content_type, IMMUTABLE)
}

fn with_policy(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    response.into_response()
}
