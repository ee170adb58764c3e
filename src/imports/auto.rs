//! `mediaops import auto PATH…` (docs/data-sources.md "import auto"): walks
//! the paths, recognises each file's format by its content and picks its
//! reader. Tried in order, first fit wins:
//!
//! 1. JSON Lines whose first line is a record of our schema → `jsonl`;
//! 2. a Bilibili popular-feed reply (`{list: [{bvid, owner, …}]}`) dated by
//!    its path → `bilibili-popular`;
//! 3. a recorded TikHub or Just One API reply → `vendor-replies:<pack>`, when
//!    a mapping of the pack writes its route back (else skipped, saying why);
//! 4. an import recipe whose `recognize` says yes;
//! 5. a MediaCrawler export (its path names the platform and kind, its rows
//!    carry MediaCrawler's id columns) → `mediacrawler`;
//! 6. a hot-list archive file (its path names the source and date, its
//!    content has the source's shape) → `hotlists`.
//!
//! Anything else is skipped with the reason (never fatal).

use std::path::{Path, PathBuf};

use mediaops_connectors::hotlists::archive;
use mediaops_store::import::{self, bilibili_popular, jsonl, mediacrawler};
use serde::Serialize;
use serde_json::Value;

use super::document::{self, Content};
use super::reader::Reader;
use super::{recipe, vendor_replies};

/// A file `import auto` did not import, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The file.
    pub file: String,
    /// Why: no format recognised (what it is instead), or a vendor reply no
    /// mapping writes back.
    pub reason: String,
}

/// Files with their readers, and the files left out with the reason.
pub type Plan = (Vec<(PathBuf, Reader)>, Vec<Skipped>);

/// Column names only MediaCrawler's rows have (one is enough, with a path
/// that names the platform and kind).
const MEDIACRAWLER_COLUMNS: &[&str] =
    &["note_id", "aweme_id", "video_id", "comment_id", "creator_hash", "last_modify_ts", "user_id"];

/// Every file under `paths` (directories walked in name order; hidden files
/// left out), each with its reader or the reason it is skipped.
///
/// # Errors
/// A path that does not exist or a directory that cannot be listed.
pub fn plan(paths: &[PathBuf]) -> Result<Plan, String> {
    let (mut readers, mut skipped) = (Vec::new(), Vec::new());
    for file in all_files(paths)? {
        match recognise(&file) {
            Ok(reader) => readers.push((file, reader)),
            Err(reason) => skipped.push(Skipped { file: file.display().to_string(), reason }),
        }
    }
    Ok((readers, skipped))
}

/// Every file under `paths`, hidden files and folders left out.
fn all_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    import::walk_files(paths, &|path, _| !path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.')))
}

/// The reader of the file at `path`, recognised by its content.
///
/// # Errors
/// Why none fits.
pub fn recognise(path: &Path) -> Result<Reader, String> {
    let document = document::read(path)?;
    let recipes = recipe::recipes()?;
    let by_recipe = || recipes.iter().find(|r| r.recognizes(&document)).map(Reader::Recipe);
    match &document.content {
        Content::Json(doc) => {
            if is_popular_feed(doc) {
                return match bilibili_popular::captured_at(path) {
                    Some(_) => Ok(Reader::Store(import::Format::BilibiliPopular)),
                    None => Err("a Bilibili popular-feed reply without a YYYY-MM-DD in its path to date it".into()),
                };
            }
            if let Some(reply) = vendor_replies::reply(doc) {
                let pack = vendor_replies::pack(reply.pack)?;
                return match pack.covering(&reply, path) {
                    Ok(_) => Ok(Reader::Vendor(pack)),
                    Err(reason) => Err(format!("a recorded {} reply; {reason}", pack.name)),
                };
            }
            if let Some(reader) = by_recipe() {
                return Ok(reader);
            }
            let first = doc.as_array().and_then(|rows| rows.first());
            if let Some(reader) = mediacrawler_rows(path, first) {
                return Ok(reader);
            }
            if archive::count_rows(path) > 0 {
                return Ok(Reader::Hotlists);
            }
            Err(format!("JSON of no known format ({})", shape(doc)))
        }
        Content::Csv(rows) => {
            if let Some(reader) = by_recipe() {
                return Ok(reader);
            }
            let first = rows.first().map(|(_, row)| row);
            if let Some(reader) = mediacrawler_rows(path, first) {
                return Ok(reader);
            }
            let header = first.and_then(Value::as_object).map(|o| o.keys().cloned().collect::<Vec<_>>().join(", "));
            Err(format!("CSV of no known format (columns: {})", header.unwrap_or_default()))
        }
        Content::Other(why) => {
            let first = first_line(path);
            if first.as_deref().is_some_and(|line| jsonl::parse_line(line).is_ok()) {
                return Ok(Reader::Store(import::Format::Jsonl));
            }
            let row = first.and_then(|line| serde_json::from_str::<Value>(&line).ok());
            if let Some(reader) = mediacrawler_rows(path, row.as_ref()) {
                return Ok(reader);
            }
            Err(format!("not a data file: {why}"))
        }
    }
}

/// `{list: [{bvid, owner, stat, …}]}`.
fn is_popular_feed(doc: &Value) -> bool {
    doc["list"].as_array().and_then(|l| l.first()).is_some_and(|v| v.get("bvid").is_some() && v.get("owner").is_some())
}

/// The MediaCrawler reader when `path` names a platform and kind and `row`
/// (the file's first) carries one of its id columns.
fn mediacrawler_rows(path: &Path, row: Option<&Value>) -> Option<Reader> {
    let row = row?.as_object()?;
    mediacrawler::detect(path, mediacrawler::Hint::default()).ok()?;
    MEDIACRAWLER_COLUMNS
        .iter()
        .any(|c| row.contains_key(*c))
        .then_some(Reader::Store(import::Format::Mediacrawler(mediacrawler::Hint::default())))
}

/// The first non-blank line of a text file.
fn first_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    text.lines().find(|l| !l.trim().is_empty()).map(str::to_owned)
}

/// A short description of a JSON document's shape, for the skip reason.
fn shape(doc: &Value) -> String {
    match doc {
        Value::Object(o) => format!("an object with keys {}", o.keys().take(8).cloned().collect::<Vec<_>>().join(", ")),
        Value::Array(a) => format!("an array of {}", a.len()),
        other => format!("a {}", if other.is_string() { "string" } else { "scalar" }),
    }
}
