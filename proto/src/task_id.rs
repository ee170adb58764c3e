//! The envelope's optional `taskId` (docs/sync.md "Task id"): a call that
//! starts a task whose answer has no place for its id (a sync receipt,
//! spec 2.6) sends it as the ASCII gRPC response metadata [`METADATA`];
//! the gateway puts it in the envelope's top-level `taskId`.

/// ASCII metadata key.
pub const METADATA: &str = "mediaops-task-id";
