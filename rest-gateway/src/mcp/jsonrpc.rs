//! JSON-RPC errors for what rmcp's transport would answer in plain text
//! (docs/mcp.md "Transport"): a `POST /mcp` whose JSON body does not parse
//! is a JSON-RPC **parse error** (`-32700`), a JSON value that is not a
//! JSON-RPC request, notification or response an **invalid request**
//! (`-32600`), and a known method whose `params` do not fit it **invalid
//! params** (`-32602`); each with HTTP 400 and `"id": null` unless the id
//! could be read (JSON-RPC 2.0 section 5.1). The body is read once here,
//! checked, and handed on unchanged.

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mediaops_proto::error_code::ErrorCode;
use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Value, json};

use crate::envelope::{self, ApiError};

/// JSON-RPC 2.0 "Parse error": the body is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0 "Invalid Request": JSON, but not a JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0 "Invalid params": a known method with params that do not fit.
pub const INVALID_PARAMS: i64 = -32602;

/// The layer (`axum::middleware::from_fn_with_state`, the state being the
/// body limit in bytes) in front of rmcp's service: a JSON `POST` body is
/// read and checked ([`check`]); requests of another method or content
/// type pass untouched (rmcp answers them: 405, 406, 415).
pub async fn parse_errors(
    axum::extract::State(max_body_bytes): axum::extract::State<usize>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != http::Method::POST || !is_json(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let request_id = envelope::request_id(&parts.headers);
            let message = format!("the request body is over MEDIAOPS_MAX_BODY_BYTES ({max_body_bytes} bytes)");
            return envelope::failure(&request_id, &ApiError::new(ErrorCode::PayloadTooLarge, message));
        }
    };
    if let Err(error) = check(&bytes) {
        return (http::StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

fn is_json(headers: &http::HeaderMap) -> bool {
    headers.get(http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|value| {
        let essence = value.split(';').next().unwrap_or_default().trim();
        essence.eq_ignore_ascii_case("application/json")
    })
}

/// `Ok` when `body` is a JSON-RPC message rmcp reads; else the JSON-RPC
/// error object to answer, in words a client's user can act on (never a
/// Rust type name).
///
/// # Errors
/// The answer `{"jsonrpc": "2.0", "id": …, "error": {code, message}}`.
pub fn check(body: &[u8]) -> Result<(), Value> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| answer(&Value::Null, PARSE_ERROR, format!("Parse error: the body is not JSON ({e})")))?;
    let Value::Object(message) = &value else {
        let what = if value.is_array() { "a batch (an array)" } else { "not an object" };
        return Err(answer(
            &Value::Null,
            INVALID_REQUEST,
            format!("Invalid Request: the body is {what}; send one JSON-RPC 2.0 message, an object"),
        ));
    };
    let id = message.get("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64()).cloned().unwrap_or_default();
    let invalid = |why: &str| answer(&id, INVALID_REQUEST, format!("Invalid Request: {why}"));
    if message.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    if let Some(given) = message.get("id")
        && !(given.is_string() || given.is_i64() || given.is_u64())
    {
        return Err(invalid("`id` must be a string or an integer"));
    }
    let method = match message.get("method") {
        Some(Value::String(method)) => Some(method.as_str()),
        Some(_) => return Err(invalid("`method` must be a string")),
        None if message.contains_key("result") || message.contains_key("error") => None,
        None => return Err(invalid("a request needs a `method`")),
    };
    if let Some(params) = message.get("params")
        && !params.is_object()
    {
        return Err(answer(&id, INVALID_PARAMS, "Invalid params: `params` must be an object".to_owned()));
    }
    // rmcp reads a `tools/call` without a tool name as some other request
    // and answers "method not found": say what is missing instead.
    if method == Some("tools/call") && !message.get("params").and_then(|p| p.get("name")).is_some_and(Value::is_string)
    {
        let why = "Invalid params for tools/call: `params.name` must name a tool (tools/list names them)";
        return Err(answer(&id, INVALID_PARAMS, why.to_owned()));
    }
    match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(_) => Ok(()),
        Err(e) => {
            let detail = plain_detail(&e.to_string());
            Err(match method {
                Some(method) => answer(&id, INVALID_PARAMS, format!("Invalid params for {method}{detail}")),
                None => invalid(&format!("not a valid JSON-RPC response{detail}")),
            })
        }
    }
}

/// serde's message when it names a field (`missing field \`name\``), else
/// nothing: its messages about untagged enums name Rust types.
fn plain_detail(serde: &str) -> String {
    let plain = serde.starts_with("missing field") || serde.starts_with("invalid type") || serde.starts_with("unknown");
    if plain && !serde.contains("enum") && !serde.contains("::") {
        format!(": {}", serde.split(" at line").next().unwrap_or(serde))
    } else {
        String::new()
    }
}

fn answer(id: &Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(body: &str) -> (i64, Value, String) {
        let error = check(body.as_bytes()).unwrap_err();
        let message = error["error"]["message"].as_str().unwrap().to_owned();
        (error["error"]["code"].as_i64().unwrap(), error["id"].clone(), message)
    }

    #[test]
    fn well_formed_messages_pass() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert_eq!(check(ok.as_bytes()), Ok(()), "{ok}");
        }
    }

    #[test]
    fn malformed_json_is_a_parse_error() {
        let (code, id, message) = refusal(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#);
        assert_eq!((code, id), (PARSE_ERROR, Value::Null));
        assert!(message.starts_with("Parse error: "), "{message}");
    }

    #[test]
    fn json_that_is_not_a_request_is_an_invalid_request() {
        for (body, id) in [
            (r#"[1, 2]"#, Value::Null),
            (r#""tools/list""#, Value::Null),
            (r#"{"id":7,"method":"tools/list"}"#, json!(7)),
            (r#"{"jsonrpc":"1.0","id":"x","method":"tools/list"}"#, json!("x")),
            (r#"{"jsonrpc":"2.0","id":1}"#, json!(1)),
            (r#"{"jsonrpc":"2.0","id":1,"method":5}"#, json!(1)),
            (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#, Value::Null),
        ] {
            let (code, answered, message) = refusal(body);
            assert_eq!((code, answered), (INVALID_REQUEST, id), "{body}: {message}");
            assert!(message.starts_with("Invalid Request: ") && !message.contains("::"), "{message}");
        }
    }

    #[test]
    fn params_that_do_not_fit_are_invalid_params_in_plain_words() {
        let (code, id, message) = refusal(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[]}"#);
        assert_eq!((code, id), (INVALID_PARAMS, json!(3)), "{message}");
        let (code, _, message) = refusal(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#);
        assert_eq!(code, INVALID_PARAMS, "{message}");
        assert!(message.starts_with("Invalid params for tools/call"), "{message}");
        assert!(!message.contains("enum") && !message.contains("::"), "{message}");
    }
}
