//! What a handler knows about the call it serves.

use std::sync::{Arc, Mutex};

use super::hold::HoldSlot;
use super::operation::OperationInfo;
use crate::auth::Principal;

/// The authenticated caller, the request id and the operation of one call.
/// Cheap to clone: the clones of one call share one [`CallFacts`] (read
/// through `Deref`: `ctx.request_id`, `ctx.principal.account_id`).
#[derive(Debug, Clone)]
pub struct CallContext(Arc<CallFacts>);

/// What the clones of a [`CallContext`] share; set when the call starts,
/// the slots filled as it runs.
#[derive(Debug)]
pub struct CallFacts {
    /// Echoed from the client's `x-request-id`, or generated.
    pub request_id: String,
    /// The caller.
    pub principal: Principal,
    /// The operation called.
    pub operation: Arc<OperationInfo>,
    /// The points reserved for this call; a handler whose work outlives the
    /// call takes them over (docs/tasks.md "Billing").
    pub hold: HoldSlot,
    /// Notes for the caller on a successful answer (why a ranking is
    /// empty, …).
    pub warnings: Warnings,
    /// The task this call started, when its answer has no field for the id
    /// (a sync receipt): sent as the response metadata
    /// [`mediaops_proto::task_id::METADATA`]
    /// and shown as the envelope's top-level `taskId` (docs/sync.md).
    pub task_id: TaskIdSlot,
    /// The W3C trace id of the call's `traceparent` metadata, when it has a
    /// well-formed one; its log lines name it (docs/http.md "Tracing").
    pub trace_id: Option<String>,
}

impl std::ops::Deref for CallContext {
    type Target = CallFacts;

    fn deref(&self) -> &CallFacts {
        &self.0
    }
}

impl CallContext {
    /// The context of one call by `principal` to `operation`, holding nothing.
    pub fn new(request_id: String, principal: Principal, operation: Arc<OperationInfo>) -> CallContext {
        CallContext::traced(request_id, principal, operation, None)
    }

    /// [`CallContext::new`] of a call whose `traceparent` named `trace_id`.
    pub fn traced(
        request_id: String,
        principal: Principal,
        operation: Arc<OperationInfo>,
        trace_id: Option<String>,
    ) -> CallContext {
        CallContext(Arc::new(CallFacts {
            request_id,
            principal,
            operation,
            hold: HoldSlot::default(),
            warnings: Warnings::default(),
            task_id: TaskIdSlot::default(),
            trace_id,
        }))
    }

    /// The caller's account id.
    pub fn account_id(&self) -> &str {
        &self.principal.account_id
    }

    /// Adds a note to the answer's `warnings` (docs/rankings.md "Warnings").
    pub fn warn(&self, warning: impl Into<String>) {
        self.warnings.add(warning);
    }
}

/// The envelope's optional `warnings` array of one call: filled by the
/// handler, sent by the pipeline as the response metadata
/// [`mediaops_proto::warnings::METADATA`] (one UTF-8 entry per warning), turned into the
/// envelope's top-level `warnings` by the gateway. Absent when empty; never
/// changes `data`.
#[derive(Debug, Clone, Default)]
pub struct Warnings(Arc<Mutex<Vec<String>>>);

/// Warnings an answer carries at most; the last one then says how many
/// more there were. Warnings travel as response metadata, so an unbounded
/// number (one per unknown id of a long list) could blow the peer's
/// header-list limit (docs/errors.md "Limits of a request").
pub const MAX_WARNINGS: usize = 20;

impl Warnings {
    /// Adds a warning once (a repeated text is kept once), capped at
    /// [`mediaops_proto::excerpt::MESSAGE_CHARS`] characters; past
    /// `MAX_WARNINGS` the rest are counted in one last warning.
    pub fn add(&self, warning: impl Into<String>) {
        let warning = mediaops_proto::excerpt::cap_message(&warning.into()).into_owned();
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if all.contains(&warning) {
            return;
        }
        if all.len() < MAX_WARNINGS {
            all.push(warning);
        } else {
            // The last entry becomes (or already is) the count of the rest.
            let more = all.pop().as_deref().and_then(more_count).map_or(2, |n| n + 1);
            all.push(format!("… and {more} more warnings"));
        }
    }

    /// The warnings so far, in the order they were added.
    pub fn list(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The count of a "… and N more warnings" line.
fn more_count(warning: &str) -> Option<usize> {
    warning.strip_prefix("… and ")?.strip_suffix(" more warnings")?.parse().ok()
}

/// The id of the task one call started, if any; shared by the clones of the
/// call's context.
#[derive(Debug, Clone, Default)]
pub struct TaskIdSlot(Arc<Mutex<Option<String>>>);

impl TaskIdSlot {
    /// Records the task id (the last one set wins).
    pub fn set(&self, id: impl Into<String>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(id.into());
    }

    /// The task id, if one was set.
    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_capped_in_number_and_length() {
        let warnings = Warnings::default();
        for i in 0..1_000 {
            warnings.add(format!("userIds[{i}] is not in the store"));
        }
        warnings.add("x".repeat(100_000));
        let list = warnings.list();
        assert_eq!(list.len(), MAX_WARNINGS);
        assert_eq!(list[MAX_WARNINGS - 2], "userIds[18] is not in the store");
        assert_eq!(list[MAX_WARNINGS - 1], format!("… and {} more warnings", 1_001 - (MAX_WARNINGS - 1)));
        let long = Warnings::default();
        long.add("x".repeat(100_000));
        assert!(long.list()[0].len() < 600);
    }
}
