//! `jsonl`: our own import schema, one JSON object per line, each one
//! canonical record ([`crate::model`]) named by `type`:
//!
//! | `type` | fields (camelCase; **bold** = required) |
//! |---|---|
//! | `account` | **`platform`**, **`platformId`**, `ids` {`accountId`, `secUid`, `uid`, `mid`, `redId`, `kwaiId`, `uniqueId`, `wechatId`}, `nickname`, `signature`, `fans`, `following`, `works`, `likes`, `collects`, `region`, `category`, `avatar` |
//! | `accountSnapshot` | **`platform`**, **`platformId`**, **`capturedAt`**, `fans`, `likes`, `works`, `reads` |
//! | `work` | **`platform`**, **`platformId`**, `ids` {`workId`, `noteId`, `videoId`, `bvId`, `photoId`, `workUuid`}, `title`, `description`, `authorId`, `publishedAt`, `url`, `cover`, `videoUrl`, `workType`, `category`, `tags` (string array), `durationSecs` |
//! | `workSnapshot` | **`platform`**, **`platformId`**, **`capturedAt`**, `likes`, `collects`, `comments`, `shares`, `views`, `watch`, `extra` (object) |
//! | `comment` | **`platform`**, **`platformId`**, **`workId`** (the work's `platformId`), **`text`**, `likes`, `authorId`, `authorName`, `publishedAt`, `parentId` |
//! | `hotListEntry` | **`source`**, **`capturedAt`**, **`rank`** (≥ 1), **`title`**, `hotValue`, `url`, `extra` (object) |
//!
//! - `platform` is a content platform token of spec part 1 (`lifestyle`,
//!   `shortvideo`, `articles`, `videosite`, `intlshort`, `channels`,
//!   `clipapp`, `microblog`); `platformId` is the platform's primary id
//!   (docs/store.md "Schema"); neither may be empty.
//! - Counters and `durationSecs` are JSON integers; absent or `null` means
//!   unknown, which never clears a stored value.
//! - Times are RFC 3339 (`2024-06-01T08:00:00+08:00`) or
//!   `YYYY-MM-DD HH:mm:ss`, read as Asia/Shanghai.
//! - A snapshot's account or work must be stored already, or come earlier
//!   in the file.
//! - A field the schema does not name is an error naming it and the closest
//!   known field; so is a `type` outside the six.
//!
//! Blank lines are skipped; every other line is one row, numbered by its
//! line in the file. A bad line is rejected with its reason and the rest of
//! the file is imported.

use std::io::BufRead;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ImportReport, RowWriter, closest, parse_time};
use crate::ContentStore;
use crate::model::{Account, AccountSnapshot, Comment, HotListEntry, Record, Work, WorkIds, WorkSnapshot};

/// The record types a line may name.
pub const TYPES: [&str; 6] = ["account", "accountSnapshot", "work", "workSnapshot", "comment", "hotListEntry"];

