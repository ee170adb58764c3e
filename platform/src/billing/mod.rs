//! Billing and keys (spec 5, 7, 8): the [`Ledger`] holding hashed API keys,
//! point balances, reservations, idempotency records and usage, with two
//! implementations that pass one conformance suite
//! (`platform/tests/ledger.rs`):
//!
//! - [`redis::RedisLedger`]: production; every debit decision is one Lua
//!   script; keys are hash-tagged per account (`{account}`) so a Redis Cluster
//!   keeps each script in one slot.
//! - [`embedded::EmbeddedLedger`]: the one-process default; the same
//!   semantics in memory, persisted to `<data_dir>/ledger.json` before any
//!   change is acknowledged.
//!
//! Points are whole numbers. A call reserves its price before it runs, then
//! commits (success) or releases (any failure). A reservation that is never
//! settled, because the core died mid-call, is released once its time to
//! live has passed ([`RESERVATION_TTL`] by default) by a sweeper every core
//! runs, and by the next reservation of the same account.

pub mod embedded;
pub mod ledger_events;
pub mod redis;
pub mod sharded;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::auth::Principal;
use crate::quota::Limit;
use mediaops_proto::error::ServiceError;

/// Default bound after which an unsettled reservation is released.
pub const RESERVATION_TTL: Duration = Duration::from_secs(120);

/// How long an `Idempotency-Key` is remembered (docs/billing.md "Idempotency-Key").
pub const IDEMPOTENCY_TTL: Duration = Duration::from_secs(24 * 3600);

/// Usage log entries kept per account (older ones are dropped).
pub const USAGE_LOG_LIMIT: usize = 10_000;

/// What a reservation attempt decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reserved {
    /// The points are held; `balance` is what is left.
    Held {
        /// Points left after the hold.
        balance: i64,
    },
    /// The balance is below the price; nothing was held.
    Insufficient {
        /// The account's points, below the price.
        balance: i64,
    },
}

/// What an `Idempotency-Key` lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// First use: the caller runs the request and then finishes the record.
    New,
    /// A request with this key is still running.
    InProgress,
    /// Done before: the stored answer and whether the request was the same.
    Replay {
        /// Whether the stored request's hash equals this one's (else 409).
        same_request: bool,
        /// The encoded answer first given.
        response: Vec<u8>,
    },
}

/// One line of an account's usage log. The Redis ledger's `lua/commit.lua`
/// rewrites a line's `,"points":N,"outcome":` to 0 points when the
/// reservation was gone: keep `points` serialized right before `outcome`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageRecord {
    /// The call's `x-request-id`.
    pub request_id: String,
    /// The account charged.
    pub account_id: String,
    /// The operation called (`lifestyle.search-note`).
    pub operation_key: String,
    /// Points charged (0 when released or free).
    pub points: i64,
    /// `ok`, or the `error.code` the call ended with.
    pub outcome: String,
    /// RFC 3339 UTC.
    pub at: String,
}

/// An API key as an admin sees it: never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyInfo {
    /// First 12 hex characters of the key's SHA-256: how admins name a key.
    pub key_id: String,
    /// The key's first characters, e.g. `mk_AbCd…`.
    pub prefix: String,
    /// The account the key spends from.
    pub account_id: String,
    /// Whether the key was revoked (calls with it answer 401).
    pub disabled: bool,
    /// RFC 3339 UTC.
    pub created_at: String,
}

/// The ledger's work of a delivered call ([`Ledger::commit_and_record_then`]).
#[derive(Debug, Clone)]
pub struct DeliveredCall {
    /// The account the reservation holds points of.
    pub account_id: String,
    /// The reservation to commit; `None` for a call that held nothing.
    pub reservation_id: Option<String>,
    /// The call's usage record (its points: what the reservation holds).
    pub record: UsageRecord,
}

/// What runs with the answer of [`Ledger::commit_and_record_then`]: whether
/// the reservation was committed, or the error of
/// [`Ledger::commit_and_record`].
pub type CommitThen = Box<dyn FnOnce(Result<bool, ServiceError>) + Send>;

