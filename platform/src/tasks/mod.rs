//! Asynchronous tasks (docs/tasks.md): operations whose work may outlive the
//! call that starts it (`skills.ai-web-search`, spec 4.14: "runs
//! asynchronously; results arrive within about 5 minutes").
//!
//! The [`TaskRunner`] of a process creates a task in the durable
//! [`TaskStore`], runs its [`TaskWork`] in the background under a lease it
//! renews, and finishes it as `success` or `failed`. The task owns the
//! call's ledger hold: it commits the points when the task succeeds and
//! releases them when it fails, so a task is charged once, and only when it
//! succeeds. Tasks survive a restart: a task whose runner stopped or died is
//! claimed once its lease has passed (at start-up, and every
//! [`LEASE_RENEW_EVERY`] after) and run again from its stored request if its
//! deadline has not passed, or finished as failed (and released) if it has.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use chrono::{DateTime, Utc};
use mediaops_proto::error_code::ErrorCode;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::AbortHandle;

use crate::billing::{Ledger, Reserved, UsageRecord};
use crate::registry::{BoxFuture, CallContext};
use mediaops_proto::error::ServiceError;
use mediaops_store::task::{Task, TaskCharge, TaskOutcome, TaskStatus, TaskStore};

/// How long a runner's claim on a running task holds without renewal.
pub const LEASE: Duration = Duration::from_secs(30);

/// How often a runner renews its leases and looks for orphaned tasks.
pub const LEASE_RENEW_EVERY: Duration = Duration::from_secs(10);

/// Orphaned tasks claimed per look.
const CLAIM_BATCH: u32 = 32;

/// The work of one operation's tasks: from the stored request (JSON) to the
/// result (JSON) or the error the task fails with. Run again from the start
/// when a task is resumed after a restart, so it must be safe to repeat
/// (the web search only reads).
pub trait TaskWork: Send + Sync + 'static {
    /// Runs the task's work on its stored request: its result, or the error it fails with.
    fn run(&self, request: Value) -> BoxFuture<Result<Value, ServiceError>>;
}

/// Creates, runs, resumes and settles the tasks of one process.
pub struct TaskRunner {
    store: Arc<dyn TaskStore>,
    ledger: Arc<dyn Ledger>,
    /// This process's lease-owner id (a UUID).
    owner: String,
    works: RwLock<HashMap<String, Arc<dyn TaskWork>>>,
    /// Tasks running here: a completion signal and the handle that stops
    /// them at shutdown.
    running: Mutex<HashMap<String, (watch::Receiver<bool>, AbortHandle)>>,
}

impl TaskRunner {
    /// A runner keeping tasks in `store` and charging through `ledger`.
    pub fn new(store: Arc<dyn TaskStore>, ledger: Arc<dyn Ledger>) -> Arc<TaskRunner> {
        Arc::new(TaskRunner {
            store,
            ledger,
            owner: uuid::Uuid::new_v4().to_string(),
            works: RwLock::new(HashMap::new()),
            running: Mutex::new(HashMap::new()),
        })
    }

    /// The store tasks live in.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// Declares how tasks of `operation_key` run (before [`TaskRunner::start`]).
    pub fn register(&self, operation_key: &str, work: Arc<dyn TaskWork>) {
        self.works.write().unwrap_or_else(|e| e.into_inner()).insert(operation_key.to_owned(), work);
    }

    fn work(&self, operation_key: &str) -> Option<Arc<dyn TaskWork>> {
        self.works.read().unwrap_or_else(|e| e.into_inner()).get(operation_key).cloned()
    }

