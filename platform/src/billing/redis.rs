//! The Redis ledger (production). Keys, under a configurable prefix `P`:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P:key:<sha256>` | hash | `account`, `prefix`, `disabled`, `created_at` of one API key |
//! | `P:keys` | zset | key hashes by creation time (listing) |
//! | `P:accounts` | set | account ids |
//! | `P:{acct}:balance` | string | points |
//! | `P:{acct}:res` / `P:{acct}:resexp` | hash / zset | held points / expiry (ms) per reservation id |
//! | `P:{acct}:res-cancelled` | zset | reservations released before their reserve ran (a reserve Redis runs late holds nothing), until ms |
//! | `P:res-accounts` | set | accounts that may hold reservations (the sweeper's index) |
//! | `P:{acct}:idem:<sha256>` | hash | `fingerprint`, `response` of an idempotent request |
//! | `P:usage-counts` | hash | successful calls per operation |
//! | `P:{acct}:usage` | list | usage log, newest first, capped |
//! | `P:{acct}:rate-limit` | hash | the account's own rate limit (`count`, `period`, `burst`; `count` 0 = off), read by `crate::rate_limit::redis` |
//!
//! The channel `P:ledger-events` announces disabled keys and changed
//! account limits to every core ([`super::ledger_events`]); each core
//! caches the keys and limits it has read while it is subscribed
//! ([`super::ledger_events::Caches`]; docs/billing.md "Key cache").
//!
//! Every debit decision is one Lua script over the account's keys, which
//! share the `{acct}` hash tag and therefore one Cluster slot. Admin
//! operations on keys touch several slots and are not atomic as a whole.
//!
//! A call's commit and usage line, and the usage line of a call that held
//! nothing, are group-committed (`billing/redis/usage_queue.rs`): the calls settled while
//! one round trip is under way share the next.
//!
//! Every command is answered within 2 s or fails
//! ([`crate::redis_connection::Bounded`]); a reserve is one round trip,
//! shared with the reserves made while the one before it was under way
//! (`billing/redis/reserve_queue.rs`, whose 2 s count from the queueing). A
//! reservation whose fate is unknown (its reserve, commit or release timed
//! out: Redis may still run it when it resumes) is released again in the
//! background, every second, until Redis answers or the reservation's time
//! to live has passed (`Unsettled`), so a frozen Redis leaves no hold
//! behind once it resumes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::{AsyncCommands, Script, Value};

use super::ledger_events::{Caches, Event};
use super::{
    CommitThen, DeliveredCall, IdempotencyBegin, KeyInfo, Ledger, Reserved, USAGE_LOG_LIMIT, UsageRecord, now_ms,
    unavailable,
};
use reserve_queue::ReserveQueue;
use usage_queue::UsageQueue;

mod group_commit;
mod reserve_queue;
mod usage_queue;
use crate::auth::Principal;
use crate::auth::keys::{display_prefix, hash_key};
use crate::quota::{Limit, Quota};
use crate::redis_connection::{Bounded, RESPONSE_TIMEOUT};
use mediaops_proto::error::ServiceError;

/// The per-account hash of an account's own limit (`P:{acct}:rate-limit`),
/// read by `crate::rate_limit::redis`.
pub const LIMIT: &str = "rate-limit";

/// The Redis [`Ledger`].
pub struct RedisLedger {
    redis: Bounded,
    prefix: String,
    settle: Script,
    sweep: Script,
    idempotency_begin: Script,
    /// Keys and limits read lately, while subscribed to the event channel.
    caches: Caches,
    /// The subscription task, stopped with the ledger.
    subscription: tokio::task::AbortHandle,
    /// Reservations to release again, and the task that does it.
    unsettled: Unsettled,
    retrying: tokio::task::AbortHandle,
    /// Commits and usage lines, written in groups (`billing/redis/usage_queue.rs`), and
    /// the task that writes them.
    usage: UsageQueue,
    writing: tokio::task::AbortHandle,
    /// Reserves, written in groups (`billing/redis/reserve_queue.rs`), and
    /// the task that writes them.
    reserves: ReserveQueue,
    reserving: tokio::task::AbortHandle,
}

