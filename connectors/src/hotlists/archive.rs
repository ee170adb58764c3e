//! Import of archived hot-list snapshots: `mediaops import hotlists <dir>`
//! (docs/hotlists.md "Archive import"), the general path for bringing
//! hot-list history into the store.
//!
//! Every `*.json` file under the directory is read; its **source** is the
//! nearest directory (or file-name prefix) named like a [`Source`]
//! (`…/weibo/2024-06-10/12.json` → `weibo`), its **date** the last
//! `YYYY-MM-DD` in its name or its directories. The layout follows from the
//! source ([`layouts`]):
//!
//! | source | file | captured at (Asia/Shanghai) |
//! |---|---|---|
//! | weibo | `<date>/<HH>.json` | `<date> HH:00` |
//! | zhihu | `hot-question-<date>.json`, raw API reply | the crawl time in `data[].id`, else `<date> 23:59:59` |
//! | baidu | `<date>/hot-search.json`, raw board reply | `cards[0].updateTime`, else `<date> 23:59:59` |
//! | bilibili, douyin, kuaishou | `<date>.json`, daily union | `<date> 23:59:59` (one snapshot; rank = position) |
//! | toutiao | `<date>.json`, daily union | each item's first sighting (`hot_board_impr_id`) |
//!
//! A reply time is used only when it falls on the file's date. Entries are
//! upserts on `(source, captured_at, rank)`, so importing again rewrites the
//! same rows. Every record of a file is a row of the report: a record
//! without a title is rejected with its reason, never dropped silently; a
//! file whose source, date or shape cannot be read is rejected whole
//! (row 0).

pub mod layouts;

use std::path::{Path, PathBuf};

use chrono::{NaiveDate, NaiveTime};

use super::Source;
use super::parse::{self, Item, ParseError};
use layouts::{Snapshot, end_of_day};
use mediaops_store::ContentStore;
use mediaops_store::clock::shanghai_to_utc;
use mediaops_store::import::{ImportReport, RowWriter};
use mediaops_store::model::Record;

/// Every `*.json` file under `path` (or `path` itself when it is a file),
/// in name order.
///
/// # Errors
/// A path that does not exist or a directory that cannot be listed.
pub fn archive_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    if path.is_dir() {
        walk(path, &mut out)?;
    } else if path.is_file() {
        out.push(path.to_path_buf());
    } else {
        return Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"));
    }
    Ok(out)
}

/// The source a file belongs to: the nearest path component (file name
/// first, then its directories) that is a source name or starts with one
/// followed by `-` or `_`.
pub fn source_of(path: &Path) -> Option<Source> {
    path.iter().rev().filter_map(|part| part.to_str()).find_map(|part| {
        let stem = part.strip_suffix(".json").unwrap_or(part);
        Source::ALL.into_iter().find(|s| {
            stem == s.name()
                || stem.strip_prefix(s.name()).is_some_and(|rest| rest.starts_with('-') || rest.starts_with('_'))
        })
    })
}

/// The last `YYYY-MM-DD` in the file's name or its directories (searched
/// from the file name up).
pub fn date_of(path: &Path) -> Option<NaiveDate> {
    path.iter().rev().filter_map(|part| part.to_str()).find_map(|part| {
        let stem = part.strip_suffix(".json").unwrap_or(part);
        (0..stem.len().saturating_sub(9))
            .rev()
            .filter(|i| stem.is_char_boundary(*i) && stem.is_char_boundary(i + 10))
            .find_map(|i| NaiveDate::parse_from_str(&stem[i..i + 10], "%Y-%m-%d").ok())
    })
}

/// The snapshots of one archive file of `source` dated `date`.
///
/// # Errors
/// The file's shape, or a Weibo file not named `<HH>.json`.
pub fn read_snapshots(source: Source, path: &Path, body: &str, date: NaiveDate) -> Result<Vec<Snapshot>, String> {
    let shape = |e: ParseError| e.to_string();
    match source {
        Source::Weibo => {
            let hour = path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<u32>().ok())
                .and_then(|h| NaiveTime::from_hms_opt(h, 0, 0))
                .ok_or("a weibo file is named <HH>.json (the hour of the crawl)")?;
            layouts::weibo_hourly(body, shanghai_to_utc(date, hour)).map_err(shape)
        }
        Source::Zhihu | Source::Baidu => {
            let reply = parse::read(source, body).map_err(shape)?;
            let captured_at = reply
                .reported_at
                .filter(|t| t.with_timezone(&mediaops_store::clock::shanghai()).date_naive() == date)
                .unwrap_or_else(|| end_of_day(date));
            Ok(vec![Snapshot { captured_at, items: (1..).zip(reply.items).collect() }])
        }
        Source::Bilibili | Source::Douyin | Source::Kuaishou => layouts::daily_union(body, date).map_err(shape),
        Source::Toutiao => layouts::toutiao_union(body, date).map_err(shape),
    }
}

/// The rows of one archive file, read without writing (for a progress
/// bar); 0 for a file that cannot be read.
pub fn count_rows(path: &Path) -> u64 {
    let Some((source, date)) = source_of(path).zip(date_of(path)) else { return 0 };
    let Ok(body) = std::fs::read_to_string(path) else { return 0 };
    read_snapshots(source, path, &body, date).map(|s| s.iter().map(|s| s.items.len() as u64).sum()).unwrap_or(0)
}

