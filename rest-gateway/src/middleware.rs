//! The HTTP layers around the gateway's router (docs/http.md), outermost first: the trace span (with a client's W3C
//! trace id), CORS, [`crate::etag::mark_encoding`], gzip/br compression, the
//! whole-request timeout; the watch-list feeds and the ETag layer sit inside
//! ([`crate::feeds`], [`crate::etag`]).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method};
use axum::response::Response;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::keys::header as keys;
use mediaops_proto::{idempotency, rate_limit, request_id};
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
/// the request's `Accept-Encoding` (tower-http's compression with its
/// default predicate, which keeps images, gRPC and event streams
/// uncompressed). A request without `Accept-Encoding` goes past it: the
/// answer could not be compressed anyway, and tower-http's body type is
/// 5.8 KB, moved at every layer outside it; a compressed (or compressible)
/// answer's body is boxed as it leaves, so the layers outside move a
/// pointer (docs/performance.md "The compression body").
#[derive(Clone, Copy, Debug, Default)]
pub struct CompressionLayer;

impl CompressionLayer {
    /// The layer.
    pub fn new() -> Self {
        Self
    }
}

/// tower-http's compression with our predicate.
type Compressing<S> = tower_http::compression::Compression<S, CompressWhen>;

/// The predicate: tower-http's default and [`COMPRESS_ABOVE_BYTES`].
type CompressWhen = tower_http::compression::predicate::And<DefaultPredicate, SizeAbove>;

impl<S: Clone> tower::Layer<S> for CompressionLayer {
    type Service = Compression<S>;

    fn layer(&self, inner: S) -> Compression<S> {
        let when = DefaultPredicate::new().and(SizeAbove::new(COMPRESS_ABOVE_BYTES));
        let compressing = tower_http::compression::CompressionLayer::new().compress_when(when);
        Compression { compressing: tower::Layer::layer(&compressing, inner.clone()), inner }
    }
}

/// The service of [`CompressionLayer`] around `S`.
#[derive(Clone)]
pub struct Compression<S> {
    /// `S` for requests without `Accept-Encoding`.
    inner: S,
    /// `S` behind tower-http's compression.
    compressing: Compressing<S>,
}

/// A compressed answer's future, its body boxed.
type Compressed<S> = futures_util::future::MapOk<
    <Compressing<S> as tower::Service<Request>>::Future,
    fn(axum::http::Response<tower_http::compression::CompressionBody<axum::body::Body>>) -> Response,
>;

impl<S> tower::Service<Request> for Compression<S>
where
    S: tower::Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = futures_util::future::Either<Compressed<S>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        match self.inner.poll_ready(cx) {
            Poll::Ready(Ok(())) => self.compressing.poll_ready(cx),
            other => other,
        }
    }

    fn call(&mut self, request: Request) -> Self::Future {
        use futures_util::TryFutureExt;
        if !request.headers().contains_key(axum::http::header::ACCEPT_ENCODING) {
            return futures_util::future::Either::Right(self.inner.call(request));
        }
        let boxed: fn(axum::http::Response<_>) -> Response = |response| response.map(axum::body::Body::new);
        futures_util::future::Either::Left(self.compressing.call(request).map_ok(boxed))
    }
}

/// The whole-request timeout layer (the limit being
/// `MEDIAOPS_REQUEST_TIMEOUT_SECS`): a request not answered in time gets the
/// 408 `request_timeout` envelope (docs/errors.md), the same code as a body
/// that arrives too slowly; the inner future is dropped. Own code rather
/// than `tower_http::timeout`, whose 408 has no envelope. It also gives a
/// request without an acceptable `X-Request-Id` its id, in the request's
/// headers, so everything inside reads the same one (docs/http.md
/// "Whole-request timeout").
///
/// A plain tower service: its future is the inner one beside a timer, not
/// a boxed `async` block (docs/performance.md "Plain tower layers").
#[derive(Clone, Copy, Debug)]
pub struct TimeoutLayer {
    limit: Duration,
}

impl TimeoutLayer {
    /// A request gets `limit` to be answered (its body streamed after that
    /// is not timed here: the listener's idle timeout covers it).
    pub fn new(limit: Duration) -> Self {
        Self { limit }
    }
}

impl<S> tower::Layer<S> for TimeoutLayer {
    type Service = Timeout<S>;

    fn layer(&self, inner: S) -> Timeout<S> {
        Timeout { inner, limit: self.limit }
    }
}

/// The service of [`TimeoutLayer`] around `S`.
#[derive(Clone, Debug)]
pub struct Timeout<S> {
    inner: S,
    limit: Duration,
}

impl<S, B> tower::Service<axum::http::Request<B>> for Timeout<S>
where
    S: tower::Service<axum::http::Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = TimeoutFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: axum::http::Request<B>) -> Self::Future {
        // One id for the whole request: a request without an acceptable id
        // of its own gets it here, in its headers, so the handler, the
        // core's usage record and this layer's 408 all carry the same one.
        let given = request.headers().get(keys::REQUEST_ID).and_then(|v| v.to_str().ok());
        let request_id = request_id::accept_or_new(given);
        if given != Some(request_id.as_str())
            && let Ok(value) = HeaderValue::from_str(&request_id)
        {
            request.headers_mut().insert(keys::REQUEST_ID, value);
        }
        TimeoutFuture {
            inner: self.inner.call(request),
            timer: tokio::time::sleep(self.limit),
            limit: self.limit,
            request_id,
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Timeout`]: the inner answer, or the 408 envelope
    /// once `timer` fires first.
    pub struct TimeoutFuture<F> {
        #[pin]
        inner: F,
        #[pin]
        timer: tokio::time::Sleep,
        limit: Duration,
        request_id: String,
    }
}

impl<F, E> Future for TimeoutFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(answer) = this.inner.poll(cx) {
            return Poll::Ready(answer);
        }
        if this.timer.poll(cx).is_pending() {
            return Poll::Pending;
        }
        let (request_id, secs) = (this.request_id.as_str(), this.limit.as_secs());
        // The request's span (`make_span`) gives the method and path.
        tracing::warn!(request_id, secs, "request timed out");
        let message = format!(
            "the request was not answered within MEDIAOPS_REQUEST_TIMEOUT_SECS ({secs} s); retry with the same \
             Idempotency-Key to learn its outcome"
        );
        Poll::Ready(Ok(envelope::failure(request_id, &ApiError::new(ErrorCode::RequestTimeout, message))))
    }
}

/// The span of one request (`TraceLayer::make_span_with`): method, path,
/// and the client's W3C trace id when its `traceparent` is well-formed
/// ([`crate::traceparent`]); a request without one (or with a malformed
/// one) has no `trace_id` field in its span, rather than an empty one.
pub fn make_span(request: &Request) -> tracing::Span {
    let span = tracing::info_span!(
        "http",
        method = %request.method(),
        path = request.uri().path(),
        trace_id = tracing::field::Empty,
    );
    if let Some(parent) = crate::traceparent::from_headers(request.headers()).and_then(crate::traceparent::parse) {
        span.record("trace_id", parent.trace_id);
    }
    span
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
            .layer(TimeoutLayer::new(Duration::from_millis(50)));
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