impl Drop for RedisLedger {
    fn drop(&mut self) {
        self.subscription.abort();
        self.retrying.abort();
        self.writing.abort();
        self.reserving.abort();
    }
}

/// How often [`Unsettled`] reservations are released again.
const RETRY_EVERY: Duration = Duration::from_secs(1);

/// Reservations kept for a retry at most; past that the oldest are left to
/// their time to live (and a warning says so).
const MAX_UNSETTLED: usize = 100_000;

/// One reservation to release again: `(account, reservation id, give up at
/// ms)`.
type Pending = (String, String, i64);

/// Reservations whose reserve, commit or release did not get an answer
/// from Redis: Redis may have run it, or may still run it once it answers
/// again. Each is released again every [`RETRY_EVERY`] until Redis answers
/// or its time to live has passed, when the expiry releases it anyway
/// (`lua/cancel.lua`: a settled one is left as it is, and one not there yet
/// is marked cancelled, so a reserve Redis runs after that holds nothing).
#[derive(Clone, Default)]
struct Unsettled(Arc<Mutex<Vec<Pending>>>);

impl Unsettled {
    fn push(&self, account_id: &str, id: &str, until_ms: i64) {
        let mut pending = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if pending.len() >= MAX_UNSETTLED {
            pending.remove(0);
            tracing::warn!("too many reservations wait for Redis; the oldest is left to its time to live");
        }
        pending.push((account_id.to_owned(), id.to_owned(), until_ms));
    }

    fn take(&self) -> Vec<Pending> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Releases them again every [`RETRY_EVERY`], for as long as the
    /// returned task runs. A round stops at the first failure (Redis is
    /// still away: each try would wait its 2 s) and keeps the rest.
    fn retry(&self, redis: Bounded, prefix: String) -> tokio::task::JoinHandle<()> {
        let cancel = Script::new(include_str!("lua/cancel.lua"));
        let unsettled = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(RETRY_EVERY).await;
                let now = now_ms();
                let mut pending = unsettled.take().into_iter().filter(|(_, _, until_ms)| *until_ms >= now);
                while let Some((account_id, id, until_ms)) = pending.next() {
                    let mut invocation = cancel.prepare_invoke();
                    for key in reservation_keys(&prefix, &account_id) {
                        invocation.key(key);
                    }
                    invocation.key(account_key(&prefix, &account_id, "res-cancelled"));
                    let released: Result<i64, _> =
                        invocation.arg(&id).arg(until_ms).invoke_async(&mut redis.clone()).await;
                    match released {
                        Ok(1) => tracing::info!(
                            account = account_id,
                            reservation = id,
                            "released a reservation Redis ran late"
                        ),
                        Ok(_) => {}
                        Err(_) => {
                            for (account_id, id, until_ms) in std::iter::once((account_id, id, until_ms)).chain(pending)
                            {
                                unsettled.push(&account_id, &id, until_ms);
                            }
                            break;
                        }
                    }
                }
            }
        })
    }
}

/// The balance, reservations and expiry keys of an account, in the order
/// the scripts take them.
fn reservation_keys(prefix: &str, account_id: &str) -> [String; 3] {
    [
        account_key(prefix, account_id, "balance"),
        account_key(prefix, account_id, "res"),
        account_key(prefix, account_id, "resexp"),
    ]
}

/// `P:{<account id>}:<what>`: a key of one account, hash-tagged so every
/// key of the account is in one Cluster slot (the rate limiter's cells too,
/// `crate::rate_limit::redis`).
/// Joined by `concat` rather than `format!`: a charged call builds about
/// ten keys, and `core::fmt` costs several times the copy
/// (docs/performance.md "Keys without format!").
pub fn account_key(prefix: &str, account_id: &str, what: &str) -> String {
    [prefix, ":{", account_id, "}:", what].concat()
}

fn failed(e: redis::RedisError) -> ServiceError {
    unavailable(format!("Redis: {e}"))
}

