//! The sync worker's decisions without a vendor (docs/sync.md "Workers"):
//! a job whose every attempt was lost with its worker (a poison job) is
//! dead-lettered instead of run again; a job no vendor can sync fails at
//! once; a finished job's stray queue entry is dropped. On the embedded
//! queue over SQLite; nothing is mocked.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use mediaops_ops::sync::queue::EmbeddedQueue;
use mediaops_ops::sync::settings::SyncSettings;
use mediaops_ops::sync::worker::SyncWorkers;
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::sync_job::{SyncJob, SyncJobStore, SyncStatus};
use serde_json::json;

fn job(id: &str, status: SyncStatus, attempts: u32) -> SyncJob {
    let now = Utc::now();
    SyncJob {
        id: id.into(),
        operation_key: "lifestyle.lifestyle-sync-notes".into(),
        account_id: "acct-1".into(),
        target: id.into(),
        request: json!({"redId": id}),
        status,
        attempts,
        result: None,
        error: None,
        request_id: format!("req-{id}"),
        created_at: now,
        updated_at: now,
        next_attempt_at: now,
    }
}

#[tokio::test]
async fn poison_unconfigured_and_finished_jobs_end_without_a_vendor_call() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap());
    let settings = SyncSettings { max_attempts: 3, ..SyncSettings::default() };
    let queue = Arc::new(EmbeddedQueue::new(store.clone(), Duration::from_secs(1)));
    let workers = SyncWorkers::new(store.clone(), queue, BTreeMap::new(), store.clone(), settings);
    let due = Utc::now() - chrono::Duration::seconds(1);

    // Three attempts already lost with their workers: failed, not run again.
    store.create_sync_job(&job("poison", SyncStatus::Running, 3)).await.unwrap();
    store.queue_push("poison", due).await.unwrap();
    assert!(workers.work_one("w").await.unwrap());
    let poison = store.get_sync_job("poison").await.unwrap().unwrap();
    assert_eq!((poison.status, poison.attempts), (SyncStatus::Failed, 3));
    let error = poison.error.unwrap();
    assert_eq!(error["code"], "internal");
    assert!(error["message"].as_str().unwrap().contains("stopped 3 times"), "{error}");

    // No vendor for the operation in this core: failed at the first attempt.
    store.create_sync_job(&job("orphan", SyncStatus::Queued, 0)).await.unwrap();
    store.queue_push("orphan", due).await.unwrap();
    assert!(workers.work_one("w").await.unwrap());
    let orphan = store.get_sync_job("orphan").await.unwrap().unwrap();
    assert_eq!((orphan.status, orphan.attempts), (SyncStatus::Failed, 1));
    assert_eq!(orphan.error.unwrap()["code"], "not_configured");

    // A stray entry of a finished job is dropped, the job untouched.
    store.create_sync_job(&job("done", SyncStatus::Success, 1)).await.unwrap();
    store.queue_push("done", due).await.unwrap();
    assert!(workers.work_one("w").await.unwrap());
    assert_eq!(store.get_sync_job("done").await.unwrap().unwrap().status, SyncStatus::Success);

    assert!(!workers.work_one("w").await.unwrap(), "the queue is empty");
    let dead: Vec<String> = store.failed_sync_jobs(10).await.unwrap().into_iter().map(|j| j.id).collect();
    assert_eq!(dead.len(), 2);
    assert!(dead.contains(&"poison".to_owned()) && dead.contains(&"orphan".to_owned()));
}
