//! The watch-list rules (docs/watchlists.md "Fields"):
//! ids, keyword groups, schedules, quiet hours, sources and channels. Every
//! refusal is a 400 naming the field inside the request (`watchlist.…`),
//! and for keyword groups the line.

use chrono::{DateTime, NaiveTime, TimeZone, Timelike, Utc};
use croner::Cron;
use mediaops_proto::closed_sets::{WatchChannel, WatchSource};
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::mediaops::watch::v1::{Channel, WatchlistSpec};

use mediaops_proto::error::ServiceError;

/// Most keyword groups (lines) of one watch list.
pub const MAX_GROUPS: usize = 100;
/// Most characters of one keyword.
pub const MAX_WORD_CHARS: usize = 50;
/// Largest `@N`.
pub const MAX_ITEMS_PER_GROUP: usize = 50;
/// Most channels of one watch list.
pub const MAX_CHANNELS: usize = 10;
/// The schedule value that pushes on change instead of on a cron schedule.
pub const ON_CHANGE: &str = "on_change";

/// The hot lists and store platforms a watch list may read (value list
/// `WATCH_SOURCES` of watch.proto): the seven lists, then the platforms
/// without a public list, read as their fastest-rising stored works.
pub const LIST_SOURCES: [&str; 7] = ["weibo", "douyin", "bilibili", "kuaishou", "zhihu", "toutiao", "baidu"];
/// The store platforms among the sources, read as their fastest-rising
/// stored works.
pub const WORK_SOURCES: [&str; 2] = ["lifestyle", "articles"];

/// One keyword group (one line): an item matches when its title holds one
/// of `any` (or `any` is empty), every `required` word and no `excluded`
/// word. Words are lower-cased; matching is by substring (Chinese titles
/// have no spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeywordGroup {
    /// 1-based line of the `keywords` text.
    pub line: usize,
    /// Words of which a title must hold one (empty: any title).
    pub any: Vec<String>,
    /// Words (`+word`) every one of which a title must hold.
    pub required: Vec<String>,
    /// Words (`-word`) none of which a title may hold.
    pub excluded: Vec<String>,
    /// `@N`: at most N items of this group in one push.
    pub max_items: Option<usize>,
}

impl KeywordGroup {
    /// Whether `title` matches the group (case-insensitive).
    pub fn matches(&self, title: &str) -> bool {
        let title = title.to_lowercase();
        (self.any.is_empty() || self.any.iter().any(|w| title.contains(w.as_str())))
            && self.required.iter().all(|w| title.contains(w.as_str()))
            && !self.excluded.iter().any(|w| title.contains(w.as_str()))
    }
}

/// Parses the keyword groups: one group per line; blank lines and lines
/// starting with `#` are skipped; words split on white space (the ideographic
/// space too). `+word` required, `!word` / `！word` excluded, `@N` (1-50)
/// the group's most items per push, anything else an any-of word.
///
/// # Errors
/// 400 naming `watchlist.keywords` and the line: an empty marker (`+`, `!`),
/// a bad or repeated `@N`, a word over 50 characters, a group with only
/// excluded words, more than 100 groups, or no group at all.
pub fn parse_groups(text: &str) -> Result<Vec<KeywordGroup>, ServiceError> {
    const FIELD: &str = "watchlist.keywords";
    let mut groups = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let bad = |why: String| ServiceError::invalid_field(FIELD, format!("`{FIELD}` line {line}: {why}"));
        let mut group =
            KeywordGroup { line, any: Vec::new(), required: Vec::new(), excluded: Vec::new(), max_items: None };
        for token in raw.split(|c: char| c.is_whitespace()).filter(|t| !t.is_empty()) {
            let (kind, word) = match token.chars().next() {
                Some('+' | '＋') => ('+', &token[token.chars().next().map_or(0, char::len_utf8)..]),
                Some('!' | '！') => ('!', &token[token.chars().next().map_or(0, char::len_utf8)..]),
                Some('@') => ('@', &token[1..]),
                _ => (' ', token),
            };
            if kind == '@' {
                let n: usize =
                    word.parse().ok().filter(|n| (1..=MAX_ITEMS_PER_GROUP).contains(n)).ok_or_else(|| {
                        bad(format!("{} is not @N with N from 1 to {MAX_ITEMS_PER_GROUP}", excerpt(token)))
                    })?;
                if group.max_items.replace(n).is_some() {
                    return Err(bad("more than one @N".into()));
                }
                continue;
            }
            if word.is_empty() {
                return Err(bad(format!("`{kind}` must be followed by a word")));
            }
            if word.chars().count() > MAX_WORD_CHARS {
                return Err(bad(format!("{} is longer than {MAX_WORD_CHARS} characters", excerpt(word))));
            }
            let word = word.to_lowercase();
            let list = match kind {
                '+' => &mut group.required,
                '!' => &mut group.excluded,
                _ => &mut group.any,
            };
            if !list.contains(&word) {
                list.push(word);
            }
        }
        if group.any.is_empty() && group.required.is_empty() {
            return Err(bad("a group needs at least one word or +word (only !words or @N were given)".into()));
        }
        groups.push(group);
        if groups.len() > MAX_GROUPS {
            return Err(bad(format!("more than {MAX_GROUPS} groups")));
        }
    }
    if groups.is_empty() {
        return Err(ServiceError::invalid_field(FIELD, format!("`{FIELD}` has no keyword group: write one per line")));
    }
    Ok(groups)
}

