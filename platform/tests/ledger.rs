//! One conformance suite, run against both ledgers: the embedded one and
//! the Redis one on the real server at 127.0.0.1:6379 (MEDIAOPS_TEST_REDIS_URL
//! overrides), each test under its own key prefix. Never a mock.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::sync::Arc;
use std::time::Duration;

use mediaops_platform::billing::embedded::EmbeddedLedger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::billing::{IdempotencyBegin, Ledger, Reserved, UsageRecord};
use mediaops_proto::error_code::ErrorCode;

const TTL: Duration = Duration::from_secs(60);

/// The Redis test server (`MEDIAOPS_TEST_REDIS_URL`, else the local one).
pub fn redis_url() -> String {
    std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A ledger of each kind; the temp dir must outlive the embedded one.
async fn ledgers() -> Vec<(&'static str, Arc<dyn Ledger>, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().unwrap();
    let embedded: Arc<dyn Ledger> = Arc::new(EmbeddedLedger::open(dir.path()).unwrap());
    let prefix = format!("mediaops-test-{}", uuid::Uuid::new_v4().simple());
    let redis: Arc<dyn Ledger> =
        Arc::new(RedisLedger::connect(&redis_url(), &prefix).await.expect("Redis at 127.0.0.1:6379"));
    vec![("embedded", embedded, Some(dir)), ("redis", redis, None)]
}

macro_rules! conformance {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test]
        async fn $name() {
            for (kind, ledger, _dir) in ledgers().await {
                cases::$name(ledger.as_ref()).await;
                eprintln!("{kind}: ok");
            }
        }
    )*};
}

conformance!(
    keys_authenticate_disable_and_list,
    grant_and_balance,
    reserve_commit_release,
    insufficient_balance_holds_nothing,
    expired_reservations_are_released,
    idempotency_lifecycle,
    usage_counts_and_log,
    a_commit_logs_what_it_charged,
    concurrent_reservations_never_overdraw,
    account_rate_limits_are_kept,
);

mod cases {
    use super::*;

    pub async fn account_rate_limits_are_kept(ledger: &dyn Ledger) {
        use mediaops_platform::rate_limit::{Limit, Quota};
        let quota = Limit::Quota(Quota { count: 600, period_secs: 60, burst: 30 });
        assert_eq!(ledger.rate_limit("acct_r").await.unwrap(), None, "none of its own: the default applies");
        ledger.set_rate_limit("acct_r", Some(quota)).await.unwrap();
        assert_eq!(ledger.rate_limit("acct_r").await.unwrap(), Some(quota));
        assert_eq!(ledger.balance("acct_r").await.unwrap(), Some(0), "setting a limit creates the account");
        ledger.set_rate_limit("acct_r", Some(Limit::Off)).await.unwrap();
        assert_eq!(ledger.rate_limit("acct_r").await.unwrap(), Some(Limit::Off));
        assert_eq!(ledger.rate_limit("acct_other").await.unwrap(), None, "per account");
        ledger.set_rate_limit("acct_r", None).await.unwrap();
        assert_eq!(ledger.rate_limit("acct_r").await.unwrap(), None);
        assert_eq!(ledger.grant("acct_r", 5).await.unwrap(), 5, "the balance is untouched");
    }

