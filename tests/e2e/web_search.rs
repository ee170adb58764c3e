//! `POST /api/skills/ai-web-search/invoke` and `GET /api/tasks/{taskId}`
//! over REST, both servers running, against local fake SearXNG and chat
//! servers: the envelope and the spec 4.14 `data` fields, the `running`
//! answer and the task path, another account's 404, 503 when not
//! configured. Billing and failure paths on both ledgers:
//! `core-service/tests/web_search.rs`.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;
use mediaops_connectors::test_support::fake_web;

use std::time::Duration;

use common::{Service, add_key, failure, success};
use fake_web::{CHAT_KEY, ChatMode};
use serde_json::json;

const PATH: &str = "/api/skills/ai-web-search/invoke";

async fn start(wait_secs: u64, upstreams: Option<(&fake_web::FakeSearxng, &fake_web::FakeChat)>) -> Service {
    let dir = tempfile::tempdir().unwrap();
    add_key(dir.path(), "mk_rest_web_search_other_01", "other-account").await;
    Service::start_with(dir, |core| {
        core.web_search.wait_secs = wait_secs;
        core.web_search.chat_api_key = Some(CHAT_KEY.into());
        if let Some((searxng, chat)) = upstreams {
            core.web_search.searxng_url = Some(searxng.url.clone());
            core.web_search.chat_url = Some(chat.url.clone());
        }
    })
    .await
}

async fn balance(service: &Service) -> i64 {
    let (status, body) = service.get("/api/account/balance").await;
    success(status, &body)["points"].as_i64().unwrap()
}

#[tokio::test]
async fn invoke_answers_the_spec_fields_and_the_task_path_shows_the_same() {
    let (searxng, chat) = (fake_web::searxng().await, fake_web::chat().await);
    let service = start(20, Some((&searxng, &chat))).await;
    let before = balance(&service).await;
    let (status, body) = service.post(PATH, json!({"query": "露营要带什么"})).await;
    let data = success(status, &body);
    assert_eq!(data["source"], "searxng");
    assert_eq!(data["status"], "success");
    assert_eq!(data["query"], "露营要带什么");
    let task_id = data["taskId"].as_str().unwrap().to_owned();
    assert_eq!(data["result"]["content"], "关于「露营要带什么」：先备齐帐篷和睡袋 [1]，帐篷选双层的 [2]。");
    assert_eq!(
        data["result"]["references"][0],
        json!({"title": "新手露营装备清单", "url": "https://camp.example.cn/guide"})
    );
    assert_eq!(data["result"]["references"].as_array().unwrap().len(), 3);
    assert_eq!(data["result"]["suggestions"], json!(["冬季露营怎么保暖？", "露营装备推荐", "露营帐篷品牌"]));
    assert_eq!(balance(&service).await, before - 10);

    let (status, body) = service.get(&format!("/api/tasks/{task_id}")).await;
    let task = success(status, &body);
    for field in ["source", "taskId", "status", "query", "result"] {
        assert_eq!(task[field], data[field], "{field}");
    }
    assert_eq!(task["operationKey"], "skills.ai-web-search");
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(balance(&service).await, before - 10, "reading a task is free");

    let (status, body) = service
        .call_with_key(
            reqwest::Method::GET,
            &format!("/api/tasks/{task_id}"),
            None,
            Some("mk_rest_web_search_other_01"),
        )
        .await;
    failure(status, &body, 404, "not_found");
    service.running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_slow_answer_is_running_then_ready_at_the_task_path() {
    let (searxng, chat) = (fake_web::searxng().await, fake_web::chat().await);
    chat.set(ChatMode::Answer { delay: Duration::from_millis(2000) });
    let service = start(1, Some((&searxng, &chat))).await;
    let (status, body) = service.post(PATH, json!({"query": "露营"})).await;
    let data = success(status, &body);
    assert_eq!(data["status"], "running");
    let path = format!("/api/tasks/{}", data["taskId"].as_str().unwrap());
    let mut task = json!(null);
    for _ in 0..100 {
        let (status, body) = service.get(&path).await;
        task = success(status, &body);
        if task["status"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(task["status"], "success", "{task}");
    assert_eq!(task["result"]["references"].as_array().unwrap().len(), 3);
    service.running.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_a_search_backend_it_is_503_not_configured_and_free() {
    let service = start(20, None).await;
    let before = balance(&service).await;
    let (status, body) = service.post(PATH, json!({"query": "露营"})).await;
    let error = failure(status, &body, 503, "not_configured");
    assert!(error["message"].as_str().unwrap().contains("MEDIAOPS_WEB_SEARCH__SEARXNG_URL"), "{error}");
    let (status, body) = service.post(PATH, json!({})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "query");
    assert_eq!(balance(&service).await, before);
    service.running.shutdown().await.unwrap();
}
