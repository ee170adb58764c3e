//! The sync workers (docs/sync.md "Workers"): take a job from the queue,
//! run its [`SyncFetch`], and end it `success`, queue it again for a retry
//! with backoff, or put it in the dead-letter list (`failed`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use chrono::Utc;
use mediaops_proto::error_code::ErrorCode;
use rand::Rng;
use serde_json::json;
use tokio::task::AbortHandle;

use super::fetch::SyncFetch;
use super::queue::{Delivery, SyncQueue};
use super::settings::SyncSettings;
use mediaops_platform::tasks::error_json;
use mediaops_proto::error::ServiceError;
use mediaops_store::ContentStore;
use mediaops_store::sync_job::{SyncJob, SyncJobStore, SyncStatus};

/// The workers of one core, and what they need.
pub struct SyncWorkers {
    jobs: Arc<dyn SyncJobStore>,
    queue: Arc<dyn SyncQueue>,
    /// Operation key → the vendor mapping it fetches through.
    fetchers: BTreeMap<String, SyncFetch>,
    store: Arc<dyn ContentStore>,
    settings: SyncSettings,
    /// This core's consumer-name prefix (a UUID).
    owner: String,
    loops: Mutex<Vec<AbortHandle>>,
}

/// How one attempt ended.
enum Attempt {
    Done(super::fetch::SyncSummary),
    Failed(ServiceError),
}

impl SyncWorkers {
    /// Workers taking `jobs` from `queue`, fetching with `fetchers` (by operation key) into `store`.
    pub fn new(
        jobs: Arc<dyn SyncJobStore>,
        queue: Arc<dyn SyncQueue>,
        fetchers: BTreeMap<String, SyncFetch>,
        store: Arc<dyn ContentStore>,
        settings: SyncSettings,
    ) -> SyncWorkers {
        SyncWorkers {
            jobs,
            queue,
            fetchers,
            store,
            settings,
            owner: uuid::Uuid::new_v4().to_string(),
            loops: Mutex::new(Vec::new()),
        }
    }

    /// Whether a vendor is configured for `operation_key`.
    pub fn can_sync(&self, operation_key: &str) -> bool {
        self.fetchers.contains_key(operation_key)
    }

    /// Starts `sync.workers` loops; each holds only a weak reference, so
    /// they end with the workers, or at [`SyncWorkers::stop`].
    pub fn start(self: &Arc<Self>) {
        let mut loops = self.loops.lock().unwrap_or_else(|e| e.into_inner());
        for n in 0..self.settings.workers {
            let workers = Arc::downgrade(self);
            let consumer = format!("{}-{n}", self.owner);
            let poll = Duration::from_secs_f64(self.settings.poll_secs);
            loops.push(tokio::spawn(run_loop(workers, consumer, poll)).abort_handle());
        }
    }