    pub async fn keys_authenticate_disable_and_list(ledger: &dyn Ledger) {
        let key = "mk_conformance_key_000000000001";
        assert!(ledger.insert_key(key, "acct_a").await.unwrap());
        assert!(!ledger.insert_key(key, "acct_b").await.unwrap(), "a key is stored once");
        assert_eq!(ledger.authenticate(key).await.unwrap().account_id, "acct_a");
        let err = ledger.authenticate("mk_conformance_unknown_0000001").await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Unauthenticated);
        let keys = ledger.list_keys().await.unwrap();
        assert_eq!(keys.len(), 1);
        assert!(!format!("{keys:?}").contains(key), "listings never hold the key");
        assert_eq!(keys[0].prefix, "mk_conf…");
        assert!(!ledger.disable_key("0000").await.unwrap(), "ids shorter than 8 match nothing");
        assert!(ledger.disable_key(&keys[0].key_id).await.unwrap());
        assert!(ledger.list_keys().await.unwrap()[0].disabled);
        assert_eq!(ledger.authenticate(key).await.unwrap_err().code, ErrorCode::Unauthenticated);
        assert_eq!(ledger.balance("acct_a").await.unwrap(), Some(0), "a key's account exists with 0 points");
    }

    pub async fn grant_and_balance(ledger: &dyn Ledger) {
        assert_eq!(ledger.balance("acct_g").await.unwrap(), None);
        assert_eq!(ledger.grant("acct_g", 10).await.unwrap(), 10);
        assert_eq!(ledger.grant("acct_g", 5).await.unwrap(), 15);
        assert_eq!(ledger.balance("acct_g").await.unwrap(), Some(15));
    }

    pub async fn reserve_commit_release(ledger: &dyn Ledger) {
        ledger.grant("acct_r", 10).await.unwrap();
        assert_eq!(ledger.reserve("acct_r", "r1", 4, TTL).await.unwrap(), Reserved::Held { balance: 6 });
        assert_eq!(ledger.reserve("acct_r", "r2", 4, TTL).await.unwrap(), Reserved::Held { balance: 2 });
        assert!(ledger.commit("acct_r", "r1").await.unwrap());
        assert!(!ledger.commit("acct_r", "r1").await.unwrap(), "settled once");
        assert!(ledger.release("acct_r", "r2").await.unwrap());
        assert!(!ledger.release("acct_r", "r2").await.unwrap(), "released once");
        assert!(!ledger.release("acct_r", "r1").await.unwrap(), "a committed reservation cannot be released");
        assert_eq!(ledger.balance("acct_r").await.unwrap(), Some(6));
    }

    pub async fn insufficient_balance_holds_nothing(ledger: &dyn Ledger) {
        ledger.grant("acct_i", 3).await.unwrap();
        assert_eq!(ledger.reserve("acct_i", "x", 4, TTL).await.unwrap(), Reserved::Insufficient { balance: 3 });
        assert!(!ledger.release("acct_i", "x").await.unwrap());
        assert_eq!(ledger.balance("acct_i").await.unwrap(), Some(3));
        assert_eq!(ledger.reserve("acct_i", "y", 3, TTL).await.unwrap(), Reserved::Held { balance: 0 });
    }

    pub async fn expired_reservations_are_released(ledger: &dyn Ledger) {
        ledger.grant("acct_e", 10).await.unwrap();
        ledger.reserve("acct_e", "dies", 6, Duration::from_millis(100)).await.unwrap();
        assert_eq!(ledger.release_expired().await.unwrap(), 0, "not yet expired");
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(ledger.release_expired().await.unwrap(), 1);
        assert_eq!(ledger.balance("acct_e").await.unwrap(), Some(10));
        assert!(!ledger.commit("acct_e", "dies").await.unwrap(), "an expired reservation cannot be committed");

        ledger.reserve("acct_e", "dies-too", 10, Duration::from_millis(100)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(250)).await;
        let next = ledger.reserve("acct_e", "next", 10, TTL).await.unwrap();
        assert_eq!(next, Reserved::Held { balance: 0 }, "the next reservation releases expired ones first");
    }

    pub async fn idempotency_lifecycle(ledger: &dyn Ledger) {
        let begin = |key: &'static str, fp: &'static str| ledger.idempotency_begin("acct_d", key, fp, TTL);
        assert_eq!(begin("k1", "fp-a").await.unwrap(), IdempotencyBegin::New);
        assert_eq!(begin("k1", "fp-a").await.unwrap(), IdempotencyBegin::InProgress);
        ledger.idempotency_finish("acct_d", "k1", Some(b"\x00answer\xff")).await.unwrap();
        assert_eq!(
            begin("k1", "fp-a").await.unwrap(),
            IdempotencyBegin::Replay { same_request: true, response: b"\x00answer\xff".to_vec() }
        );
        assert!(matches!(begin("k1", "fp-b").await.unwrap(), IdempotencyBegin::Replay { same_request: false, .. }));
        assert_eq!(
            ledger.idempotency_begin("acct_other", "k1", "fp-a", TTL).await.unwrap(),
            IdempotencyBegin::New,
            "keys are per account"
        );

        assert_eq!(begin("k2", "fp").await.unwrap(), IdempotencyBegin::New);
        ledger.idempotency_finish("acct_d", "k2", None).await.unwrap();
        assert_eq!(begin("k2", "fp").await.unwrap(), IdempotencyBegin::New, "a failed request can be retried");

        assert_eq!(
            ledger.idempotency_begin("acct_d", "k3", "fp", Duration::from_millis(100)).await.unwrap(),
            IdempotencyBegin::New
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(
            begin("k3", "fp").await.unwrap(),
            IdempotencyBegin::New,
            "a crashed pending request does not block forever"
        );
    }

    pub async fn usage_counts_and_log(ledger: &dyn Ledger) {
        let record = |i: usize, outcome: &str| UsageRecord {
            request_id: format!("req-{i}"),
            account_id: "acct_u".into(),
            operation_key: "lifestyle.search-note".into(),
            points: if outcome == "ok" { 4 } else { 0 },
            outcome: outcome.into(),
            at: "2026-11-22T00:00:00Z".into(),
        };
        for i in 0..3 {
            ledger.record_usage(&record(i, "ok")).await.unwrap();
        }
        ledger.record_usage(&record(3, "upstream_unavailable")).await.unwrap();
        assert_eq!(ledger.usage_counts().await.unwrap().get("lifestyle.search-note"), Some(&3), "only successes count");
        ledger.record_usage(&UsageRecord { account_id: "acct_other".into(), ..record(4, "ok") }).await.unwrap();
        assert_eq!(ledger.usage_counts().await.unwrap().get("lifestyle.search-note"), Some(&4), "all accounts");
        let own = ledger.account_usage_counts("acct_u").await.unwrap();
        assert_eq!(own.into_iter().collect::<Vec<_>>(), vec![("lifestyle.search-note".to_owned(), 3)], "per account");
        let other = ledger.account_usage_counts("acct_other").await.unwrap();
        assert_eq!(other.get("lifestyle.search-note"), Some(&1));
        assert!(ledger.account_usage_counts("acct_nobody").await.unwrap().is_empty());
        let log = ledger.usage_log("acct_u", 2).await.unwrap();
        assert_eq!(log, vec![record(3, "upstream_unavailable"), record(2, "ok")], "newest first");
        assert!(ledger.usage_log("acct_nobody", 10).await.unwrap().is_empty());
    }

    /// `commit_and_record` logs the points it charged: 0 when the
    /// reservation was released first (a commit Redis ran late), so the
    /// usage log always adds up to the balance.
    pub async fn a_commit_logs_what_it_charged(ledger: &dyn Ledger) {
        ledger.grant("acct_l", 10).await.unwrap();
        let record = |id: &str| UsageRecord {
            request_id: id.into(),
            account_id: "acct_l".into(),
            operation_key: "tool.check-banned-words".into(),
            points: 3,
            outcome: "ok".into(),
            at: "2026-11-28T00:00:00Z".into(),
        };
        for id in ["kept", "released"] {
            assert!(matches!(ledger.reserve("acct_l", id, 3, TTL).await.unwrap(), Reserved::Held { .. }));
        }
        assert!(ledger.release("acct_l", "released").await.unwrap());
        assert!(ledger.commit_and_record("acct_l", "kept", &record("kept")).await.unwrap());
        assert!(!ledger.commit_and_record("acct_l", "released", &record("released")).await.unwrap());
        assert_eq!(ledger.balance("acct_l").await.unwrap(), Some(7));
        let log = ledger.usage_log("acct_l", 10).await.unwrap();
        assert_eq!(log, vec![UsageRecord { points: 0, ..record("released") }, record("kept")]);
        let counts = ledger.account_usage_counts("acct_l").await.unwrap();
        assert_eq!(counts.get("tool.check-banned-words"), Some(&2), "both calls succeeded");
    }

    pub async fn concurrent_reservations_never_overdraw(ledger: &dyn Ledger) {
        ledger.grant("acct_c", 100).await.unwrap();
        let ids: Vec<String> = (0..64).map(|i| format!("c{i}")).collect();
        let results = futures::future::join_all(ids.iter().map(|id| ledger.reserve("acct_c", id, 3, TTL))).await;
        let held = results.iter().filter(|r| matches!(r, Ok(Reserved::Held { .. }))).count();
        assert_eq!(held, 33, "100 points cover 33 reservations of 3");
        assert_eq!(ledger.balance("acct_c").await.unwrap(), Some(1));
    }
}

