//! Sync operations (spec 2.6; docs/sync.md) end to end:
//! the REST call answers the receipt uncharged with the job as `taskId`,
//! workers read a fake vendor (TikHub's `{code, message, data}` envelope,
//! cursor pagination) through a declarative mapping and write the content
//! store; failures retry with backoff and end in the dead-letter list an
//! admin replays; a job whose worker stopped mid-fetch is taken over, from
//! the embedded queue and from Redis Streams' pending list.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::routing::get;
use common::{ADMIN_TOKEN, BOOTSTRAP_POINTS, KEY, Service, admin, failure, success, with_token};
use core_service::CoreSettings;
use mediaops::proto::mediaops::admin::v1::{ListSyncDeadLettersRequest, ReplaySyncJobRequest};
use mediaops_connectors::vendors::settings::VendorSettings;
use mediaops_ops::sync::settings::{QueueKind, SyncSettings};
use mediaops_store::ContentStore;
use serde_json::{Value, json};

const SYNC: &str = "/api/apis/lifestyle/lifestyle-sync-notes/call";

/// What the fake vendor was asked (`user_id`, `cursor`), and whether
/// `broken01` has healed.
#[derive(Default)]
struct Vendor {
    calls: Vec<(String, String)>,
    healed: bool,
}

type Shared = Arc<Mutex<Vendor>>;

fn page(user: &str, notes: &[(&str, i64)], next: Option<&str>) -> Value {
    json!({"code": 200, "message": "Request successful.", "data": {
        "user": {"user_id": format!("u-{user}"), "red_id": format!("red-{user}"), "nickname": format!("{user} 的小屋")},
        "notes": notes.iter().map(|(id, likes)| json!({"note_id": id, "title": format!("笔记 {id}"), "liked_count": likes})).collect::<Vec<_>>(),
        "has_more": next.is_some(),
        "cursor": next.unwrap_or(""),
    }})
}

/// The fake vendor's `/xhs/user_notes`: `camper01` has two pages,
/// `flaky01` fails twice then answers, `broken01` fails until healed,
/// `ghost01` does not exist, `hang01` hangs on its first call.
async fn fake_vendor() -> (String, Shared) {
    async fn notes(State(state): State<Shared>, Query(q): Query<HashMap<String, String>>) -> axum::Json<Value> {
        let user = q.get("user_id").cloned().unwrap_or_default();
        let cursor = q.get("cursor").cloned().unwrap_or_default();
        let (earlier, healed) = {
            let mut state = state.lock().unwrap();
            let earlier = state.calls.iter().filter(|(u, _)| *u == user).count();
            state.calls.push((user.clone(), cursor.clone()));
            (earlier, state.healed)
        };
        let collection_failed = json!({"code": 500, "message": "采集失败，请重试", "data": null});
        axum::Json(match user.as_str() {
            "camper01" if cursor == "p2" => page("camper01", &[("n3", 30)], None),
            "camper01" => page("camper01", &[("n1", 10), ("n2", 20)], Some("p2")),
            "flaky01" if earlier < 2 => collection_failed,
            "broken01" if !healed => collection_failed,
            "ghost01" => json!({"code": 404, "message": "user not found", "data": null}),
            "hang01" if earlier == 0 => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                collection_failed
            }
            other => page(other, &[("x1", 1)], None),
        })
    }
    let state = Shared::default();
    let app = axum::Router::new().route("/xhs/user_notes", get(notes)).with_state(state.clone());
    let base = common::serve_locally(app).await;
    (base, state)
}

/// The fake vendor's error rules, breaker and operations.
const MAPPING: &str = r#"
[[reply.errors]]
codes = ["404"]
outcome = "not_found"

[breaker]
failures = 0

[operations."lifestyle.lifestyle-sync-notes"]
path = "/xhs/user_notes"
query = '{user_id: .redId, cursor: (.cursor // "")}'
next_cursor = 'if .data.has_more then .data.cursor else null end'
max_pages = 5
store = '.data as $d | [{type: "account", platform: "lifestyle", platformId: $d.user.user_id, ids: {redId: $d.user.red_id}, nickname: $d.user.nickname}] + [$d.notes[] | {type: "work", platform: "lifestyle", platformId: .note_id, ids: {noteId: .note_id}, title: .title, authorId: $d.user.user_id}, {type: "workSnapshot", platform: "lifestyle", platformId: .note_id, likes: .liked_count}]'
"#;

