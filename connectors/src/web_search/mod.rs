//! `skills.ai-web-search` (spec 4.14, 2.6; docs/web-search.md):
//! a question answered from the web. Each invoke creates a task
//! (docs/tasks.md) that searches a SearXNG instance ([`searxng`]) and has an
//! OpenAI-compatible chat model ([`chat`]) write the answer citing the hits
//! ([`prompt`]). The invoke call waits up to `wait_secs` (default 60) and
//! answers with the result, or with `status: running` and the `taskId` to
//! fetch from `GET /api/tasks/{taskId}`. Charged once per task, 10 points,
//! only when the task succeeds.

pub mod chat;
pub mod config;
pub mod prompt;
pub mod searxng;

use std::sync::Arc;
use std::time::Duration;

use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::skills::v1::{AiWebSearchRequest, AiWebSearchResponse, WebReference, WebSearchResult};
use serde_json::{Value, json};

use crate::outbound::{ConnectorClient, OutboundSettings};
use chat::ChatModel;
use config::WebSearchSettings;
use mediaops_platform::call::Limits;
use mediaops_platform::registry::{BoxFuture, CallContext, Registry};
use mediaops_platform::tasks::{TaskRunner, TaskWork, error_from_json};
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_store::task::{Task, TaskStatus};
use searxng::Searxng;

/// `operationKey` of the skill.
pub const OPERATION_KEY: &str = "skills.ai-web-search";

/// `source` of the answers: the search backend.
pub const SOURCE: &str = "searxng";

/// Longest `query` accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 500;

const RPC: &str = mediaops_proto::mediaops::skills::v1::skills_service::AI_WEB_SEARCH;

/// Time the invoke call may take beyond `wait_secs` (storing, reading).
const CALL_MARGIN: Duration = Duration::from_secs(15);

/// How long the reservation outlives the task's deadline.
const HOLD_MARGIN: Duration = Duration::from_secs(120);

/// The skill's handler state.
pub struct WebSearch {
    settings: WebSearchSettings,
    runner: Arc<TaskRunner>,
}

/// The search and the model, the work of one task.
struct Engine {
    searxng: Searxng,
    chat: ChatModel,
    max_results: usize,
}

/// Sets the skill's timing in `registry` (the call waits `wait_secs`; the
/// reservation lasts the task's deadline) and, when both upstreams are
/// configured, registers its task work with `runner`; answers the skill,
/// whose RPC is `mediaops_ops::services::skills`'. The connectors take their
/// connect/read timeouts and backoff from `outbound`.
pub fn configure(
    settings: &WebSearchSettings,
    outbound: &OutboundSettings,
    runner: &Arc<TaskRunner>,
    registry: &mut Registry,
) -> anyhow::Result<Arc<WebSearch>> {
    settings.check()?;
    if let (Some(searxng_url), Some(chat_url)) = (&settings.searxng_url, &settings.chat_url) {
        let search = ConnectorClient::builder("searxng", searxng_url, outbound)
            .request_timeout(Duration::from_secs(settings.search_timeout_secs))
            .retries(settings.search_retries)
            .build()?;
        let chat = ConnectorClient::builder("chat", chat_url, outbound)
            .request_timeout(Duration::from_secs(settings.chat_timeout_secs))
            .retries(0)
            .build()?;
        let engine = Engine {
            searxng: Searxng::new(search, &settings.language),
            chat: ChatModel::new(chat, settings.chat_api_key.as_deref(), &settings.chat_model),
            max_results: settings.max_results,
        };
        runner.register(OPERATION_KEY, Arc::new(engine));
    }
    registry.set_limits(
        RPC,
        Limits {
            operation_timeout: Duration::from_secs(settings.wait_secs) + CALL_MARGIN,
            reservation_ttl: Duration::from_secs(settings.deadline_secs) + HOLD_MARGIN,
        },
    )?;
    Ok(Arc::new(WebSearch { settings: settings.clone(), runner: runner.clone() }))
}

impl WebSearch {
    /// Checks the query, starts the task and waits for it up to `wait_secs`.
    pub async fn invoke(
        &self,
        ctx: CallContext,
        request: AiWebSearchRequest,
    ) -> Result<AiWebSearchResponse, ServiceError> {
        let query = request.query.trim();
        if query.is_empty() {
            return Err(ServiceError::invalid_field("query", "`query` must not be empty"));
        }
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(ServiceError::invalid_field(
                "query",
                format!("`query` is longer than {MAX_QUERY_CHARS} characters"),
            ));
        }
        let missing = self.settings.missing();
        if !missing.is_empty() {
            return Err(ServiceError::new(
                ErrorCode::NotConfigured,
                format!(
                    "{OPERATION_KEY} needs a search backend and a chat model: set {}; nothing was charged",
                    missing.join(" and ")
                ),
            ));
        }
        let deadline = Duration::from_secs(self.settings.deadline_secs);
        let task = self.runner.submit(&ctx, json!({"query": query}), deadline).await?;
        let task = self.runner.wait(&task.id, Duration::from_secs(self.settings.wait_secs)).await?;
        match task.status {
            TaskStatus::Failed => Err(error_from_json(task.error.as_ref().unwrap_or(&Value::Null))),
            _ => Ok(answer(&task)),
        }
    }
}

impl TaskWork for Engine {
    fn run(&self, request: Value) -> BoxFuture<Result<Value, ServiceError>> {
        let searxng = self.searxng.clone();
        let chat = self.chat.clone();
        let max_results = self.max_results;
        Box::pin(async move {
            let query = request.get("query").and_then(Value::as_str).unwrap_or_default().to_owned();
            let found = searxng.search(&query).await.map_err(|e| e.to_service_error("the search backend", None))?;
            if found.results.is_empty() {
                return Err(ServiceError::upstream_unavailable(
                    format!("the search backend found no results for {}; nothing was charged", excerpt(&query)),
                    None,
                ));
            }
            let hits = &found.results[..found.results.len().min(max_results)];
            let reply = chat
                .complete(&prompt::messages(&query, hits))
                .await
                .map_err(|e| e.to_service_error("the chat model", None))?;
            let (content, follow_ups) = prompt::split_reply(&reply);
            let content = prompt::drop_unknown_citations(&content, hits.len());
            Ok(json!({
                "content": content,
                "references": hits.iter().map(|h| json!({"title": h.title.trim(), "url": h.url})).collect::<Vec<_>>(),
                "suggestions": prompt::suggestions(follow_ups, &found.suggestions),
            }))
        })
    }
}

/// The invoke answer for a task (spec 4.14): `source`, `taskId`, `status`,
/// `query`, and `result` once it succeeded.
pub fn answer(task: &Task) -> AiWebSearchResponse {
    AiWebSearchResponse {
        source: SOURCE.to_owned(),
        task_id: Some(task.id.clone()),
        status: task.status.as_str().to_owned(),
        query: query_of(task),
        result: task.result.as_ref().map(result_from_json),
    }
}

/// The `query` a task was created with.
pub fn query_of(task: &Task) -> String {
    task.request.get("query").and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// A stored result (`{content, references, suggestions}`) as the message.
pub fn result_from_json(result: &Value) -> WebSearchResult {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let list = |key: &str| result.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    WebSearchResult {
        content: text(result, "content"),
        references: list("references")
            .iter()
            .map(|r| WebReference { title: text(r, "title"), url: text(r, "url") })
            .collect(),
        suggestions: list("suggestions").iter().filter_map(|s| s.as_str().map(str::to_owned)).collect(),
    }
}