    /// Starts the lease loop: claims orphaned tasks now and every
    /// [`LEASE_RENEW_EVERY`], renewing this runner's leases. The loop holds
    /// only a weak reference and ends with the runner.
    pub fn start(self: &Arc<Self>) {
        let runner = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let Some(this) = Weak::upgrade(&runner) else { break };
                this.renew_and_claim().await;
                drop(this);
                tokio::time::sleep(LEASE_RENEW_EVERY).await;
            }
        });
    }

    /// Creates a task for the call `ctx` with `request` and runs it in the
    /// background; the task takes the call's hold over. `deadline` bounds
    /// the task's whole life.
    ///
    /// # Errors
    /// No work is registered for the operation (500; the hold stays with
    /// the call and the pipeline releases it), or the task cannot be stored
    /// (500; the hold is released here).
    pub async fn submit(
        self: &Arc<Self>,
        ctx: &CallContext,
        request: Value,
        deadline: Duration,
    ) -> Result<Task, ServiceError> {
        let operation_key = ctx.operation.key().to_owned();
        let Some(work) = self.work(&operation_key) else {
            return Err(ServiceError::internal(format!("no task work is registered for {operation_key}")));
        };
        let now = Utc::now();
        let mut task = Task {
            id: uuid::Uuid::new_v4().to_string(),
            operation_key,
            account_id: ctx.account_id().to_owned(),
            status: TaskStatus::Running,
            request,
            result: None,
            error: None,
            charge: None,
            request_id: ctx.request_id.clone(),
            created_at: now,
            updated_at: now,
            deadline_at: now + deadline,
            lease_owner: Some(self.owner.clone()),
            lease_until: Some(now + LEASE),
        };
        // The task takes the hold with it into the row; if the row cannot
        // be written the hold is released here, since the pipeline no
        // longer has it.
        let hold = ctx.hold.take();
        task.charge = hold.as_ref().map(|h| TaskCharge { reservation_id: h.reservation_id.clone(), points: h.points });
        if let Err(e) = self.store.create_task(&task).await {
            if hold.is_some() {
                self.settle(&task, false).await;
            }
            return Err(e.into_service_error("task store"));
        }
        self.spawn(task.clone(), work);
        Ok(task)
    }

    /// Waits up to `timeout` for the task `id` to finish, then returns it as
    /// stored (still `running` if it did not finish).
    pub async fn wait(&self, id: &str, timeout: Duration) -> Result<Task, ServiceError> {
        let signal = self.running.lock().unwrap_or_else(|e| e.into_inner()).get(id).map(|(rx, _)| rx.clone());
        if let Some(mut done) = signal {
            let _ = tokio::time::timeout(timeout, done.wait_for(|finished| *finished)).await;
        }
        self.store
            .get_task(id)
            .await
            .map_err(|e| e.into_service_error("task store"))?
            .ok_or_else(|| ServiceError::not_found(format!("no task {id}")))
    }

    /// Stops every task running here and gives up their leases, so the next
    /// process to start (or another replica) resumes them at once. Called
    /// when the server shuts down.
    pub async fn shutdown(&self) {
        let running: Vec<_> = self.running.lock().unwrap_or_else(|e| e.into_inner()).drain().collect();
        for (_, (_, handle)) in &running {
            handle.abort();
        }
        if let Err(e) = self.store.renew_task_leases(&self.owner, DateTime::UNIX_EPOCH).await {
            tracing::warn!(error = %e, "task leases not given up; they expire instead");
        }
    }

    fn spawn(self: &Arc<Self>, task: Task, work: Arc<dyn TaskWork>) {
        let (done_tx, done_rx) = watch::channel(false);
        let runner = self.clone();
        let id = task.id.clone();
        // Registered before the task can finish, so `wait` never misses it.
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let handle = tokio::spawn(async move {
            runner.run(task, work).await;
            let _ = done_tx.send(true);
        });
        running.insert(id, (done_rx, handle.abort_handle()));
        drop(running);
        self.forget_finished();
    }

    /// Drops the signals of tasks that have finished.
    fn forget_finished(&self) {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).retain(|_, (rx, _)| !*rx.borrow());
    }

    /// Runs the work until the deadline, then finishes and settles the task.
    async fn run(self: Arc<Self>, task: Task, work: Arc<dyn TaskWork>) {
        let left = (task.deadline_at - Utc::now()).to_std().unwrap_or_default();
        let outcome = match tokio::time::timeout(left, work.run(task.request.clone())).await {
            Ok(Ok(result)) => TaskOutcome::Success(result),
            Ok(Err(error)) => TaskOutcome::Failed(error_json(&error)),
            Err(_) => TaskOutcome::Failed(deadline_error(&task)),
        };
        self.finish(&task, outcome).await;
    }

    /// Writes the outcome (only if this runner still holds the task) and
    /// then settles its charge: commit on success, release on failure.
    async fn finish(&self, task: &Task, outcome: TaskOutcome) {
        let success = matches!(outcome, TaskOutcome::Success(_));
        match self.store.finish_task(&task.id, &self.owner, &outcome, Utc::now()).await {
            Ok(true) => self.settle(task, success).await,
            Ok(false) => tracing::warn!(task = task.id, "task was finished by another runner; not settled here"),
            Err(e) => tracing::error!(task = task.id, error = %e, "task outcome not stored; it is resumed later"),
        }
    }

    /// Commits or releases the task's hold and logs the charge in the usage
    /// log (`points` = what was kept; outcome `task_success` or
    /// `task_failed`).
    async fn settle(&self, task: &Task, success: bool) {
        let kept = match &task.charge {
            Some(charge) => {
                let settled = if success {
                    self.ledger.commit(&task.account_id, &charge.reservation_id).await
                } else {
                    self.ledger.release(&task.account_id, &charge.reservation_id).await
                };
                match settled {
                    Ok(true) if success => charge.points,
                    // The reservation is gone although nobody settled it:
                    // an embedded ledger releases every reservation when it
                    // opens, so a task resumed after a restart charges anew.
                    Ok(false) if success => self.charge_anew(task, charge.points).await,
                    Ok(_) => 0,
                    Err(e) => {
                        tracing::error!(task = task.id, error = %e, "task charge not settled; the reservation expires and is released");
                        0
                    }
                }
            }
            None => 0,
        };
        let record = UsageRecord {
            request_id: task.request_id.clone(),
            account_id: task.account_id.clone(),
            operation_key: task.operation_key.clone(),
            points: kept,
            outcome: if success { "task_success" } else { "task_failed" }.to_owned(),
            at: Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        };
        if let Err(e) = self.ledger.record_usage(&record).await {
            tracing::warn!(task = task.id, error = %e, "task usage not recorded");
        }
    }

    /// Charges `points` for a task whose reservation was released under
    /// it (reserve and commit a new one); 0, and a warning, when the
    /// balance no longer covers them: the answer is then free.
    async fn charge_anew(&self, task: &Task, points: i64) -> i64 {
        let reservation = format!("{}-resumed", task.id);
        let held = self.ledger.reserve(&task.account_id, &reservation, points, LEASE).await;
        match held {
            Ok(Reserved::Held { .. }) => match self.ledger.commit(&task.account_id, &reservation).await {
                Ok(true) => points,
                _ => 0,
            },
            Ok(Reserved::Insufficient { balance }) => {
                tracing::warn!(task = task.id, balance, points, "resumed task not charged: the balance is short");
                0
            }
            Err(e) => {
                tracing::error!(task = task.id, error = %e, "resumed task not charged");
                0
            }
        }
    }

    /// Renews this runner's leases and takes over orphaned tasks: resumed
    /// when their deadline is ahead, failed (and released) when it passed.
    async fn renew_and_claim(self: &Arc<Self>) {
        let now = Utc::now();
        if let Err(e) = self.store.renew_task_leases(&self.owner, now + LEASE).await {
            tracing::warn!(error = %e, "task leases not renewed");
        }
        let claimed = match self.store.claim_orphaned_tasks(&self.owner, now, now + LEASE, CLAIM_BATCH).await {
            Ok(claimed) => claimed,
            Err(e) => {
                tracing::warn!(error = %e, "orphaned tasks not claimed");
                return;
            }
        };
        for task in claimed {
            match self.work(&task.operation_key) {
                Some(work) if task.deadline_at > now => {
                    tracing::info!(task = task.id, operation = task.operation_key, "resuming task");
                    self.spawn(task, work);
                }
                Some(_) => {
                    let error = deadline_error(&task);
                    self.finish(&task, TaskOutcome::Failed(error)).await;
                }
                None => {
                    let error = json!({
                        "code": ErrorCode::NotConfigured.as_str(),
                        "message": format!(
                            "{} cannot run its tasks in this process: its upstream is not configured here; nothing was charged",
                            task.operation_key
                        ),
                    });
                    self.finish(&task, TaskOutcome::Failed(error)).await;
                }
            }
        }
    }
}