/// A running fake vendor and its mapping file.
struct FakeVendor {
    state: Shared,
    file: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

async fn vendor() -> FakeVendor {
    let (base, state) = fake_vendor().await;
    let dir = tempfile::tempdir().unwrap();
    let file = common::fakehub_mapping(dir.path(), &base, 60, MAPPING);
    FakeVendor { state, file, _dir: dir }
}

/// A service on `dir` syncing from a new fake vendor with `sync`.
async fn vendor_service(dir: tempfile::TempDir, sync: SyncSettings) -> (Service, FakeVendor) {
    let vendor = vendor().await;
    let service = Service::start_with(dir, |core| with_vendor(core, vendor.file.clone(), sync)).await;
    (service, vendor)
}

/// Fast retries and a short lease, so the tests run in seconds.
fn quick_sync(queue: QueueKind) -> SyncSettings {
    SyncSettings {
        queue,
        workers: 2,
        max_attempts: 3,
        retry_base_secs: 0.2,
        retry_max_secs: 1.0,
        lease_secs: 1.0,
        poll_secs: 0.1,
    }
}

/// Settings adjusted to sync `lifestyle-sync-notes` from the fake vendor.
fn with_vendor(core: &mut CoreSettings, file: std::path::PathBuf, sync: SyncSettings) {
    core.vendors = VendorSettings {
        files: vec![file],
        sources: [("lifestyle.lifestyle-sync-notes".to_owned(), "upstream:fakehub".to_owned())].into(),
        ..VendorSettings::default()
    };
    core.sync = sync;
}

/// Submits a sync of `red_id`: the exact receipt, and the envelope's `taskId`.
async fn submit(service: &Service, red_id: &str) -> String {
    let (status, body) = service.post(SYNC, json!({"redId": red_id})).await;
    assert_eq!(success(status, &body), json!({"status": "syncing", "accepted": true, "retryAfterMinutes": 30}));
    body["taskId"].as_str().expect("the envelope carries the job as taskId").to_owned()
}

async fn points(service: &Service) -> i64 {
    service.get("/api/account/balance").await.1["data"]["points"].as_i64().unwrap()
}

async fn store_of(service: &Service) -> mediaops_store::sqlite::SqliteStore {
    mediaops_store::sqlite::SqliteStore::open(&service.data_path().join("store.sqlite")).await.unwrap()
}

#[tokio::test]
async fn a_sync_is_queued_worked_through_the_vendor_pages_and_stored_uncharged() {
    let (service, vendor) = vendor_service(tempfile::tempdir().unwrap(), quick_sync(QueueKind::Embedded)).await;
    let vendor = vendor.state;

    let id = submit(&service, " camper01 ").await;
    let task = service.finished_task(&id).await;
    assert_eq!(task["status"], "success", "{task}");
    assert_eq!(task["operationKey"], "lifestyle.lifestyle-sync-notes");
    assert_eq!(task["taskId"], id.as_str());
    // Two pages: the account on each, three notes with a snapshot each.
    assert_eq!(
        task["sync"],
        json!({"target": "camper01", "attempts": 1, "nextAttemptAt": "", "pages": 2, "records": 8, "works": 3, "accounts": 2})
    );
    assert!(task.get("error").is_none_or(Value::is_null), "{task}");
    let calls = vendor.lock().unwrap().calls.clone();
    assert_eq!(calls, [("camper01".to_owned(), String::new()), ("camper01".to_owned(), "p2".to_owned())]);

    let store = store_of(&service).await;
    let account = store.get_account("lifestyle", "red-camper01").await.unwrap().expect("the account is stored");
    assert_eq!(account.account.nickname, "camper01 的小屋");
    let note = store.get_work("lifestyle", "n3").await.unwrap().expect("the second page is stored");
    assert_eq!(note.latest.expect("with its counters").likes, Some(30));

    // Never charged, and the receipt's usage line shows 0 points.
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS);

