//! Local fake upstreams of `skills.ai-web-search`: a SearXNG instance
//! (`GET /search?format=json`) and an OpenAI-compatible chat API
//! (`POST /v1/chat/completions`). Each records what our service sent and
//! answers in the real service's documented shapes, errors included:
//! SearXNG `{query, number_of_results, results: [{url, title, content,
//! engine, engines, positions, score, category, …}], answers, corrections,
//! infoboxes, suggestions, unresponsive_engines}` and its plain-text 429 /
//! 403; OpenAI `{id, object, created, model, choices: [{index, message:
//! {role, content}, finish_reason}], usage}` and `{error: {message, type,
//! param, code}}`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The bearer token the fake chat API accepts.
pub const CHAT_KEY: &str = "sk-test-web-search-0001";

/// The model the tests configure.
pub const CHAT_MODEL: &str = "qwen-test-model";

/// How the fake SearXNG answers.
#[derive(Debug, Clone, PartialEq)]
pub enum SearxMode {
    /// Five results (one repeated URL, one without a title) and two suggestions.
    Results,
    /// No results.
    Empty,
    /// This HTTP status with SearXNG's plain-text body.
    Status(u16),
}

/// How the fake chat API answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatMode {
    /// A completion citing [1] and [2], after `delay`.
    Answer {
        /// How long the fake waits before it answers.
        delay: Duration,
    },
    /// This status with OpenAI's error body, after `delay`.
    Error {
        /// The HTTP status.
        status: u16,
        /// The body's `error.type`.
        kind: &'static str,
        /// The body's `error.code`, when it has one.
        code: Option<&'static str>,
        /// The body's `error.message`.
        message: &'static str,
        /// How long the fake waits before it answers.
        delay: Duration,
    },
}

/// A running fake SearXNG.
#[derive(Clone)]
pub struct FakeSearxng {
    /// Its base URL (`http://127.0.0.1:<port>`).
    pub url: String,
    /// How it answers the next request.
    pub mode: Arc<Mutex<SearxMode>>,
    /// Query parameters of every request, in order.
    pub requests: Arc<Mutex<Vec<HashMap<String, String>>>>,
}

/// A running fake chat API; `url` is the base including `/v1`.
#[derive(Clone)]
pub struct FakeChat {
    /// Its base URL, `/v1` included.
    pub url: String,
    /// How it answers the next request.
    pub mode: Arc<Mutex<ChatMode>>,
    /// `(authorization header, JSON body)` of every request, in order.
    pub requests: Arc<Mutex<Vec<ChatRequest>>>,
}

/// One request the fake chat API received: its authorization header and JSON body.
pub type ChatRequest = (Option<String>, Value);

impl FakeSearxng {
    /// Answers the next requests as `mode` says.
    pub fn set(&self, mode: SearxMode) {
        *self.mode.lock().unwrap() = mode;
    }

    /// Requests received so far.
    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

impl FakeChat {
    /// Answers the next requests as `mode` says.
    pub fn set(&self, mode: ChatMode) {
        *self.mode.lock().unwrap() = mode;
    }

