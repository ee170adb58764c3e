//! `skills.ai-web-search` and `tasks.get` end to end over real gRPC against
//! local fake SearXNG and chat servers (`support/fake_web.rs`), on both real
//! ledgers (embedded, and Redis at 127.0.0.1:6379) and the real SQLite task
//! store: what we send upstream, the answer's shape and citations, the
//! `running` → `GET /api/tasks/{taskId}` path, owners only, upstream
//! failures as 502 uncharged (also after the call returned), not
//! configured as 503 uncharged, charged exactly once per task, and tasks
//! surviving a restart (resumed, or failed and released past their deadline).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use core_service::{Core, CoreSettings};
use mediaops_connectors::test_support::fake_web::{
    self, CHAT_KEY, CHAT_MODEL, ChatMode, FakeChat, FakeSearxng, SearxMode,
};
use mediaops_platform::billing::embedded::EmbeddedLedger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::billing::{Ledger, Reserved};
use mediaops_proto::grpc_error::error_object;
use mediaops_proto::mediaops::common::v1::Error as ErrorObject;
use mediaops_proto::mediaops::skills::v1::skills_service_client::SkillsServiceClient;
use mediaops_proto::mediaops::skills::v1::{AiWebSearchRequest, AiWebSearchResponse};
use mediaops_proto::mediaops::tasks::v1::task_service_client::TaskServiceClient;
use mediaops_proto::mediaops::tasks::v1::{GetTaskRequest, Task as TaskMessage};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::task::{Task, TaskCharge, TaskStatus, TaskStore};
use serde_json::json;
use tonic::transport::Channel;

const KEY: &str = "mk_web_search_test_key_0001";
const OTHER_KEY: &str = "mk_web_search_other_key_001";
const ACCOUNT: &str = "bootstrap";
const PRICE: i64 = 10;

struct TestCore {
    channel: Channel,
    ledger: Arc<dyn Ledger>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl TestCore {
    /// Stops the server the way a shutdown does (running tasks are left
    /// for the next start) and waits for it.
    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.served.take().unwrap().await.unwrap().unwrap();
    }
}

struct Upstreams {
    searxng: FakeSearxng,
    chat: FakeChat,
}

async fn upstreams() -> Upstreams {
    Upstreams { searxng: fake_web::searxng().await, chat: fake_web::chat().await }
}

fn settings(dir: &std::path::Path, up: Option<&Upstreams>, wait_secs: u64) -> CoreSettings {
    let mut settings = CoreSettings {
        data_dir: dir.to_path_buf(),
        bootstrap_key: Some(KEY.into()),
        bootstrap_points: 100,
        ..CoreSettings::default()
    };
    let web = &mut settings.web_search;
    web.wait_secs = wait_secs;
    web.deadline_secs = 30;
    web.search_retries = 1;
    web.chat_model = CHAT_MODEL.into();
    web.chat_api_key = Some(CHAT_KEY.into());
    if let Some(up) = up {
        web.searxng_url = Some(up.searxng.url.clone());
        web.chat_url = Some(up.chat.url.clone());
    }
    settings
}

async fn start(settings: &CoreSettings, ledger: Arc<dyn Ledger>) -> TestCore {
    ledger.insert_key(OTHER_KEY, "other-account").await.unwrap();
    let core = Core::open_with_ledger(settings, ledger.clone(), |_| Ok(())).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(core.serve(listener, async move {
        let _ = stopped.await;
    }));
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
    TestCore { channel, ledger, stop: Some(stop), served: Some(served) }
}

fn embedded(dir: &std::path::Path) -> Arc<dyn Ledger> {
    Arc::new(EmbeddedLedger::open(dir).unwrap())
}

async fn redis() -> Arc<dyn Ledger> {
    let url = std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("mediaops-websearch-test-{}", uuid::Uuid::new_v4().simple());
    Arc::new(RedisLedger::connect(&url, &prefix).await.expect("Redis at 127.0.0.1:6379"))
}