/// Platform tokens of spec part 1 that hold content (not `trend`, `tool`,
/// `multi`).
pub fn content_platforms() -> impl Iterator<Item = &'static str> {
    crate::rules::platforms::PLATFORM_ORDER.into_iter().filter(|p| !matches!(*p, "trend" | "tool" | "multi"))
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AccountSnapshotLine {
    platform: String,
    platform_id: String,
    captured_at: String,
    fans: Option<i64>,
    likes: Option<i64>,
    works: Option<i64>,
    reads: Option<i64>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WorkLine {
    platform: String,
    platform_id: String,
    #[serde(default)]
    ids: WorkIds,
    #[serde(default)]
    title: String,
    description: Option<String>,
    author_id: Option<String>,
    published_at: Option<String>,
    url: Option<String>,
    cover: Option<String>,
    video_url: Option<String>,
    work_type: Option<String>,
    category: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    duration_secs: Option<i64>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WorkSnapshotLine {
    platform: String,
    platform_id: String,
    captured_at: String,
    likes: Option<i64>,
    collects: Option<i64>,
    comments: Option<i64>,
    shares: Option<i64>,
    views: Option<i64>,
    watch: Option<i64>,
    extra: Option<Map<String, Value>>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommentLine {
    platform: String,
    platform_id: String,
    work_id: String,
    text: String,
    likes: Option<i64>,
    author_id: Option<String>,
    author_name: Option<String>,
    published_at: Option<String>,
    parent_id: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HotListLine {
    source: String,
    captured_at: String,
    rank: i64,
    title: String,
    hot_value: Option<i64>,
    url: Option<String>,
    extra: Option<Map<String, Value>>,
}

/// Reads `value` as `T`, refusing any key `T` does not have (at any depth),
/// with the closest key it does have.
fn strict<T: Serialize + DeserializeOwned>(value: &Value) -> Result<T, String> {
    let parsed: T = serde_path_to_error::deserialize(value).map_err(|e| match e.path().to_string().as_str() {
        "." => e.inner().to_string(),
        path => format!("{path}: {}", e.inner()),
    })?;
    let known = serde_json::to_value(&parsed).map_err(|e| e.to_string())?;
    match unknown_key(value, &known, "") {
        Some(error) => Err(error),
        None => Ok(parsed),
    }
}

/// The first key of `given` that `known` (the same value read and written
/// back) lacks, as an error message.
fn unknown_key(given: &Value, known: &Value, path: &str) -> Option<String> {
    let (Value::Object(given), Value::Object(known)) = (given, known) else { return None };
    given.iter().find_map(|(key, value)| {
        let here = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        match known.get(key) {
            Some(known) => unknown_key(value, known, &here),
            None => Some(match closest(key, known.keys().map(String::as_str)) {
                Some(near) => format!("unknown field `{here}` (did you mean `{near}`?)"),
                None => format!("unknown field `{here}`"),
            }),
        }
    })
}

fn time(field: &str, text: &str) -> Result<DateTime<Utc>, String> {
    parse_time(text).map_err(|e| format!("{field}: {e}"))
}

fn optional_time(field: &str, text: Option<&str>) -> Result<Option<DateTime<Utc>>, String> {
    text.map(|t| time(field, t)).transpose()
}

/// Checks the natural key every platform record carries.
fn key(platform: &str, platform_id: &str) -> Result<(), String> {
    if !content_platforms().any(|p| p == platform) {
        return Err(match closest(platform, content_platforms()) {
            Some(near) => format!("platform: unknown token {platform:?} (did you mean {near:?}?)"),
            None => format!("platform: unknown token {platform:?}"),
        });
    }
    if platform_id.trim().is_empty() {
        return Err("platformId: must not be empty".into());
    }
    Ok(())
}

/// One line as a record.
///
/// # Errors
/// Not a JSON object, a missing or unknown `type`, a missing, mistyped or
/// unknown field, an unknown platform, an empty key, or a bad time; each
/// message names the field.
pub fn parse_line(line: &str) -> Result<Record, String> {
    parse_value(serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?)
}

/// One record of the schema as a JSON value (a line already parsed; vendor
/// mappings write back through this, docs/vendors.md "Write-back").
///
/// # Errors
/// As [`parse_line`].
pub fn parse_value(mut value: Value) -> Result<Record, String> {
    let object = value.as_object_mut().ok_or("not a JSON object")?;
    let kind = match object.remove("type") {
        Some(Value::String(kind)) => kind,
        Some(_) => return Err("type: must be a string".into()),
        None => return Err(format!("type: missing (one of {})", TYPES.join(", "))),
    };
    match kind.as_str() {
        "account" => {
            // `ids` and `nickname` may be left out.
            object.entry("ids").or_insert_with(|| Value::Object(Map::new()));
            object.entry("nickname").or_insert_with(|| Value::String(String::new()));
            let account: Account = strict(&value)?;
            key(&account.platform, &account.platform_id)?;
            Ok(Record::Account(account))
        }
        "accountSnapshot" => {
            let l: AccountSnapshotLine = strict(&value)?;
            key(&l.platform, &l.platform_id)?;
            let snapshot = AccountSnapshot {
                captured_at: time("capturedAt", &l.captured_at)?,
                fans: l.fans,
                likes: l.likes,
                works: l.works,
                reads: l.reads,
            };
            Ok(Record::AccountSnapshot { platform: l.platform, platform_id: l.platform_id, snapshot })
        }
        "work" => {
            let l: WorkLine = strict(&value)?;
            key(&l.platform, &l.platform_id)?;
            Ok(Record::Work(Work {
                published_at: optional_time("publishedAt", l.published_at.as_deref())?,
                platform: l.platform,
                platform_id: l.platform_id,
                ids: l.ids,
                title: l.title,
                description: l.description,
                author_id: l.author_id,
                url: l.url,
                cover: l.cover,
                video_url: l.video_url,
                work_type: l.work_type,
                category: l.category,
                tags: l.tags,
                duration_secs: l.duration_secs,
            }))
        }
        "workSnapshot" => {
            let l: WorkSnapshotLine = strict(&value)?;
            key(&l.platform, &l.platform_id)?;
            let snapshot = WorkSnapshot {
                captured_at: time("capturedAt", &l.captured_at)?,
                likes: l.likes,
                collects: l.collects,
                comments: l.comments,
                shares: l.shares,
                views: l.views,
                watch: l.watch,
                extra: l.extra.map(Value::Object),
            };
            Ok(Record::WorkSnapshot { platform: l.platform, platform_id: l.platform_id, snapshot })
        }
        "comment" => {
            let l: CommentLine = strict(&value)?;
            key(&l.platform, &l.platform_id)?;
            if l.work_id.trim().is_empty() {
                return Err("workId: must not be empty".into());
            }
            Ok(Record::Comment(Comment {
                published_at: optional_time("publishedAt", l.published_at.as_deref())?,
                platform: l.platform,
                platform_id: l.platform_id,
                work_id: l.work_id,
                text: l.text,
                likes: l.likes,
                author_id: l.author_id,
                author_name: l.author_name,
                parent_id: l.parent_id,
            }))
        }
        "hotListEntry" => {
            let l: HotListLine = strict(&value)?;
            if l.source.trim().is_empty() {
                return Err("source: must not be empty".into());
            }
            if l.rank < 1 {
                return Err(format!("rank: must be at least 1, got {}", l.rank));
            }
            Ok(Record::HotListEntry(HotListEntry {
                source: l.source,
                captured_at: time("capturedAt", &l.captured_at)?,
                rank: l.rank,
                title: l.title,
                hot_value: l.hot_value,
                url: l.url,
                extra: l.extra.map(Value::Object),
            }))
        }
        other => Err(match closest(other, TYPES) {
            Some(near) => format!("type: unknown {other:?} (did you mean {near:?}?)"),
            None => format!("type: unknown {other:?} (one of {})", TYPES.join(", ")),
        }),
    }
}

/// Calls `each(line number, line)` for every non-blank line; a line that
/// is not UTF-8 is passed as `Err`.
fn for_each_line(path: &Path, mut each: impl FnMut(u64, Result<&str, String>)) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut reader = std::io::BufReader::new(file);
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(|e| format!("cannot read: {e}"))? == 0 {
            return Ok(());
        }
        number += 1;
        let bytes = if number == 1 { buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buf) } else { &buf };
        if bytes.trim_ascii().is_empty() {
            continue;
        }
        each(number, std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned()));
    }
}

