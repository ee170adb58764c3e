//! Import into the content store (docs/store.md
//! "Import"). Each format reads files into canonical records, row by row,
//! and hands them to one [`RowWriter`], which writes [`BATCH_ROWS`] rows at
//! a time — accounts, works, comments and hot-list entries through
//! [`ContentStore::write`] (one transaction, one savepoint per record), the
//! snapshots through the bulk path with the same outcomes
//! (`write_records`) — and maps the per-record outcomes back to rows. The store's
//! upserts make importing a file twice update rows, never duplicate them.
//! A row that cannot be read or written is rejected with its reason; it
//! never aborts the file.

pub mod bilibili_popular;
pub mod jsonl;
pub mod mediacrawler;

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Serialize;

use crate::clock::shanghai_to_utc;
use crate::model::{AccountSnapshot, Record, WorkSnapshot};
use crate::{ContentStore, StoreError, StoreResult};

/// The formats `mediaops import` knows.
pub const FORMATS: &[&str] = &["jsonl", "mediacrawler", "bilibili-popular"];

/// Rows per [`ContentStore::write`] call.
pub const BATCH_ROWS: usize = 500;

/// One row that was not imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejected {
    /// The file's path as given or found under a given directory.
    pub file: String,
    /// 1-based row within the file (each format says how it counts); 0
    /// when the whole file was refused.
    pub row: u64,
    /// Why it was not imported: the parse error, or the store's refusal of
    /// the first of its records that failed.
    pub reason: String,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Files read (refused ones included).
    pub files: u64,
    /// Rows found in the files.
    pub read: u64,
    /// Rows written (inserted or updated) in full.
    pub written: u64,
    /// Rows not imported, with their reasons, in file and row order.
    pub rejected: Vec<Rejected>,
}

impl ImportReport {
    /// Adds another report's figures to this one.
    pub fn merge(&mut self, other: ImportReport) {
        self.files += other.files;
        self.read += other.read;
        self.written += other.written;
        self.rejected.extend(other.rejected);
    }
}

/// A format `mediaops import` reads, with its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Our own schema ([`jsonl`]).
    Jsonl,
    /// MediaCrawler exports ([`mediacrawler`]).
    Mediacrawler(mediacrawler::Hint),
    /// Archived Bilibili popular-feed replies ([`bilibili_popular`]).
    BilibiliPopular,
}

impl Format {
    /// The name on the command line (one of [`FORMATS`]).
    pub fn name(&self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Mediacrawler(_) => "mediacrawler",
            Format::BilibiliPopular => "bilibili-popular",
        }
    }

    /// The file extensions a directory is searched for.
    pub fn extensions(&self) -> &'static [&'static str] {
        match self {
            Format::Jsonl => &["jsonl"],
            Format::Mediacrawler(_) => &["json", "jsonl", "csv"],
            Format::BilibiliPopular => &["json"],
        }
    }

    /// How many rows `path` holds, for a progress bar.
    ///
    /// # Errors
    /// A file that cannot be read as a whole.
    pub fn count_rows(&self, path: &Path) -> Result<u64, String> {
        match self {
            Format::Jsonl => jsonl::count_rows(path),
            Format::Mediacrawler(_) => mediacrawler::count_rows(path),
            Format::BilibiliPopular => bilibili_popular::count_rows(path),
        }
    }

    /// Imports one file; `on_row` is called once per row read.
    pub async fn import_file(&self, store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
        match self {
            Format::Jsonl => jsonl::import_file(store, path, on_row).await,
            Format::Mediacrawler(hint) => mediacrawler::import_file(store, path, *hint, on_row).await,
            Format::BilibiliPopular => bilibili_popular::import_file(store, path, on_row).await,
        }
    }
}

/// The files `paths` name, each directory searched recursively (in name
/// order) for files ending in one of `extensions`; a file named directly is
/// taken whatever its extension.
///
/// # Errors
/// A path that does not exist or a directory that cannot be listed.
pub fn collect_files(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>, String> {
    walk_files(paths, &|path, is_dir| {
        is_dir || path.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e))
    })
}

/// The files `paths` name, each directory searched recursively in name
/// order; an entry found in a directory is kept (a file) or entered (a
/// directory) when `keep(path, is_dir)` says so. A file named directly is
/// always taken.
///
/// # Errors
/// A path that does not exist or a directory that cannot be listed.
pub fn walk_files(paths: &[PathBuf], keep: &dyn Fn(&Path, bool) -> bool) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, keep: &dyn Fn(&Path, bool) -> bool, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let listing = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut entries: Vec<PathBuf> = listing
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        entries.sort();
        for path in entries {
            let is_dir = path.is_dir();
            if !keep(&path, is_dir) {
                continue;
            }
            if is_dir { walk(&path, keep, out)? } else { out.push(path) }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(format!("{} does not exist", path.display()));
        }
        if path.is_dir() { walk(path, keep, &mut out)? } else { out.push(path.clone()) }
    }
    Ok(out)
}