/// (a fresh data dir, each real ledger over it).
async fn both_ledgers() -> Vec<(tempfile::TempDir, Arc<dyn Ledger>)> {
    let first = tempfile::tempdir().unwrap();
    let embedded = embedded(&first.path().join("ledger"));
    vec![(first, embedded), (tempfile::tempdir().unwrap(), redis().await)]
}

fn with_key<T>(message: T, key: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {key}").parse().unwrap());
    request
}

async fn invoke(core: &TestCore, query: &str) -> Result<AiWebSearchResponse, tonic::Status> {
    let request = with_key(AiWebSearchRequest { query: query.into() }, KEY);
    SkillsServiceClient::new(core.channel.clone()).ai_web_search(request).await.map(|r| r.into_inner())
}

async fn get_task(core: &TestCore, id: &str, key: &str) -> Result<TaskMessage, tonic::Status> {
    let request = with_key(GetTaskRequest { task_id: id.into() }, key);
    TaskServiceClient::new(core.channel.clone()).get_task(request).await.map(|r| r.into_inner())
}

/// Polls `GET /api/tasks/{id}` until the task is no longer running.
async fn finished(core: &TestCore, id: &str) -> TaskMessage {
    for _ in 0..200 {
        let task = get_task(core, id, KEY).await.unwrap();
        if task.status != "running" {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {id} did not finish");
}

async fn balance(ledger: &Arc<dyn Ledger>) -> i64 {
    ledger.balance(ACCOUNT).await.unwrap().unwrap()
}

fn error_of(status: &tonic::Status) -> ErrorObject {
    error_object(status).unwrap()
}

/// The answer the fake upstreams lead to, checked field by field.
fn assert_answer(query: &str, status: &str, result: &mediaops_proto::mediaops::skills::v1::WebSearchResult) {
    assert_eq!(status, "success");
    let written = fake_web::fake_answer(query);
    let answer = written.split("\n\n延伸问题").next().unwrap();
    assert_eq!(result.content, answer.replace("[7]", ""), "follow-ups split off, the citation of no result dropped");
    let references: Vec<(&str, &str)> = result.references.iter().map(|r| (r.title.as_str(), r.url.as_str())).collect();
    assert_eq!(
        references,
        [
            ("新手露营装备清单", "https://camp.example.cn/guide"),
            ("如何挑选露营帐篷", "https://outdoor.example.com/tent"),
            ("露营天气注意事项", "https://weather.example.org/camp"),
        ],
        "SearXNG order, repeated URLs and untitled hits dropped; [n] is references[n-1]"
    );
    assert_eq!(result.suggestions, ["冬季露营怎么保暖？", "露营装备推荐", "露营帐篷品牌"]);
}

#[tokio::test]
async fn a_search_answers_with_cited_references_and_is_charged_once() {
    for (dir, ledger) in both_ledgers().await {
        let up = upstreams().await;
        let core = start(&settings(dir.path(), Some(&up), 20), ledger).await;
        let answer = invoke(&core, "  露营要带什么 ").await.unwrap();
        assert_eq!((answer.source.as_str(), answer.query.as_str()), ("searxng", "露营要带什么"));
        assert_answer("露营要带什么", &answer.status, answer.result.as_ref().unwrap());
        assert_eq!(balance(&core.ledger).await, 100 - PRICE, "spec 4.14: 10 points");

        // What SearXNG was asked.
        let searched = up.searxng.requests.lock().unwrap().clone();
        assert_eq!(searched.len(), 1);
        assert_eq!(searched[0]["q"], "露营要带什么");
        assert_eq!(searched[0]["format"], "json");
        assert_eq!(searched[0]["language"], "zh-CN");
        // What the chat API was sent.
        let (auth, body) = up.chat.requests.lock().unwrap()[0].clone();
        assert_eq!(auth.as_deref(), Some(format!("Bearer {CHAT_KEY}").as_str()));
        assert_eq!(body["model"], CHAT_MODEL);
        assert_eq!(body["messages"][0]["role"], "system");
        assert!(body["messages"][0]["content"].as_str().unwrap().contains("[1]"));
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.starts_with("问题：露营要带什么"), "{user}");
        assert!(user.contains(
            "[1] 新手露营装备清单\n链接：https://camp.example.cn/guide\n摘要：帐篷、睡袋、防潮垫是露营三件套。"
        ));
        assert!(user.contains("[3] 露营天气注意事项\n链接：https://weather.example.org/camp\n"));
        assert!(!user.contains("重复") && !user.contains("没有标题"), "{user}");

        // The task stays readable by its owner, with the same answer; free.
        let task = get_task(&core, answer.task_id.as_deref().unwrap(), KEY).await.unwrap();
        assert_eq!((task.operation_key.as_str(), task.source.as_str()), ("skills.ai-web-search", "searxng"));
        assert_answer("露营要带什么", &task.status, task.result.as_ref().unwrap());
        assert!(task.error.is_none());
        assert_eq!(balance(&core.ledger).await, 100 - PRICE);
        // Another account's key does not see it.
        let hidden = get_task(&core, &task.task_id, OTHER_KEY).await.unwrap_err();
        assert_eq!(error_of(&hidden).code, "not_found");
        let unknown = get_task(&core, "00000000-0000-0000-0000-000000000000", KEY).await.unwrap_err();
        assert_eq!(error_of(&unknown).code, "not_found");
        let empty = get_task(&core, " ", KEY).await.unwrap_err();
        assert_eq!(
            (error_of(&empty).code.as_str(), error_of(&empty).field.as_deref()),
            ("invalid_input", Some("taskId"))
        );

        let log = core.ledger.usage_log(ACCOUNT, 10).await.unwrap();
        let charged: i64 = log.iter().filter(|r| r.operation_key == "skills.ai-web-search").map(|r| r.points).sum();
        assert_eq!(charged, PRICE, "{log:?}");
        core.stop().await;
    }
}

#[tokio::test]
async fn a_slow_search_answers_running_and_is_charged_once_when_it_finishes() {
    for (dir, ledger) in both_ledgers().await {
        let up = upstreams().await;
        up.chat.set(ChatMode::Answer { delay: Duration::from_millis(2500) });
        let core = start(&settings(dir.path(), Some(&up), 1), ledger).await;
        let answer = invoke(&core, "露营要带什么").await.unwrap();
        assert_eq!(answer.status, "running");
        assert!(answer.result.is_none());
        let id = answer.task_id.unwrap();
        assert_eq!(balance(&core.ledger).await, 100 - PRICE, "held while the task runs");
        let task = finished(&core, &id).await;
        assert_answer("露营要带什么", &task.status, task.result.as_ref().unwrap());
        assert_eq!(balance(&core.ledger).await, 100 - PRICE, "committed once");
        // Nothing left to settle: the sweeper finds no reservation to release.
        assert_eq!(core.ledger.release_expired().await.unwrap(), 0);
        assert_eq!(up.chat.count(), 1);
        core.stop().await;
    }
}

#[tokio::test]
async fn upstream_failures_are_502_and_not_charged() {
    for (dir, ledger) in both_ledgers().await {
        let up = upstreams().await;
        let core = start(&settings(dir.path(), Some(&up), 20), ledger).await;

        up.chat.set(ChatMode::Error {
            status: 429,
            kind: "requests",
            code: Some("rate_limit_exceeded"),
            message: "Rate limit reached for requests",
            delay: Duration::ZERO,
        });
        let error = error_of(&invoke(&core, "露营").await.unwrap_err());
        assert_eq!(error.code, "upstream_unavailable");
        let upstream = error.upstream.unwrap();
        assert_eq!(upstream.code.as_deref(), Some("rate_limit_exceeded"));
        assert_eq!(upstream.message, "Rate limit reached for requests");
        assert!(error.message.contains("chat model"), "{}", error.message);
        assert_eq!(up.chat.count(), 1, "a completion is not repeated");

        up.searxng.set(SearxMode::Status(503));
        let error = error_of(&invoke(&core, "露营").await.unwrap_err());
        assert_eq!(error.code, "upstream_unavailable");
        assert!(error.message.contains("search backend"), "{error:?}");
        assert_eq!(error.upstream.unwrap().code.as_deref(), Some("503"));
        assert_eq!(up.searxng.count(), 1 + 2, "the first search, then one try and one retry");

        up.searxng.set(SearxMode::Status(403));
        let before = up.searxng.count();
        let error = error_of(&invoke(&core, "露营").await.unwrap_err());
        let upstream = error.upstream.unwrap();
        assert_eq!((upstream.code.as_deref(), upstream.message.as_str()), (Some("403"), "Forbidden"));
        assert_eq!(up.searxng.count(), before + 1, "a 403 is not retried");

        up.searxng.set(SearxMode::Empty);
        let error = error_of(&invoke(&core, "露营").await.unwrap_err());
        assert!(error.message.contains("no results"), "{error:?}");

        assert_eq!(balance(&core.ledger).await, 100, "nothing charged");
        assert_eq!(core.ledger.release_expired().await.unwrap(), 0, "nothing left held");
        core.stop().await;
    }
}

#[tokio::test]
async fn a_task_failing_after_the_call_returned_is_released() {
    for (dir, ledger) in both_ledgers().await {
        let up = upstreams().await;
        up.chat.set(ChatMode::Error {
            status: 500,
            kind: "server_error",
            code: None,
            message: "The server had an error while processing your request.",
            delay: Duration::from_millis(2000),
        });
        let core = start(&settings(dir.path(), Some(&up), 1), ledger).await;
        let answer = invoke(&core, "露营").await.unwrap();
        assert_eq!(answer.status, "running");
        assert_eq!(balance(&core.ledger).await, 100 - PRICE, "held while the task runs");
        let task = finished(&core, answer.task_id.as_deref().unwrap()).await;
        assert_eq!(task.status, "failed");
        assert!(task.result.is_none());
        let error = task.error.unwrap();
        assert_eq!(error.code, "upstream_unavailable");
        let upstream = error.upstream.unwrap();
        assert_eq!(upstream.code.as_deref(), Some("server_error"), "OpenAI's type when its code is null");
        assert_eq!(upstream.message, "The server had an error while processing your request.");
        assert_eq!(balance(&core.ledger).await, 100, "released");
        core.stop().await;
    }
}

#[tokio::test]
async fn bad_input_and_missing_configuration_are_refused_uncharged() {
    let dir = tempfile::tempdir().unwrap();
    let core = start(&settings(dir.path(), None, 20), embedded(&dir.path().join("ledger"))).await;
    let error = error_of(&invoke(&core, "露营").await.unwrap_err());
    assert_eq!(error.code, "not_configured");
    assert!(
        error.message.contains("MEDIAOPS_WEB_SEARCH__SEARXNG_URL")
            && error.message.contains("MEDIAOPS_WEB_SEARCH__CHAT_URL"),
        "{error:?}"
    );
    let error = error_of(&invoke(&core, "   ").await.unwrap_err());
    assert_eq!((error.code.as_str(), error.field.as_deref()), ("invalid_input", Some("query")));
    let error = error_of(&invoke(&core, &"长".repeat(501)).await.unwrap_err());
    assert_eq!(error.field.as_deref(), Some("query"));
    assert_eq!(balance(&core.ledger).await, 100);
    core.stop().await;
}

#[tokio::test]
async fn a_running_task_is_resumed_after_a_restart_and_charged_once() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = embedded(&dir.path().join("ledger"));
    let up = upstreams().await;
    up.chat.set(ChatMode::Answer { delay: Duration::from_secs(20) });
    let first = start(&settings(dir.path(), Some(&up), 1), ledger.clone()).await;
    let answer = invoke(&first, "露营要带什么").await.unwrap();
    assert_eq!(answer.status, "running");
    let id = answer.task_id.unwrap();
    first.stop().await;
    assert_eq!(balance(&ledger).await, 100 - PRICE, "held until the process ends");

    // A new process: the embedded ledger is opened again from its file and
    // releases what the previous process held; the resumed task charges anew.
    drop(ledger);
    let ledger = embedded(&dir.path().join("ledger"));
    assert_eq!(balance(&ledger).await, 100);
    up.chat.set(ChatMode::Answer { delay: Duration::ZERO });
    let second = start(&settings(dir.path(), Some(&up), 1), ledger.clone()).await;
    let task = finished(&second, &id).await;
    assert_answer("露营要带什么", &task.status, task.result.as_ref().unwrap());
    assert_eq!(up.chat.count(), 2, "asked again after the restart");
    assert_eq!(balance(&ledger).await, 100 - PRICE, "charged once");
    second.stop().await;
}

