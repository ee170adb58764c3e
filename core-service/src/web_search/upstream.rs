//! How the search backend and the chat model fail: a transport failure,
//! a timeout, an error status (with the upstream's own code and message
//! when its body says them), or an answer that is not the expected JSON.
//! Every one becomes 502 `upstream_unavailable` for the caller, uncharged.

use std::future::Future;
use std::time::Duration;

use mediaops_proto::error_code::ErrorCode;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ServiceError;

/// Longest upstream message kept.
const MESSAGE_CHARS: usize = 300;

/// One failed upstream call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamFailure {
    /// Which upstream, for people: `the search backend`, `the chat model`.
    pub what: &'static str,
    /// The upstream's own code: its error body's `code` or `type`, else the
    /// HTTP status; `timeout` for a timeout.
    pub code: Option<String>,
    pub message: String,
    /// Whether repeating the call may help (transport, timeout, 5xx, 429).
    pub transient: bool,
}

impl UpstreamFailure {
    /// A request that got no answer.
    pub fn transport(what: &'static str, error: &reqwest::Error) -> UpstreamFailure {
        let timeout = error.is_timeout();
        UpstreamFailure {
            what,
            code: timeout.then(|| "timeout".to_owned()),
            message: if timeout { "did not answer in time".to_owned() } else { without_url(error) },
            transient: true,
        }
    }

    /// An answer that is not what the API documents.
    pub fn malformed(what: &'static str, message: impl Into<String>) -> UpstreamFailure {
        UpstreamFailure { what, code: None, message: message.into(), transient: false }
    }

    /// The JSON body of a 2xx answer, or the failure an error status is.
    pub async fn json_or_status<T: DeserializeOwned>(
        what: &'static str,
        response: reqwest::Response,
    ) -> Result<T, UpstreamFailure> {
        let status = response.status();
        let body = response.bytes().await.map_err(|e| UpstreamFailure::transport(what, &e))?;
        if !status.is_success() {
            let (code, message) = said(&body);
            return Err(UpstreamFailure {
                what,
                code: Some(code.unwrap_or_else(|| status.as_u16().to_string())),
                message: message.unwrap_or_else(|| format!("HTTP {status}")),
                transient: status.is_server_error() || status.as_u16() == 429,
            });
        }
        serde_json::from_slice(&body)
            .map_err(|e| UpstreamFailure::malformed(what, format!("the answer is not the documented JSON: {e}")))
    }

    /// 502 `upstream_unavailable`, naming the upstream and what it said.
    pub fn to_service_error(&self) -> ServiceError {
        let code = self.code.as_deref().map(|c| format!(" ({c})")).unwrap_or_default();
        ServiceError::new(
            ErrorCode::UpstreamUnavailable,
            format!("{} failed{code}: {}; nothing was charged", self.what, self.message),
        )
    }
}

/// (code, message) from an error body: OpenAI's `{error: {message, type,
/// code}}`, `{error: "…"}`, `{message: "…"}`, else the text itself.
fn said(body: &[u8]) -> (Option<String>, Option<String>) {
    let scalar = |v: Option<&Value>| match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    if let Ok(json) = serde_json::from_slice::<Value>(body) {
        let error = json.get("error").unwrap_or(&json);
        let message = scalar(error.get("message")).or_else(|| scalar(Some(error)));
        let code = scalar(error.get("code")).or_else(|| scalar(error.get("type")));
        if message.is_some() {
            return (code, message.map(|m| clip(&m)));
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    (None, (!text.is_empty()).then(|| clip(text)))
}

fn clip(text: &str) -> String {
    text.chars().take(MESSAGE_CHARS).collect()
}

/// A reqwest error without the URL (which may carry a query or key).
fn without_url(error: &reqwest::Error) -> String {
    let mut message = error.to_string();
    if let Some(url) = error.url() {
        message = message.replace(url.as_str(), "");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    message
}

/// Runs `call`, and again after 250 ms, 500 ms, … while it fails
/// transiently, at most `retries` more times.
pub async fn retry_transient<T, F, Fut>(retries: u32, mut call: F) -> Result<T, UpstreamFailure>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, UpstreamFailure>>,
{
    let mut attempt = 0;
    loop {
        match call().await {
            Err(failure) if failure.transient && attempt < retries => {
                tokio::time::sleep(Duration::from_millis(250 << attempt)).await;
                attempt += 1;
            }
            outcome => return outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_give_code_and_message() {
        let openai = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(said(openai), (Some("invalid_api_key".into()), Some("Incorrect API key provided".into())));
        let no_code = br#"{"error":{"message":"Rate limit reached","type":"requests","code":null}}"#;
        assert_eq!(said(no_code), (Some("requests".into()), Some("Rate limit reached".into())));
        assert_eq!(said(b"Too Many Requests"), (None, Some("Too Many Requests".into())));
        assert_eq!(said(b""), (None, None));
    }
}