/// When a watch list runs: a cron schedule in Asia/Shanghai, or on change.
#[derive(Debug, Clone)]
pub enum Schedule {
    /// A five-field cron expression, read in Asia/Shanghai time.
    Cron(Box<Cron>),
    /// `on_change`: every `on_change_secs` when something new matched.
    OnChange,
}

impl Schedule {
    /// Parses `on_change` or a 5-field cron expression (minute hour
    /// day-of-month month day-of-week; croner's syntax, e.g.
    /// `0 8,12,18 * * *`, `*/30 9-18 * * 1-5`).
    ///
    /// # Errors
    /// 400 naming `watchlist.schedule`.
    pub fn parse(value: &str) -> Result<Schedule, ServiceError> {
        let value = value.trim();
        if value == ON_CHANGE {
            return Ok(Schedule::OnChange);
        }
        Ok(Schedule::Cron(parse_cron(value, "watchlist.schedule", " or `on_change`")?))
    }

    /// The first firing strictly after `after` (UTC), evaluated in
    /// Asia/Shanghai; for `on_change`, `after + every`. `None` when a cron
    /// expression never fires again.
    pub fn next_after(&self, after: DateTime<Utc>, every: chrono::Duration) -> Option<DateTime<Utc>> {
        match self {
            Schedule::OnChange => Some(after + every),
            Schedule::Cron(cron) => {
                let local = after.with_timezone(&mediaops_store::clock::shanghai());
                cron.find_next_occurrence(&local, false).ok().map(|t| t.with_timezone(&Utc))
            }
        }
    }
}

/// Parses a 5-field cron expression (minute hour day-of-month month
/// day-of-week; croner's syntax) evaluated in Asia/Shanghai; `also` ends
/// the hint of the error (the other forms the field allows).
///
/// # Errors
/// 400 naming `field`.
pub fn parse_cron(value: &str, field: &str, also: &str) -> Result<Box<Cron>, ServiceError> {
    let value = value.trim();
    let bad = |why: String| {
        ServiceError::invalid_field(
            field,
            format!(
                "`{field}` {}: {why}; use a 5-field cron such as `0 8,12,18 * * *` (Asia/Shanghai){also}",
                excerpt(value)
            ),
        )
    };
    if value.split_whitespace().count() != 5 {
        return Err(bad("a cron expression has 5 fields".into()));
    }
    let cron: Cron = value.parse().map_err(|e: croner::errors::CronError| bad(e.to_string()))?;
    Ok(Box::new(cron))
}

/// Quiet hours: a local Asia/Shanghai span `[start, end)` that may wrap
/// midnight (`23:00-07:00`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietHours {
    /// First quiet minute (Asia/Shanghai local time).
    pub start: NaiveTime,
    /// First minute no longer quiet.
    pub end: NaiveTime,
}

impl QuietHours {
    /// Parses `HH:MM-HH:MM`; empty means none.
    ///
    /// # Errors
    /// 400 naming `watchlist.quietHours`.
    pub fn parse(value: &str) -> Result<Option<QuietHours>, ServiceError> {
        let value = value.trim();
        if value.is_empty() {
            return Ok(None);
        }
        let bad = || {
            ServiceError::invalid_field(
                "watchlist.quietHours",
                format!(
                    "`watchlist.quietHours` is {}: use HH:MM-HH:MM (Asia/Shanghai), e.g. 23:00-07:00",
                    excerpt(value)
                ),
            )
        };
        let (start, end) = value.split_once('-').ok_or_else(bad)?;
        let time = |s: &str| NaiveTime::parse_from_str(s.trim(), "%H:%M").map_err(|_| bad());
        let (start, end) = (time(start)?, time(end)?);
        if start == end {
            return Err(bad());
        }
        Ok(Some(QuietHours { start, end }))
    }