#[tokio::test]
async fn a_task_past_its_deadline_at_start_up_fails_and_is_released() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = embedded(&dir.path().join("ledger"));
    ledger.insert_key(KEY, ACCOUNT).await.unwrap();
    ledger.grant(ACCOUNT, 100).await.unwrap();
    // A previous process died mid-task: its row says running, its lease
    // and deadline have passed, its reservation is still held.
    let reserved = ledger.reserve(ACCOUNT, "res-1", PRICE, Duration::from_secs(600)).await.unwrap();
    assert_eq!(reserved, Reserved::Held { balance: 100 - PRICE });
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let long_ago = Utc::now() - chrono::Duration::minutes(10);
    store
        .create_task(&Task {
            id: "5d1f0c1e-0000-4000-8000-000000000001".into(),
            operation_key: "skills.ai-web-search".into(),
            account_id: ACCOUNT.into(),
            status: TaskStatus::Running,
            request: json!({"query": "露营"}),
            result: None,
            error: None,
            charge: Some(TaskCharge { reservation_id: "res-1".into(), points: PRICE }),
            request_id: "req-1".into(),
            created_at: long_ago,
            updated_at: long_ago,
            deadline_at: long_ago + chrono::Duration::minutes(5),
            lease_owner: Some("dead-process".into()),
            lease_until: Some(long_ago + chrono::Duration::seconds(30)),
        })
        .await
        .unwrap();
    drop(store);

    let up = upstreams().await;
    let core = start(&settings(dir.path(), Some(&up), 1), ledger.clone()).await;
    let task = finished(&core, "5d1f0c1e-0000-4000-8000-000000000001").await;
    assert_eq!(task.status, "failed");
    let error = task.error.unwrap();
    assert_eq!(error.code, "upstream_unavailable");
    assert!(error.message.contains("did not finish within 300 s"), "{error:?}");
    assert_eq!(balance(&ledger).await, 100, "released");
    assert_eq!(up.searxng.count(), 0, "not run again");
    core.stop().await;
}

