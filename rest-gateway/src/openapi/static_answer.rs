//! A fixed answer built once at start-up (the OpenAPI document, the docs
//! page and its assets), served with a strong `ETag`, a `Cache-Control`,
//! and `304 Not Modified` for a matching `If-None-Match` by the same rules
//! as the operation routes ([`crate::etag`], docs/http.md "Caching"). These
//! answers are the same for every caller, so they may be cached publicly.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;

/// `Cache-Control` of an answer that changes only with the service's
/// version: any cache may keep it, revalidating each time.
pub const REVALIDATE: &str = "public, max-age=0, must-revalidate";

/// `Cache-Control` of an asset whose path carries its version.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The bytes of one answer, with their type, tag and caching rule.
#[derive(Debug, Clone)]
pub struct StaticAnswer {
    body: Bytes,
    content_type: HeaderValue,
    cache_control: HeaderValue,
    tag: HeaderValue,
}

impl StaticAnswer {
    /// `body` of `content_type`, tagged with [`crate::etag::tag_of`].
    pub fn new(body: impl Into<Bytes>, content_type: &'static str, cache_control: &'static str) -> StaticAnswer {
        let body = body.into();
        let tag = HeaderValue::from_str(&crate::etag::tag_of(&body)).expect("a quoted hex tag is a header value");
        StaticAnswer {
            body,
            content_type: HeaderValue::from_static(content_type),
            cache_control: HeaderValue::from_static(cache_control),
            tag,
        }
    }

    /// The body's length in bytes.
    pub fn len(&self) -> usize {
        self.body.len()
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }

    /// `200` with the body, or `304` with no body when the request's
    /// `If-None-Match` matches (RFC 9110 weak comparison, [`crate::etag::matches`]).
    pub fn respond(&self, request_headers: &HeaderMap) -> Response {
        let if_none_match: Vec<HeaderValue> = request_headers.get_all(header::IF_NONE_MATCH).iter().cloned().collect();
        let tag = self.tag.to_str().unwrap_or_default();
        let (status, body, etag) = match crate::etag::matches(&if_none_match, tag) {
            Some(sent) => (StatusCode::NOT_MODIFIED, Body::empty(), sent),
            None => (StatusCode::OK, Body::from(self.body.clone()), self.tag.clone()),
        };
        let mut response = Response::new(body);
        *response.status_mut() = status;
        let headers = response.headers_mut();
        if status == StatusCode::OK {
            headers.insert(header::CONTENT_TYPE, self.content_type.clone());
        }
        headers.insert(header::ETAG, etag);
        headers.insert(header::CACHE_CONTROL, self.cache_control.clone());
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matching_tag_gets_304() {
        let answer = StaticAnswer::new(&b"{\"openapi\":\"3.1.0\"}"[..], "application/json", REVALIDATE);
        let first = answer.respond(&HeaderMap::new());
        assert_eq!(first.status(), StatusCode::OK);
        let tag = first.headers()[header::ETAG].clone();
        assert_eq!(first.headers()[header::CACHE_CONTROL], REVALIDATE);
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, tag.clone());
        let second = answer.respond(&headers);
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(second.headers()[header::ETAG], tag);
        assert!(second.headers().get(header::CONTENT_TYPE).is_none());
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"other\""));
        assert_eq!(answer.respond(&headers).status(), StatusCode::OK);
    }
}
