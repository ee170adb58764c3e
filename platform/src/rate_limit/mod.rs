//! Per-key and per-account rate limits (docs/rate-limits.md).
//!
//! A limit is a rate (`20/s`, `600/m`, `1000/h`, `5000/d`) and a burst,
//! enforced with GCRA, the generic cell rate algorithm: emission interval
//! `T = period / count`, tolerance `τ = burst × T`. A cell remembers its
//! theoretical arrival time `TAT`; a call at `now` passes when
//! `max(TAT, now) + T − now ≤ τ` and then moves `TAT` there. So a burst of
//! `N` lets `N` calls through at once, then one every `T`.
//!
//! Every call with an API key takes one call from two cells, `key:<key id>`
//! and `account:<account id>`, both with the account's limit; it must pass
//! both, and a refused call takes from neither. The pipeline checks right
//! after authentication, before validation, pricing and any reservation
//! (`crate::dispatch`), so a refused call is never run, reserved or charged
//! and leaves no usage record.
//!
//! An account's limit is its own (set with `mediaops keys create --rate …
//! --burst …` or the admin RPC `SetRateLimit`, kept by the
//! [`crate::billing::Ledger`]) or else the configured default
//! ([`RateLimitSettings`], `[rate_limit]`), which is `off` unless set.
//!
//! Two [`RateLimiter`]s: [`local::LocalLimiter`] (the `governor` crate, in
//! process; the embedded default) and [`redis::RedisLimiter`] (one Lua
//! script over both cells, atomic across every core sharing the Redis of
//! `MEDIAOPS_REDIS_URL`).

pub mod local;
pub mod redis;

use std::sync::Arc;
use std::time::Duration;

use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::rate_limit::{POLICY, POLICY_NAME, RETRY_AFTER, STATE};
use serde::{Deserialize, Serialize};

use crate::billing::Ledger;
use mediaops_proto::error::ServiceError;

pub use crate::quota::{Limit, LimitError, MAX_CALLS, Quota};

/// The `[rate_limit]` settings (`MEDIAOPS_RATE_LIMIT__DEFAULT_RATE`,
/// `MEDIAOPS_RATE_LIMIT__DEFAULT_BURST`): the limit of every account that
/// has none of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RateLimitSettings {
    /// `off` (the default: no limit) or a rate such as `20/s`.
    pub default_rate: String,
    /// Calls let through at once; 0 (the default) = the rate's count.
    pub default_burst: u32,
}

impl Default for RateLimitSettings {
    fn default() -> Self {
        RateLimitSettings { default_rate: "off".into(), default_burst: 0 }
    }
}

impl RateLimitSettings {
    /// The default limit.
    ///
    /// # Errors
    /// A malformed rate or burst, naming the setting.
    pub fn default_limit(&self) -> anyhow::Result<Limit> {
        Limit::parse(&self.default_rate, self.default_burst).map_err(|e| {
            let name = if e.field == "rate" { "DEFAULT_RATE" } else { "DEFAULT_BURST" };
            anyhow::anyhow!("MEDIAOPS_RATE_LIMIT__{name} (`rate_limit.default_{}`): {}", e.field, e.message)
        })
    }
}

/// What a limiter decided for one call of a limited account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The account's quota.
    pub quota: Quota,
    /// The call passed both cells (and took one call from each).
    pub allowed: bool,
    /// Calls that may be made at once now (after this one when it passed;
    /// 0 when refused): the smaller of the two cells'.
    pub remaining: u32,
    /// When refused: how long until a call passes both cells; else zero.
    pub retry_after: Duration,
}

impl Verdict {
    /// Seconds until the whole burst is available again (from
    /// [`Verdict::remaining`]: `⌈(burst − remaining) × T⌉`); 0 when it is.
    pub fn reset_secs(&self) -> u64 {
        let missing = u64::from(self.quota.burst.saturating_sub(self.remaining));
        (missing * self.quota.interval_us()).div_ceil(1_000_000)
    }

    /// `Retry-After` in whole seconds: [`Verdict::retry_after`] rounded up,
    /// at least 1.
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after.as_micros().div_ceil(1_000_000).max(1) as u64
    }

    /// The answer's fields ([`mediaops_proto::rate_limit`]):
    /// `RateLimit-Policy: "default";q=<count>;w=<period>`, `RateLimit:
    /// "default";r=<remaining>;t=<reset secs>` and, when refused,
    /// `Retry-After`.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let mut fields = vec![
            (POLICY, format!("\"{POLICY_NAME}\";q={};w={}", self.quota.count, self.quota.period_secs)),
            (STATE, format!("\"{POLICY_NAME}\";r={};t={}", self.remaining, self.reset_secs())),
        ];
        if !self.allowed {
            fields.push((RETRY_AFTER, self.retry_after_secs().to_string()));
        }
        fields
    }

    /// The 429 of a refused call, its `RetryInfo` the `Retry-After`.
    pub fn error(&self) -> ServiceError {
        ServiceError::new(
            ErrorCode::RateLimited,
            format!(
                "over the rate limit of this key's account ({} with a burst of {}); retry in {} s; nothing was run or charged",
                self.quota.rate(),
                self.quota.burst,
                self.retry_after_secs()
            ),
        )
        .with_retry_after(std::time::Duration::from_secs(self.retry_after_secs()))
    }

    /// Writes [`Verdict::fields`] into gRPC metadata.
    pub fn write(&self, metadata: &mut tonic::metadata::MetadataMap) {
        for (name, value) in self.fields() {
            if let Ok(value) = tonic::metadata::MetadataValue::try_from(value) {
                metadata.insert(name, value);
            }
        }
    }
}