    /// Stops the loops at once: a job being worked stays claimed and is
    /// taken over by another worker when its lease passes (a restart, or
    /// another core).
    pub fn stop(&self) {
        for handle in self.loops.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
            handle.abort();
        }
    }

    /// Takes one job for `consumer` and works it to its next state; false
    /// when the queue had nothing due.
    ///
    /// # Errors
    /// The queue or the job store failed (the job, if one was taken, stays
    /// claimed and is taken over after its lease).
    pub async fn work_one(&self, consumer: &str) -> anyhow::Result<bool> {
        let Some(delivery) = self.queue.pull(consumer).await? else { return Ok(false) };
        let Some(mut job) = self.jobs.get_sync_job(&delivery.job_id).await? else {
            tracing::warn!(job = delivery.job_id, "queued sync job not found; dropped");
            self.queue.ack(consumer, &delivery).await?;
            return Ok(true);
        };
        // A finished job, or a duplicate entry of one waiting for its retry.
        let early = job.status == SyncStatus::Queued && job.next_attempt_at > Utc::now() + Duration::from_secs(1);
        if job.status.is_finished() || early {
            self.queue.ack(consumer, &delivery).await?;
            return Ok(true);
        }
        if delivery.redelivered && job.status == SyncStatus::Running {
            tracing::info!(job = job.id, attempts = job.attempts, "resuming a sync job whose worker stopped");
        }
        let attempt = if job.attempts >= self.settings.max_attempts {
            // Every attempt so far died with its worker: a poison job.
            Attempt::Failed(ServiceError::internal(format!(
                "the sync stopped {} times without finishing; given up",
                job.attempts
            )))
        } else {
            job.status = SyncStatus::Running;
            job.attempts += 1;
            job.updated_at = Utc::now();
            self.jobs.update_sync_job(&job).await?;
            self.attempt(consumer, &delivery, &job).await
        };
        self.settle(consumer, &delivery, job, attempt).await?;
        Ok(true)
    }

    /// Runs the job's fetch while renewing the claim on its delivery.
    async fn attempt(&self, consumer: &str, delivery: &Delivery, job: &SyncJob) -> Attempt {
        let Some(fetch) = self.fetchers.get(&job.operation_key) else {
            return Attempt::Failed(ServiceError::new(
                ErrorCode::NotConfigured,
                format!("no vendor is configured to sync {} in this core", job.operation_key),
            ));
        };
        let renew = Duration::from_secs_f64(self.settings.lease_secs / 3.0);
        let work = fetch.run(&job.request, self.store.as_ref());
        tokio::pin!(work);
        loop {
            tokio::select! {
                outcome = &mut work => {
                    return match outcome {
                        Ok(summary) => Attempt::Done(summary),
                        Err(error) => Attempt::Failed(error),
                    };
                }
                () = tokio::time::sleep(renew) => {
                    if let Err(e) = self.queue.touch(consumer, delivery).await {
                        tracing::warn!(job = job.id, error = %e, "sync job claim not renewed");
                    }
                }
            }
        }
    }

    /// Writes the job's new state, then acknowledges the delivery (a retry
    /// is pushed before, so a crash in between repeats rather than loses).
    async fn settle(
        &self,
        consumer: &str,
        delivery: &Delivery,
        mut job: SyncJob,
        attempt: Attempt,
    ) -> anyhow::Result<()> {
        let now = Utc::now();
        job.updated_at = now;
        match attempt {
            Attempt::Done(summary) => {
                job.status = SyncStatus::Success;
                job.result = Some(json!(summary));
                job.error = None;
                tracing::info!(job = job.id, operation = job.operation_key, ?summary, "sync done");
                self.jobs.update_sync_job(&job).await?;
            }
            Attempt::Failed(error) if retryable(&error) && job.attempts < self.settings.max_attempts => {
                let wait = jitter(self.settings.backoff(job.attempts));
                job.status = SyncStatus::Queued;
                job.error = Some(error_json(&error));
                job.next_attempt_at = now + wait;
                tracing::warn!(job = job.id, attempts = job.attempts, error = %error.message, retry_in_secs = wait.as_secs_f64(), "sync attempt failed; retrying");
                self.jobs.update_sync_job(&job).await?;
                self.queue.push(&job.id, job.next_attempt_at).await?;
            }
            Attempt::Failed(error) => {
                job.status = SyncStatus::Failed;
                job.error = Some(error_json(&error));
                tracing::warn!(job = job.id, attempts = job.attempts, error = %error.message, "sync job dead-lettered");
                self.jobs.update_sync_job(&job).await?;
            }
        }
        self.queue.ack(consumer, delivery).await
    }
}

/// One worker: works jobs while there are some, else waits `poll`.
async fn run_loop(workers: Weak<SyncWorkers>, consumer: String, poll: Duration) {
    loop {
        let Some(this) = workers.upgrade() else { break };
        let worked = this.work_one(&consumer).await;
        drop(this);
        match worked {
            Ok(true) => {}
            Ok(false) => tokio::time::sleep(poll).await,
            Err(e) => {
                tracing::warn!(consumer, error = %e, "sync worker: queue or job store failed");
                tokio::time::sleep(poll).await;
            }
        }
    }
}

/// Whether a failure may pass on its own: a vendor outage or a store
/// hiccup is retried; a refused or unknown id, or a missing vendor, is not.
fn retryable(error: &ServiceError) -> bool {
    !matches!(error.code, ErrorCode::InvalidInput | ErrorCode::NotFound | ErrorCode::NotConfigured)
}

/// `wait` ± 20 %.
fn jitter(wait: Duration) -> Duration {
    wait.mul_f64(rand::rng().random_range(0.8..=1.2))
}
