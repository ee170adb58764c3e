//! The window rules of hot keywords, hot topics and the hot-list hub, in one
//! place (spec 4.1 "Hot-keyword and hot-topic time ranges", spec 8 "hot
//! keyword window: about 3 weeks"; docs/trends.md "Windows"):
//!
//! 1. A time range is two `datetime` fields, `YYYY-MM-DD HH:mm:ss` in
//!    Asia/Shanghai (spec 4: "fields marked `datetime`").
//! 2. A date-only value (`YYYY-MM-DD`) is **not** an error: the answer is
//!    silently empty (spec 4.1 "date-only values silently return 0
//!    entries"). Any other text is a 400 naming the field, and an end before
//!    its start is a 400 naming the end field (docs/data-apis.md "Times").
//! 3. Only about the last three weeks are covered (spec 4.1, spec 8): the
//!    covered span starts at 00:00:00 of the Shanghai day [`COVERAGE_DAYS`]
//!    days before the clock's today and ends at the clock's now. A window
//!    wholly before it gives 0 entries; a window partly inside it is clipped
//!    to it (the covered part answers). Captures after "now" are never
//!    shown, so an as-of clock replays history exactly (docs/store.md).
//! 4. Omitting both fields answers the latest batch (spec 4.1): each list's
//!    newest capture within the covered span. One field alone opens the
//!    window on the other side (start → up to now; end → from the start of
//!    coverage).

use chrono::{DateTime, Days, NaiveDate, Utc};

use super::times::{day_start, parse_datetime};
use crate::clock::Clock;
use mediaops_proto::error::ServiceError;

/// Days before today (Asia/Shanghai) that hot-list windows cover (spec 8:
/// "hot keyword window: about 3 weeks").
pub const COVERAGE_DAYS: u64 = 21;

/// A hot-list window after the rules of spec 4.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HotWindow {
    /// Nothing to read: a date-only value, or a window wholly outside the
    /// covered span. The answer is an empty success.
    Nothing,
    /// Captures within `[from, to]` (UTC); `latest_only` keeps only each
    /// list's newest capture within it (the "latest batch"). No `from`:
    /// from the oldest capture stored.
    Captures {
        /// The first capture time read (inclusive); `None`: the oldest stored.
        from: Option<DateTime<Utc>>,
        /// The last capture time read (inclusive).
        to: DateTime<Utc>,
        /// Keep only each list's newest capture within the window.
        latest_only: bool,
    },
}

impl HotWindow {
    /// The latest batch: each list's newest capture in the covered span.
    pub fn latest(clock: &Clock) -> HotWindow {
        HotWindow::Captures { from: Some(coverage_start(clock)), to: clock.now(), latest_only: true }
    }
}

/// 00:00:00 (Asia/Shanghai) of the day [`COVERAGE_DAYS`] before the clock's
/// today, in UTC: the oldest capture a hot-list window can see (rule 3).
pub fn coverage_start(clock: &Clock) -> DateTime<Utc> {
    let today = clock.today();
    day_start(today.checked_sub_days(Days::new(COVERAGE_DAYS)).unwrap_or(today))
}

/// One `datetime` field under rules 1–2: `Ok(None)` when empty,
/// `Ok(Some(None))` for a date-only value (silently nothing), else the
/// instant; any other text is a 400 naming `field`.
fn datetime_field(value: &str, field: &str) -> Result<Option<Option<DateTime<Utc>>>, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    if NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok() {
        return Ok(Some(None));
    }
    Ok(Some(parse_datetime(value, field)?))
}

/// The window of a `startDate`/`endDate` pair of `datetime` fields under
/// rules 1–4 (the field names are used in errors).
///
/// # Errors
/// 400 naming the field for a value that is neither a datetime nor a date,
/// and naming `end_field` when the end is before the start.
pub fn hot_window(
    start: &str,
    start_field: &str,
    end: &str,
    end_field: &str,
    clock: &Clock,
) -> Result<HotWindow, ServiceError> {
    let start = datetime_field(start, start_field)?;
    let end = datetime_field(end, end_field)?;
    let (start, end) = match (start, end) {
        (None, None) => return Ok(HotWindow::latest(clock)),
        (Some(None), _) | (_, Some(None)) => return Ok(HotWindow::Nothing),
        (start, end) => (start.flatten(), end.flatten()),
    };
    if let (Some(s), Some(e)) = (start, end)
        && e < s
    {
        return Err(ServiceError::invalid_field(end_field, format!("{end_field} is before {start_field}")));
    }
    Ok(clip(start, end, Some(coverage_start(clock)), clock.now()))
}

