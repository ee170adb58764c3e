//! The error object on the gRPC wire (docs/errors.md
//! "gRPC errors"): a failed call's `grpc-status-details-bin` is a standard
//! `google.rpc.Status` (code, message, details), so grpcurl, grpcio's
//! `rpc_status` and tonic-types read it. Its details:
//!
//! - `google.rpc.ErrorInfo`: `reason` = the `error.code` string
//!   (`invalid_input`, `rate_limited`, …), `domain` = [`DOMAIN`], `metadata`
//!   = the rest of the error object as strings: [`FIELD`], [`UPSTREAM_CODE`],
//!   [`UPSTREAM_MESSAGE`] and [`REQUEST_ID`], each only when there is one;
//! - `google.rpc.BadRequest` with one field violation (field, description =
//!   the message) for a 400 naming its field;
//! - `google.rpc.RetryInfo` when the client should wait before retrying
//!   (429 `rate_limited`: the `Retry-After` of that call; 503
//!   `billing_unavailable` / `store_unavailable`: [`crate::error_code::RETRY_AFTER_SECS`]);
//! - `google.rpc.RequestInfo` with the request id.
//!
//! `error.message` is the status message. ErrorInfo holds everything the
//! envelope's `mediaops.common.v1.Error` has, so no custom `Any` is added.

use std::collections::HashMap;
use std::time::Duration;

use prost::Message;
use tonic_types::{ErrorDetails, StatusExt};

use crate::error_code::ErrorCode;
use crate::mediaops::common::v1 as common;

/// `ErrorInfo.domain` of every error the core answers with.
pub const DOMAIN: &str = "mediaops";

/// `ErrorInfo.metadata` key: JSON path of the field at fault (`error.field`).
pub const FIELD: &str = "field";

/// `ErrorInfo.metadata` key: the upstream's own code (`error.upstream.code`).
pub const UPSTREAM_CODE: &str = "upstreamCode";

/// `ErrorInfo.metadata` key: the upstream's message (`error.upstream.message`).
pub const UPSTREAM_MESSAGE: &str = "upstreamMessage";

/// `ErrorInfo.metadata` key: the call's request id (`X-Request-Id`).
pub const REQUEST_ID: &str = "requestId";

/// The status of a failed call: gRPC code per [`ErrorCode::grpc_code`],
/// message = `error.message`, details as in the module docs. `retry_after`
/// (whole seconds are what the `Retry-After` header carries) becomes
/// `RetryInfo.retry_delay`.
pub fn status(
    code: ErrorCode,
    error: &common::Error,
    request_id: Option<&str>,
    retry_after: Option<Duration>,
) -> tonic::Status {
    let mut metadata = HashMap::new();
    if let Some(field) = &error.field {
        metadata.insert(FIELD.to_owned(), field.clone());
    }
    if let Some(upstream) = &error.upstream {
        if let Some(upstream_code) = &upstream.code {
            metadata.insert(UPSTREAM_CODE.to_owned(), upstream_code.clone());
        }
        metadata.insert(UPSTREAM_MESSAGE.to_owned(), upstream.message.clone());
    }
    if let Some(id) = request_id {
        metadata.insert(REQUEST_ID.to_owned(), id.to_owned());
    }
    let mut details = ErrorDetails::with_error_info(error.code.clone(), DOMAIN, metadata);
    if let Some(field) = &error.field
        && code.http_status() == 400
    {
        details.add_bad_request_violation(field.clone(), error.message.clone());
    }
    if retry_after.is_some() {
        details.set_retry_info(retry_after);
    }
    if let Some(id) = request_id {
        details.set_request_info(id, "");
    }
    tonic::Status::with_error_details(code.grpc_code(), error.message.clone(), details)
}

