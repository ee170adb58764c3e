//! The HTTP layers around the gateway's router (docs/http.md), outermost first: the trace span (with a client's W3C
//! trace id), CORS, the whole-request timeout, [`crate::etag::mark_encoding`],
//! gzip/br compression; the ETag layer sits inside, on the operation routes.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::{idempotency, rate_limit, request_id};
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, Predicate, SizeAbove};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::envelope::{self, ApiError};

/// Answers smaller than this many bytes are sent uncompressed.
pub const COMPRESS_ABOVE_BYTES: u16 = 1024;

/// Request headers a browser may send cross-origin; `mcp-protocol-version`
/// for browser MCP clients of `POST /mcp` (the server keeps no session, so
/// no `mcp-session-id`; docs/mcp.md).
const ALLOWED_HEADERS: [&str; 5] =
    ["authorization", "content-type", idempotency::HEADER, request_id::HEADER, "mcp-protocol-version"];

/// Response headers a cross-origin script may read.
const EXPOSED_HEADERS: [&str; 6] = [
    request_id::HEADER,
    rate_limit::RETRY_AFTER,
    rate_limit::STATE,
    rate_limit::POLICY,
    idempotency::REPLAYED_METADATA,
    "etag",
];

/// The CORS layer for `origins` (`MEDIAOPS_CORS_ORIGINS`): exact origins,
/// comma-separated, or `*`. `None` for an empty list: no CORS headers at
/// all. Preflight `OPTIONS` requests are answered for GET, POST and PUT
/// with `ALLOWED_HEADERS`, cached by the browser for 10 minutes.
///
/// # Errors
/// An entry that is not an origin (`scheme://host[:port]`, http or https,
/// lower case, no path), or `*` listed with other origins; the message names
/// `MEDIAOPS_CORS_ORIGINS`.
pub fn cors(origins: &str) -> anyhow::Result<Option<CorsLayer>> {
    let list: Vec<&str> = origins.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if list.is_empty() {
        return Ok(None);
    }
    let allow = if list == ["*"] {
        AllowOrigin::any()
    } else {
        let mut values = Vec::new();
        for origin in list {
            values.push(origin_value(origin).map_err(|why| {
                anyhow::anyhow!("MEDIAOPS_CORS_ORIGINS (cors_origins): {origin:?} is not an origin: {why}")
            })?);
        }
        AllowOrigin::list(values)
    };
    let names = |list: &[&'static str]| list.iter().map(|n| HeaderName::from_static(n)).collect::<Vec<_>>();
    Ok(Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
            .allow_headers(names(&ALLOWED_HEADERS))
            .expose_headers(names(&EXPOSED_HEADERS))
            .max_age(Duration::from_secs(600)),
    ))
}

/// `origin` as a header value, if it is the exact `scheme://host[:port]` a
/// browser sends.
fn origin_value(origin: &str) -> Result<HeaderValue, &'static str> {
    if origin == "*" {
        return Err("`*` cannot be listed with other origins");
    }
    let uri: axum::http::Uri = origin.parse().map_err(|_| "not a URI")?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err("an origin is scheme://host[:port]");
    };
    if !matches!(scheme, "http" | "https") {
        return Err("the scheme must be http or https");
    }
    if origin != format!("{scheme}://{authority}") || authority.as_str().contains('@') {
        return Err("an origin has no path, query, user or trailing slash");
    }
    if origin.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err("browsers send origins in lower case");
    }
    HeaderValue::from_str(origin).map_err(|_| "not a header value")
}

/// gzip and br compression of answers above [`COMPRESS_ABOVE_BYTES`], by
/// the request's `Accept-Encoding` (tower-http's default predicate keeps
/// images, gRPC and event streams uncompressed).
pub fn compression() -> CompressionLayer<impl Predicate> {
    CompressionLayer::new().compress_when(DefaultPredicate::new().and(SizeAbove::new(COMPRESS_ABOVE_BYTES)))
}

