//! Group commit of the Redis ledger's settlements (docs/billing.md "When a
//! call is charged", docs/performance.md "Redis round trips"): the commit
//! and usage line of every delivered call ([`Ledger::commit_and_record`])
//! and the usage line of every other call ([`Ledger::record_usage`]) go
//! through one queue, and one task writes what is queued: one run of
//! `lua/commit.lua` per account, with every queued call of that account,
//! and the service-wide counts, in one pipeline. While that round trip is
//! under way the next calls queue up, so under load many calls share a
//! round trip, and an idle ledger sends a lone call at once (no timer, no
//! added wait).
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

use redis::Script;
use tokio::sync::{mpsc, oneshot};

use super::{account_key, failed, reservation_keys};
use crate::billing::{USAGE_LOG_LIMIT, UsageRecord, unavailable};
use crate::redis_connection::Bounded;
use mediaops_proto::error::ServiceError;

/// Calls written by one round trip at most (a bound on one script's run
/// time in Redis: a few commands per call).
const MAX_BATCH: usize = 512;

/// One call to settle.
struct Queued {
    account_id: String,
    /// The reservation to commit; `None` for a call that held nothing.
    reservation_id: Option<String>,
    /// The usage line when committed (or the only one); `lua/commit.lua`
    /// logs it with 0 points when the reservation was gone.
    charged: String,
    operation_key: String,
    counted: bool,
    reply: oneshot::Sender<Result<bool, ServiceError>>,
}

/// The sending side of the queue; the task that drains it ends when this is
/// dropped (or is aborted with the ledger).
pub(super) struct UsageQueue {
    sender: mpsc::UnboundedSender<Queued>,
}

impl UsageQueue {
    /// The queue and the task that writes it to `redis` (keys under
    /// `prefix`).
    pub(super) fn start(redis: Bounded, prefix: String) -> (UsageQueue, tokio::task::JoinHandle<()>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        let task = tokio::spawn(drain(receiver, redis, prefix));
        (UsageQueue { sender }, task)
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
        let charged = serde_json::to_string(record).map_err(unavailable)?;
        let (reply, answer) = oneshot::channel();
        let queued = Queued {
            account_id: account_id.to_owned(),
            reservation_id: reservation_id.map(str::to_owned),
            charged,
            operation_key: record.operation_key.clone(),
            counted: record.outcome == "ok",
            reply,
        };
        self.sender.send(queued).map_err(|_| unavailable("the ledger is closing"))?;
        answer.await.map_err(|_| unavailable("the ledger closed before Redis answered"))?
    }
}

/// Writes what is queued, one round trip at a time, until the queue closes.
async fn drain(mut receiver: mpsc::UnboundedReceiver<Queued>, redis: Bounded, prefix: String) {
    let script = Script::new(include_str!("../lua/commit.lua"));
    let mut batch = Vec::new();
    while receiver.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let replies = write(&redis, &prefix, &script, &batch).await;
        for (queued, reply) in batch.drain(..).zip(replies) {
            let _ = queued.reply.send(reply);
        }
    }
}

/// One pipeline for `batch`: a run of `lua/commit.lua` per account, then
/// the service-wide counts (another Cluster slot). The answer of each call,
/// in `batch`'s order.
async fn write(redis: &Bounded, prefix: &str, script: &Script, batch: &[Queued]) -> Vec<Result<bool, ServiceError>> {
    // The calls of each account, in the order they came.
    let mut accounts: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for (index, queued) in batch.iter().enumerate() {
        match accounts.iter_mut().find(|(account, _)| *account == queued.account_id) {
            Some((_, calls)) => calls.push(index),
            None => accounts.push((&queued.account_id, vec![index])),
        }
        if queued.counted {
            *counts.entry(&queued.operation_key).or_default() += 1;
        }
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
    let mut pipe = redis::pipe();
    scripts(&mut pipe);
    for (operation_key, n) in &counts {
        pipe.hincr([prefix, ":usage-counts"].concat(), operation_key, *n).ignore();
    }
    let mut connection = redis.clone();
    let mut replies = pipe.query_async::<Vec<Vec<i64>>>(&mut connection).await;
    if let Err(e) = &replies
        && e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript)
    {
        // Redis lost its scripts (a restart): load it and run the scripts
        // again; the counts went through (a pipeline is not a transaction).
        let mut retry = redis::pipe();
        retry.cmd("SCRIPT").arg("LOAD").arg(include_str!("../lua/commit.lua")).ignore();
        scripts(&mut retry);
        replies = retry.query_async::<Vec<Vec<i64>>>(&mut connection).await;
    }
    let mut answers = vec![Err(unavailable("no answer from Redis")); batch.len()];
    match replies {
        Ok(replies) => {
            for ((_, calls), committed) in accounts.iter().zip(replies) {
                for (&index, done) in calls.iter().zip(committed) {
                    answers[index] = Ok(done == 1);
                }
            }
        }
        Err(e) => {
            let error = failed(e);
            answers.iter_mut().for_each(|answer| *answer = Err(error.clone()));
        }
    }
    answers
}
