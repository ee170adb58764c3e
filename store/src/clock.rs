//! The service's clock (`MEDIAOPS_NOW`): "now" and "today" in Asia/Shanghai
//! for the spec's date rules (spec 4.1: "today or yesterday gives an empty
//! ranking", look-back windows). Fixed in tests and for replaying archives;
//! the wall clock otherwise.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};

/// Asia/Shanghai: UTC+8 all year (no daylight saving since 1991).
pub fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// Where "now" comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// The system clock.
    #[default]
    System,
    /// A fixed instant.
    Fixed(DateTime<Utc>),
}

impl Clock {
    /// From `MEDIAOPS_NOW`: unset = system; `YYYY-MM-DD` = 12:00 that day in
    /// Asia/Shanghai; or an RFC 3339 time.
    ///
    /// # Errors
    /// Any other text.
    pub fn from_setting(value: Option<&str>) -> anyhow::Result<Clock> {
        let Some(value) = value else { return Ok(Clock::System) };
        if let Ok(date) = NaiveDate::parse_from_str(value, "%Y-%m-%d") {
            return Ok(Clock::Fixed(shanghai_to_utc(date, NaiveTime::from_hms_opt(12, 0, 0).unwrap_or_default())));
        }
        let at = DateTime::parse_from_rfc3339(value)
            .map_err(|_| anyhow::anyhow!("MEDIAOPS_NOW is {value:?}: use YYYY-MM-DD or an RFC 3339 time"))?;
        Ok(Clock::Fixed(at.with_timezone(&Utc)))
    }

    /// The current time: the system's, or the fixed as-of time.
    pub fn now(&self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Fixed(at) => *at,
        }
    }

    /// "Now" as a stored time stamp (`updatedAt`-style fields): RFC 3339
    /// UTC with milliseconds, e.g. `2026-05-01T04:00:00.000Z`.
    pub fn stamp(&self) -> String {
        self.now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    /// Today's date in Asia/Shanghai.
    pub fn today(&self) -> NaiveDate {
        self.now().with_timezone(&shanghai()).date_naive()
    }
}

/// A local Asia/Shanghai date and time as UTC.
pub fn shanghai_to_utc(date: NaiveDate, time: NaiveTime) -> DateTime<Utc> {
    let local = date.and_time(time);
    match shanghai().from_local_datetime(&local) {
        chrono::LocalResult::Single(at) => at.with_timezone(&Utc),
        // A fixed offset always maps a local time to exactly one instant.
        _ => Utc.from_utc_datetime(&(local - chrono::Duration::hours(8))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_noon_in_shanghai_and_today_is_local() {
        let clock = Clock::from_setting(Some("2024-06-21")).unwrap();
        assert_eq!(clock.now().to_rfc3339(), "2024-06-21T04:00:00+00:00");
        let late = Clock::from_setting(Some("2024-06-21T17:30:00Z")).unwrap();
        assert_eq!(late.today(), NaiveDate::from_ymd_opt(2024, 6, 22).unwrap());
        assert!(Clock::from_setting(Some("21/06/2024")).is_err());
        assert_eq!(Clock::from_setting(None).unwrap(), Clock::System);
    }
}