/// The error object of a status the core made with [`status`], or `None`
/// when it carries none (the call failed on the way: a refused
/// connection, a reset stream). A status whose details are a bare
/// `mediaops.common.v1.Error`, what older cores sent, is
/// read too, so a gateway can be upgraded before its cores.
pub fn error_object(status: &tonic::Status) -> Option<common::Error> {
    let Ok(details) = status.check_error_details() else {
        return common::Error::decode(status.details()).ok().filter(|e| !e.code.is_empty());
    };
    let info = details.error_info().filter(|info| info.domain == DOMAIN)?;
    let text = |key: &str| info.metadata.get(key).cloned();
    let field = text(FIELD).or_else(|| {
        details.bad_request().and_then(|bad| bad.field_violations.first()).map(|violation| violation.field.clone())
    });
    let upstream = text(UPSTREAM_MESSAGE).map(|message| common::UpstreamError { code: text(UPSTREAM_CODE), message });
    Some(common::Error { code: info.reason.clone(), message: status.message().to_owned(), field, upstream })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(code: &str, field: Option<&str>) -> common::Error {
        common::Error {
            code: code.into(),
            message: "keyword is required".into(),
            field: field.map(str::to_owned),
            upstream: None,
        }
    }

    #[test]
    fn a_400_carries_error_info_bad_request_and_request_info() {
        let error = object("invalid_input", Some("keyword"));
        let answer = status(ErrorCode::InvalidInput, &error, Some("r-1"), None);
        assert_eq!(answer.code(), tonic::Code::InvalidArgument);
        assert_eq!(answer.message(), "keyword is required");
        let details = answer.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        assert_eq!((info.reason.as_str(), info.domain.as_str()), ("invalid_input", DOMAIN));
        assert_eq!(info.metadata.get(FIELD).map(String::as_str), Some("keyword"));
        assert_eq!(info.metadata.get(REQUEST_ID).map(String::as_str), Some("r-1"));
        let violation = &details.bad_request().expect("BadRequest").field_violations[0];
        assert_eq!((violation.field.as_str(), violation.description.as_str()), ("keyword", "keyword is required"));
        assert_eq!(details.request_info().unwrap().request_id, "r-1");
        assert!(details.retry_info().is_none());
        // The raw header bytes are a google.rpc.Status.
        let raw = tonic_types::Status::decode(answer.details()).unwrap();
        assert_eq!(raw.code, tonic::Code::InvalidArgument as i32);
        assert_eq!(raw.details.len(), 3);
        assert_eq!(error_object(&answer), Some(error));
    }

    #[test]
    fn retry_info_and_upstream_round_trip() {
        let mut error = object("upstream_unavailable", None);
        error.upstream =
            Some(common::UpstreamError { code: Some("3203".into()), message: "接口执行异常".into() });
        let answer = status(ErrorCode::UpstreamUnavailable, &error, None, None);
        let details = answer.get_error_details();
        assert!(details.bad_request().is_none() && details.request_info().is_none());
        assert_eq!(error_object(&answer), Some(error));

        let limited = object("rate_limited", None);
        let answer = status(ErrorCode::RateLimited, &limited, None, Some(Duration::from_secs(2)));
        let delay = answer.get_error_details().retry_info().unwrap().retry_delay;
        assert_eq!(delay, Some(Duration::from_secs(2)));
        assert_eq!(error_object(&answer).unwrap().code, "rate_limited");
    }

    #[test]
    fn an_older_cores_bare_error_object_is_still_read() {
        let error = object("insufficient_points", None);
        let status = tonic::Status::with_details(tonic::Code::ResourceExhausted, "x", error.encode_to_vec().into());
        assert_eq!(error_object(&status), Some(error));
        assert_eq!(error_object(&tonic::Status::unavailable("connection refused")), None);
        let foreign = tonic::Status::with_error_details(
            tonic::Code::Internal,
            "x",
            ErrorDetails::with_error_info("SOMETHING", "example.com", HashMap::new()),
        );
        assert_eq!(error_object(&foreign), None, "only the mediaops domain is ours");
    }
}
