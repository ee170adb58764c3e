//! Parsers of the live hot-list replies (design HOTLISTS.md): one module
//! per source, each turning a reply body into [`HotListEntry`]s.
//!
//! Shared rules:
//! - Every field may be missing. An item without a title is **skipped and
//!   reported** ([`Skipped`] with its 1-based position and the reason); an
//!   item without a hot value or url is kept with `None`.
//! - Ranks are 1-based in list order among the ranked items; an untitled
//!   ranked item still takes its place, so the ranks stay the on-site ones.
//!   Pinned items (`extra.pinned = true`) and ads (`extra.ad = true`) are
//!   kept and ranked after the last ranked item, in reply order.
//! - Hot values that come as text (`1.2万`, `924 万热度`) go through
//!   [`mediaops_store::chinese_count::parse_count`].
//! - `extra` is a JSON object of the source's other fields (camelCase keys;
//!   unknown values are left out, never null).
//! - A reply that is not the documented shape at all (not JSON, no list
//!   where the list should be) is a [`ParseError`]: the collector counts the
//!   run as failed instead of writing an empty snapshot.

pub mod baidu;
pub mod bilibili;
pub mod douyin;
pub mod kuaishou;
pub mod toutiao;
pub mod weibo;
pub mod zhihu;

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::Source;
use mediaops_store::model::HotListEntry;

/// What a reply held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The entries to store, ranked and dated ([`finish`]).
    pub entries: Vec<HotListEntry>,
    /// Items that could not become entries, with the reason.
    pub skipped: Vec<Skipped>,
    /// When the reply itself says it was made (Zhihu: the epoch in
    /// `data[].id`; Baidu: `cards[0].updateTime`), if it says so.
    pub reported_at: Option<DateTime<Utc>>,
}

/// An item of a reply that was not turned into an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// 1-based position of the item in the reply's list.
    pub position: u64,
    /// Why it was skipped, e.g. `no title (word)` naming the fields tried.
    pub reason: String,
}

/// A reply that is not the documented shape at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The body does not parse as JSON; the parser's message.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// The reply parsed but the list is not where HOTLISTS.md says.
    #[error("unexpected reply: {0}")]
    Shape(String),
}

/// The items of a reply, in reply order, before ranks are given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// The list's items, pinned ones and ads included, in reply order.
    pub items: Vec<Item>,
    /// When the reply itself says it was made, if it says so.
    pub reported_at: Option<DateTime<Utc>>,
}

/// Reads the items of a live reply of `source` (the archive import ranks
/// and dates them itself).
///
/// # Errors
/// [`ParseError`] when the body is not the source's documented reply.
pub fn read(source: Source, body: &str) -> Result<Reply, ParseError> {
    match source {
        Source::Weibo => weibo::read(body),
        Source::Douyin => douyin::read(body),
        Source::Bilibili => bilibili::read(body),
        Source::Kuaishou => kuaishou::read(body),
        Source::Zhihu => zhihu::read(body),
        Source::Toutiao => toutiao::read(body),
        Source::Baidu => baidu::read(body),
    }
}

/// Parses a live reply of `source` into entries dated `captured_at`
/// ([`read`], then [`finish`]).
///
/// # Errors
/// [`ParseError`] when the body is not the source's documented reply.
pub fn parse(source: Source, body: &str, captured_at: DateTime<Utc>) -> Result<Parsed, ParseError> {
    let reply = read(source, body)?;
    let (entries, skipped) = finish(source, captured_at, reply.items);
    Ok(Parsed { entries, skipped, reported_at: reply.reported_at })
}

/// Where an item sits on its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// On the ranked list.
    #[default]
    Ranked,
    /// Pinned above the list by the platform (not ranked by heat).
    Pinned,
    /// An advertisement or promoted entry.
    Ad,
}

