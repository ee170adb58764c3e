//! Group commit for the Redis ledger (docs/performance.md "Redis round
//! trips"): callers queue an item and wait for its answer; one task takes
//! everything queued (up to [`MAX_BATCH`]) and writes it in one round trip
//! through a [`GroupWrite`]. While that round trip is under way the next
//! items queue up, so under load many calls share a round trip, and an idle
//! queue sends a lone item at once (no timer, no added wait).
//!
//! Used for the reserves (`reserve_queue.rs`) and for the commits and usage
//! lines (`usage_queue.rs`). Nothing about the money depends on the
//! grouping: each item is still one atomic step of its script in Redis.
//!
//! A caller either waits for its item's answer ([`GroupQueue::submit`]) or
//! leaves a continuation that runs with it ([`GroupQueue::submit_then`]: no
//! task and no channel of the caller's; the continuations of one group run
//! on one task; docs/performance.md "The settlement as the group commit's
//! continuation").

use std::future::Future;

use redis::Script;
use tokio::sync::{mpsc, oneshot};

use crate::billing::unavailable;
use crate::redis_connection::Bounded;
use mediaops_proto::error::ServiceError;

/// Items written by one round trip at most (a bound on one pipeline's run
/// time in Redis: a few commands per item).
pub(super) const MAX_BATCH: usize = 512;

/// What writes one group: one round trip for `batch`.
pub(super) trait GroupWrite: Send + Sync + 'static {
    /// One queued item.
    type Item: Send + 'static;
    /// The answer of one item.
    type Answer: Send + 'static;

    /// Writes `batch` and answers each item, in `batch`'s order (exactly
    /// `batch.len()` answers).
    fn write(&self, batch: &[Self::Item]) -> impl Future<Output = Vec<Self::Answer>> + Send;
}

/// Where a [`GroupWrite`] of the ledger writes: its connection, its key
/// prefix and the script it runs once per account and group.
pub(super) struct ScriptTarget {
    pub(super) redis: Bounded,
    pub(super) prefix: String,
    pub(super) script: Script,
    /// The script's text, loaded again when Redis lost its scripts.
    source: &'static str,
}

impl ScriptTarget {
    /// `source` run on `redis`, keys under `prefix`.
    pub(super) fn new(redis: Bounded, prefix: String, source: &'static str) -> ScriptTarget {
        ScriptTarget { redis, prefix, script: Script::new(source), source }
    }

    /// One pipeline: the commands `others` adds (their replies ignored),
    /// then the script runs `scripts` adds, whose replies are answered.
    /// When Redis lost its scripts (a restart) the script is loaded and the
    /// runs sent again, the other commands not (they went through: a
    /// pipeline is not a transaction).
    pub(super) async fn query(
        &self,
        others: impl FnOnce(&mut redis::Pipeline),
        scripts: impl Fn(&mut redis::Pipeline),
    ) -> redis::RedisResult<Vec<Vec<i64>>> {
        let mut pipe = redis::pipe();
        others(&mut pipe);
        scripts(&mut pipe);
        let mut connection = self.redis.clone();
        match pipe.query_async::<Vec<Vec<i64>>>(&mut connection).await {
            Err(e) if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) => {
                let mut retry = redis::pipe();
                retry.cmd("SCRIPT").arg("LOAD").arg(self.source).ignore();
                scripts(&mut retry);
                retry.query_async::<Vec<Vec<i64>>>(&mut connection).await
            }
            replies => replies,
        }
    }
}

/// An item and where its answer goes.
struct Queued<W: GroupWrite> {
    item: W::Item,
    reply: Reply<W::Answer>,
}

/// Where an item's answer goes: to a caller waiting for it, or to the
/// continuation it left.
enum Reply<A> {
    Waiting(oneshot::Sender<A>),
    Then(Box<dyn FnOnce(A) + Send>),
}

impl<A> Reply<A> {
    fn send(self, answer: A) {
        match self {
            // A caller that went away no longer waits for its answer.
            Reply::Waiting(sender) => drop(sender.send(answer)),
            Reply::Then(then) => then(answer),
        }
    }
}

/// A continuation of [`GroupQueue::submit_then`]: called once with the
/// item's answer, or, dropped uncalled (the queue's task ended with the
/// item queued), with 503 `billing_unavailable`, as a waiting caller would
/// get.
struct Continuation<T, F: FnOnce(Result<T, ServiceError>)>(Option<F>, std::marker::PhantomData<fn(T)>);

impl<T, F: FnOnce(Result<T, ServiceError>)> Continuation<T, F> {
    fn call(mut self, answer: Result<T, ServiceError>) {
        if let Some(then) = self.0.take() {
            then(answer);
        }
    }
}

impl<T, F: FnOnce(Result<T, ServiceError>)> Drop for Continuation<T, F> {
    fn drop(&mut self) {
        if let Some(then) = self.0.take() {
            then(Err(closed()));
        }
    }
}

fn closed() -> ServiceError {
    unavailable("the ledger closed before Redis answered")
}