/// Imports one archive file; `on_row` is called after each row.
pub async fn import_file(store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
    let mut writer = RowWriter::new(store, path, on_row);
    let snapshots = match read_file(path) {
        Ok(snapshots) => snapshots,
        Err(reason) => {
            writer.refuse_file(reason);
            return writer.finish().await;
        }
    };
    let Some(source) = source_of(path) else { return writer.finish().await };
    let mut rows: Vec<(u64, Result<Vec<Record>, String>)> = Vec::new();
    for snapshot in snapshots {
        let (rows_of, items): (Vec<u64>, Vec<Item>) = snapshot.items.into_iter().unzip();
        let (entries, skipped) = parse::finish(source, snapshot.captured_at, items);
        let skipped_at: std::collections::BTreeMap<u64, String> =
            skipped.into_iter().map(|s| (rows_of[s.position as usize - 1], s.reason)).collect();
        let mut entries = entries.into_iter();
        for row in rows_of {
            let outcome = match skipped_at.get(&row) {
                Some(reason) => Err(reason.clone()),
                None => entries.next().map(|e| vec![Record::HotListEntry(e)]).ok_or_else(|| "lost entry".to_owned()),
            };
            rows.push((row, outcome));
        }
    }
    rows.sort_by_key(|(row, _)| *row);
    for (row, outcome) in rows {
        writer.row(row, outcome).await;
    }
    writer.finish().await
}

fn read_file(path: &Path) -> Result<Vec<Snapshot>, String> {
    let names = Source::ALL.map(Source::name).join(", ");
    let source = source_of(path).ok_or_else(|| format!("no source name ({names}) in the path"))?;
    let date = date_of(path).ok_or("no YYYY-MM-DD in the path to date the snapshots")?;
    let body = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    read_snapshots(source, path, &body, date)
}

/// Imports every archive file under `dir` (or the file `dir`) into `store`;
/// `on_row` is called after each row. A directory that cannot be listed is
/// one rejection (row 0) naming it.
pub async fn import_archive(store: &dyn ContentStore, dir: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
    let mut report = ImportReport::default();
    let files = match archive_files(dir) {
        Ok(files) => files,
        Err(e) => {
            report.rejected.push(mediaops_store::import::Rejected {
                file: dir.display().to_string(),
                row: 0,
                reason: format!("cannot list: {e}"),
            });
            return report;
        }
    };
    for file in files {
        report.merge(import_file(store, &file, on_row).await);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_and_date_come_from_the_path() {
        let cases = [
            ("/d/hotlists/weibo/2024-06-10/12.json", Some(Source::Weibo), "2024-06-10"),
            ("/d/hotlists/zhihu/hot-question-2024-06-01.json", Some(Source::Zhihu), "2024-06-01"),
            ("/d/hotlists/baidu/2024-06-21/hot-search.json", Some(Source::Baidu), "2024-06-21"),
            ("/d/hotlists/kuaishou/2024-06-02.json", Some(Source::Kuaishou), "2024-06-02"),
            ("/d/toutiao-2022-06-19.json", Some(Source::Toutiao), "2022-06-19"),
            ("/d/other/2024-06-02.json", None, "2024-06-02"),
        ];
        for (path, source, date) in cases {
            let path = Path::new(path);
            assert_eq!(source_of(path), source, "{path:?}");
            assert_eq!(date_of(path).unwrap().to_string(), date, "{path:?}");
        }
        assert_eq!(source_of(Path::new("/d/weibofans/1.json")), None);
        assert_eq!(date_of(Path::new("/d/weibo/latest.json")), None);
    }

    #[test]
    fn weibo_files_must_name_their_hour() {
        let date = NaiveDate::from_ymd_opt(2024, 6, 10).unwrap();
        let err = read_snapshots(Source::Weibo, Path::new("weibo/2024-06-10/noon.json"), "[]", date).unwrap_err();
        assert!(err.contains("<HH>.json"), "{err}");
        let ok = read_snapshots(Source::Weibo, Path::new("weibo/2024-06-10/12.json"), "[]", date).unwrap();
        assert_eq!(ok[0].captured_at.to_rfc3339(), "2024-06-10T04:00:00+00:00");
    }

    #[test]
    fn raw_replies_are_dated_by_their_own_time_on_the_files_day() {
        let date = NaiveDate::from_ymd_opt(2024, 6, 10).unwrap();
        let body = r#"{"data":[
            {"id":"0_1718032203.1","target":{"title_area":{"text":"a"},"link":{"url":"https://www.zhihu.com/question/1"}}},
            {"id":"0_1718032203.1","target":{}}]}"#;
        let snapshots =
            read_snapshots(Source::Zhihu, Path::new("zhihu/hot-question-2024-06-10.json"), body, date).unwrap();
        assert_eq!(snapshots[0].captured_at.to_rfc3339(), "2024-06-10T15:10:03+00:00");
        let rows: Vec<(u64, Option<&str>)> = snapshots[0].items.iter().map(|(r, i)| (*r, i.title.as_deref())).collect();
        assert_eq!(rows, [(1, Some("a")), (2, None)]);
        // A reply time on another day is not the file's capture time.
        let other_day = NaiveDate::from_ymd_opt(2024, 6, 11).unwrap();
        let s =
            read_snapshots(Source::Zhihu, Path::new("zhihu/hot-question-2024-06-11.json"), body, other_day).unwrap();
        assert_eq!(s[0].captured_at.to_rfc3339(), "2024-06-11T15:59:59+00:00");
    }
}
