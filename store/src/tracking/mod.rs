//! Where tracking lists live (docs/tracking.md "Storage"): the
//! [`TrackingStore`] trait, implemented for both databases of the content
//! store (`crate::tracking`, migration 0016). Specs and run-log
//! lines are stored as proto JSON ([`crate::scheduled::to_json`]).

mod sql_store;

use mediaops_proto::mediaops::tracking::v1::{TrackingRun, TrackingSpec};

pub use crate::scheduled::{RunOutcome, Scheduled};
use mediaops_proto::error::ServiceError;

/// One stored tracking list: the owner's spec and what the scheduler keeps
/// beside it (`state` as `mediaops_ops::watch::state`).
pub type StoredTracking = Scheduled<TrackingSpec>;

/// Tracking lists by (account, id) and their run logs. An account only
/// ever reaches its own.
#[async_trait::async_trait]
pub trait TrackingStore: Send + Sync + 'static {
    /// The account's tracking lists, by id (byte order).
    async fn list_tracking(&self, account_id: &str) -> Result<Vec<StoredTracking>, ServiceError>;

    /// One tracking list, `None` when there is none with that id.
    async fn get_tracking(&self, account_id: &str, id: &str) -> Result<Option<StoredTracking>, ServiceError>;

    /// Creates or replaces the tracking list `stored.id` whole, and drops
    /// any runner's lease on it (that runner's
    /// [`TrackingStore::finish_tracking`] then writes nothing: the owner's
    /// edit wins).
    async fn put_tracking(&self, account_id: &str, stored: &StoredTracking) -> Result<(), ServiceError>;

    /// Deletes a tracking list with its run log (not the snapshots its runs
    /// wrote); false when there was none.
    async fn delete_tracking(&self, account_id: &str, id: &str) -> Result<bool, ServiceError>;

    /// Up to `limit` (account, id) pairs due at `now_ms` and not leased (or
    /// whose lease passed), soonest first.
    async fn due_tracking(&self, now_ms: i64, limit: i64) -> Result<Vec<(String, String)>, ServiceError>;

    /// Leases a due tracking list to `owner` until `until_ms` when it is
    /// still due at `now_ms` and nobody else holds it; answers it then. The
    /// row update is conditional, so one runner of all replicas wins.
    async fn claim_tracking(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Option<StoredTracking>, ServiceError>;

    /// Writes a run's outcome and clears the lease, only while `owner` still
    /// holds it (false: the list was edited, deleted or taken over).
    async fn finish_tracking(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        outcome: &RunOutcome,
    ) -> Result<bool, ServiceError>;

    /// Appends a run to the log; a run id already logged is kept as it is
    /// (false), so a run is logged once.
    async fn add_run(&self, account_id: &str, id: &str, run: &TrackingRun) -> Result<bool, ServiceError>;

    /// The last `limit` runs, newest first.
    async fn runs(&self, account_id: &str, id: &str, limit: i64) -> Result<Vec<TrackingRun>, ServiceError>;
}
