//! The ranking and window rules of spec 4.1, 4.2 and 8, in one place: period
//! boundaries, the daily lag, each endpoint's look-back window, the category
//! lists and the upstream-style messages the spec passes through. "Today"
//! is the service clock's date in Asia/Shanghai ([`crate::clock::Clock`],
//! `MEDIAOPS_NOW`), so tests fix it.
//!
//! A rule answers one of three ways, as the spec says per endpoint: a
//! window to rank, an empty ranking with a warning saying why (the warning
//! goes to the envelope's `warnings`, `data` stays as documented), or a
//! passed-through upstream error (400 `invalid_input` naming the field, with
//! `error.upstream` = 接口执行异常 / 日期格式错误 / code 3203; not charged).

use std::sync::LazyLock;

use chrono::{Datelike, Days, Months, NaiveDate, Weekday};

use crate::rules::times::parse_date;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::value_lists::ValueLists;

/// Spec 4.1: daily rankings lag about two days; the newest ranked day is
/// today − 2, so today and yesterday give an empty ranking.
pub const DAILY_LAG_DAYS: u64 = 2;

/// Spec 8: shortvideo daily rank look-back, about 7 days (`douyin-rise-fans-rank`).
pub const SHORTVIDEO_DAILY_LOOKBACK_DAYS: u64 = 7;
/// Spec 4.3 / 8: lifestyle daily account rank look-back, about 85 days (`lifestyle-top-account`).
pub const LIFESTYLE_DAILY_LOOKBACK_DAYS: u64 = 85;
/// Spec 4.4 / 8: shortvideo surge board retention, about 100 days (`shortvideo-content-surge`).
pub const SURGE_RETENTION_DAYS: u64 = 100;
/// Spec 4.1 / 8: article 10万+ board window, about 60 days (`category-time-hot`, `articles-hit-cover`).
pub const ARTICLE_HOT_WINDOW_DAYS: u64 = 60;
/// Spec 4.5 / 8: article raise board window, 29 days (`articles-raise-rank`).
pub const ARTICLE_RAISE_WINDOW_DAYS: u64 = 29;
/// Spec 4.5 / 8: article index rank, day ranks only T-2..T-7.
pub const ARTICLE_INDEX_DAY_OLDEST: u64 = 7;
/// Spec 4.5 / 8: article index rank, about the last 3 finished weeks / months.
pub const ARTICLE_INDEX_PERIODS: u32 = 3;
/// Spec 4.1 / 8: hot keywords and hot topics cover about the last 3 weeks
/// (the rule itself: [`crate::rules::window::COVERAGE_DAYS`]).
pub const HOT_KEYWORD_WINDOW_DAYS: u64 = crate::rules::window::COVERAGE_DAYS;

/// Spec 7 rule 3: the upstream message for a missing or out-of-range date.
pub const EXECUTION_FAILED: &str = "接口执行异常";
/// Spec 4.1 / 7: the upstream message for a window beyond coverage.
pub const BAD_DATE_FORMAT: &str = "日期格式错误";
/// Spec 4.2 / 7: the upstream code for an invalid category.
pub const INVALID_CATEGORY_CODE: &str = "3203";
/// The message that goes with [`INVALID_CATEGORY_CODE`].
pub const INVALID_CATEGORY_MESSAGE: &str = "invalid category";

/// A ranking period (spec 4.1, the `PERIOD` list: `day`, `week`, `month`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// One Shanghai day; the newest ranked day is today − [`DAILY_LAG_DAYS`].
    Day,
    /// Monday to Sunday of a finished week; its date must be the Monday
    /// (spec 4.1).
    Week,
    /// The 1st to the last day of a finished month; its date must be the 1st
    /// (spec 4.1).
    Month,
}

impl Period {
    /// `day`, `week` or `month` (singular only, spec 4.5); empty = `day`.
    /// Anything else is a 400 naming `field`.
    pub fn parse(value: &str, field: &str) -> Result<Period, ServiceError> {
        match value.trim() {
            "" | "day" => Ok(Period::Day),
            "week" => Ok(Period::Week),
            "month" => Ok(Period::Month),
            other => Err(ServiceError::invalid_field(
                field,
                format!("{field} must be day, week or month (singular), not {}", excerpt(other)),
            )),
        }
    }