/// Where keys, points, reservations, idempotency records and usage live.
/// Every method fails with 503 `billing_unavailable` when the backing store
/// cannot be reached, so nothing runs for free.
#[async_trait::async_trait]
pub trait Ledger: Send + Sync + 'static {
    /// Readiness (docs/errors.md "Liveness and readiness"): `Ok` when the
    /// backing store answers now (Redis: one `PING`, bounded by the
    /// ledger's 2 s response timeout); the embedded ledger is always ready.
    async fn ping(&self) -> Result<(), ServiceError>;
    /// The account of an enabled key; 401 for an unknown or disabled one.
    async fn authenticate(&self, key: &str) -> Result<Principal, ServiceError>;
    /// Stores `key` for `account_id` (creating the account with 0 points);
    /// false when the key exists already.
    async fn insert_key(&self, key: &str, account_id: &str) -> Result<bool, ServiceError>;
    /// Disables the key whose id ([`KeyInfo::key_id`]) is `key_id`; false if none.
    async fn disable_key(&self, key_id: &str) -> Result<bool, ServiceError>;
    /// Every key, oldest first.
    async fn list_keys(&self) -> Result<Vec<KeyInfo>, ServiceError>;
    /// Adds `points` (> 0) to an account, creating it; returns the new balance.
    async fn grant(&self, account_id: &str, points: i64) -> Result<i64, ServiceError>;
    /// The account's balance, `None` for an unknown account.
    async fn balance(&self, account_id: &str) -> Result<Option<i64>, ServiceError>;
    /// Holds `points` for reservation `id` if the balance covers them, in one
    /// atomic step; expired reservations of the account are released first.
    async fn reserve(&self, account_id: &str, id: &str, points: i64, ttl: Duration) -> Result<Reserved, ServiceError>;
    /// Keeps the held points (the call succeeded). False if the reservation
    /// was already settled or had expired.
    async fn commit(&self, account_id: &str, id: &str) -> Result<bool, ServiceError>;
    /// [`Ledger::commit`] and [`Ledger::record_usage`] of a delivered call:
    /// the Redis ledger makes both one script in one round trip. The usage
    /// line says what the commit charged: `record`'s points, or 0 when the
    /// reservation was already released or expired. Whether the
    /// reservation was committed.
    ///
    /// # Errors
    /// Either step failed (the commit's outcome is then unknown: the
    /// reservation is released, unless it was committed).
    async fn commit_and_record(&self, account_id: &str, id: &str, record: &UsageRecord) -> Result<bool, ServiceError> {
        let committed = self.commit(account_id, id).await?;
        let points = if committed { record.points } else { 0 };
        self.record_usage(&UsageRecord { points, ..record.clone() }).await?;
        Ok(committed)
    }
    /// [`Ledger::commit_and_record`] of a delivered call's reservation, or
    /// [`Ledger::record_usage`] (answering `false`) for a call that held
    /// nothing ([`DeliveredCall`]), for a caller that does not wait: `then`
    /// gets the answer, on whatever task the ledger has it. The Redis ledger
    /// hands `then` to its group commit, which calls it with the group's
    /// answer (docs/performance.md "The settlement as the group commit's
    /// continuation"); this default awaits the same on a task of its own, in
    /// the caller's span. `then` must be short and must not block.
    fn commit_and_record_then(self: Arc<Self>, call: DeliveredCall, then: CommitThen) {
        let settle = async move {
            then(match &call.reservation_id {
                Some(id) => self.commit_and_record(&call.account_id, id, &call.record).await,
                None => self.record_usage(&call.record).await.map(|()| false),
            })
        };
        tokio::spawn(tracing::Instrument::in_current_span(settle));
    }
    /// Returns the held points (the call failed). False if already settled.
    async fn release(&self, account_id: &str, id: &str) -> Result<bool, ServiceError>;
    /// Releases every reservation past its time to live; returns how many.
    async fn release_expired(&self) -> Result<usize, ServiceError>;
    /// Starts or looks up the request of `(account, idempotency key)`.
    /// `fingerprint` identifies the request (operation and body); a pending
    /// record lives `pending_ttl`, so a crashed call does not block forever.
    async fn idempotency_begin(
        &self,
        account_id: &str,
        key: &str,
        fingerprint: &str,
        pending_ttl: Duration,
    ) -> Result<IdempotencyBegin, ServiceError>;
    /// Stores the answer for [`IDEMPOTENCY_TTL`] (`Some`), or forgets the key
    /// so a retry runs again (`None`, after a failure).
    async fn idempotency_finish(
        &self,
        account_id: &str,
        key: &str,
        response: Option<&[u8]>,
    ) -> Result<(), ServiceError>;
    /// Counts the call for its operation and appends it to the account's log.
    async fn record_usage(&self, record: &UsageRecord) -> Result<(), ServiceError>;
    /// Successful calls per operation key, all accounts (the skill
    /// catalog's `usageCount`).
    async fn usage_counts(&self) -> Result<HashMap<String, i64>, ServiceError>;
    /// Successful calls of `account_id` per operation key (`usage --account`,
    /// admin `ListUsage`; docs/billing.md). Counted from the first call
    /// recorded by a version that keeps them.
    async fn account_usage_counts(&self, account_id: &str) -> Result<HashMap<String, i64>, ServiceError>;
    /// The account's most recent usage, newest first, at most `limit`.
    async fn usage_log(&self, account_id: &str, limit: usize) -> Result<Vec<UsageRecord>, ServiceError>;
    /// The account's own rate limit (docs/rate-limits.md);
    /// `None` = the configured default applies.
    async fn rate_limit(&self, account_id: &str) -> Result<Option<Limit>, ServiceError>;
    /// Sets the account's own rate limit (`Some`) or drops it (`None`: back
    /// to the default), creating the account with 0 points when new.
    async fn set_rate_limit(&self, account_id: &str, limit: Option<Limit>) -> Result<(), ServiceError>;
}

/// The 503 every ledger failure becomes.
pub fn unavailable(what: impl std::fmt::Display) -> ServiceError {
    ServiceError::new(
        mediaops_proto::error_code::ErrorCode::BillingUnavailable,
        format!("billing is unavailable, nothing was run or charged: {what}"),
    )
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