impl RedisLedger {
    /// Connects to `url` (`redis://host:port/db`) and checks it answers.
    /// The connection manager reconnects by itself after an outage; while
    /// Redis is down every call fails with 503 `billing_unavailable`.
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<RedisLedger> {
        let redis = crate::redis_connection::connect_bounded(url).await?;
        let caches = Caches::default();
        let client = redis::Client::open(url)?;
        let subscription = super::ledger_events::subscribe(client, prefix, caches.clone()).abort_handle();
        let unsettled = Unsettled::default();
        let retrying = unsettled.retry(redis.clone(), prefix.to_owned()).abort_handle();
        let (usage, writing) = UsageQueue::start(redis.clone(), prefix.to_owned());
        let (reserves, reserving) = ReserveQueue::start(redis.clone(), prefix.to_owned());
        Ok(RedisLedger {
            redis,
            caches,
            subscription,
            unsettled,
            retrying,
            usage,
            writing: writing.abort_handle(),
            reserves,
            reserving: reserving.abort_handle(),
            prefix: prefix.to_owned(),
            settle: Script::new(include_str!("lua/settle.lua")),
            sweep: Script::new(include_str!("lua/sweep.lua")),
            idempotency_begin: Script::new(include_str!("lua/idempotency_begin.lua")),
        })
    }

    fn key(&self, hash: &str) -> String {
        [&self.prefix, ":key:", hash].concat()
    }
    fn keys_index(&self) -> String {
        [&self.prefix, ":keys"].concat()
    }
    fn accounts(&self) -> String {
        [&self.prefix, ":accounts"].concat()
    }
    fn account(&self, account_id: &str, what: &str) -> String {
        account_key(&self.prefix, account_id, what)
    }
    fn reservation_keys(&self, account_id: &str) -> [String; 3] {
        reservation_keys(&self.prefix, account_id)
    }
    fn res_accounts(&self) -> String {
        [&self.prefix, ":res-accounts"].concat()
    }
    fn idempotency(&self, account_id: &str, key: &str) -> String {
        self.account(account_id, &format!("idem:{}", hash_key(key)))
    }
    fn usage_counts_key(&self) -> String {
        [&self.prefix, ":usage-counts"].concat()
    }

    /// `lua/settle.lua`'s keys (the account's reservation keys) and
    /// arguments (the reservation id, `1` to release or `0` to commit).
    fn settle_keys_and_args<'a>(&self, account_id: &str, id: &'a str, release: bool) -> ([String; 3], [&'a str; 2]) {
        (self.reservation_keys(account_id), [id, if release { "1" } else { "0" }])
    }

    async fn settle(&self, account_id: &str, id: &str, release: bool) -> Result<bool, ServiceError> {
        let (keys, args) = self.settle_keys_and_args(account_id, id, release);
        let mut invocation = self.settle.prepare_invoke();
        for key in keys {
            invocation.key(key);
        }
        match invocation.arg(&args[..]).invoke_async::<i64>(&mut self.redis.clone()).await {
            Ok(settled) => Ok(settled == 1),
            Err(e) => {
                // Unknown whether Redis ran it: release it again later.
                self.unsettled.push(account_id, id, now_ms() + super::RESERVATION_TTL.as_millis() as i64);
                Err(failed(e))
            }
        }
    }
}

#[async_trait::async_trait]
impl Ledger for RedisLedger {
    async fn ping(&self) -> Result<(), ServiceError> {
        let mut redis = self.redis.clone();
        let ping = redis::cmd("PING");
        match tokio::time::timeout(RESPONSE_TIMEOUT, ping.query_async::<String>(&mut redis)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(failed(e)),
            Err(_) => Err(unavailable("Redis did not answer PING in time")),
        }
    }

    async fn authenticate(&self, key: &str) -> Result<Principal, ServiceError> {
        let hash = hash_key(key);
        if let Some(principal) = self.caches.keys.get(&hash) {
            return Ok(principal);
        }
        let generation = self.caches.keys.generation();
        let record: HashMap<String, String> = self.redis.clone().hgetall(self.key(&hash)).await.map_err(failed)?;
        match (record.get("account"), record.get("disabled").map(String::as_str)) {
            (Some(account), Some("0")) => {
                let principal = Principal {
                    account_id: account.clone(),
                    key_id: hash[..12].to_owned(),
                    key_prefix: record.get("prefix").cloned().unwrap_or_default(),
                };
                self.caches.keys.put(&hash, &principal, generation);
                Ok(principal)
            }
            (Some(_), _) => Err(ServiceError::unauthenticated("this API key is disabled")),
            (None, _) => Err(ServiceError::unauthenticated("unknown API key")),
        }
    }