    /// `day`, `week` or `month`: the spec's value, as [`Period::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
        }
    }
}

/// `shortvideo-likes-rank` and other windows with only the lag rule.
pub const LAG_ONLY: StartRule = StartRule { days: None, beyond: Beyond::Empty };

/// The Shanghai days a ranking covers, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The oldest day ranked (Asia/Shanghai).
    pub first: NaiveDate,
    /// The newest day ranked (Asia/Shanghai), `>= first`.
    pub last: NaiveDate,
}

impl Window {
    /// The one-day window of `date`.
    pub fn day(date: NaiveDate) -> Window {
        Window { first: date, last: date }
    }

    /// The window's days, oldest first.
    pub fn days(&self) -> impl Iterator<Item = NaiveDate> + use<> {
        let (first, last) = (self.first, self.last);
        first.iter_days().take_while(move |d| *d <= last)
    }
}

/// What a rule decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked<T> {
    /// Rank this.
    Rank(T),
    /// An empty ranking; the text goes to the envelope's `warnings`.
    Empty(String),
}

/// What a date beyond an endpoint's look-back gives (spec, per endpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beyond {
    /// An empty ranking with a warning.
    Empty,
    /// The passed-through upstream error with this message (400).
    Error(&'static str),
}

/// An endpoint's date rule for `period` + `rankDate` rankings (spec 4.1, 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodRule {
    /// Oldest day rank, in days before today (`None` = no limit).
    pub day_lookback: Option<u64>,
    /// How many finished weeks / months back may be asked (`None` = no limit).
    pub period_lookback: Option<u32>,
    /// What a date older than the look-back gives.
    pub beyond: Beyond,
    /// Whether a missing `rankDate` is the upstream error 接口执行异常
    /// (`articles-index-rank`, `articles-raise-rank`); otherwise it means
    /// the newest ranking of the period.
    pub date_required: bool,
}

/// `lifestyle-top-account` (spec 4.3): daily look-back about 85 days; older
/// gives an empty ranking.
pub const LIFESTYLE_TOP_ACCOUNT: PeriodRule = PeriodRule {
    day_lookback: Some(LIFESTYLE_DAILY_LOOKBACK_DAYS),
    period_lookback: None,
    beyond: Beyond::Empty,
    date_required: false,
};

/// `douyin-rise-fans-rank` (spec 4.4): daily look-back about 7 days.
pub const SHORTVIDEO_RISE_FANS: PeriodRule = PeriodRule {
    day_lookback: Some(SHORTVIDEO_DAILY_LOOKBACK_DAYS),
    period_lookback: None,
    beyond: Beyond::Empty,
    date_required: false,
};

/// `shortvideo-top-account` and the lifestyle note boards (spec 4.1 only:
/// boundaries and lag, no stated look-back).
pub const PLAIN: PeriodRule =
    PeriodRule { day_lookback: None, period_lookback: None, beyond: Beyond::Empty, date_required: false };

/// `articles-index-rank` (spec 4.5): day T-2..T-7, week about the last 3,
/// month about the last 3; out of range or missing is 接口执行异常.
pub const ARTICLES_INDEX: PeriodRule = PeriodRule {
    day_lookback: Some(ARTICLE_INDEX_DAY_OLDEST),
    period_lookback: Some(ARTICLE_INDEX_PERIODS),
    beyond: Beyond::Error(EXECUTION_FAILED),
    date_required: true,
};

/// `articles-raise-rank` (spec 4.5): 29 days, newest lags two days; older
/// or missing is 接口执行异常.
pub const ARTICLES_RAISE: PeriodRule = PeriodRule {
    day_lookback: Some(ARTICLE_RAISE_WINDOW_DAYS),
    period_lookback: None,
    beyond: Beyond::Error(EXECUTION_FAILED),
    date_required: true,
};

