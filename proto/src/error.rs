//! The one error type of mediaops, shared by the core and the gateway
//! (docs/errors.md). Every failure of an operation becomes
//! a [`ServiceError`]:
//!
//! - the core answers it as a gRPC status ([`ServiceError::status`]) whose
//!   details are a standard `google.rpc.Status` carrying the envelope's
//!   error object (`{code, message, field?, upstream?}`) as `ErrorInfo`,
//!   `BadRequest`, `RetryInfo` and `RequestInfo` ([`crate::grpc_error`];
//!   docs/errors.md "gRPC errors");
//! - the gateway reads it back from that status
//!   ([`ServiceError::from_status`]) and answers it as the HTTP status of
//!   its code ([`ServiceError::http_status`]) with the envelope's error
//!   object as JSON ([`ServiceError::to_json`]),
//!
//! so REST and gRPC clients see the same error, written once.

use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::error_code::ErrorCode;
use crate::excerpt::cap_message;
use crate::mediaops::common::v1 as common;

/// An operation's failure: code (ARCHITECTURE.md "Errors"), a message for
/// people, and the request field at fault when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceError {
    /// The error code (HTTP status and `error.code`).
    pub code: ErrorCode,
    /// A message for people.
    pub message: String,
    /// JSON path of the field at fault, e.g. `positioning.oneLiner`.
    pub field: Option<String>,
    /// An upstream's own code and message, passed through as
    /// `error.upstream` (spec 7 rule 3; 502 `upstream_unavailable`).
    pub upstream: Option<UpstreamDetail>,
    /// How long the client should wait before retrying, when this call
    /// says (a 429 `rate_limited`; whole seconds, as `Retry-After`). The
    /// dependency outages' fixed wait comes from
    /// [`ErrorCode::retry_after_secs`] instead.
    pub retry_after: Option<Duration>,
}

/// What an upstream said when it failed: its own code (e.g. `3203`,
/// `rate_limit_exceeded`, an HTTP status) and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamDetail {
    /// The upstream's own code, when it gave one.
    pub code: Option<String>,
    /// The upstream's own message.
    pub message: String,
}

