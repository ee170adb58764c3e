//! Import into the content store (issue 5, item 3; docs/store.md
//! "Import"). Each format reads files into canonical records and writes them
//! with the store's idempotent upserts, so importing a file twice updates
//! rows and never duplicates them. A row that cannot be read or written is
//! rejected with its reason; it never aborts the file.

pub mod bilibili_popular;

use serde::Serialize;

/// The formats `mediaops import` knows.
pub const FORMATS: &[&str] = &["bilibili-popular"];

/// One row that was not imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejected {
    pub file: String,
    /// 1-based row within the file; 0 when the whole file was refused.
    pub row: u64,
    pub reason: String,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    pub files: u64,
    /// Rows found in the files.
    pub read: u64,
    /// Rows written (inserted or updated) in full.
    pub written: u64,
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
