//! The failures of outbound calls, and how a handler turns them into the
//! envelope's error: a bad user-supplied link is a 400 naming its field;
//! an upstream that failed, timed out or answered nonsense is a 502
//! `upstream_unavailable` with `error.upstream` (the pipeline then
//! releases the charge).

use bytes::Bytes;
use mediaops_proto::error_code::ErrorCode;

use super::policy::Refusal;
use mediaops_proto::error::{ServiceError, UpstreamDetail};

/// One outbound call's failure. `url` is the address called, without its
/// query string (which may carry keys).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutboundError {
    /// Not an `http`/`https` link, credentials in it, no host, …
    #[error("{url} is not a usable link: {reason}")]
    InvalidUrl {
        /// The link, without its query.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The SSRF guard refused the host, an address it resolved to, or its
    /// port (docs/outbound.md "What is refused").
    #[error("{url}: {refusal}")]
    Refused {
        /// The address called, without its query.
        url: String,
        /// The host or address refused, and why.
        refusal: Refusal,
    },
    /// More redirects than `max_redirects` (`[outbound]`).
    #[error("{url} redirects more than {limit} times")]
    TooManyRedirects {
        /// The address called, without its query.
        url: String,
        /// The most redirects followed.
        limit: usize,
    },
    /// A body over the fetch's byte limit.
    #[error("{url} answered more than {limit} bytes")]
    TooLarge {
        /// The address called, without its query.
        url: String,
        /// The most bytes read.
        limit: usize,
    },
    /// No whole answer within the fetch's time limit.
    #[error("{url} did not answer in time")]
    Timeout {
        /// The address called, without its query.
        url: String,
    },
    /// DNS, TCP or TLS failed, or the connection broke.
    #[error("{url} cannot be reached: {message}")]
    Transport {
        /// The address called, without its query.
        url: String,
        /// What the HTTP stack said.
        message: String,
    },
    /// A non-success HTTP status, with the code and message found in the
    /// body when it has a known error shape ([`upstream_said`]).
    #[error("{url} answered HTTP {status}: {message}")]
    Status {
        /// The address called, without its query.
        url: String,
        /// The HTTP status (not 2xx).
        status: u16,
        /// The upstream's own error code, when its body has one.
        code: Option<String>,
        /// The upstream's message, or the start of its body.
        message: String,
    },
    /// A success status with a body that is not what was expected.
    #[error("{url} answered something unexpected: {message}")]
    Malformed {
        /// The address called, without its query.
        url: String,
        /// What was wrong with the body.
        message: String,
    },
    /// A `Content-Type` other than the one the caller reads.
    #[error("{url} answered {found}, not {expected}")]
    ContentType {
        /// The address called, without its query.
        url: String,
        /// The `Content-Type` sent.
        found: String,
        /// The type the caller reads (`image/*`, `text/html`).
        expected: String,
    },
}

impl OutboundError {
    /// Whether a retry may help: transport failures, timeouts, 5xx, 429.
    pub fn is_transient(&self) -> bool {
        match self {
            OutboundError::Timeout { .. } | OutboundError::Transport { .. } => true,
            OutboundError::Status { status, .. } => *status >= 500 || *status == 429,
            _ => false,
        }
    }

    /// The envelope's error. `what` names the upstream for people ("the
    /// images API", "the link"). `field` is the request field holding a
    /// user-supplied link: a link that is refused, malformed, too large,
    /// of the wrong type, redirecting without end or answering 4xx is then
    /// a 400 naming it. Everything else is a 502 `upstream_unavailable`
    /// with what the upstream said in `error.upstream`.
    pub fn to_service_error(&self, what: &str, field: Option<&str>) -> ServiceError {
        let links_fault = match self {
            OutboundError::InvalidUrl { .. }
            | OutboundError::Refused { .. }
            | OutboundError::TooManyRedirects { .. }
            | OutboundError::TooLarge { .. }
            | OutboundError::ContentType { .. } => true,
            OutboundError::Status { status, .. } => (400..500).contains(status) && *status != 429,
            _ => false,
        };
        if let (Some(field), true) = (field, links_fault) {
            return ServiceError::invalid_field(field, format!("{field}: {self}"));
        }
        let upstream = match self {
            OutboundError::Status { status, code, message, .. } => UpstreamDetail {
                code: Some(code.clone().unwrap_or_else(|| status.to_string())),
                message: message.clone(),
            },
            OutboundError::Timeout { .. } => UpstreamDetail { code: Some("timeout".into()), message: self.to_string() },
            other => UpstreamDetail { code: None, message: other.to_string() },
        };
        if matches!(self, OutboundError::InvalidUrl { .. }) {
            // A configured base URL that does not parse: our fault, not the upstream's.
            return ServiceError::new(ErrorCode::Internal, format!("{what} is misconfigured: {self}"));
        }
        ServiceError::upstream_unavailable(format!("{what} failed; nothing was charged: {self}"), Some(upstream))
    }

