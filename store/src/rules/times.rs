//! Dates and times in requests and responses (spec 4: dates are
//! `YYYY-MM-DD`, `datetime` fields `YYYY-MM-DD HH:mm:ss`, both in
//! Asia/Shanghai; the store keeps UTC).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

use crate::clock::{shanghai, shanghai_to_utc};
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

/// `YYYY-MM-DD HH:mm:ss` in Asia/Shanghai; empty when unknown.
pub fn format_time(at: Option<DateTime<Utc>>) -> String {
    at.map(|at| at.with_timezone(&shanghai()).format("%Y-%m-%d %H:%M:%S").to_string()).unwrap_or_default()
}

/// An optional `YYYY-MM-DD` field: empty = `None`; anything else that is not
/// a date is a 400 naming `field`.
pub fn parse_date(value: &str, field: &str) -> Result<Option<NaiveDate>, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    NaiveDate::parse_from_str(value, "%Y-%m-%d").map(Some).map_err(|_| {
        ServiceError::invalid_field(field, format!("{field} must be a date YYYY-MM-DD, not {}", excerpt(value)))
    })
}

/// An optional `YYYY-MM-DD HH:mm:ss` field (Asia/Shanghai) as UTC: empty =
/// `None`; anything else is a 400 naming `field`.
pub fn parse_datetime(value: &str, field: &str) -> Result<Option<DateTime<Utc>>, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S")
        .map(|local| Some(shanghai_to_utc(local.date(), local.time())))
        .map_err(|_| {
            ServiceError::invalid_field(
                field,
                format!("{field} must be a datetime YYYY-MM-DD HH:mm:ss, not {}", excerpt(value)),
            )
        })
}

/// 00:00:00 of a Shanghai date, in UTC.
pub fn day_start(date: NaiveDate) -> DateTime<Utc> {
    shanghai_to_utc(date, NaiveTime::MIN)
}

/// 23:59:59 of a Shanghai date, in UTC.
pub fn day_end(date: NaiveDate) -> DateTime<Utc> {
    shanghai_to_utc(date, NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN))
}

/// A UTC time window: its start and its end, each `None` when not given.
pub type UtcWindow = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// A `[start, end]` pair of date fields as a UTC window over whole days;
/// 400 naming `end_field` when the end is before the start.
pub fn date_window(start: &str, start_field: &str, end: &str, end_field: &str) -> Result<UtcWindow, ServiceError> {
    let (start, end) = (parse_date(start, start_field)?, parse_date(end, end_field)?);
    if let (Some(s), Some(e)) = (start, end)
        && e < s
    {
        return Err(ServiceError::invalid_field(end_field, format!("{end_field} is before {start_field}")));
    }
    Ok((start.map(day_start), end.map(day_end)))
}

/// A `[start, end]` pair of datetime fields as a UTC window; 400 naming
/// `end_field` when the end is before the start.
pub fn datetime_window(start: &str, start_field: &str, end: &str, end_field: &str) -> Result<UtcWindow, ServiceError> {
    let (start, end) = (parse_datetime(start, start_field)?, parse_datetime(end, end_field)?);
    if let (Some(s), Some(e)) = (start, end)
        && e < s
    {
        return Err(ServiceError::invalid_field(end_field, format!("{end_field} is before {start_field}")));
    }
    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_render_in_shanghai_and_bad_input_names_the_field() {
        let at = parse_datetime("2024-06-01 08:30:00", "startTime").unwrap().unwrap();
        assert_eq!(at.to_rfc3339(), "2024-06-01T00:30:00+00:00");
        assert_eq!(format_time(Some(at)), "2024-06-01 08:30:00");
        assert_eq!(format_time(None), "");
        assert_eq!(parse_date("2024-06-01 08:00:00", "startDate").unwrap_err().field.as_deref(), Some("startDate"));
        assert_eq!(parse_date("", "startDate").unwrap(), None);
        let err = date_window("2024-06-02", "startDate", "2024-06-01", "endDate").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("endDate"));
        let (s, e) = date_window("2024-06-01", "startDate", "2024-06-01", "endDate").unwrap();
        assert_eq!(format_time(s), "2024-06-01 00:00:00");
        assert_eq!(format_time(e), "2024-06-01 23:59:59");
    }
}
