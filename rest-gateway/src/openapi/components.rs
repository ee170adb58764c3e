//! The document's shared `components` (docs/openapi.md): the Bearer
//! security scheme (spec 5), the envelope's error object (docs/errors.md),
//! one error response per HTTP status with the `error.code`s of that status
//! ([`mediaops_proto::error_code::ErrorCode`]), the headers and the request
//! header parameters every operation shares. Response `data` schemas are
//! added by [`mediaops_proto::json_schema::ResponseSchemas`].

use std::collections::BTreeMap;

use axum::http::StatusCode;
use mediaops_proto::idempotency;
use serde_json::{Map, Value, json};

use super::statuses;

/// Where `$ref`s to schemas point.
pub const SCHEMAS: &str = "#/components/schemas/";

/// The name of the security scheme.
pub const BEARER: &str = "bearer";

/// Header names as they are documented (HTTP header names are
/// case-insensitive; the gateway sends them in lower case).
pub mod header {
    /// The request id, sent and echoed.
    pub const REQUEST_ID: &str = "X-Request-Id";
    /// Seconds to wait before retrying (429, 503).
    pub const RETRY_AFTER: &str = "Retry-After";
    /// What is left of the rate limit (docs/rate-limits.md).
    pub const RATE_LIMIT: &str = "RateLimit";
    /// The rate limit in force.
    pub const RATE_LIMIT_POLICY: &str = "RateLimit-Policy";
    /// The entity tag of a cacheable answer.
    pub const ETAG: &str = "ETag";
    /// How long an answer may be cached.
    pub const CACHE_CONTROL: &str = "Cache-Control";
    /// Set when an `Idempotency-Key` replayed a stored answer.
    pub const REPLAYED: &str = "Idempotent-Replayed";
}

/// `{"$ref": "#/components/<section>/<name>"}`.
pub fn reference(section: &str, name: &str) -> Value {
    json!({"$ref": format!("#/components/{section}/{name}")})
}

/// The component name of the error response of `status`: its reason
/// phrase without spaces (`BadRequest`, `ServiceUnavailable`).
pub fn response_name(status: u16) -> String {
    let reason = StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("Error");
    reason.chars().filter(char::is_ascii_alphanumeric).collect()
}

/// The `components` object: `schemas` (the given `data` schemas and the
/// envelope's), `responses` for `error_statuses`, `headers`, `parameters`
/// and `securitySchemes`.
pub fn components(data_schemas: BTreeMap<String, Value>, error_statuses: &[u16]) -> Value {
    let mut schemas = Map::new();
    schemas.insert("Error".into(), error_schema());
    schemas.insert("ErrorEnvelope".into(), error_envelope_schema());
    schemas.extend(data_schemas);
    let responses: Map<String, Value> =
        error_statuses.iter().map(|&status| (response_name(status), error_response(status))).collect();
    json!({
        "schemas": schemas,
        "responses": responses,
        "headers": headers(),
        "parameters": parameters(),
        "securitySchemes": {
            BEARER: {
                "type": "http",
                "scheme": "bearer",
                "description": "`Authorization: Bearer <API key>` on every operation (spec 5). A key is 16-256 \
                    characters of `A-Z a-z 0-9 - . _ ~ + / =`; `mediaops keys create` makes one. A missing, \
                    malformed, unknown or disabled key is a 401."
            }
        }
    })
}

/// The envelope of a success with `data` of schema `data` (spec 2.1;
/// rest-gateway `envelope.rs`).
pub fn success_envelope(data: Value) -> Value {
    json!({
        "type": "object",
        "required": ["success", "requestId", "data", "error"],
        "properties": {
            "success": {"const": true},
            "requestId": {"type": "string", "description": "The request id, also the `X-Request-Id` header."},
            "data": data,
            "error": {"type": "null"},
            "warnings": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Why an answer is empty or what was left out; only when there is something to say."
            },
            "taskId": {
                "type": "string",
                "description": "A task the answer started and `data` has no field for (a sync receipt): read it \
                    at `GET /api/tasks/{taskId}`."
            }
        }
    })
}

/// The error object (docs/errors.md).
fn error_schema() -> Value {
    let codes: Vec<&str> = mediaops_proto::error_code::ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    json!({
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {"type": "string", "enum": codes, "description": "One code maps to one HTTP status (docs/errors.md)."},
            "message": {"type": "string"},
            "field": {"type": "string", "description": "The JSON path of the field at fault, when there is one."},
            "upstream": {
                "type": "object",
                "description": "What a data source said, passed through (spec 7 rule 3).",
                "required": ["code", "message"],
                "properties": {"code": {"type": ["string", "null"]}, "message": {"type": "string"}}
            }
        }
    })
}

