//! `GET /api/tasks/{taskId}` (`tasks.get`, free; docs/tasks.md): a task as
//! its operation's invoke answer shows it, plus `operationKey`, `error`
//! (when failed) and its times; a sync job (docs/sync.md) with its `sync`
//! progress. Only the owning account's keys see a task; for anyone else it
//! does not exist (404).

use std::sync::Arc;

use mediaops_proto::mediaops::tasks::v1::{GetTaskRequest, Task as TaskMessage};

use mediaops_platform::registry::CallContext;
use mediaops_platform::tasks::{TaskRunner, error_proto};
use mediaops_proto::error::ServiceError;
use mediaops_store::sync_job::SyncJobStore;
use mediaops_store::task::Task;

/// Longest `taskId` looked up (ids are UUIDs, 36 characters).
const MAX_TASK_ID_CHARS: usize = 64;

/// Where `tasks.get` looks: the task runner's store, then the sync jobs.
pub struct TaskReader {
    /// The runner of the asynchronous tasks.
    pub runner: Arc<TaskRunner>,
    /// The sync jobs, also answered as tasks.
    pub sync_jobs: Arc<dyn SyncJobStore>,
}

impl TaskReader {
    /// The task `request.taskId` of the caller's account: a task of the
    /// runner, else a sync job.
    ///
    /// # Errors
    /// 400 naming `taskId` for a malformed id; 404 for a task of another
    /// account or none; 503 when the stores cannot be read.
    pub async fn get(&self, ctx: &CallContext, request: &GetTaskRequest) -> Result<TaskMessage, ServiceError> {
        let id =
            mediaops_platform::fields::identifier(&request.task_id, "taskId", MAX_TASK_ID_CHARS).map_err(|_| {
                ServiceError::invalid_field("taskId", "`taskId` must be the taskId an invoke answer returned")
            })?;
        let unreadable = |e: mediaops_store::StoreError| e.into_service_error("task store");
        let mine = |account: &str| account == ctx.account_id();
        if let Some(task) = self.runner.store().get_task(id).await.map_err(unreadable)? {
            if mine(&task.account_id) {
                return Ok(view(&task));
            }
        } else if let Some(job) = self.sync_jobs.get_sync_job(id).await.map_err(unreadable)?
            && mine(&job.account_id)
        {
            return Ok(crate::sync::admin::task_view(&job));
        }
        Err(ServiceError::not_found(format!("no task {id} for this account")))
    }
}

/// The task as the API shows it.
pub fn view(task: &Task) -> TaskMessage {
    let time = |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let mut message = TaskMessage {
        task_id: task.id.clone(),
        status: task.status.as_str().to_owned(),
        operation_key: task.operation_key.clone(),
        error: task.error.as_ref().map(error_proto),
        created_at: time(task.created_at),
        updated_at: time(task.updated_at),
        ..TaskMessage::default()
    };
    if task.operation_key == mediaops_connectors::web_search::OPERATION_KEY {
        let answer = mediaops_connectors::web_search::answer(task);
        message.source = answer.source;
        message.query = answer.query;
        message.result = answer.result;
    }
    message
}
