//! A call's outcome as an MCP tool result (docs/mcp.md "Results and
//! errors"): `structuredContent` is the REST envelope of the same call,
//! `{success, requestId, data, error, warnings?, taskId?}`; the text block is
//! that JSON on success, and `<code>: <message>` on failure (`isError: true`).

use mediaops_proto::error_code::ErrorCode;
use rmcp::model::{CallToolResult, ContentBlock};

use crate::core_client::AnswerNotes;
use crate::envelope::{self, ApiError};
use crate::transcode::wire_to_json::EncodedMessage;

/// A successful call: the success envelope, as structured content and as
/// its JSON text (MCP 2025-11-25 "Structured Content": a tool returning
/// structured content should also return it serialized in a text block).
pub fn success(request_id: &str, data: &EncodedMessage, notes: &AnswerNotes) -> CallToolResult {
    match envelope::success_json(request_id, data, notes) {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => failure(request_id, &ApiError::new(ErrorCode::Internal, format!("cannot write the answer: {e}"))),
    }
}

/// A failed call: `isError: true`, the failure envelope as structured
/// content, and [`error_text`].
pub fn failure(request_id: &str, error: &ApiError) -> CallToolResult {
    let mut result = CallToolResult::structured_error(envelope::failure_json(request_id, error));
    result.content = vec![ContentBlock::text(error_text(error))];
    result
}

/// `<code>: <message>`, then the field, the HTTP status of the REST answer
/// and when to retry, e.g. `insufficient_points: price 6, balance 2 (HTTP
/// 402)` or `rate_limited: … (HTTP 429, retry after 2 s)`.
pub fn error_text(error: &ApiError) -> String {
    let mut text = format!("{}: {}", error.code, mediaops_proto::excerpt::cap_message(&error.message));
    if let Some(field) = &error.field {
        text.push_str(&format!(" (field `{field}`)"));
    }
    text.push_str(&format!(" (HTTP {}", error.code.http_status()));
    if let Some(seconds) = error.retry_after() {
        text.push_str(&format!(", retry after {seconds} s"));
    }
    text.push(')');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_names_its_code_and_keeps_the_rest_error_object() {
        let error = ApiError::from(mediaops_proto::error::ServiceError::invalid_field("keyword", "required"));
        let result = failure("r1", &error);
        assert_eq!(result.is_error, Some(true));
        let text = result.content[0].as_text().unwrap().text.clone();
        assert_eq!(text, "invalid_input: required (field `keyword`) (HTTP 400)");
        let structured = result.structured_content.unwrap();
        assert_eq!(structured["success"], false);
        assert_eq!(structured["requestId"], "r1");
        assert_eq!(
            structured["error"],
            serde_json::json!({"code": "invalid_input", "message": "required", "field": "keyword"})
        );
        let outage = error_text(&ApiError::new(ErrorCode::StoreUnavailable, "down"));
        let seconds = mediaops_proto::error_code::RETRY_AFTER_SECS;
        assert_eq!(outage, format!("store_unavailable: down (HTTP 503, retry after {seconds} s)"));
    }
}
