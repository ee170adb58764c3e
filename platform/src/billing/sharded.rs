//! A ledger per shard of the process (`mediaops_proto::runtime`, `MEDIAOPS_RUNTIME=shards`): each call uses
//! the ledger of the shard it runs on, so that its Redis connection, its group commits and the tasks behind them
//! run on the call's own thread (docs/performance.md "Shards: a current-thread runtime per worker").
//!
//! The shards' ledgers share one Redis and one key prefix: they are to each other what the ledgers of replicas
//! are (docs/state.md), so a reservation made through one may be committed or released through another, and a
//! key disabled through one is refused by all (docs/billing.md "Key cache"). Nothing about the money changes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::{CommitThen, DeliveredCall, IdempotencyBegin, KeyInfo, Ledger, Reserved, UsageRecord};
use crate::auth::Principal;
use crate::quota::Limit;
use mediaops_proto::error::ServiceError;

/// One ledger per shard; a call uses `shards[pick()]` (the first when
/// `pick` names none).
pub struct ShardedLedger {
    shards: Vec<Arc<dyn Ledger>>,
    pick: fn() -> usize,
}

impl ShardedLedger {
    /// The ledgers of the shards, shard 0's first, picked by
    /// [`mediaops_proto::runtime::current_shard`].
    ///
    /// # Panics
    /// `shards` is empty.
    pub fn new(shards: Vec<Arc<dyn Ledger>>) -> ShardedLedger {
        ShardedLedger::picked_by(shards, mediaops_proto::runtime::current_shard)
    }

    /// The same, picked by `pick` (a test's).
    fn picked_by(shards: Vec<Arc<dyn Ledger>>, pick: fn() -> usize) -> ShardedLedger {
        assert!(!shards.is_empty(), "a sharded ledger needs a ledger");
        ShardedLedger { shards, pick }
    }

    /// The calling shard's ledger.
    fn here(&self) -> &Arc<dyn Ledger> {
        self.shards.get((self.pick)()).unwrap_or(&self.shards[0])
    }
}

#[async_trait::async_trait]
impl Ledger for ShardedLedger {
    async fn ping(&self) -> Result<(), ServiceError> {
        self.here().ping().await
    }

    async fn authenticate(&self, key: &str) -> Result<Principal, ServiceError> {
        self.here().authenticate(key).await
    }

    async fn insert_key(&self, key: &str, account_id: &str) -> Result<bool, ServiceError> {
        self.here().insert_key(key, account_id).await
    }

    async fn disable_key(&self, key_id: &str) -> Result<bool, ServiceError> {
        self.here().disable_key(key_id).await
    }

    async fn list_keys(&self) -> Result<Vec<KeyInfo>, ServiceError> {
        self.here().list_keys().await
    }

    async fn grant(&self, account_id: &str, points: i64) -> Result<i64, ServiceError> {
        self.here().grant(account_id, points).await
    }

    async fn balance(&self, account_id: &str) -> Result<Option<i64>, ServiceError> {
        self.here().balance(account_id).await
    }

    async fn reserve(&self, account_id: &str, id: &str, points: i64, ttl: Duration) -> Result<Reserved, ServiceError> {
        self.here().reserve(account_id, id, points, ttl).await
    }

    async fn commit(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        self.here().commit(account_id, id).await
    }

    async fn commit_and_record(&self, account_id: &str, id: &str, record: &UsageRecord) -> Result<bool, ServiceError> {
        self.here().commit_and_record(account_id, id, record).await
    }

    fn commit_and_record_then(self: Arc<Self>, call: DeliveredCall, then: CommitThen) {
        self.here().clone().commit_and_record_then(call, then);
    }

    async fn release(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        self.here().release(account_id, id).await
    }

    async fn release_expired(&self) -> Result<usize, ServiceError> {
        self.here().release_expired().await
    }

    async fn idempotency_begin(
        &self,
        account_id: &str,
        key: &str,
        fingerprint: &str,
        pending_ttl: Duration,
    ) -> Result<IdempotencyBegin, ServiceError> {
        self.here().idempotency_begin(account_id, key, fingerprint, pending_ttl).await
    }

    async fn idempotency_finish(
        &self,
        account_id: &str,
        key: &str,
        response: Option<&[u8]>,
    ) -> Result<(), ServiceError> {
        self.here().idempotency_finish(account_id, key, response).await
    }

    async fn record_usage(&self, record: &UsageRecord) -> Result<(), ServiceError> {
        self.here().record_usage(record).await
    }

    async fn usage_counts(&self) -> Result<HashMap<String, i64>, ServiceError> {
        self.here().usage_counts().await
    }

    async fn account_usage_counts(&self, account_id: &str) -> Result<HashMap<String, i64>, ServiceError> {
        self.here().account_usage_counts(account_id).await
    }

    async fn usage_log(&self, account_id: &str, limit: usize) -> Result<Vec<UsageRecord>, ServiceError> {
        self.here().usage_log(account_id, limit).await
    }

    async fn rate_limit(&self, account_id: &str) -> Result<Option<Limit>, ServiceError> {
        self.here().rate_limit(account_id).await
    }

    async fn set_rate_limit(&self, account_id: &str, limit: Option<Limit>) -> Result<(), ServiceError> {
        self.here().set_rate_limit(account_id, limit).await
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::billing::redis::RedisLedger;
    use crate::billing::redis::tests::redis_url;

    thread_local! {
        static PICKED: Cell<usize> = const { Cell::new(0) };
    }

    fn picked() -> usize {
        PICKED.with(Cell::get)
    }

    /// Each shard's calls go through its own ledger (its own connection and
    /// group commits), and the shards' ledgers agree on the money: a
    /// reservation made on one shard is committed on the other, and the
    /// balance reads the same from both.
    #[tokio::test]
    async fn each_shard_calls_its_own_ledger_and_they_share_the_money() {
        let prefix = format!("mediaops-test-sharded-{}", uuid::Uuid::new_v4());
        let mut shards: Vec<Arc<dyn Ledger>> = Vec::new();
        for _ in 0..2 {
            shards.push(Arc::new(RedisLedger::connect(&redis_url(), &prefix).await.unwrap()));
        }
        let ledger = ShardedLedger::picked_by(shards.clone(), picked);
        assert!(Arc::ptr_eq(ledger.here(), &shards[0]));
        PICKED.with(|p| p.set(1));
        assert!(Arc::ptr_eq(ledger.here(), &shards[1]));
        PICKED.with(|p| p.set(7));
        assert!(Arc::ptr_eq(ledger.here(), &shards[0]), "a thread of no shard uses the first");

        PICKED.with(|p| p.set(0));
        ledger.grant("team-sharded", 10).await.unwrap();
        ledger.reserve("team-sharded", "r1", 4, Duration::from_secs(60)).await.unwrap();
        PICKED.with(|p| p.set(1));
        assert!(ledger.commit("team-sharded", "r1").await.unwrap(), "committed through the other shard");
        assert!(!ledger.commit("team-sharded", "r1").await.unwrap(), "and only once");
        for shard in &shards {
            assert_eq!(shard.balance("team-sharded").await.unwrap(), Some(6));
        }
        let mut redis = redis::Client::open(redis_url()).unwrap().get_multiplexed_async_connection().await.unwrap();
        let keys: Vec<String> = redis::AsyncCommands::keys(&mut redis, format!("{prefix}:*")).await.unwrap();
        let _: () = redis::AsyncCommands::del(&mut redis, keys).await.unwrap();
    }
}
