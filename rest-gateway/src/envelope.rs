//! The response envelope of spec 2.1, `{success, requestId, data, error}`,
//! and the error object of ARCHITECTURE.md, `{code, message, field?,
//! upstream?}`. `error` is null on success and `data` null on failure; the
//! request id is also the `X-Request-Id` response header.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mediaops_proto::error::ServiceError;
use mediaops_proto::error_code::ErrorCode;
use serde_json::{Value as Json, json};

use crate::core_client::AnswerNotes;
use crate::transcode::FieldError;

/// Header carrying the request id both ways.
pub const REQUEST_ID_HEADER: &str = mediaops_proto::request_id::HEADER;

/// A failed call, as the client will see it: the one error type of
/// mediaops ([`ServiceError`], shared with the core; docs/errors.md) and the
/// rate-limit headers of the core's answer. It reads as the
/// [`ServiceError`] it holds (`error.code`, `error.field`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The error: code (HTTP status and `error.code`), message, field,
    /// upstream; boxed to keep `Result<_, ApiError>` small.
    pub error: Box<ServiceError>,
    /// `RateLimit-Policy`, `RateLimit` and `Retry-After` of the core's
    /// answer, when the account is limited (docs/rate-limits.md).
    pub rate_limit: Vec<(&'static str, String)>,
}

impl ApiError {
    /// An error of `code` with `message` and nothing else.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ServiceError::new(code, message).into()
    }

    /// The error the core put in a gRPC status's details (a
    /// `google.rpc.Status` with `ErrorInfo`, read by
    /// [`ServiceError::from_status`]). A status
    /// without one did not come from the core's pipeline: the connection to
    /// the core failed or the answer was lost on the way (a reset stream, a
    /// protocol error, a timeout). That is 502 `upstream_unavailable`,
    /// never a 500 or a code of the core's (docs/errors.md "Limits of a request"); the core
    /// settles a charge only on a delivered success, so nothing was charged.
    pub fn from_status(status: &tonic::Status) -> Self {
        if let Some(error) = ServiceError::from_status(status) {
            return ApiError {
                error: Box::new(error),
                rate_limit: mediaops_proto::rate_limit::from_metadata(status.metadata()),
            };
        }
        ApiError::new(
            ErrorCode::UpstreamUnavailable,
            format!(
                "the core service could not be reached or its answer was lost ({}: {}); nothing was charged",
                status.code().description(),
                mediaops_proto::excerpt::cap_message(status.message())
            ),
        )
    }

    /// The `Retry-After` seconds [`failure`] sends: the core's (a rate
    /// limit), else the code's ([`ErrorCode::retry_after_secs`]).
    pub fn retry_after(&self) -> Option<String> {
        let core = self.rate_limit.iter().find(|(name, _)| *name == mediaops_proto::rate_limit::RETRY_AFTER);
        core.map(|(_, value)| value.clone()).or_else(|| self.code.retry_after_secs().map(|s| s.to_string()))
    }
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        ApiError { error: Box::new(error), rate_limit: Vec::new() }
    }
}

impl std::ops::Deref for ApiError {
    type Target = ServiceError;

    fn deref(&self) -> &ServiceError {
        &self.error
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut ServiceError {
        &mut self.error
    }
}

impl From<FieldError> for ApiError {
    fn from(error: FieldError) -> Self {
        let field = if error.field.is_empty() { None } else { Some(error.field) };
        ServiceError { field, ..ServiceError::new(ErrorCode::InvalidInput, error.message) }.into()
    }
}

/// The success envelope, serialized in field order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Success<'a, T> {
    success: bool,
    request_id: &'a str,
    data: T,
    error: (),
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<&'a str>,
}

/// `200 {success: true, requestId, data, error: null, warnings?, taskId?}`:
/// `warnings` (why a ranking is empty, …; docs/rankings.md) only when there
/// are some; `taskId` only for an answer that started a task it has no field
/// for (a sync receipt; docs/sync.md). A replayed idempotent answer carries
/// `Idempotent-Replayed: true` (docs/billing.md), a limited account's answer
/// the rate-limit headers (docs/rate-limits.md).
pub fn success(request_id: &str, data: impl serde::Serialize, notes: &AnswerNotes) -> Response {
    match serde_json::to_string(&success_envelope(request_id, data, notes)) {
        Ok(body) => {
            let mut response = respond(StatusCode::OK, request_id, body);
            if notes.replayed {
                use mediaops_proto::idempotency::REPLAYED_VALUE;
                let name = mediaops_proto::keys::header::IDEMPOTENT_REPLAYED;
                response.headers_mut().insert(name, HeaderValue::from_static(REPLAYED_VALUE));
            }
            insert_all(&mut response, &notes.rate_limit);
            response
        }
        Err(e) => failure(request_id, &ApiError::new(ErrorCode::Internal, format!("cannot write the response: {e}"))),
    }
}

/// The success envelope of [`success`] as a JSON value (the MCP tool
/// result's `structuredContent`, docs/mcp.md).
///
/// # Errors
/// `data` cannot be written as JSON.
pub fn success_json(request_id: &str, data: impl serde::Serialize, notes: &AnswerNotes) -> serde_json::Result<Json> {
    serde_json::to_value(success_envelope(request_id, data, notes))
}

fn success_envelope<'a, T>(request_id: &'a str, data: T, notes: &'a AnswerNotes) -> Success<'a, T> {
    Success { success: true, request_id, data, error: (), warnings: &notes.warnings, task_id: notes.task_id.as_deref() }
}