/// The hot-path changes of the embedded ledger (reservations, commits,
/// releases, usage counters) are written right after they are acknowledged,
/// not before (docs/billing.md "Embedded or Redis"): a reopened ledger finds
/// what was committed charged, what was released back, and what was held
/// released (the process that held it is gone), whether the background
/// write or the closing one put them there.
#[tokio::test]
async fn embedded_hot_path_changes_reach_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for wait_for_background_write in [true, false] {
        let account = format!("acct_w{wait_for_background_write}");
        {
            let ledger = EmbeddedLedger::open(dir.path()).unwrap();
            ledger.grant(&account, 100).await.unwrap();
            assert!(matches!(ledger.reserve(&account, "kept", 10, TTL).await.unwrap(), Reserved::Held { balance: 90 }));
            assert!(ledger.commit(&account, "kept").await.unwrap());
            assert!(matches!(ledger.reserve(&account, "back", 20, TTL).await.unwrap(), Reserved::Held { .. }));
            assert!(ledger.release(&account, "back").await.unwrap());
            assert!(matches!(ledger.reserve(&account, "held", 30, TTL).await.unwrap(), Reserved::Held { balance: 60 }));
            let usage = UsageRecord {
                request_id: "r1".into(),
                account_id: account.clone(),
                operation_key: "op".into(),
                points: 10,
                outcome: "ok".into(),
                at: "2026-11-25T00:00:00.000Z".into(),
            };
            ledger.record_usage(&usage).await.unwrap();
            if wait_for_background_write {
                let file = dir.path().join("ledger.json");
                let written = || std::fs::read_to_string(&file).unwrap_or_default().contains("held\"");
                for _ in 0..200 {
                    if written() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                assert!(written(), "the background write put the reservation in the file");
            }
        }
        let reopened = EmbeddedLedger::open(dir.path()).unwrap();
        assert_eq!(reopened.balance(&account).await.unwrap(), Some(90), "committed 10 charged; 20 and 30 back");
        assert_eq!(reopened.account_usage_counts(&account).await.unwrap().get("op"), Some(&1));
    }
}
