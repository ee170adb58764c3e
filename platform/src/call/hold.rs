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
///
/// Settling closes the slot (`HoldSlot::close`): a reservation that
/// completes after its call was settled (the caller went away while the
/// ledger was reserving) finds the slot closed and is released by whoever
/// reserved it, so no hold outlives its call.
#[derive(Debug, Clone, Default)]
pub struct HoldSlot(Arc<Mutex<SlotState>>);

#[derive(Debug, Default)]
struct SlotState {
    hold: Option<Hold>,
    closed: bool,
}

impl HoldSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the hold over; `None` when the call holds nothing (free, or
    /// already taken).
    pub fn take(&self) -> Option<Hold> {
        self.lock().hold.take()
    }

    /// Puts the call's reservation in (the pipeline, after reserving).
    ///
    /// # Errors
    /// The call was settled meanwhile: the hold comes back, to be released.
    pub(crate) fn put(&self, hold: Hold) -> Result<(), Hold> {
        let mut state = self.lock();
        if state.closed {
            return Err(hold);
        }
        state.hold = Some(hold);
        Ok(())
    }

    /// Takes the hold to settle it and closes the slot: nothing is put in
    /// after this.
    pub(crate) fn close(&self) -> Option<Hold> {
        let mut state = self.lock();
        state.closed = true;
        state.hold.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold() -> Hold {
        Hold { account_id: "a".into(), reservation_id: "r".into(), points: 1 }
    }

    #[test]
    fn a_hold_put_after_the_call_was_settled_comes_back() {
        let slot = HoldSlot::default();
        assert_eq!(slot.close(), None);
        assert_eq!(slot.put(hold()), Err(hold()));
        let open = HoldSlot::default();
        assert_eq!(open.put(hold()), Ok(()));
        assert_eq!(open.close(), Some(hold()));
    }
}
