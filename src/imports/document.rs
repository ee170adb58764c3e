//! A file read for recognition and for the recipes (docs/data-sources.md
//! "Recipes"): JSON (one document), CSV (a header row, each row an object
//! header → text) or neither, decided by the content, not the extension.

use std::path::Path;

use serde_json::{Map, Value};

/// What a file holds.
#[derive(Debug)]
pub enum Content {
    /// One JSON document.
    Json(Value),
    /// CSV rows as objects (header → text, a UTF-8 BOM dropped), each with
    /// its line in the file (the header is line 1).
    Csv(Vec<(u64, Value)>),
    /// Neither: why (JSON Lines files land here; they are read line by line).
    Other(String),
}

/// A file's content and what the recipes see of the file itself.
#[derive(Debug)]
pub struct Document {
    /// The content.
    pub content: Content,
    /// `{path, name, stem, dir, modified}`: the path, the file name, the name
    /// without its extension, the parent folder's name, and the modification
    /// time (RFC 3339 UTC, or `null`).
    pub file: Value,
}

impl Document {
    /// The content as the recipes' `doc`: the JSON document, or the CSV rows
    /// as an array of objects; `None` for other files.
    pub fn doc(&self) -> Option<Value> {
        match &self.content {
            Content::Json(value) => Some(value.clone()),
            Content::Csv(rows) => Some(Value::Array(rows.iter().map(|(_, row)| row.clone()).collect())),
            Content::Other(_) => None,
        }
    }
}

/// Reads `path` whole.
///
/// # Errors
/// A file that cannot be read.
pub fn read(path: &Path) -> Result<Document, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let content = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => Content::Json(value),
        Err(_) => match csv_rows(bytes) {
            Some(rows) => Content::Csv(rows),
            None => Content::Other("neither JSON nor CSV with a header row".into()),
        },
    };
    Ok(Document { content, file: file_info(path) })
}

/// The rows of a CSV text with a header of at least two columns, every row
/// as long as the header; `None` for anything else (Markdown, JSON Lines).
fn csv_rows(bytes: &[u8]) -> Option<Vec<(u64, Value)>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes);
    let header: Vec<String> = reader.headers().ok()?.iter().map(str::to_owned).collect();
    if header.len() < 2 {
        return None;
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.ok()?;
        let line = record.position().map_or(0, |p| p.line());
        let row: Map<String, Value> =
            header.iter().zip(record.iter()).map(|(k, v)| (k.clone(), Value::String(v.to_owned()))).collect();
        rows.push((line, Value::Object(row)));
    }
    Some(rows)
}

/// `{path, name, stem, dir, modified}` of `path`.
fn file_info(path: &Path) -> Value {
    let text = |s: Option<&std::ffi::OsStr>| s.and_then(|s| s.to_str()).map(str::to_owned);
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(|t| chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    serde_json::json!({
        "path": path.display().to_string(),
        "name": text(path.file_name()),
        "stem": text(path.file_stem()),
        "dir": text(path.parent().and_then(|p| p.file_name())),
        "modified": modified,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_is_told_from_json_and_from_other_text() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            read(&path).unwrap()
        };
        let csv = write("a.txt", "\u{feff}a,b\n1,2\n3,\"x,y\"\n");
        let Content::Csv(rows) = &csv.content else { panic!("{csv:?}") };
        assert_eq!(rows[1], (3, serde_json::json!({"a": "3", "b": "x,y"})));
        assert_eq!(csv.file["stem"], "a");
        assert!(matches!(write("b.csv", "[1, 2]").content, Content::Json(_)));
        assert!(matches!(write("c.md", "# Title\n\nText, with a comma.\nMore\n").content, Content::Other(_)));
        assert!(matches!(write("d.jsonl", "{\"a\": 1}\n{\"a\": 2}\n").content, Content::Other(_)));
    }
}