fn error_envelope_schema() -> Value {
    json!({
        "type": "object",
        "required": ["success", "requestId", "data", "error"],
        "properties": {
            "success": {"const": false},
            "requestId": {"type": "string"},
            "data": {"type": "null"},
            "error": reference("schemas", "Error")
        }
    })
}

/// The response of `status`: the error envelope, its codes listed.
fn error_response(status: u16) -> Value {
    let codes: Vec<&str> = statuses::codes(status).iter().map(|c| c.as_str()).collect();
    let listed = codes.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    let reason = StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or_default();
    let mut headers = Map::new();
    headers.insert(header::REQUEST_ID.into(), reference("headers", header::REQUEST_ID));
    if status == 429 || status == 503 {
        headers.insert(header::RETRY_AFTER.into(), reference("headers", header::RETRY_AFTER));
    }
    if status == 429 {
        headers.insert(header::RATE_LIMIT.into(), reference("headers", header::RATE_LIMIT));
        headers.insert(header::RATE_LIMIT_POLICY.into(), reference("headers", header::RATE_LIMIT_POLICY));
    }
    let examples: Map<String, Value> = codes
        .iter()
        .map(|code| {
            let value = json!({
                "success": false,
                "requestId": "7f0c5a4e-3b1d-4c2a-9e8f-0a1b2c3d4e5f",
                "data": null,
                "error": {"code": code, "message": "What happened, in words (docs/errors.md)."}
            });
            ((*code).to_owned(), json!({"value": value}))
        })
        .collect();
    json!({
        "description": format!("{reason}: `error.code` {listed} (docs/errors.md)."),
        "headers": headers,
        "content": {"application/json": {"schema": reference("schemas", "ErrorEnvelope"), "examples": examples}},
        "x-error-codes": codes
    })
}

fn headers() -> Value {
    let text = |description: &str| json!({"description": description, "schema": {"type": "string"}});
    json!({
        header::REQUEST_ID: {
            "description": "The request id: the client's `X-Request-Id` when acceptable, else a new UUID.",
            "required": true,
            "schema": {"type": "string"}
        },
        header::RETRY_AFTER: {
            "description": "Whole seconds to wait before retrying: a 429's own, or 5 for a 503 \
                `billing_unavailable` / `store_unavailable`.",
            "schema": {"type": "integer", "minimum": 0}
        },
        header::RATE_LIMIT: text("`\"default\";r=<calls left>;t=<seconds>` (docs/rate-limits.md); on every \
            answer to a rate-limited account."),
        header::RATE_LIMIT_POLICY: text("`\"default\";q=<calls>;w=<seconds>` (docs/rate-limits.md)."),
        header::ETAG: text("Strong entity tag of the answer (docs/http.md); `\"…-gzip\"`/`\"…-br\"` when compressed."),
        header::CACHE_CONTROL: text("`private, max-age=0, must-revalidate` (docs/http.md)."),
        header::REPLAYED: {
            "description": "`true` on an answer replayed for a repeated `Idempotency-Key` (docs/billing.md).",
            "schema": {"type": "string", "const": "true"}
        }
    })
}

/// Names of the shared parameters.
pub mod parameter {
    /// The `Idempotency-Key` header parameter.
    pub const IDEMPOTENCY_KEY: &str = "IdempotencyKey";
    /// The `X-Request-Id` header parameter.
    pub const REQUEST_ID: &str = "RequestId";
}

fn parameters() -> Value {
    json!({
        parameter::IDEMPOTENCY_KEY: {
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": format!("Runs the call at most once for 24 hours: a repeat gets the stored answer \
                (`Idempotent-Replayed: true`) and is not charged again; 409 if the key was used for another \
                request or is still running (docs/billing.md). {}.", idempotency::RULE),
            "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x21-\\x7E]+$"}
        },
        parameter::REQUEST_ID: {
            "name": "X-Request-Id",
            "in": "header",
            "required": false,
            "description": "A request id to trace the call by (1-128 printable ASCII characters); anything else is \
                replaced by a new UUID, never refused.",
            "schema": {"type": "string"}
        }
    })
}

/// Headers of a success: the request id, the rate-limit state and, for
/// GET, the cache validators.
pub fn success_headers(get: bool) -> Value {
    let mut headers = Map::new();
    headers.insert(header::REQUEST_ID.into(), reference("headers", header::REQUEST_ID));
    headers.insert(header::RATE_LIMIT.into(), reference("headers", header::RATE_LIMIT));
    headers.insert(header::RATE_LIMIT_POLICY.into(), reference("headers", header::RATE_LIMIT_POLICY));
    headers.insert(header::REPLAYED.into(), reference("headers", header::REPLAYED));
    if get {
        headers.insert(header::ETAG.into(), reference("headers", header::ETAG));
        headers.insert(header::CACHE_CONTROL.into(), reference("headers", header::CACHE_CONTROL));
    }
    Value::Object(headers)
}
