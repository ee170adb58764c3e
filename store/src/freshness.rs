//! How old the stored records a call read are (docs/vendors.md "Default
//! chains": a lookup reads the store first while its record is younger than
//! the mapping's `max_age_secs`). A caller wraps its store reads in
//! [`observe`]; every account and work the store returns inside it notes
//! its newest snapshot's `capturedAt`, and [`observe`] hands back the newest
//! of them. Outside [`observe`] nothing is noted.

use std::cell::Cell;
use std::future::Future;

use chrono::{DateTime, Utc};

tokio::task_local! {
    static NEWEST: Cell<Option<DateTime<Utc>>>;
}

/// Runs `reads` and returns its output with the newest snapshot time of
/// the accounts and works the store returned meanwhile (`None`: none had a
/// snapshot, or nothing was read).
pub async fn observe<T>(reads: impl Future<Output = T>) -> (T, Option<DateTime<Utc>>) {
    NEWEST
        .scope(Cell::new(None), async move {
            let output = reads.await;
            (output, NEWEST.with(Cell::get))
        })
        .await
}

/// Notes a returned record's newest snapshot time (the store's reads call
/// this; a no-op outside [`observe`]).
pub(crate) fn note(captured_at: Option<DateTime<Utc>>) {
    let Some(at) = captured_at else { return };
    let _ = NEWEST.try_with(|newest| {
        if newest.get().is_none_or(|n| n < at) {
            newest.set(Some(at));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_newest_time_inside_observe_is_returned() {
        let old = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().to_utc();
        let new = DateTime::parse_from_rfc3339("2026-02-01T00:00:00Z").unwrap().to_utc();
        note(Some(new)); // outside: ignored
        let ((), newest) = observe(async {
            note(Some(old));
            note(None);
            note(Some(new));
            note(Some(old));
        })
        .await;
        assert_eq!(newest, Some(new));
        assert_eq!(observe(async {}).await.1, None);
    }
}
