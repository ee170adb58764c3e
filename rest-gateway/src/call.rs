//! The one handler behind every REST route: authorization header check
//! (spec 5), body and parameters → request message (400 names the field),
//! gRPC call to the core, response message → envelope.
//!
//! The part after HTTP parsing, [`call_metadata`] and [`invoke`], is the
//! pipeline the MCP tools call too ([`crate::mcp`]), so a
//! tool call is validated, authenticated, charged and failed exactly as the
//! REST call of the same operation.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Method, header};
use axum::response::Response;
use bytes::Bytes;
use mediaops_proto::error::ServiceError;
use mediaops_proto::error_code::ErrorCode;
use serde_json::{Map, Value as Json};

use crate::core_client::{AnswerNotes, CallMetadata};
use crate::delivery::Delivery;
use crate::envelope::{self, ApiError};

/// Path parameters of the matched route, e.g. `[("id", "brand")]`.
pub type PathParams = axum::extract::Path<Vec<(String, String)>>;
use crate::routes::Route;
use crate::state::AppState;
use crate::transcode::wire_to_json::EncodedMessage;
use crate::transcode::{FieldError, decode, json_to_wire, multipart, query};

/// Serves one request of `route`.
pub async fn handle(
    state: Arc<AppState>,
    route: Arc<Route>,
    params: Option<PathParams>,
    request: axum::extract::Request,
) -> Response {
    let request_id = envelope::request_id(request.headers());
    let watched = request.extensions().get::<mediaops_listener::Watching>().is_some();
    match run(&state, &route, params, request, &request_id).await {
        Ok((data, notes, delivery)) => {
            let mut response = envelope::success(&request_id, &data, &notes);
            delivery.attach(watched, &mut response);
            response
        }
        Err(error) => {
            log_failure(&request_id, &route, &error);
            envelope::failure(&request_id, &error)
        }
    }
}

/// The log line of a failed call (REST or MCP): request id, operation, code
/// and HTTP status.
pub fn log_failure(request_id: &str, route: &Route, error: &ApiError) {
    tracing::info!(
        request_id,
        operation = route.operation_key,
        code = %error.code,
        status = error.code.http_status(),
        "request failed"
    );
}

async fn run(
    state: &AppState,
    route: &Route,
    params: Option<PathParams>,
    request: axum::extract::Request,
    request_id: &str,
) -> Result<(EncodedMessage, AnswerNotes, Delivery), ApiError> {
    let (parts, body) = request.into_parts();
    // The key's form first (spec 5), the other headers once the body is read
    // (an answer sent before the body is read can reset the connection).
    authorization(&parts.headers)?;

    let mut object = Map::new();
    // GET and DELETE carry their fields in the query, not a body. A body
    // sent anyway is read and ignored: left unread, it would close the
    // connection under a client that reuses it for its next request.
    if route.method == Method::GET || route.method == Method::DELETE {
        read_body(body, state.max_body_bytes).await?;
        let query = parts.uri.query().unwrap_or_default();
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        query::merge_params(&route.input, pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())), &mut object)?;
    } else {
        let bytes = read_body(body, state.max_body_bytes).await?;
        let upload = route.upload.as_ref().filter(|_| multipart::is_multipart(&parts.headers));
        if let Some(upload) = upload {
            // Boxed: its future is larger than the rest of this one, and
            // every JSON call would carry (and move) its space otherwise.
            object = Box::pin(multipart::to_object(upload, &route.input, &parts.headers, bytes)).await?;
        } else if !bytes.iter().all(u8::is_ascii_whitespace) {
            require_json(&parts.headers, route.upload.is_some())?;
            let json: Json = serde_json::from_slice(&bytes)
                .map_err(|e| ApiError::new(ErrorCode::InvalidInput, format!("the body is not valid JSON: {e}")))?;
            match &route.body_field {
                Some(field) => {
                    object.insert(field.json_name().to_owned(), json);
                }
                None => match json {
                    Json::Object(map) => object = map,
                    other => {
                        return Err(FieldError::new(
                            "",
                            format!("the request body must be a JSON object, not {}", decode::json_type(&other)),
                        )
                        .into());
                    }
                },
            }
        }
    }
    if let Some(params) = &params {
        query::merge_params(&route.input, params.0.iter().map(|(k, v)| (k.as_str(), v.as_str())), &mut object)?;
    }
    let metadata = call_metadata(&parts.headers, request_id)?;
    invoke(state, route, object, &metadata).await.map_err(|e| relative_to_body(route, e))
}

