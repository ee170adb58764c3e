//! Asynchronous tasks in the content store's database (migration 0003,
//! docs/tasks.md): the [`TaskStore`] trait and its one implementation for
//! both backends, generic over them ([`SqlStore`]).
//!
//! A task belongs to one account and one operation. It is `running` until a
//! runner finishes it as `success` (with a result) or `failed` (with an
//! error). A running task is leased by the process that runs it; the lease is
//! renewed while that process lives, and a task whose lease has passed is
//! claimed by another process (or the same one after a restart), so no task
//! stays `running` forever. Finishing is conditional on still holding the
//! lease, so exactly one runner finishes, and settles, each task.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Row, Type};

use super::StoreResult;
use super::backend::{Backend, SqlStore};

/// Where a task is in its life (docs/tasks.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    /// Created and not finished: leased by a runner, or orphaned until
    /// another process claims it ([`TaskStore::claim_orphaned_tasks`]).
    Running,
    /// Finished with a result ([`Task::result`]); its reservation is committed.
    Success,
    /// Finished with an error ([`Task::error`]), or past its deadline; its
    /// reservation is released, nothing charged.
    Failed,
}

impl TaskStatus {
    /// `running`, `success` or `failed`: the `status` the API answers with.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Running => "running",
            TaskStatus::Success => "success",
            TaskStatus::Failed => "failed",
        }
    }

    /// Parses [`TaskStatus::as_str`]; an unknown value is read as `failed`,
    /// so a row written by a newer version never looks runnable.
    pub fn parse(status: &str) -> TaskStatus {
        match status {
            "running" => TaskStatus::Running,
            "success" => TaskStatus::Success,
            _ => TaskStatus::Failed,
        }
    }
}

/// The ledger reservation a task holds until it settles (docs/tasks.md
/// "Billing").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCharge {
    /// The ledger's id of the call's reservation (docs/billing.md), committed
    /// on success and released on failure.
    pub reservation_id: String,
    /// Points held, committed on success.
    pub points: i64,
}

/// One task, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// A UUID; the `taskId` of the API.
    pub id: String,
    /// `operationKey` of the operation that runs it, e.g. `skills.ai-web-search`.
    pub operation_key: String,
    /// The owning account; only its keys may read the task.
    pub account_id: String,
    /// Where the task is in its life (`status` column).
    pub status: TaskStatus,
    /// The request, as JSON.
    pub request: Value,
    /// The result, as JSON, once `success`.
    pub result: Option<Value>,
    /// `{code, message, upstream?}`, once `failed`.
    pub error: Option<Value>,
    /// The reservation the task holds until it settles; `None` when the call
    /// held none (a free operation).
    pub charge: Option<TaskCharge>,
    /// Request id of the call that created the task.
    pub request_id: String,
    /// When the task was created (stored in milliseconds since the epoch).
    pub created_at: DateTime<Utc>,
    /// When the task last changed: creation, or finishing (milliseconds
    /// since the epoch as stored).
    pub updated_at: DateTime<Utc>,
    /// A task still running at this moment fails.
    pub deadline_at: DateTime<Utc>,
    /// The runner process holding the task while it runs.
    pub lease_owner: Option<String>,
    /// End of the runner's lease, renewed every 10 s to 30 s ahead while it
    /// lives; once passed, another process may claim the task. `None` once
    /// finished.
    pub lease_until: Option<DateTime<Utc>>,
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOutcome {
    /// The result, as JSON.
    Success(Value),
    /// The error object `{code, message, upstream?}`.
    Failed(Value),
}

/// Durable task state. Every method is safe to call from several processes
/// sharing one database.
#[async_trait]
pub trait TaskStore: Send + Sync {
    /// Inserts a new task (its id must be new).
    async fn create_task(&self, task: &Task) -> StoreResult<()>;

    /// The task `id`, whoever owns it (callers check the owner).
    async fn get_task(&self, id: &str) -> StoreResult<Option<Task>>;

    /// Ends a running task leased by `owner`: status, result or error,
    /// `updated_at = at`, lease cleared. False (and nothing written) when the
    /// task is not running or another runner holds it.
    async fn finish_task(&self, id: &str, owner: &str, outcome: &TaskOutcome, at: DateTime<Utc>) -> StoreResult<bool>;

    /// Extends to `until` the lease of every running task `owner` holds;
    /// returns how many.
    async fn renew_task_leases(&self, owner: &str, until: DateTime<Utc>) -> StoreResult<u64>;

