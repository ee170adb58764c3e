//! `mediacrawler`: the export files of MediaCrawler
//! (github.com/NanmiCoder/MediaCrawler) for Xiaohongshu, Douyin, Kuaishou,
//! Bilibili and Weibo: notes/videos ("contents"), comments and creators, as
//! its `SAVE_DATA_OPTION` `json` (one array per file), `jsonl` (one object a
//! line) or `csv` (header row, UTF-8 with BOM) writes them.
//!
//! MediaCrawler names its files `data/<platform>/<json|jsonl|csv>/
//! [<n>_]<crawler type>_<item type>_<YYYY-MM-DD>.<ext>` (`tools/
//! async_file_writer.py`; older versions `data/<platform>/<n>_…csv`), with
//! platform directories `xhs`, `douyin`/`dy`, `kuaishou`/`ks`,
//! `bilibili`/`bili`, `weibo`/`wb` and item types `contents` (Bilibili CSV:
//! `videos`), `comments` and `creators` (older: `creator`). The platform is
//! the nearest such name among the file name's `_`-separated words and its
//! directories; the kind is the file name's item type. [`Hint`] overrides
//! either. Other item types (Bilibili `contacts`, `dynamics`) are refused.
//!
//! Platforms map to the spec's tokens: xhs → `lifestyle`, douyin →
//! `shortvideo`, kuaishou → `clipapp`, bilibili → `videosite`, weibo →
//! `microblog`. Rows become records as `layout` says (docs/store.md,
//! "mediacrawler"): a content row → the author's account, the work and a
//! work snapshot; a comment row → a comment; a creator row → an account and
//! an account snapshot. Snapshots are taken at the row's `last_modify_ts`
//! (when MediaCrawler stored it), else at the date in the file name (00:00
//! Asia/Shanghai), else at the file's modification time.
//!
//! Row numbers in rejections: the element (1-based) of a JSON array, the
//! line of a JSONL or CSV file (a CSV header is line 1).

pub mod bvid;
mod fields;
mod layout;

use std::path::Path;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde_json::{Map, Value};

use super::{ImportReport, RowWriter};
use crate::ContentStore;
use crate::clock::shanghai_to_utc;

/// A MediaCrawler platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Xiaohongshu (`xhs`), stored as `lifestyle`.
    Xhs,
    /// Douyin (`douyin`, `dy`), stored as `shortvideo`.
    Douyin,
    /// Kuaishou (`kuaishou`, `ks`), stored as `clipapp`.
    Kuaishou,
    /// Bilibili (`bilibili`, `bili`), stored as `videosite`.
    Bilibili,
    /// Weibo (`weibo`, `wb`), stored as `microblog`.
    Weibo,
}

impl Platform {
    /// Every platform, in the order a path's names are matched against.
    pub const ALL: [Platform; 5] =
        [Platform::Xhs, Platform::Douyin, Platform::Kuaishou, Platform::Bilibili, Platform::Weibo];

    /// The spec's platform token the rows are stored under.
    pub fn token(self) -> &'static str {
        match self {
            Platform::Xhs => "lifestyle",
            Platform::Douyin => "shortvideo",
            Platform::Kuaishou => "clipapp",
            Platform::Bilibili => "videosite",
            Platform::Weibo => "microblog",
        }
    }

    /// MediaCrawler's names for the platform (directory and `--platform`).
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Platform::Xhs => &["xhs"],
            Platform::Douyin => &["douyin", "dy"],
            Platform::Kuaishou => &["kuaishou", "ks"],
            Platform::Bilibili => &["bilibili", "bili"],
            Platform::Weibo => &["weibo", "wb"],
        }
    }

    /// The platform MediaCrawler calls `name`.
    pub fn from_name(name: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.names().contains(&name))
    }
}

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Notes, videos, posts (`contents`, Bilibili CSV `videos`): the
    /// author's account, the work and a work snapshot per row.
    Contents,
    /// Comments on them (`comments`): one comment record per row.
    Comments,
    /// Creators' profiles (`creators`, older `creator`): an account and an
    /// account snapshot per row.
    Creators,
}

impl Kind {
    /// The kind a file-name word (`contents`, `videos`, `comments`,
    /// `creators`, singular too) names.
    pub fn from_name(name: &str) -> Option<Kind> {
        match name {
            "contents" | "content" | "videos" | "video" | "notes" | "note" => Some(Kind::Contents),
            "comments" | "comment" => Some(Kind::Comments),
            "creators" | "creator" => Some(Kind::Creators),
            _ => None,
        }
    }
}

