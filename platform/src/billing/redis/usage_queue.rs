//! Group commit of the Redis ledger's settlements (docs/billing.md "When a
//! call is charged", docs/performance.md "Redis round trips"): the commit
//! and usage line of every delivered call ([`Ledger::commit_and_record`])
//! and the usage line of every other call ([`Ledger::record_usage`]) go
//! through one group-committed queue (`group_commit.rs`), and each group
//! is one pipeline: one run of `lua/commit.lua` per account, with every
//! queued call of that account, and the service-wide counts.
//!
//! Nothing about the money changes: each call is still committed (or found
//! released) by one atomic step of the script, its usage line says what
//! that step did, and the caller still learns whether its reservation was
//! committed, or an error when the round trip failed (then the reservation
//! is released again until Redis answers, as before).
//!
//! [`Ledger::commit_and_record`]: crate::billing::Ledger::commit_and_record
//! [`Ledger::record_usage`]: crate::billing::Ledger::record_usage

use std::collections::HashMap;

use super::group_commit::{GroupQueue, GroupWrite, ScriptTarget, by_account};
use super::{account_key, failed, reservation_keys};
use crate::billing::{USAGE_LOG_LIMIT, UsageRecord, unavailable};
use crate::redis_connection::Bounded;
use mediaops_proto::error::ServiceError;

/// One call to settle.
pub(super) struct Settlement {
    account_id: String,
    /// The reservation to commit; `None` for a call that held nothing.
    reservation_id: Option<String>,
    /// The usage line when committed (or the only one); `lua/commit.lua`
    /// logs it with 0 points when the reservation was gone.
    charged: String,
    operation_key: String,
    counted: bool,
}

/// The queue of settlements; its task ends when this is dropped (or is
/// aborted with the ledger).
pub(super) struct UsageQueue(GroupQueue<UsageWriter>);

impl UsageQueue {
    /// The queue and the task that writes it to `redis` (keys under
    /// `prefix`).
    pub(super) fn start(redis: Bounded, prefix: String) -> (UsageQueue, tokio::task::JoinHandle<()>) {
        let target = ScriptTarget::new(redis, prefix, include_str!("../lua/commit.lua"));
        let (queue, task) = GroupQueue::start(UsageWriter(target));
        (UsageQueue(queue), task)
    }

    /// Commits `reservation_id` of `account_id` (if given) and logs `record`
    /// (with 0 points when the reservation was already gone). Whether the
    /// reservation was committed.
    ///
    /// # Errors
    /// 503 `billing_unavailable` when the round trip failed (Redis may
    /// still have run it) or the ledger is closing.
    pub(super) async fn settle(
        &self,
        account_id: &str,
        reservation_id: Option<&str>,
        record: &UsageRecord,
    ) -> Result<bool, ServiceError> {
        let settlement = Settlement::new(account_id.to_owned(), reservation_id.map(str::to_owned), record)?;
        self.0.submit_or_fail(settlement).await
    }

    /// [`UsageQueue::settle`] without waiting: the queue's task calls
    /// `then` with its answer (see `GroupQueue::submit_then`).
    pub(super) fn settle_then(
        &self,
        account_id: String,
        reservation_id: Option<String>,
        record: &UsageRecord,
        then: impl FnOnce(Result<bool, ServiceError>) + Send + 'static,
    ) {
        match Settlement::new(account_id, reservation_id, record) {
            Ok(settlement) => self.0.submit_then(settlement, then),
            Err(e) => then(Err(e)),
        }
    }
}

impl Settlement {
    /// The settlement of `record`, committing `reservation_id` of
    /// `account_id` when given.
    ///
    /// # Errors
    /// 503 `billing_unavailable` when `record` cannot be written as JSON.
    fn new(
        account_id: String,
        reservation_id: Option<String>,
        record: &UsageRecord,
    ) -> Result<Settlement, ServiceError> {
        Ok(Settlement {
            account_id,
            reservation_id,
            charged: serde_json::to_string(record).map_err(unavailable)?,
            operation_key: record.operation_key.clone(),
            counted: record.outcome == "ok",
        })
    }
}

/// Writes a group of settlements to Redis.
struct UsageWriter(ScriptTarget);

impl GroupWrite for UsageWriter {
    type Item = Settlement;
    type Answer = Result<bool, ServiceError>;