/// The sending side of a group-committed queue; the task that drains it
/// ends when this is dropped (or is aborted with its owner).
pub(super) struct GroupQueue<W: GroupWrite> {
    sender: mpsc::UnboundedSender<Queued<W>>,
}

impl<W: GroupWrite> GroupQueue<W> {
    /// The queue and the task that writes it with `writer`.
    pub(super) fn start(writer: W) -> (GroupQueue<W>, tokio::task::JoinHandle<()>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        let task = tokio::spawn(drain(receiver, writer));
        (GroupQueue { sender }, task)
    }

    /// Queues `item` and waits for its answer; `None` when the queue is
    /// closing or its task ended before answering (the item may have been
    /// written).
    pub(super) async fn submit(&self, item: W::Item) -> Option<W::Answer> {
        let (reply, answer) = oneshot::channel();
        self.sender.send(Queued { item, reply: Reply::Waiting(reply) }).ok()?;
        answer.await.ok()
    }

    /// [`GroupQueue::submit`] for a writer whose answers are results: a
    /// closed queue is one more error.
    ///
    /// # Errors
    /// The item's own error, or 503 `billing_unavailable` when the ledger
    /// closed before Redis answered.
    pub(super) async fn submit_or_fail<T>(&self, item: W::Item) -> Result<T, ServiceError>
    where
        W: GroupWrite<Answer = Result<T, ServiceError>>,
    {
        self.submit(item).await.unwrap_or_else(|| Err(closed()))
    }

    /// Queues `item` and returns at once; `then` is called with the item's
    /// answer once its group is written (on a task shared by the group's
    /// continuations), or with 503 `billing_unavailable` when the queue is
    /// closing or its task ends first (then at once, or when the task
    /// ends). `then` must be short and must not block.
    pub(super) fn submit_then<T, F>(&self, item: W::Item, then: F)
    where
        T: 'static,
        F: FnOnce(Result<T, ServiceError>) + Send + 'static,
        W: GroupWrite<Answer = Result<T, ServiceError>>,
    {
        let then = Continuation(Some(then), std::marker::PhantomData);
        let reply = Reply::Then(Box::new(move |answer| then.call(answer)));
        // Refused: the item and its continuation come back and are
        // dropped, which answers the continuation.
        drop(self.sender.send(Queued { item, reply }));
    }
}

/// Writes what is queued, one round trip at a time, until the queue closes.
async fn drain<W: GroupWrite>(mut receiver: mpsc::UnboundedReceiver<Queued<W>>, writer: W) {
    let mut queued = Vec::new();
    let (mut items, mut replies) = (Vec::new(), Vec::new());
    while receiver.recv_many(&mut queued, MAX_BATCH).await > 0 {
        for Queued { item, reply } in queued.drain(..) {
            items.push(item);
            replies.push(reply);
        }
        let answers = writer.write(&items).await;
        debug_assert_eq!(answers.len(), items.len(), "one answer per item");
        items.clear();
        let mut continued = Vec::new();
        for (reply, answer) in replies.drain(..).zip(answers) {
            match reply {
                Reply::Waiting(_) => reply.send(answer),
                Reply::Then(_) => continued.push(Answered(Some((reply, answer)))),
            }
        }
        if !continued.is_empty() {
            // The group's continuations run on a task of their own, so the
            // next group is written meanwhile and, on many cores, the
            // groups' continuations (log lines, metrics) spread over the
            // workers: one task per group, not per call.
            tokio::spawn(async move { continued.into_iter().for_each(Answered::send) });
        }
    }
}

/// A reply with its answer, sent when dropped unsent (a runtime stopping
/// before the task that sends it ran): a continuation always gets the
/// answer Redis gave.
struct Answered<A>(Option<(Reply<A>, A)>);

impl<A> Answered<A> {
    fn send(mut self) {
        if let Some((reply, answer)) = self.0.take() {
            reply.send(answer);
        }
    }
}

impl<A> Drop for Answered<A> {
    fn drop(&mut self) {
        if let Some((reply, answer)) = self.0.take() {
            reply.send(answer);
        }
    }
}

