//! An account's rate limit as data (docs/rate-limits.md):
//! a [`Quota`] of calls per period with a burst, or [`Limit::Off`]. The
//! ledger keeps each account's own limit ([`crate::billing::Ledger`]) and
//! the limiters enforce it ([`crate::rate_limit`]); both name it from here,
//! so neither depends on the other for it ("dependencies point
//! one way").

use serde::{Deserialize, Serialize};

use mediaops_proto::error::ServiceError;

/// Largest `count` of a rate and largest burst.
pub const MAX_CALLS: u32 = 1_000_000;

/// A GCRA quota: `count` calls per `period_secs` seconds, `burst` of them
/// at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Quota {
    /// Calls per period, 1..=[`MAX_CALLS`].
    pub count: u32,
    /// The period in seconds: 1, 60, 3600 or 86400.
    pub period_secs: u32,
    /// Calls let through at once, 1..=[`MAX_CALLS`].
    pub burst: u32,
}

impl Quota {
    /// The emission interval `T` in whole microseconds (at least 1): the
    /// unit both limiters compute in, so they agree to the microsecond.
    pub fn interval_us(&self) -> u64 {
        (u64::from(self.period_secs) * 1_000_000 / u64::from(self.count)).max(1)
    }

    /// The rate as written: `20/s`, `600/m`, `1000/h`, `5000/d`.
    pub fn rate(&self) -> String {
        let unit = match self.period_secs {
            1 => "s",
            60 => "m",
            3600 => "h",
            _ => "d",
        };
        format!("{}/{unit}", self.count)
    }
}

/// An account's limit: none, or a [`Quota`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// No limit: calls are not counted and no rate-limit fields are sent.
    Off,
    /// At most this many calls per period, with this burst.
    Quota(Quota),
}

impl Limit {
    /// Reads a rate (`off`, or `<count>/<unit>` with unit `s`, `m`, `h` or
    /// `d`; `sec`, `min`, `hour`, `day` too) and a burst (0 = the rate's
    /// count, one period's worth).
    ///
    /// # Errors
    /// [`LimitError`] naming `rate` or `burst`: a malformed rate, a count
    /// or burst over [`MAX_CALLS`], a count of 0, a burst with `off`.
    pub fn parse(rate: &str, burst: u32) -> Result<Limit, LimitError> {
        const FORM: &str = "a rate is `off` or <calls>/<s|m|h|d>, e.g. `20/s` or `600/m`";
        let bad_rate = |message: String| LimitError { field: "rate", message };
        let bad_burst = |message: String| LimitError { field: "burst", message };
        let rate = rate.trim();
        if rate.eq_ignore_ascii_case("off") {
            return if burst == 0 { Ok(Limit::Off) } else { Err(bad_burst("a burst needs a rate, not `off`".into())) };
        }
        let malformed = || bad_rate(format!("{FORM}; got {}", excerpt(rate)));
        let (count, unit) = rate.split_once('/').ok_or_else(malformed)?;
        let count: u32 = count.trim().parse().map_err(|_| malformed())?;
        let period_secs = match unit.trim().to_ascii_lowercase().as_str() {
            "s" | "sec" | "second" => 1,
            "m" | "min" | "minute" => 60,
            "h" | "hour" => 3600,
            "d" | "day" => 86_400,
            _ => return Err(malformed()),
        };
        if !(1..=MAX_CALLS).contains(&count) {
            return Err(bad_rate(format!("the calls of a rate are 1-{MAX_CALLS}; got {count}")));
        }
        if burst > MAX_CALLS {
            return Err(bad_burst(format!("a burst is 0 (the rate's count) or 1-{MAX_CALLS}; got {burst}")));
        }
        let burst = if burst == 0 { count } else { burst };
        Ok(Limit::Quota(Quota { count, period_secs, burst }))
    }

    /// `off`, or the rate as written.
    pub fn rate(&self) -> String {
        match self {
            Limit::Off => "off".into(),
            Limit::Quota(quota) => quota.rate(),
        }
    }

    /// The burst; 0 for `off`.
    pub fn burst(&self) -> u32 {
        match self {
            Limit::Off => 0,
            Limit::Quota(quota) => quota.burst,
        }
    }
}

/// Why a rate or burst was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct LimitError {
    /// `rate` or `burst`.
    pub field: &'static str,
    /// Why, for the 400.
    pub message: String,
}

impl From<LimitError> for ServiceError {
    /// A 400 naming the field.
    fn from(error: LimitError) -> Self {
        ServiceError::invalid_field(error.field, error.message)
    }
}

fn excerpt(value: &str) -> String {
    mediaops_proto::excerpt::excerpt(value).to_string()
}