/// The newest ranked day: today − [`DAILY_LAG_DAYS`] (spec 4.1).
pub fn newest_day(today: NaiveDate) -> NaiveDate {
    today - Days::new(DAILY_LAG_DAYS)
}

/// The Monday of `date`'s week.
pub fn monday_of(date: NaiveDate) -> NaiveDate {
    date - Days::new(u64::from(date.weekday().num_days_from_monday()))
}

/// The 1st of `date`'s month.
pub fn first_of_month(date: NaiveDate) -> NaiveDate {
    date.with_day(1).unwrap_or(date)
}

fn weekday_name(day: Weekday) -> &'static str {
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][day.num_days_from_monday() as usize]
}

/// The passed-through upstream error for `field` (spec 7 rule 3): 400
/// `invalid_input` naming the field, `error.upstream.message` = `upstream`.
pub fn upstream_error(field: &str, upstream: &'static str, why: String) -> ServiceError {
    ServiceError::invalid_field(field, format!("{upstream}: {why}")).with_upstream(None, upstream)
}

/// A `YYYY-MM-DD` request date; blank is `None`, anything else is a 400
/// naming `field`.
pub fn date_field(value: &str, field: &str) -> Result<Option<NaiveDate>, ServiceError> {
    parse_date(value, field)
}

impl PeriodRule {
    /// Spec 4.1: checks `date` (the request's `rankDate`, already parsed)
    /// for `period` against today and this endpoint's look-back. A missing
    /// date is the newest ranking of the period (or 接口执行异常 when
    /// [`PeriodRule::date_required`]).
    ///
    /// - day: the newest day is today − 2 (today and yesterday: empty);
    /// - week: the Monday of a finished week (its Sunday before today);
    /// - month: the 1st of a finished month (its last day before today);
    /// - older than the look-back: [`PeriodRule::beyond`].
    pub fn check(
        &self,
        today: NaiveDate,
        period: Period,
        date: Option<NaiveDate>,
        field: &str,
    ) -> Result<Checked<Window>, ServiceError> {
        let Some(date) = date else {
            if self.date_required {
                return Err(upstream_error(field, EXECUTION_FAILED, format!("{field} is required")));
            }
            return Ok(Checked::Rank(match period {
                Period::Day => Window::day(newest_day(today)),
                Period::Week => week_of(monday_of(today) - Days::new(7)),
                Period::Month => month_of(first_of_month(today) - Months::new(1)),
            }));
        };
        let beyond = |why: String| match self.beyond {
            Beyond::Empty => Ok(Checked::Empty(why)),
            Beyond::Error(message) => Err(upstream_error(field, message, why)),
        };
        match period {
            Period::Day => {
                let newest = newest_day(today);
                if date > newest {
                    return Ok(Checked::Empty(format!(
                        "{field} {date} is within the two-day lag of daily rankings; the newest day is {newest} \
                         (today is {today})"
                    )));
                }
                if let Some(days) = self.day_lookback {
                    let oldest = today - Days::new(days);
                    if date < oldest {
                        return beyond(format!(
                            "{field} {date} is older than the {days}-day look-back of this ranking (oldest {oldest})"
                        ));
                    }
                }
                Ok(Checked::Rank(Window::day(date)))
            }
            Period::Week => {
                if date.weekday() != Weekday::Mon {
                    return Ok(Checked::Empty(format!(
                        "{field} {date} is a {}; week rankings need the Monday of a finished week",
                        weekday_name(date.weekday())
                    )));
                }
                let window = week_of(date);
                if window.last >= today {
                    return Ok(Checked::Empty(format!(
                        "the week of {date} has not finished (it ends {}); week rankings need a finished week",
                        window.last
                    )));
                }
                if let Some(n) = self.period_lookback {
                    let oldest = monday_of(today) - Days::new(7 * u64::from(n));
                    if date < oldest {
                        return beyond(format!(
                            "{field} {date} is older than the last {n} finished weeks (oldest Monday {oldest})"
                        ));
                    }
                }
                Ok(Checked::Rank(window))
            }
            Period::Month => {
                if date.day() != 1 {
                    return Ok(Checked::Empty(format!(
                        "{field} {date} is not the 1st of a month; month rankings need the 1st of a finished month"
                    )));
                }
                let window = month_of(date);
                if window.last >= today {
                    return Ok(Checked::Empty(format!(
                        "the month of {date} has not finished (it ends {}); month rankings need a finished month",
                        window.last
                    )));
                }
                if let Some(n) = self.period_lookback {
                    let oldest = first_of_month(today) - Months::new(n);
                    if date < oldest {
                        return beyond(format!(
                            "{field} {date} is older than the last {n} finished months (oldest {oldest})"
                        ));
                    }
                }
                Ok(Checked::Rank(window))
            }
        }
    }
}