    async fn insert_key(&self, key: &str, account_id: &str) -> Result<bool, ServiceError> {
        let mut redis = self.redis.clone();
        let hash = hash_key(key);
        let record = self.key(&hash);
        let created: bool = redis.hset_nx(&record, "account", account_id).await.map_err(failed)?;
        if !created {
            return Ok(false);
        }
        let now = chrono::Utc::now();
        redis::pipe()
            .hset_multiple(
                &record,
                &[("prefix", display_prefix(key)), ("disabled", "0".into()), ("created_at", now.to_rfc3339())],
            )
            .zadd(self.keys_index(), &hash, now.timestamp_millis())
            .sadd(self.accounts(), account_id)
            .set_nx(self.account(account_id, "balance"), 0)
            .exec_async(&mut redis)
            .await
            .map_err(failed)?;
        Ok(true)
    }

    async fn disable_key(&self, key_id: &str) -> Result<bool, ServiceError> {
        if key_id.len() < 8 {
            return Ok(false);
        }
        let mut redis = self.redis.clone();
        let hashes: Vec<String> = redis.zrange(self.keys_index(), 0, -1).await.map_err(failed)?;
        let Some(hash) = hashes.into_iter().find(|h| h.starts_with(key_id)) else { return Ok(false) };
        let _: () = redis.hset(self.key(&hash), "disabled", "1").await.map_err(failed)?;
        self.caches.keys.forget(&hash);
        super::ledger_events::publish(&mut redis, &self.prefix, Event::KeyDisabled(&hash)).await.map_err(failed)?;
        Ok(true)
    }

    async fn list_keys(&self) -> Result<Vec<KeyInfo>, ServiceError> {
        let mut redis = self.redis.clone();
        let hashes: Vec<String> = redis.zrange(self.keys_index(), 0, -1).await.map_err(failed)?;
        let mut pipe = redis::pipe();
        for hash in &hashes {
            pipe.hgetall(self.key(hash));
        }
        let records: Vec<HashMap<String, String>> = pipe.query_async(&mut redis).await.map_err(failed)?;
        Ok(hashes
            .iter()
            .zip(records)
            .map(|(hash, r)| KeyInfo {
                key_id: hash[..12].to_owned(),
                prefix: r.get("prefix").cloned().unwrap_or_default(),
                account_id: r.get("account").cloned().unwrap_or_default(),
                disabled: r.get("disabled").map(String::as_str) == Some("1"),
                created_at: r.get("created_at").cloned().unwrap_or_default(),
            })
            .collect())
    }

    async fn grant(&self, account_id: &str, points: i64) -> Result<i64, ServiceError> {
        let mut redis = self.redis.clone();
        let (balance,): (i64,) = redis::pipe()
            .incr(self.account(account_id, "balance"), points)
            .sadd(self.accounts(), account_id)
            .ignore()
            .query_async(&mut redis)
            .await
            .map_err(failed)?;
        Ok(balance)
    }

    async fn balance(&self, account_id: &str) -> Result<Option<i64>, ServiceError> {
        let mut redis = self.redis.clone();
        let (known, balance): (bool, Option<i64>) = redis::pipe()
            .sismember(self.accounts(), account_id)
            .get(self.account(account_id, "balance"))
            .query_async(&mut redis)
            .await
            .map_err(failed)?;
        Ok(known.then(|| balance.unwrap_or(0)))
    }

    /// One round trip, shared with the reserves made while the one before
    /// it was under way (`billing/redis/reserve_queue.rs`): the sweeper's
    /// index and the reserve script. A reserve without an answer may still
    /// run when Redis resumes: it is released again later (`Unsettled`).
    async fn reserve(&self, account_id: &str, id: &str, points: i64, ttl: Duration) -> Result<Reserved, ServiceError> {
        let expires_ms = now_ms() + ttl.as_millis() as i64;
        let reply = self.reserves.reserve(account_id, id, points, expires_ms).await;
        match reply {
            Ok((1, balance)) => Ok(Reserved::Held { balance }),
            Ok((0, balance)) => Ok(Reserved::Insufficient { balance }),
            // Only a reserve whose caller gave up on it is cancelled first.
            Ok((_, _)) => Err(unavailable("this reservation was cancelled before Redis ran it")),
            Err(e) => {
                self.unsettled.push(account_id, id, expires_ms);
                Err(e)
            }
        }
    }

