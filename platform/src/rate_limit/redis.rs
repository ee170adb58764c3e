//! The Redis [`RateLimiter`]: one Lua script (`lua/gcra.lua`) reads the
//! account's own limit and takes one call from both cells, atomically, so
//! every core sharing the Redis enforces one limit. Keys, under the prefix
//! `P` (`MEDIAOPS_REDIS_PREFIX`), hash-tagged by account like the ledger's
//! (one Cluster slot per account):
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P:{acct}:rate-limit` | hash | the account's own limit: `count`, `period` (s), `burst`; `count` 0 = off ([`LIMIT`]; written by the Redis ledger) |
//! | `P:{acct}:rate:account` | string | the account's cell, `<TAT µs>:<T µs>:<burst>`: a cell of another limit counts as full, so a changed limit starts afresh (as the in-process cells do); expires when the cell is full |
//! | `P:{acct}:rate:key:<key id>` | string | the key's cell, the same way |
//!
//! The script reads the clock of Redis (`TIME`), so the cores' clocks do
//! not matter; [`RedisLimiter::check_at`] passes a clock instead (tests).

use std::sync::Arc;
use std::time::Duration;

use redis::Script;

use super::{RateLimiter, Verdict};
use crate::billing::redis::{LIMIT, account_key};
use crate::billing::{Ledger, unavailable};
use crate::quota::{Limit, Quota};
use mediaops_proto::error::ServiceError;

/// The Redis [`RateLimiter`].
pub struct RedisLimiter {
    redis: crate::redis_connection::Bounded,
    prefix: String,
    default: Limit,
    gcra: Script,
    /// Where the accounts' own limits are read first, when given
    /// ([`RedisLimiter::with_account_limits`]).
    limits: Option<Arc<dyn Ledger>>,
}

impl RedisLimiter {
    /// Connects to `url` (the ledger's Redis); `default` is the limit of
    /// accounts without their own.
    ///
    /// # Errors
    /// Redis cannot be reached.
    pub async fn connect(url: &str, prefix: &str, default: Limit) -> anyhow::Result<RedisLimiter> {
        let redis = crate::redis_connection::connect_bounded(url).await?;
        Ok(RedisLimiter {
            redis,
            prefix: prefix.to_owned(),
            default,
            gcra: Script::new(include_str!("lua/gcra.lua")),
            limits: None,
        })
    }

    /// Reads an account's own limit from `ledger` (the Redis ledger, which
    /// caches it while subscribed to its event channel;
    /// `crate::billing::ledger_events`) before each check, and skips the script
    /// when the account's limit, or the default, is off: an unlimited call
    /// costs no round trip to Redis (docs/rate-limits.md).
    pub fn with_account_limits(mut self, ledger: Arc<dyn Ledger>) -> RedisLimiter {
        self.limits = Some(ledger);
        self
    }

    /// [`RateLimiter::check`] at `now_us` (microseconds on any clock the
    /// caller keeps; `None` = the Redis server's clock).
    ///
    /// # Errors
    /// 503 `billing_unavailable` when Redis fails or answers nonsense.
    pub async fn check_at(
        &self,
        account_id: &str,
        key_id: &str,
        now_us: Option<u64>,
    ) -> Result<Option<Verdict>, ServiceError> {
        if let Some(ledger) = &self.limits
            && ledger.rate_limit(account_id).await?.unwrap_or(self.default) == Limit::Off
        {
            return Ok(None);
        }
        let (count, period, burst) = match self.default {
            Limit::Off => (0, 1, 0),
            Limit::Quota(q) => (q.count, q.period_secs, q.burst),
        };
        let mut invocation = self.gcra.prepare_invoke();
        invocation
            .key(account_key(&self.prefix, account_id, LIMIT))
            .key(account_key(&self.prefix, account_id, "rate:account"))
            .key(account_key(&self.prefix, account_id, &format!("rate:key:{key_id}")))
            .arg(now_us.map(|n| n.to_string()).unwrap_or_default())
            .arg(count)
            .arg(period)
            .arg(burst);
        // Nothing but the limiter may have used this connection since Redis
        // went away and came back (a failed authentication stops a call
        // before the limit): the first script then meets the dead socket,
        // and the connection manager reconnects. One retry on a dropped
        // connection keeps that from failing a call; at worst it counts one
        // call twice.
        let reply: Vec<i64> = match invocation.invoke_async(&mut self.redis.clone()).await {
            Err(e) if e.is_connection_dropped() => invocation.invoke_async(&mut self.redis.clone()).await,
            other => other,
        }
        .map_err(|e| unavailable(format!("rate limit in Redis: {e}")))?;
        let [allowed, remaining, wait_us, count, period_secs, burst] = reply[..] else {
            return Err(unavailable("unexpected rate-limit reply from Redis"));
        };
        if allowed < 0 {
            return Ok(None);
        }
        let number = |n: i64| u32::try_from(n).map_err(|_| unavailable("unexpected rate-limit reply from Redis"));
        let quota = Quota { count: number(count)?, period_secs: number(period_secs)?, burst: number(burst)? };
        Ok(Some(Verdict {
            quota,
            allowed: allowed == 1,
            remaining: number(remaining)?,
            retry_after: Duration::from_micros(wait_us.max(0) as u64),
        }))
    }
}

#[async_trait::async_trait]
impl RateLimiter for RedisLimiter {
    async fn check(&self, account_id: &str, key_id: &str) -> Result<Option<Verdict>, ServiceError> {
        self.check_at(account_id, key_id, None).await
    }
}
