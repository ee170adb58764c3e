//! Reading counters out of snapshot series for a ranking window
//! (docs/rankings.md "Levels and gains"), and ordering ranked entries.
//!
//! - the **level** of a counter over a window is its value in the last
//!   snapshot captured inside the window (Shanghai days, both ends
//!   included);
//! - its **gain** is that level minus the **baseline**: the last snapshot
//!   captured before the window (the store is read from the day before the
//!   window's first day), or, when there is none, the first snapshot inside
//!   the window. A counter unknown in either snapshot has no gain.

use chrono::{DateTime, Days, Utc};

use mediaops_store::model::{AccountSnapshot, WorkSnapshot};
use mediaops_store::rankings::rules::Window;
use mediaops_store::rules::times::{day_end, day_start};

/// Snapshots that know when they were captured.
pub trait Captured {
    /// When the snapshot was taken (UTC).
    fn captured_at(&self) -> DateTime<Utc>;
}

impl Captured for WorkSnapshot {
    fn captured_at(&self) -> DateTime<Utc> {
        self.captured_at
    }
}

impl Captured for AccountSnapshot {
    fn captured_at(&self) -> DateTime<Utc> {
        self.captured_at
    }
}

/// The capture times a ranking of `window` reads: from the start of the day
/// before its first day (baselines) to the end of its last day (UTC).
pub fn read_span(window: Window) -> (DateTime<Utc>, DateTime<Utc>) {
    (day_start(window.first - Days::new(1)), day_end(window.last))
}

/// The last snapshot captured inside `window` (oldest-first `snapshots`).
pub fn last_in<S: Captured>(snapshots: &[S], window: Window) -> Option<&S> {
    let (from, to) = (day_start(window.first), day_end(window.last));
    snapshots.iter().rev().find(|s| s.captured_at() >= from && s.captured_at() <= to)
}

/// A counter's level over `window`: its value in [`last_in`].
pub fn level<S: Captured>(snapshots: &[S], window: Window, value: impl Fn(&S) -> Option<i64>) -> Option<i64> {
    last_in(snapshots, window).and_then(value)
}

/// A counter's gain over `window`: level minus baseline (module doc).
pub fn gain<S: Captured>(snapshots: &[S], window: Window, value: impl Fn(&S) -> Option<i64>) -> Option<i64> {
    let end = last_in(snapshots, window)?;
    let start = day_start(window.first);
    let base = snapshots
        .iter()
        .rev()
        .find(|s| s.captured_at() < start)
        .or_else(|| snapshots.iter().find(|s| s.captured_at() >= start))?;
    Some(value(end)? - value(base)?)
}

/// Likes + collects + comments + shares, unknown counting 0 (interactions).
pub fn interactions(s: &WorkSnapshot) -> Option<i64> {
    let parts = [s.likes, s.collects, s.comments, s.shares];
    if parts.iter().all(Option::is_none) {
        return None;
    }
    Some(parts.iter().map(|v| v.unwrap_or(0)).sum())
}

/// Sorts `entries` by `score` descending, ties by `name` ascending (then
/// the order they came in), and keeps the first `limit`.
pub fn top<T, K: PartialOrd>(
    mut entries: Vec<T>,
    limit: usize,
    score: impl Fn(&T) -> K,
    name: impl Fn(&T) -> &str,
) -> Vec<T> {
    entries.sort_by(|a, b| {
        score(b).partial_cmp(&score(a)).unwrap_or(std::cmp::Ordering::Equal).then_with(|| name(a).cmp(name(b)))
    });
    entries.truncate(limit);
    entries
}

/// Rounds to `places` decimals.
pub fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use mediaops_store::clock::shanghai_to_utc;

    fn snap(day: u32, hour: u32, likes: Option<i64>) -> WorkSnapshot {
        let date = NaiveDate::from_ymd_opt(2026, 11, day).unwrap();
        WorkSnapshot {
            captured_at: shanghai_to_utc(date, chrono::NaiveTime::from_hms_opt(hour, 0, 0).unwrap()),
            likes,
            ..Default::default()
        }
    }

    #[test]
    fn levels_and_gains_use_the_day_before_as_baseline() {
        let d = |day| NaiveDate::from_ymd_opt(2026, 11, day).unwrap();
        let series =
            vec![snap(16, 23, Some(100)), snap(17, 8, Some(150)), snap(17, 22, Some(180)), snap(18, 9, Some(400))];
        let day17 = Window::day(d(17));
        assert_eq!(level(&series, day17, |s| s.likes), Some(180));
        assert_eq!(gain(&series, day17, |s| s.likes), Some(80));
        // no snapshot before the window: the first one inside is the baseline
        assert_eq!(gain(&series[1..], day17, |s| s.likes), Some(30));
        // nothing inside the window: no level, no gain
        assert_eq!(gain(&series, Window::day(d(19)), |s| s.likes), None);
        // an unknown counter has no gain
        let unknown = vec![snap(16, 23, None), snap(17, 22, Some(5))];
        assert_eq!(gain(&unknown, day17, |s| s.likes), None);
        let week = Window { first: d(16), last: d(18) };
        assert_eq!(gain(&series, week, |s| s.likes), Some(300));
    }

    #[test]
    fn top_orders_by_score_then_name_and_limits() {
        let entries = vec![("b", 5), ("a", 5), ("c", 9), ("d", 1)];
        let ranked = top(entries, 3, |e| e.1, |e| e.0);
        assert_eq!(ranked, vec![("c", 9), ("a", 5), ("b", 5)]);
        assert_eq!(round(1.23456, 2), 1.23);
    }
}
