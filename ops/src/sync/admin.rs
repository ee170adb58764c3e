//! The dead-letter list and replay (admin RPCs `admin.sync.dead-letters`,
//! `admin.sync.replay`; docs/sync.md "Dead letters"), and a sync job as
//! `GET /api/tasks/{taskId}` shows it.

use chrono::{DateTime, Utc};
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::admin::v1 as pb;
use mediaops_proto::mediaops::tasks::v1::{SyncProgress, Task as TaskMessage};

use super::SyncService;
use super::fetch::SyncSummary;
use mediaops_platform::tasks::error_proto;
use mediaops_proto::error::ServiceError;
use mediaops_store::sync_job::{SyncJob, SyncStatus};

/// Dead letters listed when the request does not say.
const DEFAULT_LIMIT: u32 = 50;
/// The most dead letters one call lists.
const MAX_LIMIT: i32 = 500;

impl SyncService {
    /// The failed sync jobs (the dead letters), at most `limit` (0 = 50).
    ///
    /// # Errors
    /// 400 naming `limit` outside 0-500; 500 when the jobs cannot be read.
    pub async fn dead_letters(&self, limit: i32) -> Result<pb::ListSyncDeadLettersResponse, ServiceError> {
        let limit = match limit {
            0 => DEFAULT_LIMIT,
            n if (1..=MAX_LIMIT).contains(&n) => n.unsigned_abs(),
            _ => return Err(ServiceError::invalid_field("limit", format!("`limit` must be 1-{MAX_LIMIT}"))),
        };
        let jobs = self.jobs.failed_sync_jobs(limit).await.map_err(read_failed)?;
        Ok(pb::ListSyncDeadLettersResponse { jobs: jobs.iter().map(admin_view).collect() })
    }

    /// Queues the failed job `id` again with its attempts reset.
    ///
    /// # Errors
    /// 400 naming `taskId` when blank; 404 for an unknown job; 409
    /// `conflict` for a job that is not `failed`; 500 when it cannot be
    /// stored or queued.
    pub async fn replay(&self, id: &str) -> Result<pb::SyncJob, ServiceError> {
        if id.is_empty() {
            return Err(ServiceError::invalid_field("taskId", "`taskId` is required: the id of a failed sync job"));
        }
        let mut job = self
            .jobs
            .get_sync_job(id)
            .await
            .map_err(read_failed)?
            .ok_or_else(|| ServiceError::not_found(format!("no sync job {id}")))?;
        if job.status != SyncStatus::Failed {
            return Err(ServiceError::new(
                ErrorCode::Conflict,
                format!("sync job {id} is {}; only a failed job is replayed", job.status.as_str()),
            ));
        }
        let now = Utc::now();
        job.status = SyncStatus::Queued;
        job.attempts = 0;
        job.updated_at = now;
        job.next_attempt_at = now;
        self.jobs.update_sync_job(&job).await.map_err(read_failed)?;
        tracing::info!(job = job.id, operation = job.operation_key, "sync job replayed");
        Ok(admin_view(&self.enqueue(job).await?))
    }
}

fn read_failed(e: mediaops_store::StoreError) -> ServiceError {
    e.into_service_error("sync job store")
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `nextAttemptAt`: set only for a queued job.
fn next_attempt(job: &SyncJob) -> String {
    if job.status == SyncStatus::Queued { time(job.next_attempt_at) } else { String::new() }
}

/// A job as the admin RPCs show it.
pub fn admin_view(job: &SyncJob) -> pb::SyncJob {
    pb::SyncJob {
        task_id: job.id.clone(),
        operation_key: job.operation_key.clone(),
        account_id: job.account_id.clone(),
        target: job.target.clone(),
        status: job.status.as_str().to_owned(),
        attempts: i32::try_from(job.attempts).unwrap_or(i32::MAX),
        error: job.error.as_ref().map(error_proto),
        created_at: time(job.created_at),
        updated_at: time(job.updated_at),
        next_attempt_at: next_attempt(job),
    }
}

/// A job as `GET /api/tasks/{taskId}` shows it (docs/sync.md "Task"): the
/// task fields, `error` for a failed job (or the last failure of a queued
/// retry), and `sync` with the target, attempts and what was written.
pub fn task_view(job: &SyncJob) -> TaskMessage {
    let summary: SyncSummary =
        job.result.as_ref().and_then(|r| serde_json::from_value(r.clone()).ok()).unwrap_or_default();
    let count = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    TaskMessage {
        task_id: job.id.clone(),
        status: job.status.as_str().to_owned(),
        operation_key: job.operation_key.clone(),
        error: job.error.as_ref().filter(|_| job.status != SyncStatus::Success).map(error_proto),
        created_at: time(job.created_at),
        updated_at: time(job.updated_at),
        sync: Some(SyncProgress {
            target: job.target.clone(),
            attempts: i32::try_from(job.attempts).unwrap_or(i32::MAX),
            next_attempt_at: next_attempt(job),
            pages: count(summary.pages),
            records: count(summary.records),
            works: count(summary.works),
            accounts: count(summary.accounts),
        }),
        ..TaskMessage::default()
    }
}