    async fn commit(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        self.settle(account_id, id, false).await
    }

    async fn release(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        self.settle(account_id, id, true).await
    }

    async fn release_expired(&self) -> Result<usize, ServiceError> {
        let mut redis = self.redis.clone();
        let accounts: Vec<String> = redis.smembers(self.res_accounts()).await.map_err(failed)?;
        let now = now_ms();
        let mut released = 0;
        for account_id in accounts {
            let mut invocation = self.sweep.prepare_invoke();
            for key in self.reservation_keys(&account_id) {
                invocation.key(key);
            }
            let count: i64 = invocation.arg(now).invoke_async(&mut redis).await.map_err(failed)?;
            released += count as usize;
            let open: i64 = redis.zcard(self.account(&account_id, "resexp")).await.map_err(failed)?;
            if open == 0 {
                let _: () = redis.srem(self.res_accounts(), &account_id).await.map_err(failed)?;
            }
        }
        Ok(released)
    }

    async fn idempotency_begin(
        &self,
        account_id: &str,
        key: &str,
        fingerprint: &str,
        pending_ttl: Duration,
    ) -> Result<IdempotencyBegin, ServiceError> {
        let reply: Vec<Value> = self
            .idempotency_begin
            .key(self.idempotency(account_id, key))
            .arg(fingerprint)
            .arg(pending_ttl.as_millis() as i64)
            .invoke_async(&mut self.redis.clone())
            .await
            .map_err(failed)?;
        let text = |v: &Value| match v {
            Value::BulkString(bytes) => bytes.clone(),
            Value::SimpleString(s) => s.clone().into_bytes(),
            _ => Vec::new(),
        };
        match reply.first().map(text).as_deref() {
            Some(b"new") => Ok(IdempotencyBegin::New),
            Some(b"pending") => Ok(IdempotencyBegin::InProgress),
            Some(b"done") if reply.len() == 3 => Ok(IdempotencyBegin::Replay {
                same_request: text(&reply[1]) == fingerprint.as_bytes(),
                response: text(&reply[2]),
            }),
            _ => Err(unavailable("unexpected idempotency reply from Redis")),
        }
    }

    async fn idempotency_finish(
        &self,
        account_id: &str,
        key: &str,
        response: Option<&[u8]>,
    ) -> Result<(), ServiceError> {
        let mut redis = self.redis.clone();
        let record = self.idempotency(account_id, key);
        match response {
            Some(bytes) => redis::pipe()
                .hset(&record, "response", bytes)
                .pexpire(&record, super::IDEMPOTENCY_TTL.as_millis() as i64)
                .exec_async(&mut redis)
                .await
                .map_err(failed),
            None => redis.del(&record).await.map_err(failed),
        }
    }

    /// Queued with the commits (`billing/redis/usage_queue.rs`): one round trip shared
    /// with the calls settled meanwhile.
    async fn record_usage(&self, record: &UsageRecord) -> Result<(), ServiceError> {
        self.usage.settle(&record.account_id, None, record).await.map(drop)
    }

    /// `lua/commit.lua` commits and writes the account's usage line and
    /// count in one step (the line says 0 points when the reservation was
    /// gone); the service-wide count goes in the same pipeline (another
    /// Cluster slot). The calls delivered while a round trip is under way
    /// share the next one (`billing/redis/usage_queue.rs`).
    async fn commit_and_record(&self, account_id: &str, id: &str, record: &UsageRecord) -> Result<bool, ServiceError> {
        self.usage.settle(account_id, Some(id), record).await.inspect_err(|_| {
            // The work was delivered but the commit may not have run:
            // released again later, so the call ends up free (unless
            // Redis ran the commit first), never held for its TTL.
            self.unsettled.push(account_id, id, now_ms() + super::RESERVATION_TTL.as_millis() as i64);
        })
    }