/// Writes one file's rows in batches and keeps its report: every format
/// hands each row it reads to [`RowWriter::row`], as its records or the
/// reason it cannot be imported. A row counts as written when every one of
/// its records was; otherwise it is rejected with the first failure (a
/// record's failure rolls back that record alone, so a rejected row's other
/// records may be stored).
pub struct RowWriter<'a> {
    store: &'a dyn ContentStore,
    file: String,
    on_row: &'a mut dyn FnMut(),
    /// Records of the rows not yet written.
    records: Vec<Record>,
    /// Those rows: number and how many of `records` are theirs.
    rows: Vec<(u64, usize)>,
    report: ImportReport,
}

impl<'a> RowWriter<'a> {
    /// A writer for the file at `path`.
    pub fn new(store: &'a dyn ContentStore, path: &Path, on_row: &'a mut dyn FnMut()) -> RowWriter<'a> {
        RowWriter {
            store,
            file: path.display().to_string(),
            on_row,
            records: Vec::new(),
            rows: Vec::new(),
            report: ImportReport { files: 1, ..Default::default() },
        }
    }

    /// Refuses the whole file (row 0).
    pub fn refuse_file(&mut self, reason: impl Into<String>) {
        self.reject(0, reason.into());
    }

    fn reject(&mut self, row: u64, reason: String) {
        self.report.rejected.push(Rejected { file: self.file.clone(), row, reason });
    }

    /// Takes row `number`: its records, or why it cannot be imported.
    pub async fn row(&mut self, number: u64, records: Result<Vec<Record>, String>) {
        self.report.read += 1;
        match records {
            Ok(records) => {
                self.rows.push((number, records.len()));
                self.records.extend(records);
                if self.rows.len() >= BATCH_ROWS {
                    self.flush().await;
                }
            }
            Err(reason) => {
                self.reject(number, reason);
                (self.on_row)();
            }
        }
    }

    /// Writes the pending rows in one [`ContentStore::write`].
    async fn flush(&mut self) {
        if self.rows.is_empty() {
            return;
        }
        let records = std::mem::take(&mut self.records);
        let rows = std::mem::take(&mut self.rows);
        let mut outcomes = match write_records(self.store, &records).await {
            Ok(outcomes) => outcomes.into_iter(),
            Err(e) => {
                for (number, _) in rows {
                    self.reject(number, format!("store: {e}"));
                    (self.on_row)();
                }
                return;
            }
        };
        let mut records = records.iter();
        for (number, count) in rows {
            let mut failure = None;
            for (record, outcome) in records.by_ref().zip(outcomes.by_ref()).take(count) {
                if let (Err(e), None) = (outcome, &failure) {
                    failure = Some(format!("{}: {e}", record_kind(record)));
                }
            }
            match failure {
                None => self.report.written += 1,
                Some(reason) => self.reject(number, reason),
            }
            (self.on_row)();
        }
    }

    /// Writes what is pending and returns the file's report, rejections in
    /// row order.
    pub async fn finish(mut self) -> ImportReport {
        self.flush().await;
        self.report.rejected.sort_by_key(|r| r.row);
        self.report
    }
}

/// Writes `records` with the outcomes [`ContentStore::write`] gives, one
/// per record in order: the other records through `write`, then the
/// snapshots through the bulk path ([`crate::bulk`]), one call per
/// kind and platform in their order. That is the same outcome whenever no
/// snapshot comes before the first record of its own account or work in
/// the batch (which the formats never write; else the batch goes through
/// `write` alone, where such a snapshot of a new entity fails). A
/// snapshot whose entity is not stored fails as in `write`
/// ([`StoreError::NotFound`]). The `Err` of a call fails every row of the
/// batch, though the records of an earlier call may be stored.
async fn write_records(store: &dyn ContentStore, records: &[Record]) -> StoreResult<Vec<StoreResult<()>>> {
    if !snapshots_follow_entities(records) {
        return store.write(records).await;
    }
    let (snapshots, others): (Vec<usize>, Vec<usize>) = (0..records.len())
        .partition(|&i| matches!(records[i], Record::WorkSnapshot { .. } | Record::AccountSnapshot { .. }));
    if snapshots.is_empty() {
        return store.write(records).await;
    }
    let mut outcomes: Vec<Option<StoreResult<()>>> = (0..records.len()).map(|_| None).collect();
    let written = store.write(&others.iter().map(|&i| records[i].clone()).collect::<Vec<_>>()).await?;
    for (&i, outcome) in others.iter().zip(written) {
        outcomes[i] = Some(outcome);
    }
    // (kind, platform) → positions, in order of first appearance.
    let mut groups: Vec<((bool, &str), Vec<usize>)> = Vec::new();
    for &i in &snapshots {
        let key = match &records[i] {
            Record::WorkSnapshot { platform, .. } => (true, platform.as_str()),
            Record::AccountSnapshot { platform, .. } => (false, platform.as_str()),
            _ => continue,
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, positions)) => positions.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    for ((works, platform), positions) in groups {
        let report = if works {
            let input: Vec<(String, WorkSnapshot)> = positions
                .iter()
                .filter_map(|&i| match &records[i] {
                    Record::WorkSnapshot { platform_id, snapshot, .. } => Some((platform_id.clone(), snapshot.clone())),
                    _ => None,
                })
                .collect();
            store.bulk_work_snapshots(platform, &input).await?
        } else {
            let input: Vec<(String, AccountSnapshot)> = positions
                .iter()
                .filter_map(|&i| match &records[i] {
                    Record::AccountSnapshot { platform_id, snapshot, .. } => {
                        Some((platform_id.clone(), snapshot.clone()))
                    }
                    _ => None,
                })
                .collect();
            store.bulk_account_snapshots(platform, &input).await?
        };
        for &i in &positions {
            outcomes[i] = Some(Ok(()));
        }
        for missing in report.missing {
            let Some(&i) = positions.get(missing) else { continue };
            let (kind, platform_id) = match &records[i] {
                Record::WorkSnapshot { platform_id, .. } => ("work", platform_id),
                Record::AccountSnapshot { platform_id, .. } => ("account", platform_id),
                _ => continue,
            };
            outcomes[i] = Some(Err(StoreError::NotFound(format!("{kind} {platform}/{platform_id}"))));
        }
    }
    Ok(outcomes.into_iter().map(|o| o.unwrap_or(Ok(()))).collect())
}

