//! Where sync jobs wait for a worker (docs/sync.md "Queue"): the
//! [`SyncQueue`] trait, with the embedded queue (a table of the content
//! store's database) here and Redis Streams in [`super::redis_queue`].
//!
//! Both hand a job to one worker at a time and hand it out again when that
//! worker stops renewing its claim (it died): delivery is at least once, and
//! a sync is safe to repeat (the store upserts).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use mediaops_store::sync_job::SyncJobStore;

/// A job handed to a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The sync job's id (its task id).
    pub job_id: String,
    /// The queue's handle on it (the Redis stream entry id; the job id in
    /// the embedded queue).
    pub entry: String,
    /// Taken over from a worker that stopped renewing its claim.
    pub redelivered: bool,
}

/// A durable queue of sync job ids shared by every core.
#[async_trait]
pub trait SyncQueue: Send + Sync + 'static {
    /// `redis` or `embedded`.
    fn kind(&self) -> &'static str;

    /// Makes job `job_id` deliverable at `due`.
    async fn push(&self, job_id: &str, due: DateTime<Utc>) -> anyhow::Result<()>;

    /// The next job for `consumer`: one whose worker died, or a due one;
    /// `None` when there is none now.
    async fn pull(&self, consumer: &str) -> anyhow::Result<Option<Delivery>>;

    /// Renews `consumer`'s claim on a delivery while its job runs.
    async fn touch(&self, consumer: &str, delivery: &Delivery) -> anyhow::Result<()>;

    /// Removes a delivery whose job ended, or was pushed again for a retry.
    async fn ack(&self, consumer: &str, delivery: &Delivery) -> anyhow::Result<()>;
}

/// The embedded queue: the `sync_queue` table (migration 0007), claimed
/// under a lease of `lease`.
pub struct EmbeddedQueue {
    store: Arc<dyn SyncJobStore>,
    lease: Duration,
}

impl EmbeddedQueue {
    /// A queue over the job store, a claim holding for `lease`.
    pub fn new(store: Arc<dyn SyncJobStore>, lease: Duration) -> EmbeddedQueue {
        EmbeddedQueue { store, lease }
    }

    fn until(&self) -> DateTime<Utc> {
        Utc::now() + self.lease
    }
}

#[async_trait]
impl SyncQueue for EmbeddedQueue {
    fn kind(&self) -> &'static str {
        "embedded"
    }

    async fn push(&self, job_id: &str, due: DateTime<Utc>) -> anyhow::Result<()> {
        Ok(self.store.queue_push(job_id, due).await?)
    }

    async fn pull(&self, consumer: &str) -> anyhow::Result<Option<Delivery>> {
        let claim = self.store.queue_claim(consumer, Utc::now(), self.until()).await?;
        Ok(claim.map(|claim| Delivery {
            entry: claim.job_id.clone(),
            job_id: claim.job_id,
            redelivered: claim.deliveries > 1,
        }))
    }

    async fn touch(&self, consumer: &str, delivery: &Delivery) -> anyhow::Result<()> {
        if !self.store.queue_touch(&delivery.entry, consumer, self.until()).await? {
            tracing::warn!(job = delivery.job_id, "sync job claim lost: another worker may run it too");
        }
        Ok(())
    }

    async fn ack(&self, consumer: &str, delivery: &Delivery) -> anyhow::Result<()> {
        Ok(self.store.queue_remove(&delivery.entry, consumer).await?)
    }
}