/// What the core gets beside the request, from the caller's HTTP headers:
/// the `Authorization` header, which must be `Bearer <key>` (else 401
/// `unauthenticated`, spec 5; whether the key is valid is the core's
/// question), `Idempotency-Key` (400 naming it when malformed) and a W3C
/// `traceparent`.
///
/// # Errors
/// A missing or malformed `Authorization`, a malformed `Idempotency-Key`.
pub fn call_metadata<'a>(headers: &'a HeaderMap, request_id: &'a str) -> Result<CallMetadata<'a>, ApiError> {
    Ok(CallMetadata {
        authorization: authorization(headers)?,
        request_id,
        idempotency_key: idempotency_key(headers)?,
        traceparent: crate::traceparent::from_headers(headers),
    })
}

/// The `Authorization` header as sent, when it has the form `Bearer <key>`
/// ([`mediaops_proto::bearer::parse_bearer`]).
///
/// # Errors
/// 401 `unauthenticated`: missing, or not of that form.
pub fn authorization(headers: &HeaderMap) -> Result<&str, ApiError> {
    let authorization = headers.get(header::AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
    mediaops_proto::bearer::parse_bearer(authorization)
        .map_err(|e| ApiError::new(ErrorCode::Unauthenticated, e.message()))?;
    Ok(authorization.unwrap_or_default())
}

/// The pipeline after HTTP parsing, shared by REST and MCP: `object` (the
/// whole request message as JSON, fields by JSON or proto name) → request
/// message in the protobuf wire format (400 naming the field, paths
/// relative to the message) → the core's call of `route` (authentication,
/// rate limit, validation, charge, the operation) → the encoded response
/// message, what the core noted of it, and the [`Delivery`] to settle once
/// the answer reached the client.
///
/// # Errors
/// The [`ApiError`] the client sees: a bad field, or the core's error.
pub async fn invoke(
    state: &AppState,
    route: &Route,
    object: Map<String, Json>,
    metadata: &CallMetadata<'_>,
) -> Result<(EncodedMessage, AnswerNotes, Delivery), ApiError> {
    let request = json_to_wire::encode(&route.input, &Json::Object(object), &state.rules)?;
    let (response, notes, delivery) = state
        .core
        .unary(&route.grpc_path, Bytes::from(request), metadata)
        .await
        .map_err(|status| ApiError::from_status(&status))?;
    // Written as JSON from the wire when the envelope is serialized; bytes
    // that are not a `route.output` fail that (500 `internal`).
    Ok((EncodedMessage { desc: route.output.clone(), bytes: response }, notes, delivery))
}

/// The `Idempotency-Key` header, if it keeps the rule
/// ([`mediaops_proto::idempotency::is_well_formed`]); else a 400 naming it.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    use mediaops_proto::idempotency::{RULE, is_well_formed};
    let Some(value) = headers.get(mediaops_proto::keys::header::IDEMPOTENCY_KEY) else { return Ok(None) };
    match value.to_str() {
        Ok(key) if is_well_formed(key) => Ok(Some(key)),
        _ => Err(ServiceError::invalid_field("Idempotency-Key", format!("{RULE}; got {} bytes", value.len())).into()),
    }
}

/// The whole body, at most `limit` bytes: 413 when larger, 408 when the
/// listener's body deadline passed first (`MEDIAOPS_BODY_READ_TIMEOUT_SECS`;
/// the core is never called, so nothing is charged).
pub(crate) async fn read_body(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, limit).await.map_err(|e| match mediaops_listener::body_timeout(&e) {
        Some(timeout) => ApiError::new(ErrorCode::RequestTimeout, timeout.to_string()),
        None => ApiError::new(ErrorCode::PayloadTooLarge, format!("the request body is larger than {limit} bytes")),
    })
}

/// Spec 5.2: a body comes with `Content-Type: application/json` (upload
/// routes also take `multipart/form-data`, handled before this check).
fn require_json(headers: &axum::http::HeaderMap, upload: bool) -> Result<(), ApiError> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    if essence == "application/json" {
        Ok(())
    } else {
        let shown = if content_type.is_empty() { "none".to_owned() } else { format!("{content_type:?}") };
        Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "a request body needs Content-Type: application/json{} (got {shown})",
                if upload { " or multipart/form-data" } else { "" }
            ),
        ))
    }
}

/// For routes whose body fills one request field (the charter PUT), field
/// paths are given relative to the body the client sent.
fn relative_to_body(route: &Route, mut error: ApiError) -> ApiError {
    if let (Some(body), Some(field)) = (&route.body_field, &error.field) {
        let name = body.json_name();
        if field == name {
            error.field = None;
        } else if let Some(rest) = field.strip_prefix(name).and_then(|r| r.strip_prefix('.')) {
            error.field = Some(rest.to_owned());
            error.message = error.message.replace(&format!("{name}."), "");
        }
    }
    error
}
