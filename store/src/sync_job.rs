//! Sync jobs in the content store's database (migration 0007,
//! docs/sync.md): the [`SyncJobStore`] trait and its one implementation for
//! both backends, generic over them ([`SqlStore`]).
//!
//! A job is the state of one submitted sync (`queued` → `running` →
//! `success`, or back to `queued` for a retry, or `failed`: the dead-letter
//! list). The same database also holds the embedded sync queue
//! (`sync_queue`), used when no Redis is configured: a row per job waiting
//! or being worked on, claimed by one worker at a time under a lease.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Row, Type};

use super::StoreResult;
use super::backend::{Backend, SqlStore};
use super::task::{from_millis, json, millis};

/// Where a sync job is in its life (docs/sync.md "States").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncStatus {
    /// Waiting for a worker (first attempt, or a retry due at `next_attempt_at`).
    Queued,
    /// Taken by a worker, which counted the attempt and is reading the
    /// vendor's pages; a worker that stops leaves it so until another takes
    /// it over after the queue lease.
    Running,
    /// Every page read and written; [`SyncJob::result`] holds the counts.
    Success,
    /// Retries exhausted or a failure not worth retrying: the dead-letter list.
    Failed,
}

impl SyncStatus {
    /// `queued`, `running`, `success` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            SyncStatus::Queued => "queued",
            SyncStatus::Running => "running",
            SyncStatus::Success => "success",
            SyncStatus::Failed => "failed",
        }
    }

    /// Parses [`SyncStatus::as_str`]; an unknown value reads as `failed`.
    pub fn parse(status: &str) -> SyncStatus {
        match status {
            "queued" => SyncStatus::Queued,
            "running" => SyncStatus::Running,
            "success" => SyncStatus::Success,
            _ => SyncStatus::Failed,
        }
    }

    /// Whether the job has ended (`success` or `failed`).
    pub fn is_finished(self) -> bool {
        matches!(self, SyncStatus::Success | SyncStatus::Failed)
    }
}

/// One sync job, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncJob {
    /// A UUID; the `taskId` of the API.
    pub id: String,
    /// e.g. `lifestyle.lifestyle-sync-notes`.
    pub operation_key: String,
    /// The submitting account; only its keys may read the job.
    pub account_id: String,
    /// The `redId`, `accountId` or `wechatId` synced.
    pub target: String,
    /// The request as proto3 JSON (`{"redId": "…"}`).
    pub request: Value,
    /// Where the job is in its life (`status` column).
    pub status: SyncStatus,
    /// Attempts started so far.
    pub attempts: u32,
    /// `{pages, records, works, accounts}` once `success`.
    pub result: Option<Value>,
    /// `{code, message, upstream?}`: the last failure.
    pub error: Option<Value>,
    /// Request id of the call that submitted the job.
    pub request_id: String,
    /// When the job was submitted (stored in milliseconds since the epoch).
    pub created_at: DateTime<Utc>,
    /// When its status, attempts, result or error last changed
    /// (milliseconds since the epoch as stored).
    pub updated_at: DateTime<Utc>,
    /// When a queued job is due.
    pub next_attempt_at: DateTime<Utc>,
}

/// A job taken from the embedded queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueClaim {
    /// The claimed job's [`SyncJob::id`].
    pub job_id: String,
    /// Times the job was handed out, this time included (above 1: a worker
    /// died with it, or it is a retry).
    pub deliveries: u32,
}

/// Durable sync state, and the embedded queue. Every method is safe to
/// call from several processes sharing one database.
#[async_trait]
pub trait SyncJobStore: Send + Sync {
    /// Inserts a new job.
    async fn create_sync_job(&self, job: &SyncJob) -> StoreResult<()>;

    /// The job `id`, whoever submitted it (callers check the account).
    async fn get_sync_job(&self, id: &str) -> StoreResult<Option<SyncJob>>;

    /// The newest unfinished (`queued` or `running`) job of `account_id` for
    /// `operation_key` and `target`, if any: a repeated submission joins it.
    async fn open_sync_job(&self, account_id: &str, operation_key: &str, target: &str) -> StoreResult<Option<SyncJob>>;

    /// Writes the job's status, attempts, result, error and times.
    async fn update_sync_job(&self, job: &SyncJob) -> StoreResult<()>;