/// `[start, end]` (either open) clipped to `[floor, now]`: nothing when no
/// part of it is inside.
fn clip(
    start: Option<DateTime<Utc>>,
    end: Option<DateTime<Utc>>,
    floor: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> HotWindow {
    let from = match (start, floor) {
        (Some(s), Some(f)) => Some(s.max(f)),
        (s, f) => s.or(f),
    };
    let to = end.map_or(now, |e| e.min(now));
    match from {
        Some(from) if from > to => HotWindow::Nothing,
        _ => HotWindow::Captures { from, to, latest_only: false },
    }
}

/// The window of a `startDate`/`endDate` pair of **date** fields (whole
/// Shanghai days, `shortvideo-hot-trend`): both empty = the latest batch;
/// otherwise the days asked for, clipped to now. The spec sets no coverage
/// limit on this operation, so whatever the store holds for those days
/// answers.
///
/// # Errors
/// 400 naming the field for a value that is not `YYYY-MM-DD`, and naming
/// `end_field` when the end is before the start.
pub fn day_window(
    start: &str,
    start_field: &str,
    end: &str,
    end_field: &str,
    clock: &Clock,
) -> Result<HotWindow, ServiceError> {
    if start.trim().is_empty() && end.trim().is_empty() {
        return Ok(HotWindow::Captures { from: None, to: clock.now(), latest_only: true });
    }
    let (from, to) = super::times::date_window(start, start_field, end, end_field)?;
    Ok(clip(from, to, None, clock.now()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::times::format_time;

    fn clock() -> Clock {
        Clock::from_setting(Some("2024-06-22")).unwrap()
    }

    fn window(start: &str, end: &str) -> Result<HotWindow, ServiceError> {
        hot_window(start, "startDate", end, "endDate", &clock())
    }

    fn shown(w: HotWindow) -> (String, String, bool) {
        match w {
            HotWindow::Captures { from, to, latest_only } => (format_time(from), format_time(Some(to)), latest_only),
            HotWindow::Nothing => panic!("expected captures"),
        }
    }

    #[test]
    fn datetimes_answer_their_window() {
        let w = window("2024-06-10 00:00:00", "2024-06-16 23:59:59").unwrap();
        assert_eq!(shown(w), ("2024-06-10 00:00:00".into(), "2024-06-16 23:59:59".into(), false));
    }

    #[test]
    fn date_only_values_silently_give_nothing_but_garbage_is_a_400() {
        assert_eq!(window("2024-06-10", "2024-06-16").unwrap(), HotWindow::Nothing);
        assert_eq!(window("2024-06-10 00:00:00", "2024-06-16").unwrap(), HotWindow::Nothing);
        assert_eq!(window("2024-06-10", "").unwrap(), HotWindow::Nothing);
        assert_eq!(window("10/06/2024", "").unwrap_err().field.as_deref(), Some("startDate"));
        assert_eq!(window("2024-06-10", "2024-06-16T00:00:00").unwrap_err().field.as_deref(), Some("endDate"));
        let err = window("2024-06-16 00:00:00", "2024-06-10 00:00:00").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("endDate"));
    }

    #[test]
    fn only_three_weeks_are_covered() {
        // Today is 2024-06-22: coverage starts 2024-06-01 00:00:00.
        assert_eq!(format_time(Some(coverage_start(&clock()))), "2024-06-01 00:00:00");
        assert_eq!(window("2024-05-01 00:00:00", "2024-05-20 23:59:59").unwrap(), HotWindow::Nothing);
        let partly = window("2024-05-25 00:00:00", "2024-06-02 00:00:00").unwrap();
        assert_eq!(shown(partly), ("2024-06-01 00:00:00".into(), "2024-06-02 00:00:00".into(), false));
        let future = window("2024-06-21 00:00:00", "2024-07-01 00:00:00").unwrap();
        assert_eq!(shown(future).1, "2024-06-22 12:00:00", "never past now");
        assert_eq!(window("2024-06-23 00:00:00", "").unwrap(), HotWindow::Nothing);
    }

    #[test]
    fn no_range_is_the_latest_batch_and_one_side_opens_the_other() {
        assert_eq!(shown(window("", "").unwrap()), ("2024-06-01 00:00:00".into(), "2024-06-22 12:00:00".into(), true));
        assert_eq!(shown(window("2024-06-20 08:00:00", "").unwrap()).1, "2024-06-22 12:00:00");
        assert_eq!(shown(window("", "2024-06-03 08:00:00").unwrap()).0, "2024-06-01 00:00:00");
        let query = window("", "").unwrap().query(vec!["weibo".into()]).unwrap();
        assert!(query.latest_only);
        assert_eq!(query.sources, ["weibo"]);
        assert!(HotWindow::Nothing.query(Vec::new()).is_none());
    }

    #[test]
    fn day_windows_take_whole_days_and_no_coverage_limit() {
        let w = day_window("2022-06-20", "startDate", "2022-06-21", "endDate", &clock()).unwrap();
        assert_eq!(shown(w), ("2022-06-20 00:00:00".into(), "2022-06-21 23:59:59".into(), false));
        assert!(matches!(
            day_window("", "startDate", "", "endDate", &clock()).unwrap(),
            HotWindow::Captures { latest_only: true, .. }
        ));
        let err = day_window("2024-06-10 00:00:00", "startDate", "", "endDate", &clock()).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("startDate"));
        assert_eq!(day_window("2024-07-01", "startDate", "", "endDate", &clock()).unwrap(), HotWindow::Nothing);
    }
}
