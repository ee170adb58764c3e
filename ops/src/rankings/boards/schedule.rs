//! The board builder in the core: a run when the core starts serving, then
//! one every `MEDIAOPS_BOARDS_INTERVAL_SECS` (default
//! [`DEFAULT_INTERVAL_SECS`]; 0 = off, for a core that leaves the building
//! to another replica or to `mediaops boards rebuild`). With several cores
//! on one PostgreSQL store every core runs the loop and the advisory lock
//! lets one build at a time.

use std::sync::Arc;
use std::time::Duration;

use super::builder::Builder;

/// Seconds between two runs by default: a run finds the marks written
/// since the last one, so a late snapshot re-ranks its boards within this.
pub const DEFAULT_INTERVAL_SECS: u64 = 300;

/// Starts the loop (nothing when `interval` is zero); it ends when the
/// handle is aborted. Each run is a task of its own, so a panicking run
/// ends that run only; failures are logged and retried at the next tick.
pub fn spawn(builder: &Arc<Builder>, interval: Duration) -> Option<tokio::task::JoinHandle<()>> {
    if interval.is_zero() {
        return None;
    }
    let builder = builder.clone();
    Some(tokio::spawn(async move {
        loop {
            let run = builder.clone();
            let outcome = tokio::spawn(async move { run.run(&mut |_, _, _| {}).await }).await;
            match outcome {
                Ok(Ok(summary)) if summary.built + summary.dropped + summary.raced > 0 => tracing::info!(
                    built = summary.built,
                    dropped = summary.dropped,
                    raced = summary.raced,
                    seconds = summary.seconds,
                    "ranking boards built"
                ),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::warn!(error = %e.message, "ranking board build failed"),
                Err(e) => tracing::warn!(error = %e, "ranking board build panicked"),
            }
            tokio::time::sleep(interval).await;
        }
    }))
}