    /// Whether `at` falls inside the quiet hours (Asia/Shanghai).
    pub fn contains(&self, at: DateTime<Utc>) -> bool {
        let local = mediaops_store::clock::shanghai().from_utc_datetime(&at.naive_utc()).time();
        let local = NaiveTime::from_hms_opt(local.hour(), local.minute(), local.second()).unwrap_or(local);
        if self.start < self.end {
            self.start <= local && local < self.end
        } else {
            local >= self.start || local < self.end
        }
    }
}

/// The sources of a watch list: distinct, in the order given, each a hot
/// list or a store platform; empty means every hot list.
///
/// # Errors
/// 400 naming `watchlist.sources[i]`.
pub fn sources(values: &[String]) -> Result<Vec<String>, ServiceError> {
    let mut out: Vec<String> = Vec::new();
    for (i, value) in values.iter().enumerate() {
        let value = WatchSource::parse_field(value, &format!("watchlist.sources[{i}]"))?.as_str();
        if !out.iter().any(|s| s == value) {
            out.push(value.to_owned());
        }
    }
    Ok(out)
}

/// `status`: `active` (also for empty) or `paused`.
///
/// # Errors
/// 400 naming `watchlist.status`.
pub fn status(value: &str) -> Result<&'static str, ServiceError> {
    match value.trim() {
        "" | "active" => Ok("active"),
        "paused" => Ok("paused"),
        other => Err(ServiceError::invalid_field(
            "watchlist.status",
            format!("`watchlist.status` is {}; allowed: active, paused", excerpt(other)),
        )),
    }
}

/// Checks the name: 1-100 characters after trimming.
///
/// # Errors
/// 400 naming `watchlist.name`.
pub fn name(value: &str) -> Result<String, ServiceError> {
    let value = value.trim();
    if value.is_empty() || value.chars().count() > 100 {
        return Err(ServiceError::invalid_field("watchlist.name", "`watchlist.name` must be 1-100 characters"));
    }
    Ok(value.to_owned())
}