/// Overrides for what the file name says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hint {
    /// The platform every file is read as (`--platform`); `None`: from the path.
    pub platform: Option<Platform>,
    /// The kind every file is read as (`--kind`); `None`: from the file name.
    pub kind: Option<Kind>,
}

/// The platform and kind of `path`, from `hint` or its name.
///
/// # Errors
/// A name that says neither (or a kind MediaCrawler writes but the store
/// has no place for), naming what to pass.
pub fn detect(path: &Path, hint: Hint) -> Result<(Platform, Kind), String> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let words: Vec<&str> = stem.split('_').collect();
    let dirs = path.parent().into_iter().flat_map(|p| p.iter().rev()).filter_map(|d| d.to_str());
    let platform = hint
        .platform
        .or_else(|| words.iter().copied().chain(dirs).find_map(Platform::from_name))
        .ok_or("no platform directory (xhs, douyin, kuaishou, bilibili, weibo) in the path; pass --platform")?;
    // The crawler type (`search`, `detail`, `creator`) comes before the
    // item type, so the last kind word is the item type.
    let kind = match hint.kind {
        Some(kind) => kind,
        None => {
            if let Some(other) = words.iter().find(|w| matches!(**w, "contacts" | "dynamics")) {
                return Err(format!("MediaCrawler {other} files are not imported"));
            }
            words
                .iter()
                .rev()
                .find_map(|w| Kind::from_name(w))
                .ok_or("no item type (contents, comments, creators) in the file name; pass --kind")?
        }
    };
    Ok((platform, kind))
}

/// One row as read: its number and its columns, or why it is unreadable.
type RawRow = (u64, Result<Map<String, Value>, String>);

/// Every row of a `.json`, `.jsonl` or `.csv` file.
fn read_rows(path: &Path) -> Result<Vec<RawRow>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let object = |value: Value| match value {
        Value::Object(map) => Ok(map),
        other => Err(format!("not an object: {}", kind_of(&other))),
    };
    match path.extension().and_then(|e| e.to_str()).unwrap_or_default() {
        "json" => {
            let value: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
            let items = match value {
                Value::Array(items) => items,
                single @ Value::Object(_) => vec![single],
                other => return Err(format!("a JSON array of rows expected, found {}", kind_of(&other))),
            };
            Ok(items.into_iter().enumerate().map(|(i, v)| (i as u64 + 1, object(v))).collect())
        }
        "jsonl" => Ok(bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.trim_ascii().is_empty())
            .map(|(i, line)| {
                let row = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}")).and_then(object);
                (i as u64 + 1, row)
            })
            .collect()),
        "csv" => read_csv(bytes),
        other => Err(format!("unknown extension {other:?}: json, jsonl or csv expected")),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn read_csv(bytes: &[u8]) -> Result<Vec<RawRow>, String> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let header: Vec<String> = reader
        .byte_headers()
        .map_err(|e| format!("no CSV header: {e}"))?
        .iter()
        .map(|h| String::from_utf8_lossy(h).trim().to_owned())
        .collect();
    let mut rows = Vec::new();
    let mut record = csv::ByteRecord::new();
    // The reader's own line count and record positions do not step over
    // blank lines; count the newlines before the record's first byte.
    let line_at = |byte: u64| {
        let mut at = (byte as usize).min(bytes.len());
        while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
            at += 1;
        }
        bytes[..at].iter().filter(|b| **b == b'\n').count() as u64 + 1
    };
    loop {
        let start = reader.position().byte();
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                rows.push((line_at(start), Err(format!("not CSV: {e}"))));
                continue;
            }
        }
        let line = line_at(record.position().map_or(start, |p| p.byte()));
        if record.iter().all(|field| field.is_empty()) {
            continue;
        }
        let row = if record.len() != header.len() {
            Err(format!("{} fields where the header has {}", record.len(), header.len()))
        } else {
            header
                .iter()
                .zip(record.iter())
                .map(|(name, field)| match std::str::from_utf8(field) {
                    Ok(text) => Ok((name.clone(), Value::String(text.to_owned()))),
                    Err(_) => Err(format!("{name}: not UTF-8")),
                })
                .collect()
        };
        rows.push((line, row));
    }
    Ok(rows)
}

/// How many rows `path` holds, for a progress bar.
///
/// # Errors
/// A file that cannot be read or parsed as a whole.
pub fn count_rows(path: &Path) -> Result<u64, String> {
    read_rows(path).map(|rows| rows.len() as u64)
}

