//! Sync operations (spec 2.6 and 4.3–4.5; docs/sync.md):
//! `lifestyle-sync-notes` by `redId`, `shortvideo-sync-notes` and
//! `articles-sync-notes` by `accountId`, `articles-sync-account` by
//! `wechatId`.
//!
//! A call validates its id, records a sync job (`queued`) and queues it,
//! and answers the receipt `{status: "syncing", accepted: true,
//! retryAfterMinutes: 30}` uncharged (the spec lists them at 6 points but
//! does not charge); the job's id comes back as the envelope's `taskId` and
//! its state is read at `GET /api/tasks/{taskId}`. Workers fetch the
//! account's pages through the operation's vendor mapping, write them to the
//! content store, retry failures with backoff and leave what cannot be
//! done in the dead-letter list, which an admin reads and replays.

pub mod admin;
pub mod fetch;
pub mod queue;
pub mod redis_queue;
pub mod settings;
pub mod worker;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::common::v1::SyncReceipt;
use serde_json::Value;

use self::fetch::SyncFetch;
use self::queue::{EmbeddedQueue, SyncQueue};
use self::settings::{QueueKind, SyncSettings};
use self::worker::SyncWorkers;
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_store::ContentStore;
use mediaops_store::sync_job::{SyncJob, SyncJobStore, SyncStatus};

/// `retryAfterMinutes` of every receipt (spec 2.6: records are stored about
/// 30 minutes after submission).
pub const RETRY_AFTER_MINUTES: i32 = 30;

/// `status` of every receipt (spec 2.6).
pub const RECEIPT_STATUS: &str = "syncing";

/// The longest id a sync accepts (characters).
const MAX_TARGET_CHARS: usize = 128;

/// The sync side of one core: the job store, the queue and the workers.
pub struct SyncService {
    jobs: Arc<dyn SyncJobStore>,
    queue: Arc<dyn SyncQueue>,
    workers: Arc<SyncWorkers>,
}

impl SyncService {
    /// The queue the settings name (Redis Streams with `redis_url` unless
    /// `sync.queue = "embedded"`), over the job store `jobs`; workers write
    /// to `store` through `fetchers` (operation key → vendor mapping).
    ///
    /// # Errors
    /// `sync.queue = "redis"` without a Redis URL, or Redis unreachable.
    pub async fn open(
        settings: &SyncSettings,
        redis: Option<(&str, &str)>,
        jobs: Arc<dyn SyncJobStore>,
        store: Arc<dyn ContentStore>,
        fetchers: BTreeMap<String, SyncFetch>,
    ) -> anyhow::Result<Arc<SyncService>> {
        let lease = Duration::from_secs_f64(settings.lease_secs);
        let queue: Arc<dyn SyncQueue> = match (settings.queue, redis) {
            (QueueKind::Embedded, _) | (QueueKind::Auto, None) => Arc::new(EmbeddedQueue::new(jobs.clone(), lease)),
            (QueueKind::Redis | QueueKind::Auto, Some((url, prefix))) => {
                Arc::new(redis_queue::RedisQueue::connect(url, prefix, lease).await?)
            }
            (QueueKind::Redis, None) => anyhow::bail!("sync.queue = \"redis\" needs MEDIAOPS_REDIS_URL"),
        };
        tracing::debug!(queue = queue.kind(), operations = ?fetchers.keys().collect::<Vec<_>>(), "sync ready");
        let workers = Arc::new(SyncWorkers::new(jobs.clone(), queue.clone(), fetchers, store, settings.clone()));
        Ok(Arc::new(SyncService { jobs, queue, workers }))
    }

    /// The job store (task reads and the admin views).
    pub fn jobs(&self) -> &Arc<dyn SyncJobStore> {
        &self.jobs
    }

    /// The workers (started when the core serves).
    pub fn workers(&self) -> &Arc<SyncWorkers> {
        &self.workers
    }

    /// Validates the id in `field` of `request`, joins the caller's open
    /// job for it or queues a new one, and answers the receipt; the job id
    /// goes to the envelope's `taskId`.
    ///
    /// # Errors
    /// 400 naming `field` (blank, too long, control characters); 503
    /// `not_configured` when no vendor syncs this operation; 500 when the
    /// job cannot be stored or queued. Never charged.
    pub async fn submit(
        &self,
        ctx: &CallContext,
        field: &str,
        mut request: Value,
    ) -> Result<SyncReceipt, ServiceError> {
        let operation_key = ctx.operation.key().to_owned();
        let target = request[field].as_str().unwrap_or_default();
        if target.trim().is_empty() {
            return Err(ServiceError::invalid_field(field, format!("`{field}` is required: the id to sync")));
        }
        let target = mediaops_platform::fields::identifier(target, field, MAX_TARGET_CHARS)?.to_owned();
        if !self.workers.can_sync(&operation_key) {
            return Err(ServiceError::new(
                ErrorCode::NotConfigured,
                format!(
                    "no vendor is configured to sync {operation_key}: map it in a vendor file and set \
                     sources.\"{operation_key}\" = \"upstream:<vendor>\" (docs/sync.md); nothing was queued or charged"
                ),
            ));
        }
        request[field] = Value::String(target.clone());
        let stored = |e: mediaops_store::StoreError| e.into_service_error("sync job store");
        let open = self.jobs.open_sync_job(ctx.account_id(), &operation_key, &target).await.map_err(stored)?;
        let job = match open {
            Some(job) => job,
            None => {
                let now = Utc::now();
                let job = SyncJob {
                    id: uuid::Uuid::new_v4().to_string(),
                    operation_key,
                    account_id: ctx.account_id().to_owned(),
                    target,
                    request,
                    status: SyncStatus::Queued,
                    attempts: 0,
                    result: None,
                    error: None,
                    request_id: ctx.request_id.clone(),
                    created_at: now,
                    updated_at: now,
                    next_attempt_at: now,
                };
                self.jobs.create_sync_job(&job).await.map_err(stored)?;
                self.enqueue(job).await?
            }
        };
        ctx.task_id.set(job.id.clone());
        Ok(SyncReceipt { status: RECEIPT_STATUS.into(), accepted: true, retry_after_minutes: RETRY_AFTER_MINUTES })
    }

    /// Queues a stored `queued` job; if the queue refuses it, the job is
    /// marked failed (so it never looks pending) and the call fails.
    async fn enqueue(&self, mut job: SyncJob) -> Result<SyncJob, ServiceError> {
        if let Err(e) = self.queue.push(&job.id, job.next_attempt_at).await {
            let error = ServiceError::internal(format!("the sync job could not be queued: {e}"));
            job.status = SyncStatus::Failed;
            job.error = Some(mediaops_platform::tasks::error_json(&error));
            job.updated_at = Utc::now();
            if let Err(e) = self.jobs.update_sync_job(&job).await {
                tracing::error!(job = job.id, error = %e, "an unqueued sync job could not be marked failed");
            }
            return Err(error);
        }
        Ok(job)
    }
}