    /// Claims for `owner`, until `until`, at most `limit` running tasks whose
    /// lease passed before `now` (their runner died); returns them, oldest
    /// first. Two processes never claim the same task.
    async fn claim_orphaned_tasks(
        &self,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<Task>>;
}

/// Columns read back into a [`Task`].
pub(crate) const TASK_COLUMNS: &str = "id, operation_key, account_id, status, request, result, error, reservation_id, \
     points, request_id, created_at, updated_at, deadline_at, lease_owner, lease_until";

pub(crate) const INSERT_TASK: &str = "INSERT INTO tasks (id, operation_key, account_id, status, request, result, \
     error, reservation_id, points, request_id, created_at, updated_at, deadline_at, lease_owner, lease_until) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";

pub(crate) const FINISH_TASK: &str = "UPDATE tasks SET status = $3, result = $4, error = $5, updated_at = $6, \
     lease_owner = NULL, lease_until = NULL WHERE id = $1 AND status = 'running' AND lease_owner = $2";

pub(crate) const RENEW_LEASES: &str = "UPDATE tasks SET lease_until = $2 WHERE status = 'running' AND lease_owner = $1";

/// The inner SELECT picks candidates; the outer conditions are checked again
/// on each row as it is updated, so a row claimed meanwhile is skipped.
pub(crate) const CLAIM_ORPHANED: &str = "UPDATE tasks SET lease_owner = $1, lease_until = $3 \
     WHERE id IN (SELECT id FROM tasks WHERE status = 'running' AND (lease_until IS NULL OR lease_until < $2) \
     ORDER BY created_at LIMIT $4) AND status = 'running' AND (lease_until IS NULL OR lease_until < $2) \
     RETURNING ";

/// Milliseconds since the epoch, as stored.
pub(crate) fn millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// A stored millisecond count back as a time (out-of-range values read as the epoch).
pub(crate) fn from_millis(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// JSON text back as a value (text that is not JSON reads as a string).
pub(crate) fn json(text: Option<String>) -> Option<Value> {
    text.map(|t| serde_json::from_str(&t).unwrap_or(Value::String(t)))
}

/// (status, result, error) columns of an outcome.
pub(crate) fn outcome_columns(outcome: &TaskOutcome) -> (&'static str, Option<String>, Option<String>) {
    match outcome {
        TaskOutcome::Success(result) => (TaskStatus::Success.as_str(), Some(result.to_string()), None),
        TaskOutcome::Failed(error) => (TaskStatus::Failed.as_str(), None, Some(error.to_string())),
    }
}

/// Reads a task row.
fn task_record<R: Row>(row: &R) -> Result<Task, sqlx::Error>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let reservation_id: Option<String> = row.try_get("reservation_id")?;
    let points: i64 = row.try_get("points")?;
    Ok(Task {
        id: row.try_get("id")?,
        operation_key: row.try_get("operation_key")?,
        account_id: row.try_get("account_id")?,
        status: TaskStatus::parse(&row.try_get::<String, _>("status")?),
        request: json(row.try_get("request")?).unwrap_or_default(),
        result: json(row.try_get("result")?),
        error: json(row.try_get("error")?),
        charge: reservation_id.map(|reservation_id| TaskCharge { reservation_id, points }),
        request_id: row.try_get("request_id")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
        deadline_at: from_millis(row.try_get("deadline_at")?),
        lease_owner: row.try_get("lease_owner")?,
        lease_until: row.try_get::<Option<i64>, _>("lease_until")?.map(from_millis),
    })
}

#[async_trait]
impl<DB: Backend> TaskStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
{
    async fn create_task(&self, task: &Task) -> StoreResult<()> {
        let (reservation_id, points) = match &task.charge {
            Some(charge) => (Some(charge.reservation_id.clone()), charge.points),
            None => (None, 0),
        };
        sqlx::query(&Self::sql(INSERT_TASK))
            .bind(&task.id)
            .bind(&task.operation_key)
            .bind(&task.account_id)
            .bind(task.status.as_str())
            .bind(task.request.to_string())
            .bind(task.result.as_ref().map(|v| v.to_string()))
            .bind(task.error.as_ref().map(|v| v.to_string()))
            .bind(reservation_id)
            .bind(points)
            .bind(&task.request_id)
            .bind(millis(task.created_at))
            .bind(millis(task.updated_at))
            .bind(millis(task.deadline_at))
            .bind(&task.lease_owner)
            .bind(task.lease_until.map(millis))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn get_task(&self, id: &str) -> StoreResult<Option<Task>> {
        let statement = Self::sql(&format!("SELECT {} FROM tasks WHERE id = $1", TASK_COLUMNS));
        let row = sqlx::query(&statement).bind(id).fetch_optional(&self.pool).await?;
        Ok(row.as_ref().map(task_record).transpose()?)
    }

    async fn finish_task(&self, id: &str, owner: &str, outcome: &TaskOutcome, at: DateTime<Utc>) -> StoreResult<bool> {
        let (status, result, error) = outcome_columns(outcome);
        let done = sqlx::query(&Self::sql(FINISH_TASK))
            .bind(id)
            .bind(owner)
            .bind(status)
            .bind(result)
            .bind(error)
            .bind(millis(at))
            .execute(&self.pool)
            .await?;
        Ok(DB::rows_affected(&done) == 1)
    }

    async fn renew_task_leases(&self, owner: &str, until: DateTime<Utc>) -> StoreResult<u64> {
        let done = sqlx::query(&Self::sql(RENEW_LEASES)).bind(owner).bind(millis(until)).execute(&self.pool).await?;
        Ok(DB::rows_affected(&done))
    }

    async fn claim_orphaned_tasks(
        &self,
        owner: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<Task>> {
        let statement = Self::sql(&format!("{}{}", CLAIM_ORPHANED, TASK_COLUMNS));
        let rows = sqlx::query(&statement)
            .bind(owner)
            .bind(millis(now))
            .bind(millis(until))
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        let mut tasks = Vec::with_capacity(rows.len());
        for row in &rows {
            tasks.push(task_record(row)?);
        }
        tasks.sort_by_key(|t| t.created_at);
        Ok(tasks)
    }
}