/// An item read from a reply (or an archive file), before ranks are given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item {
    /// The entry's title (a search word, a video's title); an item without
    /// one, or only blanks, is skipped.
    pub title: Option<String>,
    /// The fields tried for the title, named in the skip reason.
    pub title_fields: &'static str,
    /// A rank the source states itself; `None` = position in the list.
    pub rank: Option<i64>,
    /// The heat the source shows (`num`, `hot_value`, `hotScore`, …; `123.4万`
    /// read as 1,234,000); `None` when it shows none.
    pub hot_value: Option<i64>,
    /// The entry's page (a search page, a video, a topic), as the source
    /// gives it or built from its id (docs/hotlists.md).
    pub url: Option<String>,
    /// The source's other fields kept with the entry (docs/hotlists.md,
    /// per source); `pinned` / `ad` are added for those placements.
    pub extra: Map<String, Value>,
    /// Ranked, pinned above the list, or an ad.
    pub placement: Placement,
}

/// Turns items (in reply order) into entries of `source` at `captured_at`.
///
/// Ranked items take their stated rank, else their position among the
/// ranked items (untitled ones included). A stated rank below 1 or already
/// taken, and every pinned item and ad, is ranked after the highest rank
/// given, in reply order, so `(source, captured_at, rank)` stays unique.
pub fn finish(source: Source, captured_at: DateTime<Utc>, items: Vec<Item>) -> (Vec<HotListEntry>, Vec<Skipped>) {
    let mut skipped = Vec::new();
    let mut taken = BTreeSet::new();
    let mut placed: Vec<(Option<i64>, Item)> = Vec::with_capacity(items.len());
    let mut ranked_position = 0;
    for (index, mut item) in items.into_iter().enumerate() {
        if item.placement == Placement::Ranked {
            ranked_position += 1;
        }
        let Some(title) = item.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) else {
            let fields = if item.title_fields.is_empty() { "title" } else { item.title_fields };
            skipped.push(Skipped { position: index as u64 + 1, reason: format!("no title ({fields})") });
            continue;
        };
        item.title = Some(title.to_owned());
        let rank = match item.placement {
            Placement::Ranked => Some(item.rank.unwrap_or(ranked_position)).filter(|r| *r >= 1 && taken.insert(*r)),
            Placement::Pinned => {
                item.extra.insert("pinned".into(), Value::Bool(true));
                None
            }
            Placement::Ad => {
                item.extra.insert("ad".into(), Value::Bool(true));
                None
            }
        };
        placed.push((rank, item));
    }
    let mut next = taken.last().copied().unwrap_or(0);
    let entries = placed
        .into_iter()
        .map(|(rank, item)| HotListEntry {
            source: source.name().to_owned(),
            captured_at,
            rank: rank.unwrap_or_else(|| {
                next += 1;
                next
            }),
            title: item.title.unwrap_or_default(),
            hot_value: item.hot_value,
            url: item.url,
            extra: (!item.extra.is_empty()).then_some(Value::Object(item.extra)),
        })
        .collect();
    (entries, skipped)
}

/// Parses a JSON body.
pub(crate) fn json(body: &str) -> Result<Value, ParseError> {
    serde_json::from_str(body.trim_start_matches('\u{feff}')).map_err(|e| ParseError::NotJson(e.to_string()))
}

/// The value at `path` (object keys; a numeric segment indexes an array).
pub(crate) fn at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, key| match v {
        Value::Object(map) => map.get(*key),
        Value::Array(list) => key.parse::<usize>().ok().and_then(|i| list.get(i)),
        _ => None,
    })
}

/// The array at `path`, or a [`ParseError::Shape`] naming the path.
pub(crate) fn list_at<'a>(value: &'a Value, path: &[&str]) -> Result<&'a Vec<Value>, ParseError> {
    at(value, path)
        .and_then(Value::as_array)
        .ok_or_else(|| ParseError::Shape(format!("no list at `{}`", path.join("."))))
}

/// Text at `path`: a non-blank string (trimmed), or a number written out.
pub(crate) fn text(value: &Value, path: &[&str]) -> Option<String> {
    match at(value, path)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The first of `paths` that holds text.
pub(crate) fn first_text(value: &Value, paths: &[&[&str]]) -> Option<String> {
    paths.iter().find_map(|path| text(value, path))
}

/// A count at `path`: a JSON number, or text read by
/// [`mediaops_store::chinese_count::parse_count`] (`"4904139"`, `"123.4万"`).
pub(crate) fn count(value: &Value, path: &[&str]) -> Option<i64> {
    match at(value, path)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as i64)),
        Value::String(s) => mediaops_store::chinese_count::parse_count(s),
        _ => None,
    }
}