impl ServiceError {
    /// An error of `code` with `message`, no field, upstream or retry time.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ServiceError { code, message: message.into(), field: None, upstream: None, retry_after: None }
    }

    /// 400 `invalid_input` naming `field`.
    pub fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        ServiceError {
            code: ErrorCode::InvalidInput,
            message: message.into(),
            field: Some(field.into()),
            upstream: None,
            retry_after: None,
        }
    }

    /// The same error carrying an upstream-style `{code?, message}` (spec 7
    /// rule 3: 接口执行异常, 日期格式错误, 3203).
    pub fn with_upstream(mut self, code: Option<&str>, message: impl Into<String>) -> Self {
        self.upstream = Some(UpstreamDetail { code: code.map(str::to_owned), message: message.into() });
        self
    }

    /// The same error telling the client to wait `retry_after` before
    /// retrying (sent as `google.rpc.RetryInfo`).
    pub fn with_retry_after(mut self, retry_after: Duration) -> Self {
        self.retry_after = Some(retry_after);
        self
    }

    /// 401 `unauthenticated`.
    pub fn unauthenticated(message: impl Into<String>) -> Self {
        ServiceError::new(ErrorCode::Unauthenticated, message)
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        ServiceError::new(ErrorCode::NotFound, message)
    }

    /// 500 `internal`: a bug (docs/errors.md).
    pub fn internal(message: impl Into<String>) -> Self {
        ServiceError::new(ErrorCode::Internal, message)
    }

    /// 502 `upstream_unavailable` carrying what the upstream said, if
    /// anything; the pipeline releases the charge.
    pub fn upstream_unavailable(message: impl Into<String>, upstream: Option<UpstreamDetail>) -> Self {
        ServiceError { upstream, ..ServiceError::new(ErrorCode::UpstreamUnavailable, message) }
    }

    /// The HTTP status the gateway answers with ([`ErrorCode::http_status`]).
    pub fn http_status(&self) -> u16 {
        self.code.http_status()
    }

    /// The envelope's error object; messages are capped at
    /// [`crate::excerpt::MESSAGE_CHARS`] characters.
    pub fn to_proto(&self) -> common::Error {
        common::Error {
            code: self.code.as_str().to_owned(),
            message: cap_message(&self.message).into_owned(),
            field: self.field.clone(),
            upstream: self.upstream.as_ref().map(|u| common::UpstreamError {
                code: u.code.as_deref().map(|c| cap_message(c).into_owned()),
                message: cap_message(&u.message).into_owned(),
            }),
        }
    }

    /// The gRPC status without a request id; see [`ServiceError::status`].
    pub fn to_status(&self) -> tonic::Status {
        self.status(None)
    }

    /// The gRPC status: code per [`ErrorCode::grpc_code`], details = a
    /// `google.rpc.Status` with `ErrorInfo` (reason = the code, domain
    /// `mediaops`, metadata `field`, `upstreamCode`, `upstreamMessage`,
    /// `requestId`), `BadRequest` for a 400 naming its field, `RetryInfo`
    /// when a wait is known, `RequestInfo` ([`crate::grpc_error`]).
    /// The `grpc-message` is the capped message, so no input can blow the
    /// peer's header-list limit (docs/errors.md "Limits of a request").
    pub fn status(&self, request_id: Option<&str>) -> tonic::Status {
        let retry_after = self.retry_after.or_else(|| self.code.retry_after_secs().map(Duration::from_secs));
        crate::grpc_error::status(self.code, &self.to_proto(), request_id, retry_after)
    }

    /// The error of an error object whose code is one of ours, `None` for
    /// an unknown code. No retry time: the object does not carry one.
    pub fn from_proto(error: common::Error) -> Option<Self> {
        let code = ErrorCode::parse(&error.code)?;
        Some(ServiceError {
            code,
            message: error.message,
            field: error.field,
            upstream: error.upstream.map(|u| UpstreamDetail { code: u.code, message: u.message }),
            retry_after: None,
        })
    }

    /// The error a core answered with [`ServiceError::status`], read from
    /// the status's details ([`crate::grpc_error::error_object`]), or `None`
    /// when the status carries none of ours (the call failed on the way: a
    /// refused connection, a reset stream) or an unknown code. `RetryInfo`
    /// becomes [`ServiceError::retry_after`] unless it is the code's own
    /// fixed wait ([`ErrorCode::retry_after_secs`]), so the round trip
    /// gives back the error that was sent.
    pub fn from_status(status: &tonic::Status) -> Option<Self> {
        use tonic_types::StatusExt;
        let mut error = ServiceError::from_proto(crate::grpc_error::error_object(status)?)?;
        let fixed = error.code.retry_after_secs().map(Duration::from_secs);
        error.retry_after = status
            .check_error_details()
            .ok()
            .and_then(|details| details.retry_info().and_then(|info| info.retry_delay))
            .filter(|delay| Some(*delay) != fixed);
        Some(error)
    }

    /// The envelope's error object as JSON, `{code, message, field?,
    /// upstream?}` (docs/errors.md), what the gateway answers: the message
    /// capped at [`crate::excerpt::MESSAGE_CHARS`] characters, `upstream`
    /// as `{code, message}` with `code` null when the upstream gave none
    /// (capped already when the core made the status).
    pub fn to_json(&self) -> Json {
        let mut object = json!({"code": self.code.as_str(), "message": cap_message(&self.message)});
        if let Some(field) = &self.field {
            object["field"] = json!(field);
        }
        if let Some(upstream) = &self.upstream {
            object["upstream"] = json!({"code": upstream.code, "message": upstream.message});
        }
        object
    }
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ServiceError {}

impl From<ServiceError> for tonic::Status {
    fn from(error: ServiceError) -> Self {
        error.to_status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_round_trips_through_its_status() {
        let errors = [
            ServiceError::invalid_field("positioning.oneLiner", "too long"),
            ServiceError::upstream_unavailable(
                "the vendor failed",
                Some(UpstreamDetail { code: Some("3203".into()), message: "接口执行异常".into() }),
            ),
            ServiceError::new(ErrorCode::UpstreamUnavailable, "x").with_upstream(None, "timeout"),
            ServiceError::new(ErrorCode::RateLimited, "slow down").with_retry_after(Duration::from_secs(2)),
            ServiceError::new(ErrorCode::StoreUnavailable, "the store is down"),
        ];
        for error in errors {
            let status = error.status(Some("r-1"));
            assert_eq!(status.code(), error.code.grpc_code());
            assert_eq!(ServiceError::from_status(&status).as_ref(), Some(&error));
        }
        assert_eq!(ServiceError::from_status(&tonic::Status::unavailable("connection refused")), None);
    }

    #[test]
    fn the_json_error_object() {
        let error = ServiceError::invalid_field("a.b", "bad").with_upstream(Some("3203"), "日期格式错误");
        assert_eq!(error.http_status(), 400);
        assert_eq!(
            error.to_json().to_string(),
            r#"{"code":"invalid_input","message":"bad","field":"a.b","upstream":{"code":"3203","message":"日期格式错误"}}"#
        );
        let error = ServiceError::new(ErrorCode::UpstreamUnavailable, "x").with_upstream(None, "timeout");
        assert_eq!(
            error.to_json().to_string(),
            r#"{"code":"upstream_unavailable","message":"x","upstream":{"code":null,"message":"timeout"}}"#
        );
        assert_eq!(error.to_string(), "upstream_unavailable: x");
    }
}
