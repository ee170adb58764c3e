//! `mediaops.tasks.v1.TaskService`: `GET /api/tasks/{taskId}`
//! ([`crate::task_reader`]).

use mediaops_proto::mediaops::tasks::v1::task_service::TaskService;
use mediaops_proto::mediaops::tasks::v1::{GetTaskRequest, Task};

use crate::task_reader::TaskReader;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The task RPC over the task runner and the sync jobs.
pub struct Tasks(pub TaskReader);

impl TaskService<Registry> for Tasks {
    async fn get_task(&self, ctx: CallContext, request: GetTaskRequest) -> Result<Task, ServiceError> {
        self.0.get(&ctx, &request).await
    }
}