/// Whether no snapshot of `records` comes before the first record of its
/// own account or work (see [`write_records`]).
fn snapshots_follow_entities(records: &[Record]) -> bool {
    let mut first: std::collections::HashMap<(bool, &str, &str), usize> = std::collections::HashMap::new();
    for (i, record) in records.iter().enumerate() {
        let key = match record {
            Record::Work(w) => (true, w.platform.as_str(), w.platform_id.as_str()),
            Record::Account(a) => (false, a.platform.as_str(), a.platform_id.as_str()),
            _ => continue,
        };
        first.entry(key).or_insert(i);
    }
    records.iter().enumerate().all(|(i, record)| {
        let key = match record {
            Record::WorkSnapshot { platform, platform_id, .. } => (true, platform.as_str(), platform_id.as_str()),
            Record::AccountSnapshot { platform, platform_id, .. } => (false, platform.as_str(), platform_id.as_str()),
            _ => return true,
        };
        first.get(&key).is_none_or(|&at| at < i)
    })
}

/// What a record is, for rejection reasons.
fn record_kind(record: &Record) -> &'static str {
    match record {
        Record::Account(_) => "account",
        Record::AccountSnapshot { .. } => "account snapshot",
        Record::Work(_) => "work",
        Record::WorkSnapshot { .. } => "work snapshot",
        Record::Comment(_) => "comment",
        Record::HotListEntry(_) => "hot-list entry",
    }
}

/// A time as import files write it: RFC 3339 (a space for the `T` is
/// fine), `YYYY-MM-DD HH:mm:ss` with an offset (`+08:00`), or
/// `YYYY-MM-DD HH:mm:ss` without one, read as Asia/Shanghai.
///
/// # Errors
/// Any other text, quoted in the message.
pub fn parse_time(text: &str) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    if let Ok(at) = DateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%:z") {
        return Ok(at.with_timezone(&Utc));
    }
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .map(|local| shanghai_to_utc(local.date(), local.time()))
        .map_err(|_| format!("{text:?} is not a time (RFC 3339 or YYYY-MM-DD HH:mm:ss)"))
}

/// The candidate nearest to `word` by edit distance (case-insensitive), if
/// it is near enough to be a likely typo: at most a third of the word's
/// length, and at least 1, edits away.
pub(crate) fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let word: Vec<char> = word.to_lowercase().chars().collect();
    let limit = (word.len() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word, &c.to_lowercase().chars().collect::<Vec<_>>()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance counting insertions, deletions, substitutions and swaps
/// of neighbours (optimal string alignment), so `wrok` is one edit from
/// `work`.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_or_shanghai_wall_time() {
        let june = "2024-06-01T00:00:00+00:00";
        for text in
            ["2024-06-01T08:00:00+08:00", "2024-06-01T00:00:00Z", "2024-06-01 08:00:00", "2024-06-01 08:00:00+08:00"]
        {
            assert_eq!(parse_time(text).map(|t| t.to_rfc3339()), Ok(june.into()), "{text}");
        }
        assert!(parse_time("2024-06-01").unwrap_err().contains("\"2024-06-01\""));
    }

    #[test]
    fn closest_names_a_likely_typo_only() {
        assert_eq!(closest("fanz", ["fans", "likes"]), Some("fans"));
        assert_eq!(closest("platformid", ["platform", "platformId"]), Some("platformId"));
        assert_eq!(closest("wrok", ["work", "comment"]), Some("work"));
        assert_eq!(closest("zzzzzz", ["fans", "likes"]), None);
    }
}