/// Monday `monday` to its Sunday.
fn week_of(monday: NaiveDate) -> Window {
    Window { first: monday, last: monday + Days::new(6) }
}

/// The 1st `first` to the month's last day.
fn month_of(first: NaiveDate) -> Window {
    let next = first + Months::new(1);
    Window { first, last: next - Days::new(1) }
}

/// A date-window rule for boards asked by a start date (spec 4.1, 4.4, 4.5):
/// how far back the start may go and what an older one gives. The newest
/// day is always today − 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartRule {
    /// Days before today the start may go back (`None` = no limit).
    pub days: Option<u64>,
    /// What a start older than `days` gives: an empty board or an upstream error.
    pub beyond: Beyond,
}

/// `category-time-hot`, `articles-hit-cover` (spec 4.1, 8): about 60 days;
/// older windows give 日期格式错误.
pub const ARTICLE_HOT: StartRule =
    StartRule { days: Some(ARTICLE_HOT_WINDOW_DAYS), beyond: Beyond::Error(BAD_DATE_FORMAT) };

/// `shortvideo-content-surge` (spec 4.4): retention about 100 days; older is
/// an empty board.
pub const SURGE: StartRule = StartRule { days: Some(SURGE_RETENTION_DAYS), beyond: Beyond::Empty };

impl StartRule {
    /// Checks a window starting at `start` (field `field`) and ending at
    /// `end` (default: the newest day). The end is clipped to the newest
    /// day (today − 2); a window that starts after it is empty (today or
    /// yesterday); a start older than the coverage is [`StartRule::beyond`].
    pub fn check(
        &self,
        today: NaiveDate,
        start: NaiveDate,
        end: Option<NaiveDate>,
        field: &str,
    ) -> Result<Checked<Window>, ServiceError> {
        let newest = newest_day(today);
        if let Some(days) = self.days {
            let oldest = today - Days::new(days);
            if start < oldest {
                let why = format!("{field} {start} is older than the {days}-day coverage (oldest {oldest})");
                return match self.beyond {
                    Beyond::Empty => Ok(Checked::Empty(why)),
                    Beyond::Error(message) => Err(upstream_error(field, message, why)),
                };
            }
        }
        if start > newest {
            return Ok(Checked::Empty(format!(
                "{field} {start} is within the two-day lag; the newest day is {newest} (today is {today})"
            )));
        }
        let last = end.unwrap_or(newest).min(newest);
        if last < start {
            return Ok(Checked::Empty(format!("the window ends ({last}) before {field} {start}")));
        }
        Ok(Checked::Rank(Window { first: start, last }))
    }
}

/// The category lists of spec 4.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CategoryList {
    /// `LIST_ARTICLES` (22; 民生资讯 has no upstream data).
    Articles,
    /// `LIST_SHORTVIDEO` (全部 + 27).
    Shortvideo,
    /// `LIST_LIFESTYLE` (综合全部 = no filter + 24).
    Lifestyle,
}

/// The list value that means "no filter", if the list has one.
const ALL_VALUES: [(CategoryList, &str); 2] =
    [(CategoryList::Shortvideo, "全部"), (CategoryList::Lifestyle, "综合全部")];

/// Spec 4.2: the old lifestyle value 综合 is invalid (upstream code 3203).
pub const LIFESTYLE_OLD_ALL: &str = "综合";

