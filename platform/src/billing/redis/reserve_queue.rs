//! Group commit of the Redis ledger's reserves (docs/billing.md "Failing
//! closed", docs/performance.md "Reserves in groups"): the reserves made
//! while one round trip is under way share the next (`group_commit.rs`), one
//! pipeline of the sweeper's index (one `SADD` of the group's accounts) and
//! one run of `lua/reserve.lua` per account, with the account's reserves in
//! the order they came (the script's clock is the group's: when it is sent).
//!
//! Nothing about the money changes: each reserve is still one atomic step of
//! the script, in the order the calls came, and a reserve without an answer
//! is the caller's to release again (`Unsettled`), as before. The 2 s bound
//! of a reserve counts from when it was queued (not from when its group
//! was sent): a group is given what is left of its oldest reserve's 2 s,
//! and a reserve that waited out its 2 s behind a frozen Redis fails
//! without being sent.

use tokio::time::Instant;

use super::group_commit::{GroupQueue, GroupWrite, ScriptTarget, by_account};
use super::{account_key, failed, reservation_keys};
use crate::billing::{now_ms, unavailable};
use crate::redis_connection::{Bounded, RESPONSE_TIMEOUT};
use mediaops_proto::error::ServiceError;

/// One reserve: its part of `lua/reserve.lua`'s arguments.
pub(super) struct Reservation {
    account_id: String,
    id: String,
    /// Points to hold.
    points: i64,
    /// When the hold expires, ms since the epoch.
    expires_ms: i64,
    /// When it was queued: its 2 s count from here.
    queued_at: Instant,
}

/// The script's answer: `(1, balance after)` held, `(0, balance)`
/// insufficient, `(2, balance)` cancelled before it ran.
pub(super) type ReserveReply = (i64, i64);

/// The queue of reserves; its task ends when this is dropped (or is aborted
/// with the ledger).
pub(super) struct ReserveQueue(GroupQueue<ReserveWriter>);

impl ReserveQueue {
    /// The queue and the task that writes it to `redis` (keys under
    /// `prefix`).
    pub(super) fn start(redis: Bounded, prefix: String) -> (ReserveQueue, tokio::task::JoinHandle<()>) {
        let target = ScriptTarget::new(redis, prefix, include_str!("../lua/reserve.lua"));
        let (queue, task) = GroupQueue::start(ReserveWriter(target));
        (ReserveQueue(queue), task)
    }

    /// Holds `points` of `account_id` for reservation `id` until
    /// `expires_ms` (ms since the epoch), in the next group.
    ///
    /// # Errors
    /// 503 `billing_unavailable` when its round trip failed or gave no
    /// answer within 2 s of this call (Redis may still run it), or the
    /// ledger is closing.
    pub(super) async fn reserve(
        &self,
        account_id: &str,
        id: &str,
        points: i64,
        expires_ms: i64,
    ) -> Result<ReserveReply, ServiceError> {
        let reservation = Reservation {
            account_id: account_id.to_owned(),
            id: id.to_owned(),
            points,
            expires_ms,
            queued_at: Instant::now(),
        };
        self.0.submit_or_fail(reservation).await
    }
}

/// Writes a group of reserves to Redis.
struct ReserveWriter(ScriptTarget);

impl GroupWrite for ReserveWriter {
    type Item = Reservation;
    type Answer = Result<ReserveReply, ServiceError>;

    async fn write(&self, batch: &[Reservation]) -> Vec<Result<ReserveReply, ServiceError>> {
        let timed_out = || failed(Bounded::timed_out());
        let now = Instant::now();
        let fresh = |reservation: &Reservation| reservation.queued_at + RESPONSE_TIMEOUT > now;
        let accounts = by_account(batch, |reservation| &reservation.account_id, fresh);
        let Some(oldest) = batch.iter().filter(|r| fresh(r)).map(|r| r.queued_at).min() else {
            return batch.iter().map(|_| Err(timed_out())).collect();
        };
        let sent = tokio::time::timeout_at(oldest + RESPONSE_TIMEOUT, self.send(batch, &accounts)).await;
        let replies = match sent {
            Ok(Ok(replies)) => replies,
            Ok(Err(e)) => {
                let error = failed(e);
                return batch.iter().map(|r| Err(if fresh(r) { error.clone() } else { timed_out() })).collect();
            }
            Err(_) => return batch.iter().map(|_| Err(timed_out())).collect(),
        };
        let mut answers = vec![None; batch.len()];
        for ((_, reserves), numbers) in accounts.iter().zip(replies) {
            for (&index, pair) in reserves.iter().zip(numbers.chunks_exact(2)) {
                answers[index] = Some((pair[0], pair[1]));
            }
        }
        answers
            .into_iter()
            .zip(batch)
            .map(|(answer, reservation)| match answer {
                Some(answer) => Ok(answer),
                None if !fresh(reservation) => Err(timed_out()),
                None => Err(unavailable("Redis: a reserve got no answer")),
            })
            .collect()
    }
}

impl ReserveWriter {
    /// One pipeline for the reserves of `batch` grouped by `accounts`
    /// ([`by_account`]): the sweeper's index, then a run of
    /// `lua/reserve.lua` per account (again after a `SCRIPT LOAD` when Redis
    /// lost its scripts: the index went through, a pipeline is not a
    /// transaction). The script's numbers, per account.
    async fn send(&self, batch: &[Reservation], accounts: &[(&str, Vec<usize>)]) -> redis::RedisResult<Vec<Vec<i64>>> {
        let now_ms = now_ms();
        let keys: Vec<[String; 4]> = accounts
            .iter()
            .map(|(account_id, _)| {
                let [balance, held, expiry] = reservation_keys(&self.0.prefix, account_id);
                [balance, held, expiry, account_key(&self.0.prefix, account_id, "res-cancelled")]
            })
            .collect();
        let scripts = |pipe: &mut redis::Pipeline| {
            for (keys, (_, reserves)) in keys.iter().zip(accounts) {
                let script = pipe.cmd("EVALSHA").arg(self.0.script.get_hash()).arg(keys.len()).arg(keys).arg(now_ms);
                for &index in reserves {
                    let reservation = &batch[index];
                    script.arg(reservation.points).arg(&reservation.id).arg(reservation.expires_ms);
                }
            }
        };
        let names: Vec<&str> = accounts.iter().map(|(account_id, _)| *account_id).collect();
        let index = |pipe: &mut redis::Pipeline| {
            pipe.sadd([self.0.prefix.as_str(), ":res-accounts"].concat(), names).ignore();
        };
        self.0.query(index, scripts).await
    }
}