    /// The error of a reqwest failure calling `url`: a [`Refusal`] of the
    /// connect-time check, a timeout, or a transport failure.
    pub fn from_reqwest(url: &reqwest::Url, error: &reqwest::Error) -> OutboundError {
        let url = display_url(url);
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
        let mut innermost = error.to_string();
        while let Some(e) = source {
            if let Some(refusal) = e.downcast_ref::<Refusal>() {
                return OutboundError::Refused { url, refusal: refusal.clone() };
            }
            innermost = e.to_string();
            source = e.source();
        }
        if error.is_timeout() {
            return OutboundError::Timeout { url };
        }
        OutboundError::Transport { url, message: innermost }
    }

    /// The error of a non-success `status` whose body is `body`.
    pub fn from_status(url: &reqwest::Url, status: reqwest::StatusCode, body: &Bytes) -> OutboundError {
        let (code, message) = upstream_said(body).unwrap_or_else(|| {
            let text = String::from_utf8_lossy(&body[..body.len().min(300)]).trim().to_owned();
            let reason = status.canonical_reason().unwrap_or("error").to_owned();
            (None, if text.is_empty() || text.starts_with('<') { reason } else { text })
        });
        OutboundError::Status { url: display_url(url), status: status.as_u16(), code, message }
    }
}

/// A URL for messages and logs: scheme, host, port and path, no query
/// (which may carry keys or signatures) and no credentials.
pub fn display_url(url: &reqwest::Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    shown.to_string()
}

/// The `(code, message)` of the error shapes upstreams answer with:
/// OpenAI-compatible `{error: {message, type, code}}` (the code, else the
/// type), WeChat `{errcode, errmsg}`, and the common `{code, message}` /
/// `{code, msg}` / `{error: "…"}`.
pub fn upstream_said(body: &[u8]) -> Option<(Option<String>, String)> {
    use serde_json::Value;
    let value: Value = serde_json::from_slice(body).ok()?;
    let text = |v: Option<&Value>| -> Option<String> {
        match v? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    };
    if let Some(error) = value.get("error") {
        if let Some(message) = error.as_str() {
            return Some((None, message.to_owned()));
        }
        if let Some(message) = text(error.get("message")) {
            return Some((text(error.get("code")).or_else(|| text(error.get("type"))), message));
        }
    }
    if let Some(message) = text(value.get("errmsg")) {
        return Some((text(value.get("errcode")), message));
    }
    let message = text(value.get("message")).or_else(|| text(value.get("msg")))?;
    Some((text(value.get("code")), message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_error_shapes_are_read() {
        let openai =
            br#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(upstream_said(openai), Some((Some("invalid_api_key".into()), "Incorrect API key".into())));
        let typed = br#"{"error":{"message":"busy","type":"server_error","code":null}}"#;
        assert_eq!(upstream_said(typed), Some((Some("server_error".into()), "busy".into())));
        let wechat = br#"{"errcode":40001,"errmsg":"invalid credential"}"#;
        assert_eq!(upstream_said(wechat), Some((Some("40001".into()), "invalid credential".into())));
        assert_eq!(upstream_said(br#"{"code":3203,"msg":"invalid category"}"#).unwrap().0.as_deref(), Some("3203"));
        assert_eq!(upstream_said(b"<html>"), None);
    }

    #[test]
    fn link_faults_name_the_field_and_upstream_faults_are_502() {
        let url = "https://x.example/".to_owned();
        let refused = OutboundError::Refused {
            url: url.clone(),
            refusal: Refusal { host: "x.example".into(), reason: "10.0.0.1 is a private address".into() },
        };
        let e = refused.to_service_error("the link", Some("url"));
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some("url")));
        let status = OutboundError::Status { url, status: 503, code: None, message: "busy".into() };
        let e = status.to_service_error("the images API", None);
        assert_eq!(e.code, ErrorCode::UpstreamUnavailable);
        let upstream = e.upstream.unwrap();
        assert_eq!((upstream.code.as_deref(), upstream.message.as_str()), (Some("503"), "busy"));
        assert!(status.is_transient());
    }
}
