//! Typed reads of one MediaCrawler row. The same row arrives as JSON (ids
//! and times as numbers or text, counts as text such as `1.2万`) or as CSV
//! (everything text), and Python writes a missing value as `None` or an
//! empty string; these getters accept every spelling and refuse values that
//! are present but unreadable, naming the column.

use chrono::{DateTime, TimeZone, Utc};
use serde_json::{Map, Value};

use crate::chinese_count::parse_count_strict;
use crate::import::parse_time;

/// One row: column name → value.
pub(super) struct Fields<'a>(pub &'a Map<String, Value>);

/// Epoch values above this are milliseconds (MediaCrawler's own rule in
/// `tools/time_util.py`).
const MILLIS_FROM: i64 = 1_000_000_000_000;

impl Fields<'_> {
    /// The column as trimmed text; `None` when absent, null, empty, `None`
    /// or `null`. Numbers and booleans are written out; lists and objects
    /// as JSON.
    pub fn text(&self, name: &str) -> Option<String> {
        let text = match self.0.get(name)? {
            Value::Null => return None,
            Value::String(s) => s.trim().to_owned(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => other.to_string(),
        };
        (!matches!(text.as_str(), "" | "None" | "null")).then_some(text)
    }

    /// The first of `names` that has text.
    pub fn first_text(&self, names: &[&str]) -> Option<String> {
        names.iter().find_map(|name| self.text(name))
    }

    /// A column that must have text, e.g. the row's id.
    pub fn required(&self, name: &str) -> Result<String, String> {
        self.text(name).ok_or_else(|| format!("{name} is missing"))
    }

    /// An id column: as [`Fields::text`], but `0` (MediaCrawler's "no
    /// parent") is none too.
    pub fn id(&self, name: &str) -> Option<String> {
        self.text(name).filter(|id| id != "0")
    }

    /// A count: an integer, or text such as `1.2万` / `10万+` / `1,234`
    /// ([`crate::chinese_count`]). Absent or blank is `None`.
    pub fn count(&self, name: &str) -> Result<Option<i64>, String> {
        match self.0.get(name) {
            Some(Value::Number(n)) => match n.as_i64() {
                Some(v) => Ok(Some(v)),
                None => n
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18)
                    .map(|f| Some(f as i64))
                    .ok_or_else(|| format!("{name}: {n} is not a count")),
            },
            _ => match self.text(name) {
                Some(text) => parse_count_strict(&text).map_err(|e| format!("{name}: {e}")),
                None => Ok(None),
            },
        }
    }

    /// The optional count column `name`, when the layout has one.
    pub fn count_opt(&self, name: Option<&str>) -> Result<Option<i64>, String> {
        name.map_or(Ok(None), |name| self.count(name))
    }

    /// A time: epoch seconds or milliseconds (number or digits; 0 = none),
    /// RFC 3339, or `YYYY-MM-DD HH:mm:ss[+08:00]` (no offset = Asia/Shanghai).
    pub fn time(&self, name: &str) -> Result<Option<DateTime<Utc>>, String> {
        let Some(text) = self.text(name) else { return Ok(None) };
        let bad = || format!("{name}: {text:?} is not a time");
        if text.bytes().all(|b| b.is_ascii_digit()) {
            let epoch: i64 = text.parse().map_err(|_| bad())?;
            if epoch == 0 {
                return Ok(None);
            }
            let at = if epoch > MILLIS_FROM { Utc.timestamp_millis_opt(epoch) } else { Utc.timestamp_opt(epoch, 0) };
            return at.single().map(Some).ok_or_else(bad);
        }
        parse_time(&text).map(Some).map_err(|_| bad())
    }

    /// The first of `names` that holds a time.
    pub fn first_time(&self, names: &[&str]) -> Result<Option<DateTime<Utc>>, String> {
        for name in names {
            if let Some(at) = self.time(name)? {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    /// A list column: a JSON array of strings, or text joined by commas
    /// (MediaCrawler joins tags and image URLs with `,`).
    pub fn list(&self, name: &str) -> Vec<String> {
        match self.0.get(name) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned))
                .collect(),
            _ => self
                .text(name)
                .map(|text| text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
                .unwrap_or_default(),
        }
    }

    /// The first URL of a column that may hold several joined by commas
    /// (`image_list`, xhs `video_url`); a comma inside one URL is kept.
    pub fn first_url(&self, name: &str) -> Option<String> {
        let text = self.text(name)?;
        let end = text.find(",http").unwrap_or(text.len());
        Some(text[..end].trim().to_owned()).filter(|url| !url.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn json_and_csv_spellings_read_alike() {
        let map = row(serde_json::json!({
            "a": 12, "b": "1.2万", "c": "None", "d": "", "e": null, "f": "abc", "g": 3.0,
            "t_ms": 1717200000000_i64, "t_s": "1717200000", "t_text": "2024-06-01 08:00:00", "t_zero": 0,
            "t_offset": "2023-12-23 17:12:54+08:00",
            "tags": "美食,探店", "arr": ["x", " ", "y"], "imgs": "http://a/1.jpg,http://a/2,3.jpg",
        }));
        let f = Fields(&map);
        assert_eq!(f.count("a"), Ok(Some(12)));
        assert_eq!(f.count("b"), Ok(Some(12_000)));
        assert_eq!(f.count("g"), Ok(Some(3)));
        for blank in ["c", "d", "e", "missing"] {
            assert_eq!(f.count(blank), Ok(None), "{blank}");
            assert_eq!(f.text(blank), None, "{blank}");
        }
        assert!(f.count("f").unwrap_err().starts_with("f: "));
        assert_eq!(f.text("a").as_deref(), Some("12"));
        assert_eq!(f.required("d").unwrap_err(), "d is missing");
        let june = Utc.with_ymd_and_hms(2024, 6, 1, 0, 0, 0).unwrap();
        assert_eq!(f.time("t_ms"), Ok(Some(june)));
        assert_eq!(f.time("t_s"), Ok(Some(june)));
        assert_eq!(f.time("t_text"), Ok(Some(june)), "Shanghai wall time");
        assert_eq!(f.time("t_zero"), Ok(None));
        assert_eq!(f.time("t_offset"), Ok(Some(Utc.with_ymd_and_hms(2023, 12, 23, 9, 12, 54).unwrap())));
        assert!(f.time("f").is_err());
        assert_eq!(f.first_time(&["missing", "t_s"]), Ok(Some(june)));
        assert_eq!(f.list("tags"), ["美食", "探店"]);
        assert_eq!(f.list("arr"), ["x", "y"]);
        assert_eq!(f.first_url("imgs").as_deref(), Some("http://a/1.jpg"));
        assert_eq!(f.id("a").as_deref(), Some("12"));
    }
}
