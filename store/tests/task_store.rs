//! The task store (migration 0003) on both backends, one suite: create and
//! read, finishing only by the lease holder and only once, lease renewal,
//! and claiming orphaned tasks (expired leases only, never twice).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use chrono::{DateTime, Duration, Utc};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::task::{Task, TaskCharge, TaskOutcome, TaskStatus, TaskStore};
use serde_json::json;

fn task(id: &str, owner: &str, lease_until: DateTime<Utc>, created_at: DateTime<Utc>) -> Task {
    Task {
        id: id.into(),
        operation_key: "skills.ai-web-search".into(),
        account_id: "acct-1".into(),
        status: TaskStatus::Running,
        request: json!({"query": "露营要带什么"}),
        result: None,
        error: None,
        charge: Some(TaskCharge { reservation_id: format!("res-{id}"), points: 10 }),
        request_id: format!("req-{id}"),
        created_at,
        updated_at: created_at,
        deadline_at: created_at + Duration::minutes(5),
        lease_owner: Some(owner.into()),
        lease_until: Some(lease_until),
    }
}

/// Times as stored: milliseconds.
fn ms(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap()
}

async fn conformance(store: &dyn TaskStore) {
    let now = ms(Utc::now());
    let a = task("a", "runner-1", now + Duration::seconds(30), now - Duration::seconds(3));
    store.create_task(&a).await.unwrap();
    assert_eq!(store.get_task("a").await.unwrap().as_ref(), Some(&a), "read back as written");
    assert!(store.get_task("missing").await.unwrap().is_none());
    assert!(store.create_task(&a).await.is_err(), "ids are unique");

    // Only the lease holder finishes, and only once.
    let result = json!({"content": "带帐篷 [1]", "references": [{"title": "t", "url": "https://x.example/"}], "suggestions": []});
    let outcome = TaskOutcome::Success(result.clone());
    assert!(!store.finish_task("a", "runner-2", &outcome, now).await.unwrap());
    assert!(store.finish_task("a", "runner-1", &outcome, now + Duration::seconds(1)).await.unwrap());
    assert!(!store.finish_task("a", "runner-1", &TaskOutcome::Failed(json!({"code": "x"})), now).await.unwrap());
    let done = store.get_task("a").await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Success);
    assert_eq!(done.result, Some(result));
    assert_eq!((done.error, done.lease_owner, done.lease_until), (None, None, None));
    assert_eq!(done.updated_at, now + Duration::seconds(1));
    assert_eq!(done.charge, a.charge, "the charge record stays");

    // Failures keep their error object.
    let b = task("b", "runner-1", now + Duration::seconds(30), now - Duration::seconds(2));
    store.create_task(&b).await.unwrap();
    let error = json!({"code": "upstream_unavailable", "message": "the chat model failed (500): boom"});
    assert!(store.finish_task("b", "runner-1", &TaskOutcome::Failed(error.clone()), now).await.unwrap());
    let failed = store.get_task("b").await.unwrap().unwrap();
    assert_eq!((failed.status, failed.error, failed.result), (TaskStatus::Failed, Some(error), None));

    // Renewal touches only the owner's running tasks.
    let c = task("c", "runner-1", now - Duration::seconds(5), now - Duration::seconds(1));
    let d = task("d", "runner-dead", now - Duration::seconds(5), now - Duration::seconds(10));
    let e = task("e", "runner-alive", now + Duration::seconds(20), now);
    for t in [&c, &d, &e] {
        store.create_task(t).await.unwrap();
    }
    assert_eq!(store.renew_task_leases("runner-1", now + Duration::seconds(30)).await.unwrap(), 1, "c only");
    assert_eq!(store.get_task("c").await.unwrap().unwrap().lease_until, Some(now + Duration::seconds(30)));

    // Only expired leases are claimed, oldest first, and never twice.
    let claimed = store.claim_orphaned_tasks("runner-new", now, now + Duration::seconds(30), 10).await.unwrap();
    let ids: Vec<&str> = claimed.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["d"]);
    assert_eq!(claimed[0].lease_owner.as_deref(), Some("runner-new"));
    assert_eq!(claimed[0].request, d.request);
    assert!(store.claim_orphaned_tasks("runner-other", now, now + Duration::seconds(30), 10).await.unwrap().is_empty());
    // A lease given up (set to the epoch) is claimable at once.
    store.renew_task_leases("runner-alive", DateTime::UNIX_EPOCH).await.unwrap();
    let later = now + Duration::seconds(60);
    let claimed = store.claim_orphaned_tasks("runner-other", now, later, 1).await.unwrap();
    assert_eq!(claimed.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["e"], "limit 1");
    assert!(!store.finish_task("e", "runner-alive", &TaskOutcome::Success(json!({})), now).await.unwrap(), "lost it");
    assert!(store.finish_task("e", "runner-other", &TaskOutcome::Success(json!({})), now).await.unwrap());
}

#[tokio::test]
async fn sqlite_task_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    conformance(&store).await;
    // Durable: a reopened file has the tasks.
    drop(store);
    let reopened = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    assert_eq!(reopened.get_task("a").await.unwrap().unwrap().status, TaskStatus::Success);
}

#[tokio::test]
async fn postgres_task_store() {
    support::with_postgres_store("tasks", async |store| conformance(store).await).await;
}

#[tokio::test]
async fn two_claimers_never_take_the_same_task() {
    support::with_postgres_store("tasks_race", async |store| {
        let now = ms(Utc::now());
        for i in 0..40 {
            store.create_task(&task(&format!("t{i}"), "dead", now - Duration::seconds(1), now)).await.unwrap();
        }
        let claim = |owner: &'static str| async move {
            let mut mine = Vec::new();
            loop {
                let got = store.claim_orphaned_tasks(owner, now, now + Duration::seconds(30), 3).await.unwrap();
                if got.is_empty() {
                    return mine;
                }
                mine.extend(got.into_iter().map(|t| t.id));
            }
        };
        let (first, second) = tokio::join!(claim("one"), claim("two"));
        let mut all: Vec<String> = first.iter().chain(&second).cloned().collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 40);
        assert_eq!(first.len() + second.len(), 40, "no task claimed twice");
    })
    .await;
}
