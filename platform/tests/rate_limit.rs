//! The two rate limiters (docs/rate-limits.md) under one
//! suite, each on a clock the test moves: the GCRA Lua script on the real
//! Redis (127.0.0.1:6379, `MEDIAOPS_TEST_REDIS_URL` overrides; the clock is
//! passed to the script) and the in-process `governor` limiter (a fake
//! clock), each over the ledger of its deployment, which holds the
//! accounts' own limits. Never a mock.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::sync::Arc;
use std::time::Duration;

use governor::clock::FakeRelativeClock;
use mediaops_platform::billing::Ledger;
use mediaops_platform::billing::embedded::EmbeddedLedger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::rate_limit::local::LocalLimiter;
use mediaops_platform::rate_limit::redis::RedisLimiter;
use mediaops_platform::rate_limit::{Limit, Quota, RateLimiter, Verdict};

fn redis_url() -> String {
    std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn quota(count: u32, burst: u32) -> Quota {
    Quota { count, period_secs: 1, burst }
}

/// A limiter, its ledger and the clock the test moves.
enum Subject {
    Local { limiter: LocalLimiter<FakeRelativeClock>, clock: FakeRelativeClock, _dir: tempfile::TempDir },
    Redis { limiter: RedisLimiter, now_us: u64 },
}

struct Case {
    subject: Subject,
    ledger: Arc<dyn Ledger>,
}

impl Case {
    async fn check(&self, account: &str, key: &str) -> Option<Verdict> {
        match &self.subject {
            Subject::Local { limiter, .. } => limiter.check(account, key).await.unwrap(),
            Subject::Redis { limiter, now_us } => limiter.check_at(account, key, Some(*now_us)).await.unwrap(),
        }
    }

    /// A passing or refusing call, asserted to be limited.
    async fn call(&self, account: &str, key: &str) -> Verdict {
        self.check(account, key).await.expect("the account is limited")
    }

    fn advance(&mut self, by: Duration) {
        match &mut self.subject {
            Subject::Local { clock, .. } => clock.advance(by),
            Subject::Redis { now_us, .. } => *now_us += by.as_micros() as u64,
        }
    }
}

/// Both limiters with `default` for accounts without their own limit.
async fn cases(default: Limit) -> Vec<(&'static str, Case)> {
    let dir = tempfile::tempdir().unwrap();
    let embedded: Arc<dyn Ledger> = Arc::new(EmbeddedLedger::open(dir.path()).unwrap());
    let clock = FakeRelativeClock::default();
    let local = LocalLimiter::with_clock(embedded.clone(), default, clock.clone());
    let prefix = format!("mediaops-test-rl-{}", uuid::Uuid::new_v4().simple());
    let redis: Arc<dyn Ledger> = Arc::new(RedisLedger::connect(&redis_url(), &prefix).await.expect("Redis"));
    let limiter = RedisLimiter::connect(&redis_url(), &prefix, default).await.unwrap();
    // An arbitrary start, as a real clock has.
    let now_us = 1_750_000_000_000_000;
    vec![
        ("governor", Case { subject: Subject::Local { limiter: local, clock, _dir: dir }, ledger: embedded }),
        ("redis", Case { subject: Subject::Redis { limiter, now_us }, ledger: redis }),
    ]
}

macro_rules! both {
    ($($name:ident($default:expr)),* $(,)?) => {$(
        #[tokio::test]
        async fn $name() {
            for (kind, case) in cases($default).await {
                eprintln!("{kind}:");
                scenarios::$name(case).await;
            }
        }
    )*};
}

both!(
    a_burst_of_one_at_ten_per_second(Limit::Quota(quota(10, 1))),
    a_burst_of_n_lets_n_through_at_once(Limit::Quota(quota(10, 10))),
    refused_calls_take_nothing(Limit::Quota(quota(5, 5))),
    the_account_cell_binds_all_its_keys(Limit::Quota(quota(5, 2))),
    an_accounts_own_limit_replaces_the_default(Limit::Off),
    an_own_off_lifts_the_default(Limit::Quota(quota(1, 1))),
);

mod scenarios {
    use super::*;

    pub async fn a_burst_of_one_at_ten_per_second(mut case: Case) {
        let first = case.call("acct", "key1").await;
        assert_eq!((first.allowed, first.remaining, first.quota), (true, 0, quota(10, 1)));
        assert_eq!(first.reset_secs(), 1, "100 ms to refill, rounded up");
        case.advance(Duration::from_millis(40));
        let second = case.call("acct", "key1").await;
        assert!(!second.allowed, "T = 100 ms: a second call 40 ms later is refused");
        assert_eq!(second.retry_after, Duration::from_millis(60), "the rest of the 100 ms");
        assert_eq!((second.remaining, second.retry_after_secs()), (0, 1));
        case.advance(Duration::from_millis(60));
        assert!(case.call("acct", "key1").await.allowed, "exactly T after the first");
    }

    pub async fn a_burst_of_n_lets_n_through_at_once(mut case: Case) {
        for left in (0..10).rev() {
            let verdict = case.call("acct", "key1").await;
            assert!(verdict.allowed);
            assert_eq!(verdict.remaining, left);
        }
        case.advance(Duration::from_millis(50));
        let eleventh = case.call("acct", "key1").await;
        assert!(!eleventh.allowed, "the 11th call within the first 100 ms");
        assert_eq!(eleventh.retry_after, Duration::from_millis(50));
        let fields = eleventh.fields();
        assert_eq!(fields[0], ("ratelimit-policy", "\"default\";q=10;w=1".to_owned()));
        assert_eq!(fields[1], ("ratelimit", "\"default\";r=0;t=1".to_owned()));
        assert_eq!(fields[2], ("retry-after", "1".to_owned()));
        case.advance(Duration::from_millis(50));
        let refilled = case.call("acct", "key1").await;
        assert!(refilled.allowed && refilled.remaining == 0, "one call back every 100 ms");
        case.advance(Duration::from_secs(5));
        assert_eq!(case.call("acct", "key1").await.remaining, 9, "full again after a quiet while");
    }

    pub async fn refused_calls_take_nothing(mut case: Case) {
        for _ in 0..5 {
            assert!(case.call("acct", "key1").await.allowed);
        }
        for _ in 0..20 {
            let refused = case.call("acct", "key1").await;
            assert_eq!(refused.retry_after, Duration::from_millis(200), "hammering does not push the wait out");
        }
        case.advance(Duration::from_millis(200));
        assert!(case.call("acct", "key1").await.allowed);
        assert!(!case.call("acct", "key1").await.allowed);
    }

    pub async fn the_account_cell_binds_all_its_keys(mut case: Case) {
        assert!(case.call("acct", "key1").await.allowed);
        assert!(case.call("acct", "key2").await.allowed);
        let third = case.call("acct", "key3").await;
        assert!(!third.allowed, "a new key of a spent account is refused by the account's cell");
        assert_eq!(case.call("other", "key4").await.remaining, 1, "other accounts have their own cells");
        case.advance(Duration::from_millis(200));
        let again = case.call("acct", "key3").await;
        assert!(again.allowed && again.remaining == 0);
    }

    pub async fn an_accounts_own_limit_replaces_the_default(mut case: Case) {
        assert_eq!(case.check("acct", "key1").await, None, "the default is off: no verdict, no headers");
        case.ledger.set_rate_limit("acct", Some(Limit::Quota(quota(2, 2)))).await.unwrap();
        assert_eq!(case.ledger.rate_limit("acct").await.unwrap(), Some(Limit::Quota(quota(2, 2))));
        assert!(case.call("acct", "key1").await.allowed);
        assert!(case.call("acct", "key1").await.allowed);
        let refused = case.call("acct", "key1").await;
        assert_eq!((refused.allowed, refused.retry_after), (false, Duration::from_millis(500)));
        assert_eq!(case.check("other", "key2").await, None, "only that account");
        case.ledger
            .set_rate_limit("acct", Some(Limit::Quota(Quota { count: 60, period_secs: 60, burst: 5 })))
            .await
            .unwrap();
        let changed = case.call("acct", "key1").await;
        assert_eq!(changed.quota, Quota { count: 60, period_secs: 60, burst: 5 }, "the next call meets the new limit");
        assert_eq!(changed.remaining, 4, "a changed limit starts with full cells");
        case.ledger.set_rate_limit("acct", None).await.unwrap();
        assert_eq!(case.ledger.rate_limit("acct").await.unwrap(), None);
        assert_eq!(case.check("acct", "key1").await, None, "back to the default");
        case.advance(Duration::from_secs(1));
    }

    pub async fn an_own_off_lifts_the_default(case: Case) {
        assert!(case.call("acct", "key1").await.allowed);
        assert!(!case.call("acct", "key1").await.allowed, "the default 1/s");
        case.ledger.set_rate_limit("acct", Some(Limit::Off)).await.unwrap();
        assert_eq!(case.ledger.rate_limit("acct").await.unwrap(), Some(Limit::Off));
        for _ in 0..50 {
            assert_eq!(case.check("acct", "key1").await, None);
        }
        assert!(case.ledger.balance("acct").await.unwrap().is_some(), "setting a limit creates the account");
    }
}

/// The script's cells expire once full, so an idle key costs Redis nothing;
/// and with no clock given the script reads Redis's own `TIME`.
#[tokio::test]
async fn redis_cells_expire_when_full_and_the_server_clock_works() {
    let prefix = format!("mediaops-test-rl-{}", uuid::Uuid::new_v4().simple());
    let limiter = RedisLimiter::connect(&redis_url(), &prefix, Limit::Quota(quota(10, 4))).await.unwrap();
    for _ in 0..4 {
        assert!(limiter.check("acct", "key1").await.unwrap().unwrap().allowed);
    }
    let refused = limiter.check("acct", "key1").await.unwrap().unwrap();
    assert!(!refused.allowed && refused.retry_after <= Duration::from_millis(100), "{refused:?}");
    let client = redis::Client::open(redis_url()).unwrap();
    let mut redis = client.get_multiplexed_async_connection().await.unwrap();
    for cell in ["rate:account", "rate:key:key1"] {
        let ttl: i64 =
            redis::cmd("PTTL").arg(format!("{prefix}:{{acct}}:{cell}")).query_async(&mut redis).await.unwrap();
        assert!((300..=400).contains(&ttl), "{cell}: the cell expires when the 4 calls are refilled ({ttl} ms)");
    }
}