/// Checks the channel list's size, each channel's type and the fields its
/// type needs (docs/watchlists.md "Channels"); the URL's address is checked
/// by the service (the outbound guard).
///
/// # Errors
/// 400 naming `watchlist.channels` or `watchlist.channels[i].<field>`.
pub fn channels(channels: &[Channel]) -> Result<(), ServiceError> {
    if channels.is_empty() || channels.len() > MAX_CHANNELS {
        return Err(ServiceError::invalid_field(
            "watchlist.channels",
            format!("`watchlist.channels` must hold 1 to {MAX_CHANNELS} channels"),
        ));
    }
    for (i, channel) in channels.iter().enumerate() {
        let field = |name: &str| format!("watchlist.channels[{i}].{name}");
        let need = |name: &str, value: &str| {
            if value.trim().is_empty() {
                Err(ServiceError::invalid_field(
                    field(name),
                    format!("`{}` is required for a {} channel", field(name), channel.r#type),
                ))
            } else {
                Ok(())
            }
        };
        match WatchChannel::parse_field(&channel.r#type, &field("type"))? {
            WatchChannel::Webhook => {
                need("url", &channel.url)?;
                if let Err(why) = mediaops_connectors::notify::secret::check_secret(&channel.secret) {
                    return Err(ServiceError::invalid_field(field("secret"), format!("`{}`: {why}", field("secret"))));
                }
            }
            WatchChannel::Wecom | WatchChannel::Feishu | WatchChannel::Dingtalk => need("url", &channel.url)?,
            WatchChannel::Telegram => {
                need("secret", &channel.secret)?;
                need("chatId", &channel.chat_id)?;
            }
            WatchChannel::Email => {
                if channel.to.is_empty() || channel.to.iter().any(|a| !a.contains('@')) {
                    return Err(ServiceError::invalid_field(
                        field("to"),
                        format!("`{}` needs one or more e-mail addresses", field("to")),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Validates `spec` and answers it normalized (trimmed name and schedule,
/// distinct sources, `status` spelled out).
///
/// # Errors
/// The 400s of the checks above.
pub fn normalize(mut spec: WatchlistSpec) -> Result<WatchlistSpec, ServiceError> {
    spec.name = name(&spec.name)?;
    parse_groups(&spec.keywords)?;
    spec.sources = sources(&spec.sources)?;
    spec.schedule = spec.schedule.trim().to_owned();
    Schedule::parse(&spec.schedule)?;
    spec.quiet_hours = spec.quiet_hours.trim().to_owned();
    QuietHours::parse(&spec.quiet_hours)?;
    spec.status = status(&spec.status)?.to_owned();
    channels(&spec.channels)?;
    Ok(spec)
}

/// An item's key in the seen-set: the title lower-cased with white space
/// and punctuation dropped, so `华为 Mate70 发布！` and `华为mate70发布` are one.
pub fn normalize_title(title: &str) -> String {
    title.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_parse_with_required_excluded_and_limits() {
        let groups = parse_groups("# phones\n华为 小米 +手机 !二手 @3\n\n+高考 +作文\n").unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].line, 2);
        assert_eq!(groups[0].any, ["华为", "小米"]);
        assert_eq!(groups[0].required, ["手机"]);
        assert_eq!(groups[0].excluded, ["二手"]);
        assert_eq!(groups[0].max_items, Some(3));
        assert!(groups[0].matches("华为新手机发布"));
        assert!(!groups[0].matches("华为二手手机"), "excluded");
        assert!(!groups[0].matches("华为发布会"), "required missing");
        assert!(groups[1].matches("2024高考作文题"));
        assert!(parse_groups("IPHONE").unwrap()[0].matches("iPhone 16"), "case-insensitive");
    }

    #[test]
    fn bad_groups_name_the_field_and_line() {
        for (text, line) in [("a\n!b", 2), ("a @0", 1), ("a\n\nb +", 3), ("a @2 @3", 1), ("@5", 1)] {
            let e = parse_groups(text).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("watchlist.keywords"));
            assert!(e.message.contains(&format!("line {line}")), "{text}: {}", e.message);
        }
        assert!(parse_groups(" \n# only a comment").is_err());
    }

    #[test]
    fn schedules_fire_in_shanghai_time() {
        let s = Schedule::parse("0 8,12,18 * * *").unwrap();
        let at = DateTime::parse_from_rfc3339("2024-06-01T00:30:00Z").unwrap().with_timezone(&Utc);
        // 08:30 in Shanghai: the next firing is 12:00 Shanghai = 04:00 UTC.
        let next = s.next_after(at, chrono::Duration::minutes(5)).unwrap();
        assert_eq!(next.to_rfc3339(), "2024-06-01T04:00:00+00:00");
        assert!(matches!(Schedule::parse("on_change").unwrap(), Schedule::OnChange));
        for bad in ["", "0 8 * *", "61 8 * * *", "every day"] {
            assert_eq!(Schedule::parse(bad).unwrap_err().field.as_deref(), Some("watchlist.schedule"), "{bad}");
        }
    }

    #[test]
    fn quiet_hours_wrap_midnight() {
        let q = QuietHours::parse("23:00-07:00").unwrap().unwrap();
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        assert!(q.contains(at("2024-06-01T23:30:00+08:00")));
        assert!(q.contains(at("2024-06-01T06:59:00+08:00")));
        assert!(!q.contains(at("2024-06-01T07:00:00+08:00")));
        assert!(!q.contains(at("2024-06-01T12:00:00+08:00")));
        assert_eq!(QuietHours::parse("").unwrap(), None);
        assert!(QuietHours::parse("25:00-01:00").is_err());
        assert!(QuietHours::parse("08:00-08:00").is_err());
    }

    #[test]
    fn the_source_partition_is_the_closed_list() {
        // Hot lists and store platforms together are WATCH_SOURCES (proto).
        let mut partition: Vec<&str> = LIST_SOURCES.iter().chain(WORK_SOURCES.iter()).copied().collect();
        let mut closed: Vec<&str> = WatchSource::ALL.iter().map(|s| s.as_str()).collect();
        partition.sort_unstable();
        closed.sort_unstable();
        assert_eq!(partition, closed);
    }

    #[test]
    fn sources_channels_and_titles() {
        assert_eq!(sources(&["weibo".into(), "articles".into(), "weibo".into()]).unwrap(), ["weibo", "articles"]);
        assert_eq!(sources(&["weibo".into(), "x".into()]).unwrap_err().field.as_deref(), Some("watchlist.sources[1]"));
        let hook = Channel { r#type: "webhook".into(), url: "https://e.com".into(), ..Channel::default() };
        assert!(channels(std::slice::from_ref(&hook)).is_ok());
        let bad = Channel { r#type: "telegram".into(), secret: "t".into(), ..Channel::default() };
        assert_eq!(channels(&[hook.clone(), bad]).unwrap_err().field.as_deref(), Some("watchlist.channels[1].chatId"));
        assert_eq!(channels(&[]).unwrap_err().field.as_deref(), Some("watchlist.channels"));
        let unreadable = Channel { secret: "whsec_not base64!".into(), ..hook.clone() };
        let error = channels(&[hook.clone(), unreadable]).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("watchlist.channels[1].secret"));
        assert!(!error.message.contains("not base64!"), "the secret is not quoted: {}", error.message);
        let standard = Channel { secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(), ..hook.clone() };
        assert!(channels(&[standard, Channel { secret: "raw bytes".into(), ..hook.clone() }]).is_ok());
        assert_eq!(normalize_title("华为 Mate70 发布！"), normalize_title("华为mate70发布"));
    }
}