/// How many rows (non-blank lines) `path` holds, for a progress bar.
///
/// # Errors
/// A file that cannot be read.
pub fn count_rows(path: &Path) -> Result<u64, String> {
    let mut rows = 0;
    for_each_line(path, |_, _| rows += 1)?;
    Ok(rows)
}

/// Imports one file; `on_row` is called once per row. A file that cannot be
/// opened is one rejection with row 0.
pub async fn import_file(store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
    let mut writer = RowWriter::new(store, path, on_row);
    let mut rows = Vec::new();
    let read = for_each_line(path, |number, line| rows.push((number, line.and_then(parse_line))));
    if let Err(reason) = read {
        writer.refuse_file(reason);
    }
    for (number, record) in rows {
        writer.row(number, record.map(|r| vec![r])).await;
    }
    writer.finish().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_reads_into_its_record() {
        let account =
            parse_line(r#"{"type":"account","platform":"videosite","platformId":"1","ids":{"mid":"1"},"fans":5}"#)
                .unwrap();
        let Record::Account(a) = account else { panic!() };
        assert_eq!((a.ids.mid.as_deref(), a.fans, a.nickname.as_str()), (Some("1"), Some(5), ""));

        let snap =
            parse_line(r#"{"type":"workSnapshot","platform":"lifestyle","platformId":"n1","capturedAt":"2024-06-01 08:00:00","likes":3,"extra":{"coin":1}}"#)
                .unwrap();
        let Record::WorkSnapshot { snapshot, .. } = snap else { panic!() };
        assert_eq!(snapshot.captured_at.to_rfc3339(), "2024-06-01T00:00:00+00:00", "Shanghai wall time");
        assert_eq!(snapshot.extra.unwrap()["coin"], 1);

        let entry = parse_line(
            r#"{"type":"hotListEntry","source":"microblog-hot","capturedAt":"2024-06-01T12:00:00Z","rank":1,"title":"t","hotValue":924}"#,
        )
        .unwrap();
        let Record::HotListEntry(e) = entry else { panic!() };
        assert_eq!((e.rank, e.hot_value), (1, Some(924)));
    }

    #[test]
    fn bad_lines_name_the_field() {
        let cases = [
            (
                r#"{"type":"account","platform":"videosite","platformId":"1","fanz":5}"#,
                "unknown field `fanz` (did you mean `fans`?)",
            ),
            (
                r#"{"type":"work","platform":"videosite","platformId":"1","ids":{"bvid":"x"}}"#,
                "unknown field `ids.bvid` (did you mean `bvId`?)",
            ),
            (r#"{"type":"wrok","platform":"videosite"}"#, "type: unknown \"wrok\" (did you mean \"work\"?)"),
            (r#"{"platform":"videosite"}"#, "type: missing"),
            (
                r#"{"type":"work","platform":"videosites","platformId":"1"}"#,
                "platform: unknown token \"videosites\" (did you mean \"videosite\"?)",
            ),
            (r#"{"type":"work","platform":"videosite","platformId":" "}"#, "platformId: must not be empty"),
            (r#"{"type":"work","platform":"videosite"}"#, "missing field `platformId`"),
            (
                r#"{"type":"workSnapshot","platform":"videosite","platformId":"1","capturedAt":"yesterday"}"#,
                "capturedAt: ",
            ),
            (
                r#"{"type":"workSnapshot","platform":"videosite","platformId":"1","capturedAt":"2024-06-01 00:00:00","likes":"many"}"#,
                "likes: invalid type",
            ),
            (
                r#"{"type":"hotListEntry","source":"s","capturedAt":"2024-06-01 00:00:00","rank":0,"title":"t"}"#,
                "rank: must be at least 1",
            ),
            ("[1]", "not a JSON object"),
            ("{", "not JSON"),
        ];
        for (line, want) in cases {
            let error = parse_line(line).unwrap_err();
            assert!(error.starts_with(want), "{line}: {error}");
        }
    }
}