    /// Handed to the group commit of [`RedisLedger::commit_and_record`]
    /// (`billing/redis/usage_queue.rs`), which calls `then`; a failed round
    /// trip puts the reservation up for release as there.
    fn commit_and_record_then(self: Arc<Self>, call: DeliveredCall, then: CommitThen) {
        let unsettled = self.unsettled.clone();
        let DeliveredCall { account_id, reservation_id, record } = call;
        // Kept for a failed round trip; the queued settlement owns the originals.
        let reservation = reservation_id.clone().map(|id| (account_id.clone(), id));
        self.usage.settle_then(account_id, reservation_id, &record, move |answer| {
            if answer.is_err()
                && let Some((account_id, id)) = reservation
            {
                unsettled.push(&account_id, &id, now_ms() + super::RESERVATION_TTL.as_millis() as i64);
            }
            then(answer);
        });
    }

    async fn usage_counts(&self) -> Result<HashMap<String, i64>, ServiceError> {
        self.redis.clone().hgetall(self.usage_counts_key()).await.map_err(failed)
    }

    async fn account_usage_counts(&self, account_id: &str) -> Result<HashMap<String, i64>, ServiceError> {
        self.redis.clone().hgetall(self.account(account_id, "usage-counts")).await.map_err(failed)
    }

    async fn usage_log(&self, account_id: &str, limit: usize) -> Result<Vec<UsageRecord>, ServiceError> {
        let limit = limit.clamp(1, USAGE_LOG_LIMIT);
        let lines: Vec<String> = self
            .redis
            .clone()
            .lrange(self.account(account_id, "usage"), 0, limit as isize - 1)
            .await
            .map_err(failed)?;
        Ok(lines.iter().filter_map(|line| serde_json::from_str(line).ok()).collect())
    }

    async fn rate_limit(&self, account_id: &str) -> Result<Option<Limit>, ServiceError> {
        if let Some(limit) = self.caches.limits.get(account_id) {
            return Ok(limit);
        }
        let generation = self.caches.limits.generation();
        let (count, period_secs, burst): (Option<u32>, Option<u32>, Option<u32>) = self
            .redis
            .clone()
            .hmget(self.account(account_id, LIMIT), &["count", "period", "burst"])
            .await
            .map_err(failed)?;
        let limit = match (count, period_secs, burst) {
            (Some(0), _, _) => Some(Limit::Off),
            (Some(count), Some(period_secs), Some(burst)) => Some(Limit::Quota(Quota { count, period_secs, burst })),
            _ => None,
        };
        self.caches.limits.put(account_id, &limit, generation);
        Ok(limit)
    }