static LISTS: LazyLock<ValueLists> = LazyLock::new(|| ValueLists::from_pool(mediaops_proto::descriptor_pool()));

impl CategoryList {
    /// The value list's name in the proto options.
    pub fn name(self) -> &'static str {
        match self {
            CategoryList::Articles => "LIST_ARTICLES",
            CategoryList::Shortvideo => "LIST_SHORTVIDEO",
            CategoryList::Lifestyle => "LIST_LIFESTYLE",
        }
    }

    /// The list's values in order (declared once, in the proto options).
    pub fn values(self) -> Vec<String> {
        LISTS.get(self.name()).map(|l| l.values.clone()).unwrap_or_default()
    }

    /// The list's note on `value` (e.g. 民生资讯: "upstream currently has no data").
    pub fn note(self, value: &str) -> Option<String> {
        LISTS.get(self.name()).and_then(|l| l.notes.get(value).cloned())
    }

    /// The "no filter" value (全部, 综合全部), if any.
    pub fn all_value(self) -> Option<&'static str> {
        ALL_VALUES.iter().find(|(list, _)| *list == self).map(|(_, v)| *v)
    }
}

/// A request's category, read against a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Category {
    /// Empty or the list's "all" value: no filter.
    All,
    /// A value of the list.
    Named(String),
    /// A value outside the list.
    OutOfList(String),
}

impl Category {
    /// The filter a store query takes (`None` = every category).
    pub fn filter(&self) -> Option<&str> {
        match self {
            Category::Named(name) => Some(name),
            _ => None,
        }
    }
}

/// What an out-of-list category gives (spec 4.1, 4.2, per endpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfList {
    /// An empty ranking with a warning (`shortvideo-top-account`, articles).
    Empty,
    /// Another ranking: the unfiltered one, with a warning (`lifestyle-top-account`).
    AllInstead,
    /// Upstream code 3203 (`douyin-rise-fans-rank`).
    Error,
}

/// The 3203 error for `field` = `value`.
pub fn invalid_category(field: &str, value: &str, list: CategoryList) -> ServiceError {
    ServiceError::invalid_field(
        field,
        format!(
            "{INVALID_CATEGORY_CODE} {INVALID_CATEGORY_MESSAGE}: {} is not a value of {}",
            excerpt(value),
            list.name()
        ),
    )
    .with_upstream(Some(INVALID_CATEGORY_CODE), INVALID_CATEGORY_MESSAGE)
}

/// Reads `value` of `field` against `list` (spec 4.2): empty or the "all"
/// value is [`Category::All`] (unless `all_allowed` is false, as for the
/// surge board whose list has no 全部); the old lifestyle value 综合 is
/// always 3203; another out-of-list value is handled per `out_of_list`.
/// Returns the category and, when it was not taken as asked, the warning.
pub fn category(
    list: CategoryList,
    value: &str,
    field: &str,
    all_allowed: bool,
    out_of_list: OutOfList,
) -> Result<(Category, Option<String>), ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Ok((Category::All, None));
    }
    if list == CategoryList::Lifestyle && value == LIFESTYLE_OLD_ALL {
        return Err(invalid_category(field, value, list));
    }
    let all = list.all_value() == Some(value);
    if all && all_allowed {
        return Ok((Category::All, None));
    }
    if !all && list.values().iter().any(|v| v == value) {
        return Ok((Category::Named(value.to_owned()), None));
    }
    let shown = list.name();
    match out_of_list {
        OutOfList::Error => Err(invalid_category(field, value, list)),
        OutOfList::Empty => Ok((
            Category::OutOfList(value.to_owned()),
            Some(format!(
                "{field} {} is not a value of {shown}; out-of-list values give an empty ranking",
                excerpt(value)
            )),
        )),
        OutOfList::AllInstead => Ok((
            Category::All,
            Some(format!(
                "{field} {} is not a value of {shown}; the ranking of all categories is returned instead",
                excerpt(value)
            )),
        )),
    }
}

#[cfg(test)]
mod tests;
