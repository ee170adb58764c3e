//! The watch-list store of migration 0009 (docs/watchlists.md "Storage") on both backends, one suite: round trip
//! with secrets, accounts kept apart, due lists and the lease (one claimer
//! wins; an edit drops the lease so the runner's finish writes nothing),
//! the seen-set, the delivery log newest first, deletion of everything.
//! And the tracking store of migration 0016 (docs/tracking.md "Storage"),
//! whose rows and lease are the same code: eight replicas claiming one due
//! list at once (one wins), a run logged once per run id, deletion.
//! PostgreSQL is the real server (`MEDIAOPS_TEST_DATABASE_URL` overrides),
//! one schema per test.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use mediaops_proto::mediaops::tracking::v1::{TrackingRun, TrackingSpec};
use mediaops_proto::mediaops::watch::v1::{Channel, Delivery, WatchlistSpec};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::tracking::{StoredTracking, TrackingStore};
use mediaops_store::watch::{RunOutcome, StoredWatchlist, WatchStore};

fn watchlist(id: &str, next_run_ms: Option<i64>) -> StoredWatchlist {
    StoredWatchlist {
        id: id.into(),
        spec: WatchlistSpec {
            name: "手机".into(),
            keywords: "华为 +手机".into(),
            schedule: "0 8 * * *".into(),
            channels: vec![Channel {
                r#type: "webhook".into(),
                url: "https://example.com/hook".into(),
                secret: "s3cret".into(),
                ..Channel::default()
            }],
            status: "active".into(),
            ..WatchlistSpec::default()
        },
        created_at: "2024-06-01T00:00:00.000Z".into(),
        updated_at: "2024-06-01T00:00:00.000Z".into(),
        state: "active".into(),
        state_reason: String::new(),
        next_run_ms,
        last_run_ms: None,
    }
}

fn delivery(n: i32) -> Delivery {
    Delivery {
        digest_id: format!("phones:{n}"),
        status: "delivered".into(),
        attempts: 1,
        points: 1,
        ..Delivery::default()
    }
}

async fn suite(store: &dyn WatchStore) {
    assert_eq!(store.get_watchlist("acct_a", "phones").await.unwrap(), None);
    let phones = watchlist("phones", Some(1_000));
    store.put_watchlist("acct_a", &phones).await.unwrap();
    store.put_watchlist("acct_a", &watchlist("later", Some(9_000))).await.unwrap();
    store.put_watchlist("acct_b", &watchlist("phones", None)).await.unwrap();
    assert_eq!(store.get_watchlist("acct_a", "phones").await.unwrap().as_ref(), Some(&phones), "secrets kept");
    let ids: Vec<String> = store.list_watchlists("acct_a").await.unwrap().into_iter().map(|w| w.id).collect();
    assert_eq!(ids, ["later", "phones"]);
    assert_eq!(store.list_watchlists("acct_c").await.unwrap(), []);

    // Due at 5,000: only acct_a's phones (acct_b's is not scheduled).
    assert_eq!(store.due_watchlists(5_000, 10).await.unwrap(), [("acct_a".to_owned(), "phones".to_owned())]);
    let claimed = store.claim_watchlist("acct_a", "phones", "one", 5_000, 60_000).await.unwrap();
    assert_eq!(claimed.map(|w| w.id).as_deref(), Some("phones"));
    assert_eq!(store.claim_watchlist("acct_a", "phones", "two", 5_000, 60_000).await.unwrap(), None, "held");
    assert_eq!(store.due_watchlists(5_000, 10).await.unwrap(), [], "a leased one is not due");
    let outcome = RunOutcome {
        state: "active".into(),
        state_reason: String::new(),
        next_run_ms: Some(20_000),
        last_run_ms: Some(1_000),
    };
    assert!(!store.finish_watchlist("acct_a", "phones", "two", &outcome).await.unwrap(), "not two's");
    assert!(store.finish_watchlist("acct_a", "phones", "one", &outcome).await.unwrap());
    let after = store.get_watchlist("acct_a", "phones").await.unwrap().unwrap();
    assert_eq!((after.next_run_ms, after.last_run_ms), (Some(20_000), Some(1_000)));
    // A lease that passed is taken over; an edit drops the lease.
    assert!(store.claim_watchlist("acct_a", "phones", "one", 30_000, 31_000).await.unwrap().is_some());
    assert!(store.claim_watchlist("acct_a", "phones", "two", 32_000, 90_000).await.unwrap().is_some(), "expired");
    store.put_watchlist("acct_a", &watchlist("phones", Some(40_000))).await.unwrap();
    assert!(!store.finish_watchlist("acct_a", "phones", "two", &outcome).await.unwrap(), "the edit wins");
    assert_eq!(store.get_watchlist("acct_a", "phones").await.unwrap().unwrap().next_run_ms, Some(40_000));

    let keys = vec![("weibo".to_owned(), "华为手机".to_owned()), ("douyin".to_owned(), "华为手机".to_owned())];
    store.mark_seen("acct_a", "phones", &keys, "2024-06-01T00:00:00.000Z").await.unwrap();
    store.mark_seen("acct_a", "phones", &keys[..1], "2024-06-02T00:00:00.000Z").await.unwrap();
    let seen = store.seen_items("acct_a", "phones").await.unwrap();
    assert_eq!(seen.len(), 2);
    assert!(seen.contains(&keys[1]));
    assert!(store.seen_items("acct_b", "phones").await.unwrap().is_empty());

    for n in 1..=3 {
        store.add_delivery("acct_a", "phones", &delivery(n)).await.unwrap();
    }
    let log = store.deliveries("acct_a", "phones", 2).await.unwrap();
    assert_eq!(log, [delivery(3), delivery(2)], "newest first");
    assert!(store.deliveries("acct_b", "phones", 10).await.unwrap().is_empty());

    assert!(store.delete_watchlist("acct_a", "phones").await.unwrap());
    assert!(!store.delete_watchlist("acct_a", "phones").await.unwrap());
    assert!(store.seen_items("acct_a", "phones").await.unwrap().is_empty());
    assert!(store.deliveries("acct_a", "phones", 10).await.unwrap().is_empty());
    assert!(store.get_watchlist("acct_b", "phones").await.unwrap().is_some(), "the other account's stays");
}

