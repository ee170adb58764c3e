//! The core's one error type. Every failure of an operation becomes a
//! [`ServiceError`], which turns into a gRPC status whose details are a
//! standard `google.rpc.Status` carrying the envelope's error object
//! (`{code, message, field?, upstream?}`) as `ErrorInfo`, `BadRequest` and
//! `RetryInfo` ([`mediaops_proto::grpc_error`]; issue 17 item 1), so REST
//! and gRPC clients see the same error.

use std::time::Duration;

use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::excerpt::cap_message;
use mediaops_proto::mediaops::common::v1 as common;

/// An operation's failure: code (ARCHITECTURE.md "Errors"), a message for
/// people, and the request field at fault when there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
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

    /// The envelope's error object; messages are capped at
    /// [`mediaops_proto::excerpt::MESSAGE_CHARS`] characters.
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
    /// when a wait is known, `RequestInfo` ([`mediaops_proto::grpc_error`]).
    /// The `grpc-message` is the capped message, so no input can blow the
    /// peer's header-list limit (issue 21 item 1).
    pub fn status(&self, request_id: Option<&str>) -> tonic::Status {
        let retry_after = self.retry_after.or_else(|| self.code.retry_after_secs().map(Duration::from_secs));
        mediaops_proto::grpc_error::status(self.code, &self.to_proto(), request_id, retry_after)
    }
}

impl From<ServiceError> for tonic::Status {
    fn from(error: ServiceError) -> Self {
        error.to_status()
    }
}
