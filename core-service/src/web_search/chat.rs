//! The chat model: an OpenAI-compatible `POST {chat_url}/chat/completions`
//! (platform.openai.com "Create chat completion"). Request: `{model,
//! messages: [{role, content}], temperature}` with `Authorization: Bearer
//! <key>` when a key is set; answer used: `choices[0].message.content`.
//! An error answer `{error: {message, type, code}}` becomes the failure's
//! upstream code and message. A completion is not repeated on failure: it
//! costs the operator money and takes long, and the task's deadline bounds it.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::upstream::UpstreamFailure;

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// `system` or `user`.
    pub role: &'static str,
    pub content: String,
}

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    #[serde(default)]
    content: Option<String>,
}

/// An OpenAI-compatible chat API.
#[derive(Debug, Clone)]
pub struct ChatModel {
    client: reqwest::Client,
    url: String,
    api_key: Option<String>,
    model: String,
}

impl ChatModel {
    /// `base_url` includes the version segment (`https://api.openai.com/v1`).
    pub fn new(
        base_url: &str,
        api_key: Option<&str>,
        model: &str,
        connect_timeout: Duration,
        timeout: Duration,
    ) -> reqwest::Result<ChatModel> {
        let client = reqwest::Client::builder().connect_timeout(connect_timeout).timeout(timeout).build()?;
        Ok(ChatModel {
            client,
            url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            api_key: api_key.map(str::to_owned),
            model: model.to_owned(),
        })
    }

    /// The model's reply to `messages`.
    pub async fn complete(&self, messages: &[Message]) -> Result<String, UpstreamFailure> {
        let body = json!({
            "model": self.model,
            "messages": messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect::<Vec<_>>(),
            "temperature": 0.3,
        });
        let mut request = self.client.post(&self.url).json(&body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| UpstreamFailure::transport("the chat model", &e))?;
        let completion: Completion = UpstreamFailure::json_or_status("the chat model", response).await?;
        completion
            .choices
            .into_iter()
            .next()
            .and_then(|choice| choice.message.content)
            .filter(|content| !content.trim().is_empty())
            .ok_or_else(|| UpstreamFailure::malformed("the chat model", "the answer has no choices[0].message.content"))
    }
}