    /// `failed` jobs, most recently failed first, at most `limit`.
    async fn failed_sync_jobs(&self, limit: u32) -> StoreResult<Vec<SyncJob>>;

    /// Puts job `job_id` in the embedded queue, due at `due` (replacing an
    /// entry it has, whoever held it).
    async fn queue_push(&self, job_id: &str, due: DateTime<Utc>) -> StoreResult<()>;

    /// Claims for `consumer`, until `until`, the entry due earliest among
    /// those due by `now` and not held (never claimed, or their lease
    /// passed). Two consumers never claim one entry at once.
    async fn queue_claim(
        &self,
        consumer: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<Option<QueueClaim>>;

    /// Extends `consumer`'s claim on `job_id` to `until`; false when it no
    /// longer holds it.
    async fn queue_touch(&self, job_id: &str, consumer: &str, until: DateTime<Utc>) -> StoreResult<bool>;

    /// Removes `job_id` from the queue if `consumer` still holds it.
    async fn queue_remove(&self, job_id: &str, consumer: &str) -> StoreResult<()>;
}

/// Columns read back into a [`SyncJob`].
pub(crate) const SYNC_JOB_COLUMNS: &str = "id, operation_key, account_id, target, request, status, attempts, result, \
     error, request_id, created_at, updated_at, next_attempt_at";

pub(crate) const INSERT_SYNC_JOB: &str = "INSERT INTO sync_jobs (id, operation_key, account_id, target, request, \
     status, attempts, result, error, request_id, created_at, updated_at, next_attempt_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";

pub(crate) const UPDATE_SYNC_JOB: &str = "UPDATE sync_jobs SET status = $2, attempts = $3, result = $4, error = $5, \
     updated_at = $6, next_attempt_at = $7 WHERE id = $1";

pub(crate) const OPEN_SYNC_JOB: &str = "WHERE account_id = $1 AND operation_key = $2 AND target = $3 \
     AND status IN ('queued', 'running') ORDER BY created_at DESC LIMIT 1";

pub(crate) const FAILED_SYNC_JOBS: &str = "WHERE status = 'failed' ORDER BY updated_at DESC LIMIT $1";

/// An upsert both backends accept.
pub(crate) const QUEUE_PUSH: &str = "INSERT INTO sync_queue (job_id, due_at, consumer, lease_until, deliveries) \
     VALUES ($1, $2, NULL, 0, 0) ON CONFLICT (job_id) DO UPDATE SET due_at = $2, consumer = NULL, lease_until = 0";

/// The claim statement: the inner SELECT picks a candidate (on PostgreSQL
/// skipping rows being claimed by others); the outer conditions are checked
/// again as the row is updated, so an entry claimed meanwhile is skipped
/// (the claim then finds nothing this time and is tried again).
pub(crate) fn queue_claim(dialect: super::listing::Dialect) -> String {
    // PostgreSQL skips rows another transaction is claiming, so concurrent
    // consumers take different rows; SQLite has one writer at a time.
    let skip_locked = match dialect {
        super::listing::Dialect::Sqlite => "",
        super::listing::Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
    };
    dialect.placeholders(format!(
        "UPDATE sync_queue SET consumer = $1, lease_until = $3, deliveries = deliveries + 1 \
         WHERE job_id = (SELECT job_id FROM sync_queue WHERE due_at <= $2 AND lease_until < $2 \
         ORDER BY due_at LIMIT 1{skip_locked}) AND due_at <= $2 AND lease_until < $2 RETURNING job_id, deliveries"
    ))
}

pub(crate) const QUEUE_TOUCH: &str = "UPDATE sync_queue SET lease_until = $3 WHERE job_id = $1 AND consumer = $2";

pub(crate) const QUEUE_REMOVE: &str = "DELETE FROM sync_queue WHERE job_id = $1 AND consumer = $2";

/// Reads a sync job row.
fn sync_job_record<R: Row>(row: &R) -> Result<SyncJob, sqlx::Error>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i32: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    Ok(SyncJob {
        id: row.try_get("id")?,
        operation_key: row.try_get("operation_key")?,
        account_id: row.try_get("account_id")?,
        target: row.try_get("target")?,
        request: json(row.try_get("request")?).unwrap_or_default(),
        status: SyncStatus::parse(&row.try_get::<String, _>("status")?),
        attempts: u32::try_from(row.try_get::<i32, _>("attempts")?).unwrap_or_default(),
        result: json(row.try_get("result")?),
        error: json(row.try_get("error")?),
        request_id: row.try_get("request_id")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
        next_attempt_at: from_millis(row.try_get("next_attempt_at")?),
    })
}