/// Where rate-limit cells live.
#[async_trait::async_trait]
pub trait RateLimiter: Send + Sync + 'static {
    /// Takes one call from the cells `key:<key_id>` and
    /// `account:<account_id>` if both have room, else from neither. `None`
    /// when the account's limit is `off`.
    ///
    /// # Errors
    /// 503 `billing_unavailable` when the state cannot be read (Redis down):
    /// the limit fails closed, as the ledger does.
    async fn check(&self, account_id: &str, key_id: &str) -> Result<Option<Verdict>, ServiceError>;
}

/// The limiter the settings name (`[rate_limit]`, `MEDIAOPS_REDIS_URL`
/// as `redis_url`, `MEDIAOPS_REDIS_PREFIX` as `redis_prefix`): Redis when a
/// URL is set, else in process over `ledger`'s account limits.
///
/// # Errors
/// A malformed default, or Redis cannot be reached.
pub async fn open(
    settings: &RateLimitSettings,
    redis_url: Option<&str>,
    redis_prefix: &str,
    ledger: Arc<dyn Ledger>,
) -> anyhow::Result<Arc<dyn RateLimiter>> {
    let default = settings.default_limit()?;
    Ok(match redis_url {
        Some(url) => {
            Arc::new(redis::RedisLimiter::connect(url, redis_prefix, default).await?.with_account_limits(ledger))
        }
        None => Arc::new(local::LocalLimiter::new(ledger, default)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_with_their_burst() {
        let quota = |count, period_secs, burst| Limit::Quota(Quota { count, period_secs, burst });
        assert_eq!(Limit::parse("20/s", 40), Ok(quota(20, 1, 40)));
        assert_eq!(Limit::parse(" 600/min ", 0), Ok(quota(600, 60, 600)), "burst 0 = the count");
        assert_eq!(Limit::parse("1000/h", 5), Ok(quota(1000, 3600, 5)));
        assert_eq!(Limit::parse("5000/D", 1), Ok(quota(5000, 86_400, 1)));
        assert_eq!(Limit::parse("OFF", 0), Ok(Limit::Off));
        for bad in ["", "20", "20/w", "x/s", "0/s", "-1/s", "2000000/s", "20/s/s"] {
            assert!(Limit::parse(bad, 0).is_err(), "{bad:?}");
        }
        assert_eq!(Limit::parse("20/w", 0).unwrap_err().field, "rate");
        assert_eq!(Limit::parse("off", 3).unwrap_err().field, "burst");
        assert_eq!(Limit::parse("1/s", MAX_CALLS + 1).unwrap_err().field, "burst");
        assert_eq!(quota(20, 60, 1).rate(), "20/m");
        assert_eq!(Limit::Off.rate(), "off");
    }

    #[test]
    fn the_interval_is_whole_microseconds() {
        assert_eq!(Quota { count: 10, period_secs: 1, burst: 1 }.interval_us(), 100_000);
        assert_eq!(Quota { count: 3, period_secs: 1, burst: 1 }.interval_us(), 333_333);
        assert_eq!(Quota { count: MAX_CALLS, period_secs: 1, burst: 1 }.interval_us(), 1);
    }

    #[test]
    fn fields_follow_the_ietf_draft() {
        let quota = Quota { count: 5, period_secs: 1, burst: 5 };
        let passed = Verdict { quota, allowed: true, remaining: 3, retry_after: Duration::ZERO };
        assert_eq!(
            passed.fields(),
            vec![(POLICY, "\"default\";q=5;w=1".to_owned()), (STATE, "\"default\";r=3;t=1".to_owned())]
        );
        let refused = Verdict { quota, allowed: false, remaining: 0, retry_after: Duration::from_millis(1) };
        assert_eq!(refused.retry_after_secs(), 1, "at least 1 s");
        assert_eq!(refused.fields()[2], (RETRY_AFTER, "1".to_owned()));
        let slow = Verdict { retry_after: Duration::from_millis(2_001), ..refused };
        assert_eq!(slow.retry_after_secs(), 3, "rounded up");
        let error = refused.error();
        assert_eq!(error.code, ErrorCode::RateLimited);
        assert!(error.message.contains("5/s with a burst of 5"), "{}", error.message);
        let hourly = Verdict { quota: Quota { count: 60, period_secs: 3600, burst: 10 }, ..passed };
        assert_eq!(hourly.reset_secs(), 420, "7 calls of 60 s each to refill");
    }
}