/// The whole-request timeout (`axum::middleware::from_fn_with_state`, the
/// state being `MEDIAOPS_REQUEST_TIMEOUT_SECS`): a request not answered in
/// time gets the 408 `request_timeout` envelope (docs/errors.md), the same
/// code as a body that arrives too slowly; the handler's future is dropped.
/// Own code rather than `tower_http::timeout`, whose 408 has no envelope.
/// It also gives a request without an acceptable `X-Request-Id` its id, in
/// the request's headers, so everything inside reads the same one
/// (docs/http.md "Whole-request timeout").
pub async fn timeout(State(limit): State<Duration>, mut request: Request, next: Next) -> Response {
    // One id for the whole request: a request without an acceptable id of
    // its own gets it here, in its headers, so the handler, the core's
    // usage record and this layer's 408 all carry the same one.
    let request_id = envelope::request_id(request.headers());
    let given = request.headers().get(request_id::HEADER).and_then(|v| v.to_str().ok());
    if given != Some(request_id.as_str())
        && let Ok(value) = HeaderValue::from_str(&request_id)
    {
        request.headers_mut().insert(request_id::HEADER, value);
    }
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            // The request's span (`make_span`) gives the method and path.
            tracing::warn!(request_id, secs = limit.as_secs(), "request timed out");
            let message = format!(
                "the request was not answered within MEDIAOPS_REQUEST_TIMEOUT_SECS ({} s); retry with the same \
                 Idempotency-Key to learn its outcome",
                limit.as_secs()
            );
            envelope::failure(&request_id, &ApiError::new(ErrorCode::RequestTimeout, message))
        }
    }
}

/// The span of one request (`TraceLayer::make_span_with`): method, path,
/// and the client's W3C trace id when its `traceparent` is well-formed
/// ([`crate::traceparent`]); a malformed one is ignored.
pub fn make_span(request: &Request) -> tracing::Span {
    let trace_id = crate::traceparent::from_headers(request.headers())
        .and_then(crate::traceparent::parse)
        .map(|parent| parent.trace_id);
    tracing::info_span!(
        "http",
        method = %request.method(),
        path = request.uri().path(),
        trace_id = trace_id.unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_checked() {
        assert!(cors("").unwrap().is_none());
        assert!(cors(" , ").unwrap().is_none());
        assert!(cors("*").unwrap().is_some());
        assert!(cors("https://app.example.com, http://localhost:5173").unwrap().is_some());
        for bad in ["https://app.example.com/", "app.example.com", "ftp://x.org", "https://X.org", "*,https://a.org"] {
            let error = cors(bad).unwrap_err().to_string();
            assert!(error.contains("MEDIAOPS_CORS_ORIGINS"), "{bad}: {error}");
        }
    }

    /// The 408 of a request that came without an id carries the id its
    /// handler saw (and so its log lines and usage record), not another.
    #[tokio::test]
    async fn a_timed_out_request_keeps_the_one_id_its_handler_saw() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
        let kept = seen.clone();
        let router = axum::Router::new()
            .route(
                "/slow",
                axum::routing::get(move |headers: axum::http::HeaderMap| async move {
                    *kept.lock().unwrap() = Some(envelope::request_id(&headers));
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }),
            )
            .layer(axum::middleware::from_fn_with_state(Duration::from_millis(50), timeout));
        let request = Request::builder().uri("/slow").body(axum::body::Body::empty()).unwrap();
        let answer = tower::ServiceExt::oneshot(router, request).await.unwrap();
        assert_eq!(answer.status(), 408);
        let body = axum::body::to_bytes(answer.into_body(), usize::MAX).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let handler_id = seen.lock().unwrap().clone().expect("the handler ran");
        assert_eq!(body["requestId"], handler_id.as_str(), "{body}");
        assert_eq!(body["error"]["code"], "request_timeout");
    }
}