    /// Requests received so far.
    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

/// The results the fake SearXNG knows, in rank order (before our filtering).
pub fn searx_results() -> Vec<Value> {
    let hit = |url: &str, title: &str, content: &str, engine: &str, position: u32| {
        json!({
            "url": url, "title": title, "content": content, "engine": engine,
            "parsed_url": ["https", url.split('/').nth(2).unwrap_or_default(), "/", "", "", ""],
            "template": "default.html", "engines": [engine], "positions": [position],
            "score": 1.0 / f64::from(position), "category": "general", "publishedDate": null,
        })
    };
    vec![
        hit("https://camp.example.cn/guide", "新手露营装备清单", "帐篷、睡袋、防潮垫是露营三件套。", "bing", 1),
        hit("https://outdoor.example.com/tent", "如何挑选露营帐篷", "双层帐篷更适合多变天气。", "baidu", 2),
        hit("https://camp.example.cn/guide", "新手露营装备清单（重复）", "重复的链接。", "sogou", 3),
        json!({"url": "https://no-title.example/", "title": "", "content": "没有标题", "engine": "bing"}),
        hit("https://weather.example.org/camp", "露营天气注意事项", "", "duckduckgo", 4),
    ]
}

/// SearXNG's own suggestions in the fake answer.
pub const SEARX_SUGGESTIONS: [&str; 2] = ["露营装备推荐", "露营帐篷品牌"];

/// Starts a fake SearXNG.
pub async fn searxng() -> FakeSearxng {
    let fake = FakeSearxng {
        url: String::new(),
        mode: Arc::new(Mutex::new(SearxMode::Results)),
        requests: Arc::new(Mutex::new(Vec::new())),
    };
    let router = axum::Router::new().route("/search", axum::routing::get(search)).with_state(fake.clone());
    FakeSearxng { url: serve(router).await, ..fake }
}

async fn search(State(fake): State<FakeSearxng>, Query(params): Query<HashMap<String, String>>) -> Response {
    fake.requests.lock().unwrap().push(params.clone());
    let mode = fake.mode.lock().unwrap().clone();
    match mode {
        SearxMode::Status(429) => (StatusCode::TOO_MANY_REQUESTS, "Too Many Requests").into_response(),
        SearxMode::Status(403) => (StatusCode::FORBIDDEN, "Forbidden").into_response(),
        SearxMode::Status(status) => (StatusCode::from_u16(status).unwrap(), "Internal Server Error").into_response(),
        SearxMode::Empty | SearxMode::Results if params.get("format").map(String::as_str) != Some("json") => {
            // SearXNG answers 403 for a format that is not enabled.
            (StatusCode::FORBIDDEN, "Forbidden").into_response()
        }
        SearxMode::Empty => Json(json!({
            "query": params.get("q"), "number_of_results": 0, "results": [], "answers": [],
            "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": [["bing", "timeout"]],
        }))
        .into_response(),
        SearxMode::Results => Json(json!({
            "query": params.get("q"), "number_of_results": 0, "results": searx_results(), "answers": [],
            "corrections": [], "infoboxes": [], "suggestions": SEARX_SUGGESTIONS, "unresponsive_engines": [],
        }))
        .into_response(),
    }
}

/// Starts a fake chat API that answers after `delay`.
pub async fn chat() -> FakeChat {
    let fake = FakeChat {
        url: String::new(),
        mode: Arc::new(Mutex::new(ChatMode::Answer { delay: Duration::ZERO })),
        requests: Arc::new(Mutex::new(Vec::new())),
    };
    let router =
        axum::Router::new().route("/v1/chat/completions", axum::routing::post(complete)).with_state(fake.clone());
    FakeChat { url: format!("{}/v1", serve(router).await), ..fake }
}

/// The fake model's answer to `question`: cites the first two numbered
/// results and one that was not given (`[7]`), and ends with two
/// follow-up questions.
pub fn fake_answer(question: &str) -> String {
    format!(
        "关于「{question}」：先备齐帐篷和睡袋 [1]，帐篷选双层的 [2][7]。\n\n延伸问题：\n- 冬季露营怎么保暖？\n- 露营装备推荐\n"
    )
}

fn openai_error(status: u16, kind: &str, code: Option<&str>, message: &str) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    (StatusCode::from_u16(status).unwrap(), Json(body)).into_response()
}

async fn complete(State(fake): State<FakeChat>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
    fake.requests.lock().unwrap().push((auth.clone(), body.clone()));
    if auth.as_deref() != Some(&format!("Bearer {CHAT_KEY}")) {
        return openai_error(
            401,
            "invalid_request_error",
            Some("invalid_api_key"),
            "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
        );
    }
    let mode = fake.mode.lock().unwrap().clone();
    match mode {
        ChatMode::Error { status, kind, code, message, delay } => {
            tokio::time::sleep(delay).await;
            openai_error(status, kind, code, message)
        }
        ChatMode::Answer { delay } => {
            tokio::time::sleep(delay).await;
            let user = body["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["role"] == "user"))
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_owned();
            let question = user.lines().next().unwrap_or_default().trim_start_matches("问题：").to_owned();
            Json(json!({
                "id": "chatcmpl-test", "object": "chat.completion", "created": 1_700_000_000,
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": fake_answer(&question)},
                             "logprobs": null, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140},
            }))
            .into_response()
        }
    }
}
