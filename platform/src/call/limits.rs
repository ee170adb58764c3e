//! How long a call may run and hold its reservation.

use std::time::Duration;

/// Timing bounds of a call.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// After this an unsettled reservation is released.
    pub reservation_ttl: Duration,
    /// A handler running longer fails with 502 and its charge is released.
    /// Always below `reservation_ttl`, so a commit never finds its
    /// reservation expired.
    pub operation_timeout: Duration,
}