    /// One pipeline for `batch`: the service-wide counts (another Cluster
    /// slot), then a run of `lua/commit.lua` per account. The answer of each
    /// call, in `batch`'s order.
    async fn write(&self, batch: &[Settlement]) -> Vec<Result<bool, ServiceError>> {
        let (prefix, script) = (self.0.prefix.as_str(), &self.0.script);
        let accounts = by_account(batch, |queued| &queued.account_id, |_| true);
        let mut counts: HashMap<&str, i64> = HashMap::new();
        for queued in batch.iter().filter(|queued| queued.counted) {
            *counts.entry(&queued.operation_key).or_default() += 1;
        }
        let limit = USAGE_LOG_LIMIT.to_string();
        let invocations: Vec<(Vec<String>, Vec<&str>)> = accounts
            .iter()
            .map(|(account_id, calls)| {
                let [balance, held, expiry] = reservation_keys(prefix, account_id);
                let keys = vec![
                    balance,
                    held,
                    expiry,
                    account_key(prefix, account_id, "usage"),
                    account_key(prefix, account_id, "usage-counts"),
                ];
                let mut args = vec![limit.as_str()];
                for &index in calls {
                    let queued = &batch[index];
                    args.extend([
                        queued.reservation_id.as_deref().unwrap_or(""),
                        &queued.charged,
                        &queued.operation_key,
                        if queued.counted { "1" } else { "0" },
                    ]);
                }
                (keys, args)
            })
            .collect();
        let scripts = |pipe: &mut redis::Pipeline| {
            for (keys, args) in &invocations {
                pipe.cmd("EVALSHA").arg(script.get_hash()).arg(keys.len()).arg(keys).arg(args);
            }
        };
        let counted = |pipe: &mut redis::Pipeline| {
            for (operation_key, n) in &counts {
                pipe.hincr([prefix, ":usage-counts"].concat(), operation_key, *n).ignore();
            }
        };
        let replies = self.0.query(counted, scripts).await;
        let replies = match replies {
            Ok(replies) => replies,
            Err(e) => {
                let error = failed(e);
                return batch.iter().map(|_| Err(error.clone())).collect();
            }
        };
        let mut committed = vec![None; batch.len()];
        for ((_, calls), done) in accounts.iter().zip(replies) {
            for (&index, done) in calls.iter().zip(done) {
                committed[index] = Some(done == 1);
            }
        }
        committed.into_iter().map(|done| done.ok_or_else(|| unavailable("no answer from Redis"))).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::billing::Ledger;
    use crate::billing::redis::RedisLedger;
    use crate::billing::redis::tests::{redis_url, usage};

    /// Two settlements of one reservation in one run of `lua/commit.lua`:
    /// the first commits it, the second is logged with 0 points, and both
    /// are counted.
    #[tokio::test]
    async fn a_reservation_settled_twice_in_one_run_is_committed_once() {
        let prefix = format!("mediaops-test-commit-twice-{}", uuid::Uuid::new_v4());
        let ledger = RedisLedger::connect(&redis_url(), &prefix).await.unwrap();
        ledger.grant("team-a", 10).await.unwrap();
        ledger.reserve("team-a", "r1", 3, Duration::from_secs(60)).await.unwrap();
        let redis = crate::redis_connection::connect_bounded(&redis_url()).await.unwrap();
        let writer = UsageWriter(ScriptTarget::new(redis, prefix.clone(), include_str!("../lua/commit.lua")));
        let record = usage("team-a", "r1", 3, "ok");
        let settlement = || Settlement {
            account_id: "team-a".to_owned(),
            reservation_id: Some("r1".to_owned()),
            charged: serde_json::to_string(&record).unwrap(),
            operation_key: record.operation_key.clone(),
            counted: true,
        };
        let answers: Vec<bool> =
            writer.write(&[settlement(), settlement()]).await.into_iter().map(Result::unwrap).collect();
        assert_eq!(answers, [true, false]);
        assert_eq!(ledger.balance("team-a").await.unwrap(), Some(7));
        let log = ledger.usage_log("team-a", 10).await.unwrap();
        assert_eq!(log.iter().map(|line| line.points).collect::<Vec<_>>(), [0, 3], "newest first");
        assert_eq!(ledger.account_usage_counts("team-a").await.unwrap()["videosite.query-work"], 2);
        let mut redis = ledger.redis.clone();
        let keys: Vec<String> = redis::AsyncCommands::keys(&mut redis, format!("{prefix}:*")).await.unwrap();
        let _: () = redis::AsyncCommands::del(&mut redis, keys).await.unwrap();
    }
}
