//! The timestamp of every log line (docs/performance.md "The per-call log
//! line"): RFC 3339 in UTC with microseconds, `2026-12-02T20:18:52.123456Z`,
//! the same text as tracing-subscriber's default `SystemTime` timer.
//!
//! That timer splits the instant into a calendar date and writes seven
//! numbers through `core::fmt` on every line (~2,400 instructions of a
//! charged call). [`SecondCachedTime`] keeps, per thread, the text up to the
//! whole second (`2026-12-02T20:18:52.`) and writes only the microseconds
//! while the second is the same. [`millis_text`] writes the same instant
//! with milliseconds from the same cache: the `at` of every usage record,
//! which chrono's RFC 3339 formatting took ~0.8 % of a charged call's CPU
//! for (docs/performance.md).

use std::cell::RefCell;
use std::fmt::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

/// See the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct SecondCachedTime;

thread_local! {
    /// The whole second (seconds since the Unix epoch) and its text up to
    /// and with the `.`; `u64::MAX` until the first line of the thread.
    static SECOND: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
}

impl FormatTime for SecondCachedTime {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        write_instant(SystemTime::now(), w)
    }
}

/// Writes `at` as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds,
/// truncated) to `out`. An instant before 1970 is written as the epoch's
/// first second.
///
/// # Errors
/// Only `out`'s own.
pub fn write_instant(at: SystemTime, out: &mut impl Write) -> fmt::Result {
    write_with_fraction(at, Fraction::Micros, out)
}

/// `at` as `YYYY-MM-DDTHH:MM:SS.fffZ` (UTC, milliseconds, truncated), the
/// text of chrono's `to_rfc3339_opts(SecondsFormat::Millis, true)`, from
/// the same per-thread cache: the `at` of a usage record (docs/billing.md).
pub fn millis_text(at: SystemTime) -> String {
    let mut text = String::with_capacity(24);
    // Writing into a String cannot fail.
    let _ = write_with_fraction(at, Fraction::Millis, &mut text);
    text
}

/// The digits after the second's `.`.
#[derive(Clone, Copy)]
enum Fraction {
    Millis,
    Micros,
}

fn write_with_fraction(at: SystemTime, fraction: Fraction, out: &mut impl Write) -> fmt::Result {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let second = since.as_secs();
    SECOND.with_borrow_mut(|(cached, text)| {
        if *cached != second {
            text.clear();
            let datetime: DateTime<Utc> = (UNIX_EPOCH + std::time::Duration::from_secs(second)).into();
            // Writing into a String cannot fail.
            let _ = write!(text, "{}.", datetime.format("%Y-%m-%dT%H:%M:%S"));
            *cached = second;
        }
        out.write_str(text)
    })?;
    let (value, width) = match fraction {
        Fraction::Millis => (since.subsec_millis(), 3),
        Fraction::Micros => (since.subsec_micros(), 6),
    };
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(value);
    out.write_str(&"000000"[6 - width + digits.len()..])?;
    out.write_str(digits)?;
    out.write_char('Z')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The text chrono writes for the same instant, as RFC 3339 with
    /// microseconds and `Z`: what tracing-subscriber's timer writes.
    fn reference(at: SystemTime) -> String {
        DateTime::<Utc>::from(at).to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
    }

    #[test]
    fn writes_what_the_default_timer_writes_across_seconds_and_days() {
        let start = UNIX_EPOCH + Duration::from_secs(1_796_255_999); // 2026-12-02T23:59:59Z
        // Steps of 0.3 s over midnight, then back to an earlier second, so the
        // cached second is both reused and replaced.
        let mut instants: Vec<SystemTime> = (0..12).map(|i| start + Duration::from_micros(i * 300_007)).collect();
        instants.push(start - Duration::from_secs(86_400 * 400) + Duration::from_nanos(999));
        instants.push(start + Duration::from_nanos(1_000_000_999));
        for at in instants {
            let mut ours = String::new();
            write_instant(at, &mut ours).unwrap();
            assert_eq!(ours, reference(at), "at {at:?}");
        }
    }

    #[test]
    fn millis_are_what_chrono_writes_for_a_usage_record() {
        let start = UNIX_EPOCH + Duration::from_secs(1_796_255_999); // 2026-12-02T23:59:59Z
        for step in [0, 1, 999, 1_000, 1_000_999, 300_007_000, 999_999_999, 1_000_000_001] {
            let at = start + Duration::from_nanos(step);
            let chrono = DateTime::<Utc>::from(at).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            assert_eq!(millis_text(at), chrono, "at {at:?}");
        }
    }

    #[test]
    fn an_instant_before_the_epoch_is_the_epoch() {
        let mut ours = String::new();
        write_instant(UNIX_EPOCH - Duration::from_secs(5), &mut ours).unwrap();
        assert_eq!(ours, "1970-01-01T00:00:00.000000Z");
    }
}