/// True when `path` holds `true`, a non-zero number or a non-blank string
/// other than `"0"`/`"false"`.
pub(crate) fn truthy(value: &Value, path: &[&str]) -> bool {
    match at(value, path) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !matches!(s.trim(), "" | "0" | "false"),
        _ => false,
    }
}

/// Copies the values at `paths` into `extra` under their names, leaving
/// out what is missing or null.
pub(crate) fn copy_extra(extra: &mut Map<String, Value>, item: &Value, fields: &[(&str, &[&str])]) {
    for (name, path) in fields {
        match at(item, path) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.is_empty() => {}
            Some(v) => {
                extra.insert((*name).to_owned(), v.clone());
            }
        }
    }
}

/// Percent-encodes `text` for a URL query value (RFC 3986 unreserved
/// characters kept, everything else as UTF-8 `%XX`).
pub fn encode_query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The last non-empty path segment of a URL (query and fragment cut off).
pub(crate) fn last_segment(url: &str) -> Option<&str> {
    let path = url.split(['?', '#']).next()?;
    path.rsplit('/').find(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(title: Option<&str>, rank: Option<i64>, placement: Placement) -> Item {
        Item { title: title.map(Into::into), rank, placement, ..Item::default() }
    }

    #[test]
    fn ranks_follow_the_list_and_extras_go_after_it() {
        let at = Utc::now();
        let items = vec![
            item(Some("置顶"), None, Placement::Pinned),
            item(Some("a"), None, Placement::Ranked),
            item(Some("广告"), None, Placement::Ad),
            item(None, None, Placement::Ranked),
            item(Some(" c "), None, Placement::Ranked),
        ];
        let (entries, skipped) = finish(Source::Weibo, at, items);
        let got: Vec<(i64, &str)> = entries.iter().map(|e| (e.rank, e.title.as_str())).collect();
        assert_eq!(got, [(4, "置顶"), (1, "a"), (5, "广告"), (3, "c")]);
        assert_eq!(skipped, [Skipped { position: 4, reason: "no title (title)".into() }]);
        assert_eq!(entries[0].extra, Some(serde_json::json!({"pinned": true})));
        assert_eq!(entries[2].extra, Some(serde_json::json!({"ad": true})));
        assert_eq!(entries[1].extra, None);
        assert!(entries.iter().all(|e| e.source == "weibo" && e.captured_at == at));
    }

    #[test]
    fn stated_ranks_win_and_clashes_move_after_the_list() {
        let items = vec![
            item(Some("a"), Some(2), Placement::Ranked),
            item(Some("b"), Some(2), Placement::Ranked),
            item(Some("c"), Some(1), Placement::Ranked),
            item(Some("d"), Some(0), Placement::Ranked),
        ];
        let (entries, _) = finish(Source::Toutiao, Utc::now(), items);
        let got: Vec<(i64, &str)> = entries.iter().map(|e| (e.rank, e.title.as_str())).collect();
        assert_eq!(got, [(2, "a"), (3, "b"), (1, "c"), (4, "d")]);
    }

    #[test]
    fn helpers_read_paths_counts_and_urls() {
        let v = serde_json::json!({"a": {"b": [{"c": " x "}, {"n": 12, "s": "1.2万", "f": 3.7, "z": "0"}]}});
        assert_eq!(text(&v, &["a", "b", "0", "c"]).as_deref(), Some("x"));
        assert_eq!(count(&v, &["a", "b", "1", "n"]), Some(12));
        assert_eq!(count(&v, &["a", "b", "1", "s"]), Some(12_000));
        assert_eq!(count(&v, &["a", "b", "1", "f"]), Some(3));
        assert_eq!(count(&v, &["a", "missing"]), None);
        assert!(!truthy(&v, &["a", "b", "1", "z"]));
        assert!(truthy(&v, &["a", "b", "1", "n"]));
        assert!(matches!(list_at(&v, &["a", "c"]), Err(ParseError::Shape(m)) if m.contains("a.c")));
        assert_eq!(encode_query_value("端午 #a&b"), "%E7%AB%AF%E5%8D%88%20%23a%26b");
        assert_eq!(last_segment("https://api.zhihu.com/questions/123?x=1"), Some("123"));
        assert_eq!(last_segment("https://www.zhihu.com/question/456/"), Some("456"));
    }
}