    async fn set_rate_limit(&self, account_id: &str, limit: Option<Limit>) -> Result<(), ServiceError> {
        let mut redis = self.redis.clone();
        let hash = self.account(account_id, LIMIT);
        let mut pipe = redis::pipe();
        pipe.atomic().sadd(self.accounts(), account_id).ignore();
        pipe.set_nx(self.account(account_id, "balance"), 0).ignore();
        match limit {
            None => pipe.del(&hash).ignore(),
            Some(Limit::Off) => pipe.del(&hash).ignore().hset(&hash, "count", 0).ignore(),
            Some(Limit::Quota(q)) => {
                pipe.hset_multiple(&hash, &[("count", q.count), ("period", q.period_secs), ("burst", q.burst)]).ignore()
            }
        };
        pipe.exec_async(&mut redis).await.map_err(failed)?;
        self.caches.limits.forget(account_id);
        super::ledger_events::publish(&mut redis, &self.prefix, Event::LimitChanged(account_id)).await.map_err(failed)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The real Redis of the tests (`MEDIAOPS_TEST_REDIS_URL`, else the
    /// local one).
    pub(crate) fn redis_url() -> String {
        std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
    }

    pub(super) fn usage(account_id: &str, request_id: &str, points: i64, outcome: &str) -> UsageRecord {
        UsageRecord {
            request_id: request_id.to_owned(),
            account_id: account_id.to_owned(),
            operation_key: "videosite.query-work".to_owned(),
            points,
            outcome: outcome.to_owned(),
            at: "2026-11-28T00:00:00.000Z".to_owned(),
        }
    }

    /// Reserves made at once share round trips, and each is still one
    /// atomic step: of 150 one-point reserves on a balance of 100 (and 20
    /// on another account), exactly 100 hold, each leaves a balance of its
    /// own, and the sweeper's index names both accounts.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reserves_made_together_each_hold_once() {
        let prefix = format!("mediaops-test-reserve-queue-{}", uuid::Uuid::new_v4());
        let ledger = Arc::new(RedisLedger::connect(&redis_url(), &prefix).await.unwrap());
        ledger.grant("team-a", 100).await.unwrap();
        ledger.grant("team-b", 100).await.unwrap();
        let reserving = (0..170).map(|n| {
            let ledger = ledger.clone();
            let account = if n < 150 { "team-a" } else { "team-b" };
            tokio::spawn(async move { ledger.reserve(account, &format!("r{n}"), 1, Duration::from_secs(60)).await })
        });
        let answers: Vec<Reserved> =
            futures::future::try_join_all(reserving).await.unwrap().into_iter().collect::<Result<_, _>>().unwrap();
        let mut left: Vec<i64> = answers[..150]
            .iter()
            .filter_map(|answer| match answer {
                Reserved::Held { balance } => Some(*balance),
                Reserved::Insufficient { balance } => {
                    assert_eq!(*balance, 0, "refused only once the balance is gone");
                    None
                }
            })
            .collect();
        left.sort_unstable();
        assert_eq!(left, (0..100).collect::<Vec<i64>>(), "each hold leaves a balance of its own");
        assert!(answers[150..].iter().all(|answer| matches!(answer, Reserved::Held { .. })));
        assert_eq!(ledger.balance("team-a").await.unwrap(), Some(0));
        assert_eq!(ledger.balance("team-b").await.unwrap(), Some(80));
        let mut redis = ledger.redis.clone();
        let mut indexed: Vec<String> = redis.smembers(ledger.res_accounts()).await.unwrap();
        indexed.sort();
        assert_eq!(indexed, ["team-a", "team-b"]);
        let keys: Vec<String> = redis.keys(format!("{prefix}:*")).await.unwrap();
        let _: () = redis.del(keys).await.unwrap();
    }

    /// After Redis lost its scripts (a restart, here `SCRIPT FLUSH`) the
    /// group writers load them again: a reserve still holds, its commit
    /// still commits and is logged.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reserves_and_commits_survive_a_redis_that_lost_its_scripts() {
        let prefix = format!("mediaops-test-noscript-{}", uuid::Uuid::new_v4());
        let ledger = RedisLedger::connect(&redis_url(), &prefix).await.unwrap();
        ledger.grant("team-a", 10).await.unwrap();
        let mut redis = ledger.redis.clone();
        let _: () = redis::cmd("SCRIPT").arg("FLUSH").query_async(&mut redis).await.unwrap();
        assert_eq!(
            ledger.reserve("team-a", "r1", 4, Duration::from_secs(60)).await.unwrap(),
            Reserved::Held { balance: 6 }
        );
        let _: () = redis::cmd("SCRIPT").arg("FLUSH").query_async(&mut redis).await.unwrap();
        assert!(ledger.commit_and_record("team-a", "r1", &usage("team-a", "r1", 4, "ok")).await.unwrap());
        assert_eq!(ledger.balance("team-a").await.unwrap(), Some(6));
        assert_eq!(ledger.usage_log("team-a", 10).await.unwrap().len(), 1);
        let indexed: Vec<String> = redis.smembers(ledger.res_accounts()).await.unwrap();
        assert_eq!(indexed, ["team-a"], "the sweeper's index went through");
        let keys: Vec<String> = redis.keys(format!("{prefix}:*")).await.unwrap();
        let _: () = redis.del(keys).await.unwrap();
    }