/// Two cores sharing one PostgreSQL task store and one Redis ledger, as
/// replicas do: a task started on the first, which stops, is resumed by
/// the second and charged once.
#[tokio::test]
async fn a_replica_resumes_a_task_another_left_on_postgres_and_redis() {
    use sqlx::Connection;
    let schema = format!("websearch_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect(&support::database_url()).await.expect("PostgreSQL");
    sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await.unwrap();
    let url = format!("{}?options=-csearch_path%3D{schema}", support::database_url());

    let ledger = redis().await;
    let up = upstreams().await;
    up.chat.set(ChatMode::Answer { delay: Duration::from_secs(20) });
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let replica = |dir: &tempfile::TempDir| CoreSettings {
        database_url: Some(url.clone()),
        ..settings(dir.path(), Some(&up), 1)
    };
    let first = start(&replica(&dir_a), ledger.clone()).await;
    let answer = invoke(&first, "露营要带什么").await.unwrap();
    assert_eq!(answer.status, "running");
    let id = answer.task_id.unwrap();
    first.stop().await;

    up.chat.set(ChatMode::Answer { delay: Duration::ZERO });
    let second = start(&replica(&dir_b), ledger.clone()).await;
    let task = finished(&second, &id).await;
    assert_answer("露营要带什么", &task.status, task.result.as_ref().unwrap());
    assert_eq!(balance(&ledger).await, 100 - PRICE, "charged once");
    second.stop().await;
    sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.unwrap();
}