/// The failure envelope of [`failure`], `{success: false, requestId, data:
/// null, error}`, as a JSON value.
pub fn failure_json(request_id: &str, error: &ApiError) -> Json {
    json!({"success": false, "requestId": request_id, "data": null, "error": error.to_json()})
}

/// `<status> {success: false, requestId, data: null, error}`, with a
/// `Retry-After: <seconds>` header for a dependency outage
/// ([`ErrorCode::retry_after_secs`]: `billing_unavailable`,
/// `store_unavailable`), and the core's rate-limit headers (a 429
/// `rate_limited` has its own `Retry-After`).
pub fn failure(request_id: &str, error: &ApiError) -> Response {
    let status = StatusCode::from_u16(error.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = respond(status, request_id, failure_json(request_id, error).to_string());
    if let Some(seconds) = error.code.retry_after_secs() {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    insert_all(&mut response, &error.rate_limit);
    response
}

/// Adds `fields` (names from [`mediaops_proto::rate_limit::FIELDS`]) as
/// headers, replacing any of the same name.
fn insert_all(response: &mut Response, fields: &[(&'static str, String)]) {
    for (name, value) in fields {
        if let Ok(value) = HeaderValue::from_str(value) {
            response.headers_mut().insert(*name, value);
        }
    }
}

fn respond(status: StatusCode, request_id: &str, body: String) -> Response {
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    if let Ok(value) = HeaderValue::from_str(request_id) {
        response.headers_mut().insert(mediaops_proto::keys::header::REQUEST_ID, value);
    }
    response
}

/// The client's `X-Request-Id` when acceptable, else a new UUID.
pub fn request_id(headers: &axum::http::HeaderMap) -> String {
    mediaops_proto::request_id::accept_or_new(
        headers.get(mediaops_proto::keys::header::REQUEST_ID).and_then(|v| v.to_str().ok()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use mediaops_proto::grpc_error;
    use mediaops_proto::mediaops::common::v1 as common;

    #[test]
    fn core_error_details_become_the_error_object() {
        let error = common::Error {
            code: "insufficient_points".into(),
            message: "price 6, balance 2".into(),
            field: None,
            upstream: None,
        };
        let status = grpc_error::status(ErrorCode::InsufficientPoints, &error, Some("r0"), None);
        let api = ApiError::from_status(&status);
        assert_eq!(api.code, ErrorCode::InsufficientPoints);
        assert_eq!(api.message, "price 6, balance 2");
        let invalid = common::Error {
            code: "invalid_input".into(),
            message: "bad".into(),
            field: Some("a.b".into()),
            upstream: Some(common::UpstreamError { code: Some("3203".into()), message: "日期格式错误".into() }),
        };
        let api = ApiError::from_status(&grpc_error::status(ErrorCode::InvalidInput, &invalid, None, None));
        assert_eq!(api.field.as_deref(), Some("a.b"));
        let body = failure("r0", &api);
        assert_eq!(body.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            api.to_json(),
            json!({"code": "invalid_input", "message": "bad", "field": "a.b",
            "upstream": {"code": "3203", "message": "日期格式错误"}})
        );
        let bare = ApiError::from_status(&tonic::Status::unavailable("connection refused"));
        assert_eq!(bare.code, ErrorCode::UpstreamUnavailable);
        // A transport failure (a reset HTTP/2 connection) is never a 500.
        let reset = ApiError::from_status(&tonic::Status::internal("h2 protocol error: error reading a body"));
        assert_eq!(reset.code, ErrorCode::UpstreamUnavailable);
    }

    #[test]
    fn dependency_outages_say_when_to_retry() {
        let outage = failure("r1", &ApiError::new(ErrorCode::StoreUnavailable, "down"));
        assert_eq!(outage.status(), StatusCode::SERVICE_UNAVAILABLE);
        let seconds = mediaops_proto::error_code::RETRY_AFTER_SECS.to_string();
        assert_eq!(outage.headers().get(header::RETRY_AFTER).unwrap(), seconds.as_str());
        let bug = failure("r2", &ApiError::new(ErrorCode::Internal, "x"));
        assert!(bug.headers().get(header::RETRY_AFTER).is_none());
    }

    #[test]
    fn a_rate_limited_answer_carries_the_cores_headers() {
        use mediaops_proto::rate_limit::{POLICY, RETRY_AFTER, STATE};
        let error = common::Error { code: "rate_limited".into(), message: "slow down".into(), ..Default::default() };
        let retry = Some(std::time::Duration::from_secs(2));
        let mut status = mediaops_proto::grpc_error::status(ErrorCode::RateLimited, &error, None, retry);
        for (name, value) in [(POLICY, "\"default\";q=5;w=1"), (STATE, "\"default\";r=0;t=1"), (RETRY_AFTER, "2")] {
            status.metadata_mut().insert(name, value.parse().unwrap());
        }
        let api = ApiError::from_status(&status);
        let answer = failure("r3", &api);
        assert_eq!(answer.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(answer.headers().get(header::RETRY_AFTER).unwrap(), "2");
        assert_eq!(answer.headers().get("ratelimit-policy").unwrap(), "\"default\";q=5;w=1");
        assert_eq!(answer.headers().get("ratelimit").unwrap(), "\"default\";r=0;t=1");
    }
}