    /// A reserve that arrives after its reservation was released again
    /// (`lua/cancel.lua`: its caller gave up on it) holds nothing, and does
    /// not stop the reserves beside it in its account's run.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reserve_cancelled_before_it_arrives_holds_nothing() {
        let prefix = format!("mediaops-test-reserve-cancelled-{}", uuid::Uuid::new_v4());
        let ledger = Arc::new(RedisLedger::connect(&redis_url(), &prefix).await.unwrap());
        ledger.grant("team-a", 10).await.unwrap();
        let script = Script::new(include_str!("lua/cancel.lua"));
        let mut cancel = script.prepare_invoke();
        for key in reservation_keys(&prefix, "team-a") {
            cancel.key(key);
        }
        cancel.key(account_key(&prefix, "team-a", "res-cancelled"));
        let until_ms = now_ms() + 60_000;
        let _: i64 = cancel.arg("late").arg(until_ms).invoke_async(&mut ledger.redis.clone()).await.unwrap();
        let (late, other) = tokio::join!(
            ledger.reserve("team-a", "late", 4, Duration::from_secs(60)),
            ledger.reserve("team-a", "other", 4, Duration::from_secs(60)),
        );
        assert_eq!(late.unwrap_err().code, mediaops_proto::error_code::ErrorCode::BillingUnavailable);
        assert_eq!(other.unwrap(), Reserved::Held { balance: 6 });
        assert_eq!(ledger.balance("team-a").await.unwrap(), Some(6));
        let mut redis = ledger.redis.clone();
        let keys: Vec<String> = redis.keys(format!("{prefix}:*")).await.unwrap();
        let _: () = redis.del(keys).await.unwrap();
    }

    /// Many calls of two accounts settled at once share round trips: each
    /// reservation is committed exactly once, a released one is not
    /// charged, and every call has its usage line and count.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_settled_together_are_each_committed_once_and_logged() {
        let prefix = format!("mediaops-test-usage-queue-{}", uuid::Uuid::new_v4());
        let ledger = Arc::new(RedisLedger::connect(&redis_url(), &prefix).await.unwrap());
        let accounts = ["team-a", "team-b"];
        for account in accounts {
            ledger.grant(account, 1_000).await.unwrap();
        }
        let calls = 200;
        let mut reserved = Vec::new();
        for n in 0..calls {
            let account = accounts[n % 2];
            let id = format!("r{n}");
            assert_eq!(
                ledger.reserve(account, &id, 3, Duration::from_secs(60)).await.unwrap(),
                Reserved::Held { balance: 1_000 - 3 * (n as i64 / 2 + 1) }
            );
            reserved.push((account, id));
        }
        // Two calls in ten (20 of each account) failed after all: released
        // before their commit.
        for (account, id) in reserved.iter().enumerate().filter(|(n, _)| n % 10 < 2).map(|(_, call)| call) {
            assert!(ledger.release(account, id).await.unwrap());
        }
        let settling = reserved.iter().enumerate().map(|(n, (account, id))| {
            let ledger = ledger.clone();
            let (account, id) = (account.to_string(), id.clone());
            tokio::spawn(async move {
                let (free, charged) = (usage(&account, &format!("free{n}"), 0, "ok"), usage(&account, &id, 3, "ok"));
                let (free, committed) =
                    tokio::join!(ledger.record_usage(&free), ledger.commit_and_record(&account, &id, &charged));
                free.unwrap();
                committed.unwrap()
            })
        });
        let committed: Vec<bool> = futures::future::try_join_all(settling).await.unwrap();
        for (n, committed) in committed.iter().enumerate() {
            assert_eq!(*committed, n % 10 >= 2, "call {n}");
        }
        // A second commit of a committed reservation changes nothing.
        let (account, id) = &reserved[2];
        assert!(!ledger.commit_and_record(account, id, &usage(account, id, 3, "ok")).await.unwrap());

        for account in accounts {
            // 100 calls each, 20 released: 80 charged 3 points.
            assert_eq!(ledger.balance(account).await.unwrap(), Some(1_000 - 80 * 3));
            let log = ledger.usage_log(account, 1_000).await.unwrap();
            assert_eq!(log.len(), 100 + 100 + usize::from(account == reserved[2].0));
            let charged: i64 = log.iter().map(|record| record.points).sum();
            assert_eq!(charged, 80 * 3, "{account}: the log says what was charged");
            let counts = ledger.account_usage_counts(account).await.unwrap();
            assert_eq!(counts["videosite.query-work"], log.len() as i64);
        }
        assert_eq!(ledger.usage_counts().await.unwrap()["videosite.query-work"], 2 * calls as i64 + 1);

        let mut redis = ledger.redis.clone();
        let keys: Vec<String> = redis.keys(format!("{prefix}:*")).await.unwrap();
        let _: () = redis.del(keys).await.unwrap();
    }
}