#[async_trait]
impl<DB: Backend> SyncJobStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
    i32: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
{
    async fn create_sync_job(&self, job: &SyncJob) -> StoreResult<()> {
        sqlx::query(&Self::sql(INSERT_SYNC_JOB))
            .bind(&job.id)
            .bind(&job.operation_key)
            .bind(&job.account_id)
            .bind(&job.target)
            .bind(job.request.to_string())
            .bind(job.status.as_str())
            .bind(i32::try_from(job.attempts).unwrap_or(i32::MAX))
            .bind(job.result.as_ref().map(|v| v.to_string()))
            .bind(job.error.as_ref().map(|v| v.to_string()))
            .bind(&job.request_id)
            .bind(millis(job.created_at))
            .bind(millis(job.updated_at))
            .bind(millis(job.next_attempt_at))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn get_sync_job(&self, id: &str) -> StoreResult<Option<SyncJob>> {
        let statement = Self::sql(&format!("SELECT {} FROM sync_jobs WHERE id = $1", SYNC_JOB_COLUMNS));
        let row = sqlx::query(&statement).bind(id).fetch_optional(&self.pool).await?;
        Ok(row.as_ref().map(sync_job_record).transpose()?)
    }

    async fn open_sync_job(&self, account_id: &str, operation_key: &str, target: &str) -> StoreResult<Option<SyncJob>> {
        let statement = Self::sql(&format!("SELECT {} FROM sync_jobs {}", SYNC_JOB_COLUMNS, OPEN_SYNC_JOB));
        let row = sqlx::query(&statement)
            .bind(account_id)
            .bind(operation_key)
            .bind(target)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(sync_job_record).transpose()?)
    }

    async fn update_sync_job(&self, job: &SyncJob) -> StoreResult<()> {
        sqlx::query(&Self::sql(UPDATE_SYNC_JOB))
            .bind(&job.id)
            .bind(job.status.as_str())
            .bind(i32::try_from(job.attempts).unwrap_or(i32::MAX))
            .bind(job.result.as_ref().map(|v| v.to_string()))
            .bind(job.error.as_ref().map(|v| v.to_string()))
            .bind(millis(job.updated_at))
            .bind(millis(job.next_attempt_at))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn failed_sync_jobs(&self, limit: u32) -> StoreResult<Vec<SyncJob>> {
        let statement = Self::sql(&format!("SELECT {} FROM sync_jobs {}", SYNC_JOB_COLUMNS, FAILED_SYNC_JOBS));
        let rows = sqlx::query(&statement).bind(i64::from(limit)).fetch_all(&self.pool).await?;
        let mut jobs = Vec::with_capacity(rows.len());
        for row in &rows {
            jobs.push(sync_job_record(row)?);
        }
        Ok(jobs)
    }

    async fn queue_push(&self, job_id: &str, due: DateTime<Utc>) -> StoreResult<()> {
        sqlx::query(&Self::sql(QUEUE_PUSH)).bind(job_id).bind(millis(due)).execute(&self.pool).await?;
        Ok(())
    }

    async fn queue_claim(
        &self,
        consumer: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<Option<QueueClaim>> {
        let row = sqlx::query(&queue_claim(DB::DIALECT))
            .bind(consumer)
            .bind(millis(now))
            .bind(millis(until))
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => Some(QueueClaim {
                job_id: row.try_get("job_id")?,
                deliveries: u32::try_from(row.try_get::<i32, _>("deliveries")?).unwrap_or_default(),
            }),
            None => None,
        })
    }

    async fn queue_touch(&self, job_id: &str, consumer: &str, until: DateTime<Utc>) -> StoreResult<bool> {
        let done = sqlx::query(&Self::sql(QUEUE_TOUCH))
            .bind(job_id)
            .bind(consumer)
            .bind(millis(until))
            .execute(&self.pool)
            .await?;
        Ok(DB::rows_affected(&done) == 1)
    }

    async fn queue_remove(&self, job_id: &str, consumer: &str) -> StoreResult<()> {
        sqlx::query(&Self::sql(QUEUE_REMOVE)).bind(job_id).bind(consumer).execute(&self.pool).await?;
        Ok(())
    }
}
