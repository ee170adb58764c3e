//! Sync jobs and the embedded sync queue (migration 0007, docs/sync.md) on
//! both backends, one suite: jobs read back, the open job of an account and
//! target, the dead-letter list, and the queue's due order, leases,
//! take-over after a lease passes and removal only by the holder; on
//! PostgreSQL two consumers never hold one entry at once.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use chrono::{DateTime, Duration, Utc};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::sync_job::{SyncJob, SyncJobStore, SyncStatus};
use serde_json::json;

/// Times as stored: milliseconds.
fn ms(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap()
}

fn job(id: &str, account: &str, target: &str, created_at: DateTime<Utc>) -> SyncJob {
    SyncJob {
        id: id.into(),
        operation_key: "lifestyle.lifestyle-sync-notes".into(),
        account_id: account.into(),
        target: target.into(),
        request: json!({"redId": target}),
        status: SyncStatus::Queued,
        attempts: 0,
        result: None,
        error: None,
        request_id: format!("req-{id}"),
        created_at,
        updated_at: created_at,
        next_attempt_at: created_at,
    }
}

async fn conformance(store: &dyn SyncJobStore) {
    let now = ms(Utc::now());
    let a = job("a", "acct-1", "camper01", now - Duration::seconds(5));
    store.create_sync_job(&a).await.unwrap();
    assert_eq!(store.get_sync_job("a").await.unwrap().as_ref(), Some(&a), "read back as written");
    assert!(store.get_sync_job("missing").await.unwrap().is_none());
    assert!(store.create_sync_job(&a).await.is_err(), "ids are unique");

    // The open job is per account, operation and target, and only while unfinished.
    assert_eq!(store.open_sync_job("acct-1", &a.operation_key, "camper01").await.unwrap(), Some(a.clone()));
    assert!(store.open_sync_job("acct-2", &a.operation_key, "camper01").await.unwrap().is_none());
    assert!(store.open_sync_job("acct-1", "shortvideo.shortvideo-sync-notes", "camper01").await.unwrap().is_none());
    let mut done = a.clone();
    done.status = SyncStatus::Success;
    done.attempts = 2;
    done.result = Some(json!({"pages": 2, "records": 8, "works": 3, "accounts": 2}));
    done.updated_at = now;
    store.update_sync_job(&done).await.unwrap();
    assert_eq!(store.get_sync_job("a").await.unwrap(), Some(done));
    assert!(store.open_sync_job("acct-1", &a.operation_key, "camper01").await.unwrap().is_none());

    // The dead-letter list: failed jobs, most recently failed first.
    for (id, at) in [("f1", now - Duration::seconds(3)), ("f2", now - Duration::seconds(1))] {
        let mut failed = job(id, "acct-1", id, at);
        failed.status = SyncStatus::Failed;
        failed.attempts = 5;
        failed.error = Some(json!({"code": "upstream_unavailable", "message": "采集失败"}));
        store.create_sync_job(&failed).await.unwrap();
    }
    let dead: Vec<String> = store.failed_sync_jobs(10).await.unwrap().into_iter().map(|j| j.id).collect();
    assert_eq!(dead, ["f2", "f1"]);
    assert_eq!(store.failed_sync_jobs(1).await.unwrap().len(), 1);

    // The queue: due order, nothing before it is due, one holder at a time.
    let lease = |from: DateTime<Utc>| from + Duration::seconds(30);
    store.queue_push("later", now + Duration::seconds(60)).await.unwrap();
    store.queue_push("second", now - Duration::seconds(1)).await.unwrap();
    store.queue_push("first", now - Duration::seconds(2)).await.unwrap();
    let claim = store.queue_claim("w1", now, lease(now)).await.unwrap().unwrap();
    assert_eq!((claim.job_id.as_str(), claim.deliveries), ("first", 1));
    assert_eq!(store.queue_claim("w2", now, lease(now)).await.unwrap().unwrap().job_id, "second");
    assert!(store.queue_claim("w3", now, lease(now)).await.unwrap().is_none(), "`later` is not due yet");

    // A held entry is taken over only once its lease passed; then the old
    // holder can neither renew nor remove it.
    assert!(store.queue_touch("first", "w1", now + Duration::seconds(60)).await.unwrap());
    assert!(!store.queue_touch("first", "w2", now + Duration::seconds(60)).await.unwrap());
    let after_lease = now + Duration::seconds(45);
    let taken = store.queue_claim("w3", after_lease, lease(after_lease)).await.unwrap().unwrap();
    assert_eq!((taken.job_id.as_str(), taken.deliveries), ("second", 2), "w2's lease passed, w1's was renewed");
    let later = now + Duration::seconds(65);
    assert_eq!(store.queue_claim("w4", later, lease(later)).await.unwrap().unwrap().job_id, "first");
    store.queue_remove("first", "w1").await.unwrap();
    assert!(!store.queue_touch("first", "w1", later).await.unwrap(), "w1 lost it");
    store.queue_remove("first", "w4").await.unwrap();
    assert!(!store.queue_touch("first", "w4", later).await.unwrap(), "removed by its holder");

    // A push of a held entry (a retry) releases it, due later.
    store.queue_push("second", now + Duration::seconds(100)).await.unwrap();
    store.queue_remove("second", "w3").await.unwrap();
    let much_later = now + Duration::seconds(200);
    let mut due: Vec<String> = Vec::new();
    while let Some(claim) = store.queue_claim("w5", much_later, lease(much_later)).await.unwrap() {
        due.push(claim.job_id);
    }
    assert_eq!(due, ["later", "second"], "the retry stayed queued although its old holder acknowledged");
}

#[tokio::test]
async fn sqlite_sync_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    conformance(&store).await;
    drop(store);
    let reopened = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    assert_eq!(reopened.get_sync_job("a").await.unwrap().unwrap().status, SyncStatus::Success, "durable");
}

#[tokio::test]
async fn postgres_sync_store() {
    support::with_postgres_store("sync", async |store| conformance(store).await).await;
}

#[tokio::test]
async fn two_consumers_never_hold_one_entry() {
    support::with_postgres_store("sync_race", async |store| {
        let now = ms(Utc::now());
        for i in 0..40 {
            store.queue_push(&format!("j{i}"), now - Duration::seconds(1)).await.unwrap();
        }
        let take = |consumer: &'static str| async move {
            let mut mine = Vec::new();
            let mut misses = 0;
            while misses < 3 {
                match store.queue_claim(consumer, now, now + Duration::seconds(30)).await.unwrap() {
                    Some(claim) => mine.push(claim.job_id),
                    // A lost race finds nothing this time; look again.
                    None => misses += 1,
                }
            }
            mine
        };
        let (first, second) = tokio::join!(take("one"), take("two"));
        let mut all: Vec<String> = first.iter().chain(&second).cloned().collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 40);
        assert_eq!(first.len() + second.len(), 40, "no entry held by both");
    })
    .await;
}
