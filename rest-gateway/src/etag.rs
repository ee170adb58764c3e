//! `ETag`, `Cache-Control` and `304 Not Modified` for the successful GET
//! answers of the operation routes (docs/http.md "Caching").
//!
//! Every GET operation is a read (the catalogs `/api/apis`, `/api/skills`,
//! `/api/skills/search`, the article themes, a task, a charter, …), so the
//! rule is kept for all of them rather than a hand-kept list: a `200` answer
//! gets a strong `ETag` and `Cache-Control: private, max-age=0,
//! must-revalidate` (answers depend on the key's account: never `public`;
//! `Vary: Authorization`). A request whose `If-None-Match` matches gets
//! `304` with no body. The core still runs (and charges a priced GET): the
//! saving is the answer's bytes, not the call.
//!
//! The tag is the SHA-256 of the envelope without its `requestId` (which
//! differs per request), first 128 bits in hex, quoted. It is computed on
//! the uncompressed body: this layer sits inside the compression layer, and
//! [`mark_encoding`] outside it gives a compressed answer its own tag
//! (`"…-gzip"`, `"…-br"`; RFC 9110 8.8.3: a strong tag names one
//! representation), which [`matches()`] takes back to the identity tag.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use futures_util::future::Either;
use sha2::{Digest, Sha256};

/// The `Cache-Control` of a tagged answer.
pub const CACHE_CONTROL: &str = "private, max-age=0, must-revalidate";

/// Content codings whose answers get a suffixed tag ([`mark_encoding`]).
const CODINGS: [&str; 2] = ["gzip", "br"];

/// The layer (`Router::route_layer` of the operation routes): tags a GET
/// `200` answer and answers `304` when the client's `If-None-Match`
/// matches. A plain tower service: any other method goes to the route as
/// it is, with no boxed future (docs/performance.md "Plain tower layers").
#[derive(Clone, Copy, Debug, Default)]
pub struct ETagLayer;

impl<S> tower::Layer<S> for ETagLayer {
    type Service = ETag<S>;

    fn layer(&self, inner: S) -> ETag<S> {
        ETag { inner }
    }
}

/// The service of [`ETagLayer`] around `S`.
#[derive(Clone, Debug)]
pub struct ETag<S> {
    inner: S,
}

/// A tagged answer's boxed future.
type TaggedFuture<E> = Pin<Box<dyn Future<Output = Result<Response, E>> + Send>>;

impl<S> tower::Service<Request> for ETag<S>
where
    S: tower::Service<Request, Response = Response>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<TaggedFuture<S::Error>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if request.method() != Method::GET {
            return Either::Right(self.inner.call(request));
        }
        let if_none_match: Vec<HeaderValue> =
            request.headers().get_all(header::IF_NONE_MATCH).iter().cloned().collect();
        let answer = self.inner.call(request);
        Either::Left(Box::pin(async move { Ok(tag(answer.await?, &if_none_match).await) }))
    }
}