/// The failure of a task that outlived its deadline.
fn deadline_error(task: &Task) -> Value {
    let secs = (task.deadline_at - task.created_at).num_seconds();
    error_json(&ServiceError::new(
        ErrorCode::UpstreamUnavailable,
        format!("{} did not finish within {secs} s of its start; nothing was charged", task.operation_key),
    ))
}

/// The stored error object `{code, message, field?, upstream?: {code?,
/// message}}` of a failure.
pub fn error_json(error: &ServiceError) -> Value {
    let mut object = json!({"code": error.code.as_str(), "message": error.message});
    if let Some(field) = &error.field {
        object["field"] = json!(field);
    }
    if let Some(upstream) = &error.upstream {
        object["upstream"] = json!({"code": upstream.code, "message": upstream.message});
    }
    object
}

/// A stored error object back as the envelope's error.
pub fn error_proto(error: &Value) -> mediaops_proto::mediaops::common::v1::Error {
    let text = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_owned);
    mediaops_proto::mediaops::common::v1::Error {
        code: text("code").unwrap_or_else(|| ErrorCode::Internal.as_str().to_owned()),
        message: text("message").unwrap_or_default(),
        field: text("field"),
        upstream: error.get("upstream").map(|u| mediaops_proto::mediaops::common::v1::UpstreamError {
            code: u.get("code").and_then(Value::as_str).map(str::to_owned),
            message: u.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
        }),
    }
}

/// A stored error object back as a [`ServiceError`] (for an invoke call
/// whose task failed while the call waited).
pub fn error_from_json(error: &Value) -> ServiceError {
    let proto = error_proto(error);
    let code = ErrorCode::parse(&proto.code).unwrap_or(ErrorCode::Internal);
    ServiceError {
        field: proto.field,
        upstream: proto.upstream.map(|u| mediaops_proto::error::UpstreamDetail { code: u.code, message: u.message }),
        ..ServiceError::new(code, proto.message)
    }
}