    // The id is checked: blank is a 400 naming the field; too long too.
    let (status, body) = service.post(SYNC, json!({"redId": "   "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "redId");
    let (status, body) = service.post(SYNC, json!({"redId": "r".repeat(200)})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "redId");
}

#[tokio::test]
async fn a_repeated_submission_joins_the_open_job_and_other_accounts_do_not_see_it() {
    let dir = tempfile::tempdir().unwrap();
    common::add_key(dir.path(), "mk_second_account_key_0002", "second").await;
    // No workers: jobs stay queued.
    let (service, _vendor) = vendor_service(dir, SyncSettings { workers: 0, ..quick_sync(QueueKind::Embedded) }).await;

    let first = submit(&service, "camper01").await;
    assert_eq!(submit(&service, "camper01").await, first, "the same account and id join the open job");
    assert_ne!(submit(&service, "camper02").await, first);
    let (status, body) = service.get(&format!("/api/tasks/{first}")).await;
    let task = success(status, &body);
    assert_eq!((task["status"].as_str(), task["sync"]["attempts"].as_i64()), (Some("queued"), Some(0)));
    assert!(!task["sync"]["nextAttemptAt"].as_str().unwrap().is_empty());

    let other = Some("mk_second_account_key_0002");
    let (status, body) = service.call_with_key(reqwest::Method::GET, &format!("/api/tasks/{first}"), None, other).await;
    failure(status, &body, 404, "not_found");
    let (status, body) =
        service.call_with_key(reqwest::Method::POST, SYNC, Some(json!({"redId": "camper01"})), other).await;
    success(status, &body);
    assert_ne!(body["taskId"].as_str(), Some(first.as_str()), "another account gets its own job");
}

#[tokio::test]
async fn failures_retry_with_backoff_then_dead_letter_and_an_admin_replays_them() {
    let (service, vendor) = vendor_service(tempfile::tempdir().unwrap(), quick_sync(QueueKind::Embedded)).await;
    let vendor = vendor.state;

    let flaky = submit(&service, "flaky01").await;
    let broken = submit(&service, "broken01").await;
    let ghost = submit(&service, "ghost01").await;

    let task = service.finished_task(&flaky).await;
    assert_eq!((task["status"].as_str(), task["sync"]["attempts"].as_i64()), (Some("success"), Some(3)), "{task}");

    // Retries exhausted: failed with the vendor's message in `upstream`.
    let task = service.finished_task(&broken).await;
    assert_eq!((task["status"].as_str(), task["sync"]["attempts"].as_i64()), (Some("failed"), Some(3)), "{task}");
    assert_eq!(task["error"]["code"], "upstream_unavailable");
    assert_eq!(task["error"]["upstream"], json!({"code": "500", "message": "采集失败，请重试"}));
    // Not worth retrying: dead at the first attempt.
    let task = service.finished_task(&ghost).await;
    assert_eq!((task["status"].as_str(), task["sync"]["attempts"].as_i64()), (Some("failed"), Some(1)), "{task}");
    assert_eq!(task["error"]["code"], "not_found");
    let calls = vendor.lock().unwrap().calls.clone();
    assert_eq!(calls.iter().filter(|(u, _)| u == "broken01").count(), 3);
    assert_eq!(calls.iter().filter(|(u, _)| u == "ghost01").count(), 1);

    let mut admin = admin(&service).await;
    let dead = admin
        .list_sync_dead_letters(with_token(ListSyncDeadLettersRequest { limit: 0 }, ADMIN_TOKEN))
        .await
        .unwrap()
        .into_inner()
        .jobs;
    let mut targets: Vec<_> = dead.iter().map(|j| (j.target.as_str(), j.attempts, j.status.as_str())).collect();
    targets.sort();
    assert_eq!(targets, [("broken01", 3, "failed"), ("ghost01", 1, "failed")]);

    // Replay once the vendor healed: queued again with attempts reset, then done.
    vendor.lock().unwrap().healed = true;
    let replayed = admin
        .replay_sync_job(with_token(ReplaySyncJobRequest { task_id: broken.clone() }, ADMIN_TOKEN))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((replayed.status.as_str(), replayed.attempts), ("queued", 0));
    let task = service.finished_task(&broken).await;
    assert_eq!((task["status"].as_str(), task["sync"]["attempts"].as_i64()), (Some("success"), Some(1)), "{task}");

    // Only failed jobs replay; unknown ids are 404; the admin token is needed.
    let status = admin
        .replay_sync_job(with_token(ReplaySyncJobRequest { task_id: flaky.clone() }, ADMIN_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::AlreadyExists, "{status:?}");
    let status = admin
        .replay_sync_job(with_token(ReplaySyncJobRequest { task_id: "nope".into() }, ADMIN_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);
    let status =
        admin.list_sync_dead_letters(with_token(ListSyncDeadLettersRequest { limit: 0 }, KEY)).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");

    assert_eq!(points(&service).await, BOOTSTRAP_POINTS, "nothing is charged, failed or not");
}

/// Submits `hang01`, stops the service while its worker waits on the vendor,
/// and starts another on the same data: the job is taken over once its
/// lease passes, and finishes at the second attempt.
async fn a_stopped_worker_s_job_is_taken_over(queue: QueueKind, redis: Option<(String, String)>) {
    let fake = vendor().await;
    let vendor = &fake.state;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let settings = |core: &mut CoreSettings| {
        with_vendor(core, fake.file.clone(), quick_sync(queue));
        if let Some((url, prefix)) = &redis {
            core.redis_url = Some(url.clone());
            core.redis_prefix = prefix.clone();
        }
    };
    let first = Service::start_with(dir, settings).await;
    let id = submit(&first, "hang01").await;
    for _ in 0..100 {
        if !vendor.lock().unwrap().calls.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(vendor.lock().unwrap().calls.len(), 1, "the worker is waiting on the vendor");
    let Service { running, data_dir, .. } = first;
    running.shutdown().await.unwrap();
    assert_eq!(data_dir.path(), path);

    let second = Service::start_with(data_dir, settings).await;
    let task = second.finished_task(&id).await;
    assert_eq!((task["status"].as_str(), task["sync"]["attempts"].as_i64()), (Some("success"), Some(2)), "{task}");
    assert_eq!(vendor.lock().unwrap().calls.len(), 2);
    let store = store_of(&second).await;
    assert!(store.get_work("lifestyle", "x1").await.unwrap().is_some());
}

#[tokio::test]
async fn embedded_queue_a_stopped_worker_s_job_is_taken_over_after_its_lease() {
    a_stopped_worker_s_job_is_taken_over(QueueKind::Embedded, None).await;
}

#[tokio::test]
async fn redis_streams_a_stopped_worker_s_pending_entry_is_claimed_and_acknowledged() {
    let url = std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("mediaops-test-sync-{}", uuid::Uuid::new_v4());
    a_stopped_worker_s_job_is_taken_over(QueueKind::Redis, Some((url.clone(), prefix.clone()))).await;

    let mut redis = redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let stream = format!("{prefix}:sync:stream");
    // XPENDING summary: [count, first id, last id, consumers].
    type Pending = (i64, Option<String>, Option<String>, Option<Vec<(String, String)>>);
    let pending: Pending =
        redis::cmd("XPENDING").arg(&stream).arg("sync-workers").query_async(&mut redis).await.unwrap();
    assert_eq!(pending.0, 0, "the taken-over entry was acknowledged");
    let length: i64 = redis::cmd("XLEN").arg(&stream).query_async(&mut redis).await.unwrap();
    assert_eq!(length, 0, "and deleted");
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{prefix}:*")).query_async(&mut redis).await.unwrap();
    redis::cmd("DEL").arg(&keys).query_async::<()>(&mut redis).await.unwrap();
}

#[tokio::test]
async fn without_a_vendor_a_sync_is_refused_uncharged_and_sync_account_starts_in_maintenance() {
    let service = Service::start().await;
    let (status, body) = service.post(SYNC, json!({"redId": "camper01"})).await;
    let error = failure(status, &body, 503, "not_configured");
    assert!(error["message"].as_str().unwrap().contains("sources.\"lifestyle.lifestyle-sync-notes\""), "{error}");
    let (status, body) =
        service.post("/api/apis/articles/articles-sync-account/call", json!({"wechatId": "rmrbwx"})).await;
    failure(status, &body, 503, "maintenance");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS);
}