/// `response` tagged, or `304` when `if_none_match` (the request's values)
/// holds its tag; any answer but `200` as it is.
async fn tag(response: Response, if_none_match: &[HeaderValue]) -> Response {
    if response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let request_id = parts.headers.get(crate::envelope::REQUEST_ID_HEADER).and_then(|v| v.to_str().ok());
            let error = crate::envelope::ApiError::new(
                mediaops_proto::error_code::ErrorCode::Internal,
                format!("cannot read the answer to tag it: {e}"),
            );
            return crate::envelope::failure(request_id.unwrap_or_default(), &error);
        }
    };
    let tag = tag_of(&bytes);
    let headers = &mut parts.headers;
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(CACHE_CONTROL));
    headers.append(header::VARY, HeaderValue::from_static("authorization"));
    if let Some(sent) = matches(if_none_match, &tag) {
        // The tag the client holds: with its coding suffix, if any.
        headers.insert(header::ETAG, sent);
        headers.remove(header::CONTENT_TYPE);
        headers.remove(header::CONTENT_LENGTH);
        parts.status = StatusCode::NOT_MODIFIED;
        return Response::from_parts(parts, Body::empty());
    }
    if let Ok(value) = HeaderValue::from_str(&tag) {
        headers.insert(header::ETAG, value);
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// `"<32 hex>"`: the first 128 bits of the SHA-256 of `body`, a JSON
/// envelope, with its `requestId` member left out (a body that is not a
/// JSON object is hashed as it is).
pub fn tag_of(body: &[u8]) -> String {
    let stable = match serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(body) {
        Ok(mut object) => {
            object.remove("requestId");
            serde_json::to_vec(&object).unwrap_or_else(|_| body.to_vec())
        }
        Err(_) => body.to_vec(),
    };
    let digest = Sha256::digest(&stable);
    format!("\"{}\"", hex::encode(&digest[..16]))
}

/// The entity tag of `if_none_match` (all the request's `If-None-Match`
/// values) that matches `tag`, by the weak comparison RFC 9110 13.1.2 asks
/// for: `W/` is ignored, and so is a coding suffix [`mark_encoding`] added.
/// `*` matches any answer (and gives back `tag`). `None`: no match, or a
/// malformed list (then the full answer is sent, never a wrong `304`).
pub fn matches(if_none_match: &[HeaderValue], tag: &str) -> Option<HeaderValue> {
    let opaque = tag.trim_matches('"');
    for value in if_none_match {
        let text = value.to_str().ok()?.trim();
        if text == "*" {
            return HeaderValue::from_str(tag).ok();
        }
        for sent in entity_tags(text)? {
            let bare = CODINGS.iter().find_map(|c| sent.strip_suffix(&format!("-{c}"))).unwrap_or(sent);
            if bare == opaque {
                return HeaderValue::from_str(&format!("\"{sent}\"")).ok();
            }
        }
    }
    None
}

/// The opaque tags (without quotes or `W/`) of a comma-separated
/// `entity-tag` list; `None` when the list is malformed.
fn entity_tags(mut text: &str) -> Option<Vec<&str>> {
    let mut tags = Vec::new();
    loop {
        text = text.trim_start_matches([' ', '\t', ',']);
        if text.is_empty() {
            return Some(tags);
        }
        text = text.strip_prefix("W/").unwrap_or(text);
        let rest = text.strip_prefix('"')?;
        let end = rest.find('"')?;
        tags.push(&rest[..end]);
        text = &rest[end + 1..];
        if !(text.is_empty() || text.starts_with([',', ' ', '\t'])) {
            return None;
        }
    }
}

/// Outside the compression layer (`tower::ServiceBuilder::map_response`): a
/// compressed answer's strong tag `"x"` becomes `"x-gzip"` / `"x-br"`.
/// Any body type: the compression layer's, without boxing it; a plain
/// function, so the layer's future is the inner one mapped, not a boxed
/// `async` block that moves the inner future into it.
pub fn mark_encoding<B>(mut response: axum::http::Response<B>) -> axum::http::Response<B> {
    let coding = response.headers().get(header::CONTENT_ENCODING).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let Some(coding) = coding.filter(|c| CODINGS.contains(&c.as_str())) else { return response };
    let headers: &mut HeaderMap = response.headers_mut();
    let tagged = headers.get(header::ETAG).and_then(|v| v.to_str().ok()).filter(|t| t.starts_with('"'));
    if let Some(value) =
        tagged.and_then(|t| HeaderValue::from_str(&format!("{}-{coding}\"", t.trim_end_matches('"'))).ok())
    {
        headers.insert(header::ETAG, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(list: &[&str]) -> Vec<HeaderValue> {
        list.iter().map(|v| HeaderValue::from_str(v).unwrap()).collect()
    }

    #[test]
    fn the_tag_ignores_the_request_id() {
        let a = tag_of(br#"{"success":true,"requestId":"a","data":{"x":1},"error":null}"#);
        let b = tag_of(br#"{"success":true,"requestId":"b","data":{"x":1},"error":null}"#);
        let c = tag_of(br#"{"success":true,"requestId":"a","data":{"x":2},"error":null}"#);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 34);
        assert!(a.starts_with('"') && a.ends_with('"'));
    }

    #[test]
    fn if_none_match_by_weak_comparison() {
        let tag = "\"abc\"";
        assert_eq!(matches(&values(&["\"abc\""]), tag).unwrap(), "\"abc\"");
        assert_eq!(matches(&values(&["W/\"abc\""]), tag).unwrap(), "\"abc\"");
        assert_eq!(matches(&values(&["\"x\", W/\"abc\""]), tag).unwrap(), "\"abc\"");
        assert_eq!(matches(&values(&["\"x\"", "\"abc-br\""]), tag).unwrap(), "\"abc-br\"");
        assert_eq!(matches(&values(&["*"]), tag).unwrap(), "\"abc\"");
        assert!(matches(&values(&["\"abd\""]), tag).is_none());
        assert!(matches(&values(&["abc"]), tag).is_none());
        assert!(matches(&values(&["\"abc"]), tag).is_none());
        assert!(matches(&values(&["\"a,b\", \"abc-zstd\""]), tag).is_none());
        assert!(matches(&[], tag).is_none());
    }
}