/// The items of `batch` that are `kept`, by account (`account_of`): each
/// account once, in the order it first came, with the indexes of its items
/// in the order they came (one script run per account and group: the keys
/// of one account share a Cluster slot).
pub(super) fn by_account<'a, T>(
    batch: &'a [T],
    account_of: impl Fn(&'a T) -> &'a str,
    kept: impl Fn(&T) -> bool,
) -> Vec<(&'a str, Vec<usize>)> {
    let mut accounts: Vec<(&str, Vec<usize>)> = Vec::new();
    for (index, item) in batch.iter().enumerate().filter(|(_, item)| kept(item)) {
        let account = account_of(item);
        match accounts.iter_mut().find(|(known, _)| *known == account) {
            Some((_, items)) => items.push(index),
            None => accounts.push((account, vec![index])),
        }
    }
    accounts
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Records each group it is given and answers every item doubled,
    /// after a pause that lets the next items queue up.
    struct Recording(Arc<Mutex<Vec<Vec<u32>>>>);

    impl GroupWrite for Recording {
        type Item = u32;
        type Answer = u32;

        async fn write(&self, batch: &[u32]) -> Vec<u32> {
            self.0.lock().unwrap().push(batch.to_vec());
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            batch.iter().map(|n| n * 2).collect()
        }
    }

    /// Items queued while a group is written share the next group, and
    /// every caller gets its own answer.
    #[tokio::test]
    async fn items_queued_during_a_write_share_the_next_one() {
        let groups = Arc::new(Mutex::new(Vec::new()));
        let (queue, task) = GroupQueue::start(Recording(groups.clone()));
        let queue = Arc::new(queue);
        assert_eq!(queue.submit(1).await, Some(2), "a lone item is written at once");
        let callers: Vec<_> = (10..20)
            .map(|n| {
                let queue = queue.clone();
                tokio::spawn(async move { queue.submit(n).await })
            })
            .collect();
        let mut answers = Vec::new();
        for caller in callers {
            answers.push(caller.await.unwrap());
        }
        assert_eq!(answers, (10..20).map(|n| Some(n * 2)).collect::<Vec<_>>());
        let groups = groups.lock().unwrap().clone();
        assert_eq!(groups[0], vec![1]);
        assert!(groups.len() < 11, "ten items queued at once were not grouped: {groups:?}");
        assert_eq!(groups.concat().len(), 11, "each item written once: {groups:?}");
        task.abort();
    }

    /// Answers every item with itself, or a 503 for 0.
    struct Checked;

    impl GroupWrite for Checked {
        type Item = u32;
        type Answer = Result<u32, ServiceError>;

        async fn write(&self, batch: &[u32]) -> Vec<Result<u32, ServiceError>> {
            batch.iter().map(|&n| if n == 0 { Err(unavailable("zero")) } else { Ok(n) }).collect()
        }
    }

    /// The answers continuations got, in the order they ran.
    type Got = Arc<Mutex<Vec<Result<u32, String>>>>;
    /// A continuation of `submit_then` for [`Checked`].
    type Then = Box<dyn FnOnce(Result<u32, ServiceError>) + Send>;

    /// Where continuations put their answers, and a maker of continuations.
    fn continuations() -> (Got, impl Fn() -> Then) {
        let got = Got::default();
        let kept = got.clone();
        let then = move || {
            let kept = kept.clone();
            Box::new(move |answer: Result<u32, ServiceError>| {
                kept.lock().unwrap().push(answer.map_err(|e| e.message));
            }) as Then
        };
        (got, then)
    }

    /// A continuation is called once, by the queue's task, with its own
    /// item's answer (errors included), in the order the items came.
    #[tokio::test]
    async fn a_continuation_gets_its_items_answer() {
        let (queue, task) = GroupQueue::start(Checked);
        let (got, then) = continuations();
        for n in [3, 0, 5] {
            queue.submit_then(n, then());
        }
        assert_eq!(queue.submit_or_fail(7).await.unwrap(), 7, "a waiting caller beside them");
        // The group's continuations run on a task of their own.
        let ran = async {
            while got.lock().unwrap().len() < 3 {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(5), ran).await.expect("the continuations ran");
        assert_eq!(*got.lock().unwrap(), [Ok(3), Err(unavailable("zero").message), Ok(5)]);
        task.abort();
    }

    /// A continuation whose queue's task has ended gets 503, whether the
    /// task ended before the item was queued or with the item still in the
    /// queue.
    #[tokio::test]
    async fn a_stopped_queue_answers_its_continuations() {
        let (queue, task) = GroupQueue::start(Checked);
        let (got, then) = continuations();
        task.abort();
        let _ = task.await;
        queue.submit_then(1, then());
        assert_eq!(got.lock().unwrap().len(), 1, "answered at once");

        let (sender, receiver) = mpsc::unbounded_channel();
        let queue = GroupQueue::<Checked> { sender };
        queue.submit_then(2, then());
        assert_eq!(got.lock().unwrap().len(), 1, "queued, not answered yet");
        drop(receiver);
        let answers = got.lock().unwrap().clone();
        assert_eq!(answers.len(), 2, "answered when the queue went away");
        for answer in answers {
            assert_eq!(answer, Err(closed().message));
        }
    }

    /// A group's answers dropped before their task ran (a runtime
    /// stopping) still reach the continuations: the answer, not an error.
    #[test]
    fn answers_dropped_unsent_are_still_given() {
        let (got, then) = continuations();
        let answered = Answered(Some((Reply::Then(then()), Ok(4))));
        drop(answered);
        assert_eq!(*got.lock().unwrap(), [Ok(4)]);
    }

    #[test]
    fn items_are_grouped_by_account_in_the_order_they_came() {
        let batch = ["b", "a", "b", "c", "a", "b"];
        let grouped = by_account(&batch, |item| item, |item| *item != "c");
        assert_eq!(grouped, vec![("b", vec![0, 2, 5]), ("a", vec![1, 4])]);
    }

    /// A queue whose task has ended answers `None` rather than hanging.
    #[tokio::test]
    async fn a_stopped_queue_answers_none() {
        let (queue, task) = GroupQueue::start(Recording(Arc::default()));
        task.abort();
        let _ = task.await;
        assert_eq!(queue.submit(1).await, None);
    }
}
