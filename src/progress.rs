//! The progress bar of `mediaops import`: counts from the start, a rate
//! and a time left only once they mean something. indicatif's own
//! `{per_sec}` and `{eta}` extrapolate from the first few rows, so a
//! 1.5 s import first read "2.77/s, 7m".

use std::fmt::Write as _;
use std::time::Duration;

/// How long rows must have been counted before a rate is shown.
pub const RATE_AFTER: Duration = Duration::from_secs(1);

/// A bar of `total` rows: `<file> [=====>   ] 1200/5000 rows`, then
/// `… rows (2,400/s, 2s left)` once [`rate_text`] has a rate.
pub fn rows(total: u64) -> indicatif::ProgressBar {
    let style = indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} rows{rate}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .with_key("rate", |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
            let _ = out.write_str(&rate_text(state.elapsed(), state.pos(), state.len().unwrap_or(0)));
        })
        .progress_chars("=> ");
    indicatif::ProgressBar::new(total).with_style(style)
}

/// ` (<rows>/s, <time> left)` for `done` of `total` rows after `elapsed`;
/// empty before [`RATE_AFTER`] or before the first row, when no rate is
/// known yet.
pub fn rate_text(elapsed: Duration, done: u64, total: u64) -> String {
    if elapsed < RATE_AFTER || done == 0 {
        return String::new();
    }
    let per_sec = done as f64 / elapsed.as_secs_f64();
    let mut text = format!(" ({}/s", grouped(per_sec.round() as u64));
    if total > done {
        let left = Duration::from_secs_f64((total - done) as f64 / per_sec);
        let _ = write!(text, ", {} left", indicatif::HumanDuration(left));
    }
    text.push(')');
    text
}

/// `12345` → `12,345`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_rate_before_one_is_known() {
        // The first ticks of a 1.5 s import: counts only.
        assert_eq!(rate_text(Duration::from_millis(5), 14, 4_000), "");
        assert_eq!(rate_text(Duration::from_millis(999), 2_000, 4_000), "");
        assert_eq!(rate_text(Duration::from_secs(3), 0, 4_000), "");
    }

    #[test]
    fn then_the_rate_and_the_time_left() {
        assert_eq!(rate_text(Duration::from_secs(2), 3_000, 4_500), " (1,500/s, 1 second left)");
        assert_eq!(rate_text(Duration::from_secs(4), 4_500, 4_500), " (1,125/s)");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(12), "12");
    }
}
