//! The Atom feeds over HTTP (docs/watchlists.md "Feeds"):
//! `GET /api/feeds/hotlists/{source}.atom` and `GET /api/watchlists/{id}.atom`,
//! authenticated by the feed's token in the URL (`?token=mf_…`; feed readers
//! cannot send headers; an `Authorization: Bearer mf_…` header is taken
//! too). The core's `mediaops.feeds.v1.FeedService/ReadFeed` answers the
//! XML; this module answers it as `application/atom+xml` with a strong
//! `ETag` and `Last-Modified`, and `304 Not Modified` when the reader's
//! `If-None-Match` (or, without one, `If-Modified-Since`) says it has it.
//! Errors are the JSON envelope, as everywhere.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::SystemTime;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::future::Either;
use mediaops_proto::error::ServiceError;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::feeds::v1::{FeedDocument, ReadFeedRequest};
use prost::Message;

use crate::core_client::CallMetadata;
use crate::envelope::{self, ApiError};
use crate::state::AppState;

/// The core's RPC answering a feed.
const READ_FEED: &str = "/mediaops.feeds.v1.FeedService/ReadFeed";

/// Feeds carry a credential in their URL: never cached by shared caches.
const CACHE_CONTROL: &str = "private, max-age=60";

/// `GET /api/feeds/hotlists/{file}`: `file` is `<source>.atom`.
pub async fn hotlist(
    state: axum::extract::State<Arc<AppState>>,
    axum::extract::Path(file): axum::extract::Path<String>,
    request: Request,
) -> Response {
    match file.strip_suffix(".atom") {
        Some(source) => serve(&state, format!("hotlists/{source}"), request).await,
        None => crate::state::not_found(request).await,
    }
}

/// The layer before routing that serves `GET /api/watchlists/{id}.atom`,
/// a feed, rather than the watch-list operation at `/api/watchlists/{id}`
/// (the router's `{id}` would take `x.atom` as an id). A plain tower
/// service: any other request goes to the inner service as it is, with no
/// boxed future (docs/performance.md "Plain tower layers").
#[derive(Clone)]
pub struct WatchlistFeedLayer {
    state: Arc<AppState>,
}

impl WatchlistFeedLayer {
    /// The feeds are read from `state`'s core.
    pub fn new(state: Arc<AppState>) -> Self {
        Self { state }
    }
}

impl<S> tower::Layer<S> for WatchlistFeedLayer {
    type Service = WatchlistFeed<S>;

    fn layer(&self, inner: S) -> WatchlistFeed<S> {
        WatchlistFeed { inner, state: self.state.clone() }
    }
}

/// The service of [`WatchlistFeedLayer`] around `S`.
#[derive(Clone)]
pub struct WatchlistFeed<S> {
    inner: S,
    state: Arc<AppState>,
}

/// A feed's boxed answer.
type FeedFuture<E> = Pin<Box<dyn Future<Output = Result<Response, E>> + Send>>;

impl<S> tower::Service<Request> for WatchlistFeed<S>
where
    S: tower::Service<Request, Response = Response>,
    S::Error: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<FeedFuture<S::Error>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        match watchlist_feed(&request) {
            Some(feed) => {
                let state = self.state.clone();
                Either::Left(Box::pin(async move { Ok(serve(&state, feed, request).await) }))
            }
            None => Either::Right(self.inner.call(request)),
        }
    }
}

/// `watchlists/<id>` when `request` is `GET /api/watchlists/<id>.atom`.
fn watchlist_feed(request: &Request) -> Option<String> {
    if request.method() != Method::GET {
        return None;
    }
    let id = request.uri().path().strip_prefix("/api/watchlists/")?.strip_suffix(".atom")?;
    (!id.contains('/')).then(|| format!("watchlists/{id}"))
}

/// Reads the feed from the core and answers it (or 304, or the error
/// envelope).
async fn serve(state: &AppState, feed: String, request: Request) -> Response {
    let request_id = envelope::request_id(request.headers());
    let (parts, body) = request.into_parts();
    // A body on a GET is read and ignored (docs/http.md), so the connection
    // stays usable.
    if let Err(error) = crate::call::read_body(body, state.max_body_bytes).await {
        return envelope::failure(&request_id, &error);
    }
    let document = match read(state, &feed, &parts.uri, &parts.headers, &request_id).await {
        Ok(document) => document,
        Err(error) => {
            tracing::info!(request_id, feed, code = %error.code, status = error.code.http_status(), "feed failed");
            return envelope::failure(&request_id, &error);
        }
    };
    answer(document, &parts.headers, &request_id)
}

/// The token (query first, then the `Authorization` header), then the
/// core's call.
async fn read(
    state: &AppState,
    feed: &str,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    request_id: &str,
) -> Result<FeedDocument, ApiError> {
    let query = uri.query().unwrap_or_default();
    let token = form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned());
    let authorization = match token {
        Some(token) if !token.is_empty() => format!("Bearer {token}"),
        _ => match headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
            Some(value) => value.to_owned(),
            None => {
                return Err(ServiceError {
                    field: Some("token".into()),
                    ..ServiceError::unauthenticated(
                        "a feed URL carries its token: ?token=mf_… (POST /api/feeds/tokens makes one)",
                    )
                }
                .into());
            }
        },
    };
    let metadata = CallMetadata {
        authorization: &authorization,
        request_id,
        idempotency_key: None,
        traceparent: crate::traceparent::from_headers(headers),
    };
    let request = ReadFeedRequest { feed: feed.to_owned() };
    let (bytes, _, delivery) = state
        .core
        .unary(READ_FEED, Bytes::from(request.encode_to_vec()), &metadata)
        .await
        .map_err(|status| ApiError::from_status(&status))?;
    // The XML is built from the answer here: settled as soon as the
    // gateway has it.
    delivery.written(true);
    FeedDocument::decode(bytes)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("the core answered a malformed FeedDocument: {e}")))
}

/// 200 with the XML and its validators, or 304 when the reader has it.
fn answer(document: FeedDocument, request: &HeaderMap, request_id: &str) -> Response {
    let tag = format!("\"{}\"", document.etag);
    let modified = chrono::DateTime::parse_from_rfc3339(&document.updated_at).ok().map(SystemTime::from);
    let if_none_match: Vec<HeaderValue> = request.get_all(header::IF_NONE_MATCH).iter().cloned().collect();
    let not_modified = if if_none_match.is_empty() {
        let since = request.get(header::IF_MODIFIED_SINCE).and_then(|v| v.to_str().ok());
        matches!((since.and_then(|s| httpdate::parse_http_date(s).ok()), modified), (Some(since), Some(m)) if m <= since)
    } else {
        crate::etag::matches(&if_none_match, &tag).is_some()
    };
    let mut response = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = Response::new(Body::from(document.body));
        if let Ok(value) = HeaderValue::from_str(&document.content_type) {
            response.headers_mut().insert(header::CONTENT_TYPE, value);
        }
        response
    };
    let headers = response.headers_mut();
    let mut set = |name: header::HeaderName, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    };
    set(header::ETAG, &tag);
    if let Some(modified) = modified {
        set(header::LAST_MODIFIED, &httpdate::fmt_http_date(modified));
    }
    set(header::CACHE_CONTROL, CACHE_CONTROL);
    set(header::REFERRER_POLICY, "no-referrer");
    set(mediaops_proto::keys::header::REQUEST_ID, request_id);
    response
}
