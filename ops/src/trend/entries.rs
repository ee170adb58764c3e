//! Captured hot-list entries folded per (list, title): a story that stays on
//! a list for several captures is one item with its best rank, how often it
//! was seen and its highest hot value (docs/trends.md "Entries").

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use mediaops_connectors::hotlists::Source;
use mediaops_store::model::HotListEntry;

/// One (list, title) of a window.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<'a> {
    /// The hot list it was captured from.
    pub source: Source,
    /// Trimmed.
    pub title: &'a str,
    /// Best (lowest) 1-based rank over its captures.
    pub best_rank: i64,
    /// Captures it was seen in.
    pub captures: u32,
    /// Highest hot value seen; `None` when the list gives none.
    pub hot: Option<i64>,
    /// URL of its first capture that has one.
    pub url: Option<&'a str>,
    /// Its first capture in the window.
    pub first_seen: DateTime<Utc>,
    /// Extra fields of its best-ranked capture.
    pub extra: Option<&'a serde_json::Value>,
}

/// The entries folded per (list, title), in order of first sighting (the
/// store returns captures oldest first). Entries of a list name this
/// version does not know, and blank titles, are skipped.
pub fn group(entries: &[HotListEntry]) -> Vec<Listed<'_>> {
    let mut out: Vec<Listed<'_>> = Vec::new();
    let mut at: HashMap<(Source, &str), usize> = HashMap::new();
    for entry in entries {
        let Some(source) = Source::from_name(&entry.source) else { continue };
        let title = entry.title.trim();
        if title.is_empty() {
            continue;
        }
        match at.get(&(source, title)) {
            Some(&i) => {
                let item = &mut out[i];
                item.captures += 1;
                if entry.rank < item.best_rank {
                    item.best_rank = entry.rank;
                    item.extra = entry.extra.as_ref().or(item.extra);
                }
                item.hot = item.hot.max(entry.hot_value);
                item.url = item.url.or(entry.url.as_deref());
            }
            None => {
                at.insert((source, title), out.len());
                out.push(Listed {
                    source,
                    title,
                    best_rank: entry.rank,
                    captures: 1,
                    hot: entry.hot_value,
                    url: entry.url.as_deref(),
                    first_seen: entry.captured_at,
                    extra: entry.extra.as_ref(),
                });
            }
        }
    }
    out
}

/// The distinct (list, title) documents of the entries, in order of first
/// sighting: what keyword scoring counts.
pub fn documents(entries: &[HotListEntry]) -> Vec<(Source, &str)> {
    group(entries).into_iter().map(|l| (l.source, l.title)).collect()
}

/// A text field of an entry's extra object, trying `keys` in order.
pub fn extra_text<'a>(extra: Option<&'a serde_json::Value>, keys: &[&str]) -> Option<&'a str> {
    let extra = extra?;
    keys.iter().filter_map(|k| extra.get(*k)?.as_str()).map(str::trim).find(|s| !s.is_empty())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A hand-made entry: `source`, capture `at` (RFC 3339), `rank`, `title`, `hot`.
    pub fn entry(source: &str, at: &str, rank: i64, title: &str, hot: Option<i64>) -> HotListEntry {
        HotListEntry {
            source: source.into(),
            captured_at: DateTime::parse_from_rfc3339(at).unwrap().with_timezone(&Utc),
            rank,
            title: title.into(),
            hot_value: hot,
            url: Some(format!("https://example.com/{source}/{rank}")),
            extra: None,
        }
    }

    #[test]
    fn captures_fold_per_list_and_title() {
        let entries = vec![
            entry("weibo", "2024-06-10T00:00:00Z", 3, "高考作文题目公布", Some(100)),
            entry("douyin", "2024-06-10T00:00:00Z", 1, "高考作文题目公布", None),
            entry("weibo", "2024-06-10T06:00:00Z", 1, " 高考作文题目公布 ", Some(90)),
            entry("nowhere", "2024-06-10T06:00:00Z", 1, "未知的榜", None),
            entry("weibo", "2024-06-10T06:00:00Z", 2, "", None),
        ];
        let grouped = group(&entries);
        assert_eq!(grouped.len(), 2);
        let weibo = &grouped[0];
        assert_eq!((weibo.source, weibo.best_rank, weibo.captures, weibo.hot), (Source::Weibo, 1, 2, Some(100)));
        assert_eq!(weibo.url, Some("https://example.com/weibo/3"), "the first capture's url");
        assert_eq!(weibo.first_seen.to_rfc3339(), "2024-06-10T00:00:00+00:00");
        assert_eq!(grouped[1].source, Source::Douyin);
        assert_eq!(documents(&entries), [(Source::Weibo, "高考作文题目公布"), (Source::Douyin, "高考作文题目公布")]);
    }

    #[test]
    fn extra_texts_skip_blanks() {
        let extra = serde_json::json!({"desc": " ", "description": "正文", "n": 1});
        assert_eq!(extra_text(Some(&extra), &["desc", "description"]), Some("正文"));
        assert_eq!(extra_text(Some(&extra), &["n"]), None);
        assert_eq!(extra_text(None, &["desc"]), None);
    }
}
