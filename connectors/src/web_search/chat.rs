//! The chat model: an OpenAI-compatible `POST {chat_url}/chat/completions`
//! (platform.openai.com "Create chat completion"). Request: `{model,
//! messages: [{role, content}], temperature}` with `Authorization: Bearer
//! <key>` when a key is set; answer used: `choices[0].message.content`.
//! An error answer `{error: {message, type, code}}` becomes the failure's
//! `error.upstream` (docs/outbound.md). A completion is not repeated on
//! failure (`Retry::Never`): it costs the operator money and takes long,
//! and the task's deadline bounds it.

use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use crate::outbound::{ConnectorClient, OutboundError, Retry};

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// `system` or `user`.
    pub role: &'static str,
    /// The message text.
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
#[derive(Clone)]
pub struct ChatModel {
    /// Based at the API's versioned root (`https://api.openai.com/v1`).
    client: ConnectorClient,
    api_key: Option<String>,
    model: String,
}

impl ChatModel {
    /// A model `model` of the chat API at `client`, with `api_key` as bearer when set.
    pub fn new(client: ConnectorClient, api_key: Option<&str>, model: &str) -> ChatModel {
        ChatModel { client, api_key: api_key.map(str::to_owned), model: model.to_owned() }
    }

    /// The model's reply to `messages`.
    pub async fn complete(&self, messages: &[Message]) -> Result<String, OutboundError> {
        let body = json!({
            "model": self.model,
            "messages": messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect::<Vec<_>>(),
            "temperature": 0.3,
        });
        let mut request = self.client.request(Method::POST, "/chat/completions").json(&body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = self.client.send(request, Retry::Never).await?;
        let completion: Completion = self.client.json(response).await?;
        completion
            .choices
            .into_iter()
            .next()
            .and_then(|choice| choice.message.content)
            .filter(|c| !c.trim().is_empty())
            .ok_or_else(|| OutboundError::Malformed {
                url: self.client.url("/chat/completions"),
                message: "the answer has no choices[0].message.content".into(),
            })
    }
}
