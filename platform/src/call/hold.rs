//! The points a call holds while it runs, and how an operation whose work
//! outlives the call (a task, docs/tasks.md) takes them over to settle later.

use std::sync::{Arc, Mutex};

/// A reservation in the ledger: `points` held for `account_id` under
/// `reservation_id` until committed or released.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    /// The account the points are held on.
    pub account_id: String,
    /// The ledger's id of the reservation.
    pub reservation_id: String,
    /// The points held.
    pub points: i64,
}

/// The hold of one call. The pipeline puts the reservation in before the
/// handler runs and settles it (commit on success, release on failure) when
/// the handler returns, unless the handler [`HoldSlot::take`]s it: then the
/// handler owns the settlement. Empty for free calls.
#[derive(Debug, Clone, Default)]
pub struct HoldSlot(Arc<Mutex<Option<Hold>>>);

impl HoldSlot {
    /// Takes the hold over; `None` when the call holds nothing (free, or
    /// already taken).
    pub fn take(&self) -> Option<Hold> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Puts the call's reservation in (the pipeline, after reserving).
    pub(crate) fn put(&self, hold: Hold) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(hold);
    }
}