async fn tracking_suite(store: std::sync::Arc<dyn TrackingStore>) {
    let spec = TrackingSpec {
        name: "竞品".into(),
        platform: "shortvideo".into(),
        accounts: vec!["MS4wLjABAAAAa".into()],
        keywords: vec!["猫咪".into()],
        schedule: "0 9 * * *".into(),
        status: "active".into(),
    };
    let list = StoredTracking {
        id: "rivals".into(),
        spec,
        created_at: "2024-06-01T00:00:00.000Z".into(),
        updated_at: "2024-06-01T00:00:00.000Z".into(),
        state: "active".into(),
        state_reason: String::new(),
        next_run_ms: Some(1_000),
        last_run_ms: None,
    };
    store.put_tracking("acct_a", &list).await.unwrap();
    assert_eq!(store.get_tracking("acct_a", "rivals").await.unwrap().as_ref(), Some(&list));
    assert_eq!(store.get_tracking("acct_b", "rivals").await.unwrap(), None, "accounts apart");
    assert_eq!(store.due_tracking(2_000, 10).await.unwrap(), [("acct_a".to_owned(), "rivals".to_owned())]);
    // Eight replicas look at once: exactly one holds the list.
    let claims = (0..8).map(|n| {
        let store = store.clone();
        tokio::spawn(async move { store.claim_tracking("acct_a", "rivals", &format!("core-{n}"), 2_000, 60_000).await })
    });
    let won: Vec<bool> =
        futures::future::join_all(claims).await.into_iter().map(|c| c.unwrap().unwrap().is_some()).collect();
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "{won:?}");
    let run = |ms: i64, points: i64| TrackingRun {
        run_id: format!("rivals:{ms}"),
        status: "ok".into(),
        points,
        ..TrackingRun::default()
    };
    assert!(store.add_run("acct_a", "rivals", &run(1_000, 14)).await.unwrap());
    assert!(!store.add_run("acct_a", "rivals", &run(1_000, 99)).await.unwrap(), "a run id is logged once");
    assert!(store.add_run("acct_a", "rivals", &run(2_000, 14)).await.unwrap());
    assert_eq!(store.runs("acct_a", "rivals", 10).await.unwrap(), [run(2_000, 14), run(1_000, 14)]);
    assert!(store.delete_tracking("acct_a", "rivals").await.unwrap());
    assert_eq!(store.runs("acct_a", "rivals", 10).await.unwrap(), []);
    assert!(!store.delete_tracking("acct_a", "rivals").await.unwrap());
}

#[tokio::test]
async fn sqlite_tracking_store() {
    let dir = tempfile::tempdir().unwrap();
    tracking_suite(std::sync::Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap())).await;
}

#[tokio::test]
async fn sqlite_watch_store() {
    let dir = tempfile::tempdir().unwrap();
    suite(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_watch_store() {
    support::with_postgres_store("watch", async |store| suite(store).await).await;
}

#[tokio::test]
async fn postgres_tracking_store() {
    support::with_postgres_store("tracking", async |store| tracking_suite(std::sync::Arc::new(store.clone())).await)
        .await;
}