/// When rows without `last_modify_ts` were captured: the last
/// `YYYY-MM-DD` among the file name's `_`-separated words at 00:00
/// Asia/Shanghai, else the file's modification time, else now.
pub fn fallback_captured_at(path: &Path) -> DateTime<Utc> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let dated = stem.split('_').rev().find_map(|w| NaiveDate::parse_from_str(w, "%Y-%m-%d").ok());
    match dated {
        Some(date) => shanghai_to_utc(date, NaiveTime::MIN),
        None => {
            std::fs::metadata(path).and_then(|m| m.modified()).map(DateTime::<Utc>::from).unwrap_or_else(|_| Utc::now())
        }
    }
}

/// Imports one file (see the module doc); `on_row` is called once per row.
/// A file whose platform or kind cannot be told, or that cannot be read as
/// a whole (not JSON, no CSV header), is one rejection with row 0.
pub async fn import_file(store: &dyn ContentStore, path: &Path, hint: Hint, on_row: &mut dyn FnMut()) -> ImportReport {
    let mut writer = RowWriter::new(store, path, on_row);
    let rows = detect(path, hint).and_then(|found| Ok((found, read_rows(path)?)));
    let ((platform, kind), rows) = match rows {
        Ok(found) => found,
        Err(reason) => {
            writer.refuse_file(reason);
            return writer.finish().await;
        }
    };
    let fallback = fallback_captured_at(path);
    for (number, row) in rows {
        let records = row.and_then(|row| layout::records(platform, kind, &row, fallback));
        writer.row(number, records).await;
    }
    writer.finish().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_and_kind_come_from_mediacrawlers_file_names() {
        let cases = [
            ("data/xhs/json/search_contents_2024-06-01.json", Platform::Xhs, Kind::Contents),
            ("data/xhs/1_search_comments_20240114.csv", Platform::Xhs, Kind::Comments),
            ("data/douyin/jsonl/creator_creators_2024-06-01.jsonl", Platform::Douyin, Kind::Creators),
            ("data/bili/csv/search_videos_2024-06-01.csv", Platform::Bilibili, Kind::Contents),
            ("/tmp/ks_detail_comments.jsonl", Platform::Kuaishou, Kind::Comments),
            ("exports/weibo/json/search_creator_2024-06-01.json", Platform::Weibo, Kind::Creators),
            ("data/douyin/json/creator_contents_2024-06-01.json", Platform::Douyin, Kind::Contents),
            ("data/xhs/json/creator_creator_2024-06-01.json", Platform::Xhs, Kind::Creators),
        ];
        for (path, platform, kind) in cases {
            assert_eq!(detect(Path::new(path), Hint::default()), Ok((platform, kind)), "{path}");
        }
        assert!(
            detect(Path::new("data/foo/search_contents.json"), Hint::default()).unwrap_err().contains("--platform")
        );
        assert!(detect(Path::new("data/xhs/json/search_2024.json"), Hint::default()).unwrap_err().contains("--kind"));
        assert!(
            detect(Path::new("data/bili/json/creator_dynamics_x.json"), Hint::default())
                .unwrap_err()
                .contains("dynamics")
        );
        let hint = Hint { platform: Some(Platform::Weibo), kind: Some(Kind::Comments) };
        assert_eq!(detect(Path::new("x.json"), hint), Ok((Platform::Weibo, Kind::Comments)));
    }

    #[test]
    fn files_without_last_modify_ts_are_dated_by_their_name() {
        let at = fallback_captured_at(Path::new("data/xhs/json/search_contents_2024-06-01.json"));
        assert_eq!(at.to_rfc3339(), "2024-05-31T16:00:00+00:00");
    }

    #[test]
    fn csv_rows_keep_their_line_and_short_rows_are_refused() {
        let text = "\u{feff}a,b\n1,\"two\nlines\"\n3\n\n5,6\n";
        let rows = read_csv(text.as_bytes().strip_prefix(b"\xEF\xBB\xBF").unwrap()).unwrap();
        let lines: Vec<u64> = rows.iter().map(|(line, _)| *line).collect();
        assert_eq!(lines, [2, 4, 6]);
        assert_eq!(rows[0].1.as_ref().unwrap()["b"], "two\nlines");
        assert!(rows[1].1.as_ref().unwrap_err().contains("1 fields where the header has 2"));
    }
}
