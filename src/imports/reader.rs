//! What reads a file into the store: one of the store's formats, the
//! hot-list archive, an import recipe or a vendor pack's write-back
//! (`mediaops import <format>` and `import auto`, docs/store.md "Import").

use std::path::Path;

use mediaops_connectors::hotlists::archive;
use mediaops_store::ContentStore;
use mediaops_store::import::{self, ImportReport};

use super::recipe::Recipe;
use super::vendor_replies::VendorPack;

/// A reader of one format.
#[derive(Debug, Clone, Copy)]
pub enum Reader {
    /// A format of the store crate (`jsonl`, `mediacrawler`, `bilibili-popular`).
    Store(import::Format),
    /// Archived hot-list snapshots (docs/hotlists.md "Archive import").
    Hotlists,
    /// An import recipe ([`super::recipe`]).
    Recipe(&'static Recipe),
    /// Recorded replies of a vendor, through its pack's write-back filters.
    Vendor(&'static VendorPack),
}

impl Reader {
    /// The format's name in reports (`vendor-replies:<pack>` for a pack).
    pub fn name(&self) -> String {
        match self {
            Reader::Store(format) => format.name().to_owned(),
            Reader::Hotlists => "hotlists".to_owned(),
            Reader::Recipe(recipe) => recipe.name.clone(),
            Reader::Vendor(pack) => format!("vendor-replies:{}", pack.name),
        }
    }

    /// The file extensions a directory is searched for.
    pub fn extensions(&self) -> &'static [&'static str] {
        match self {
            Reader::Store(format) => format.extensions(),
            Reader::Hotlists | Reader::Vendor(_) => &["json"],
            Reader::Recipe(recipe) => match recipe.read {
                super::recipe::Read::Json => &["json"],
                super::recipe::Read::Csv => &["csv"],
            },
        }
    }

    /// How many rows `path` holds, for a progress bar (0 when unreadable).
    pub fn count_rows(&self, path: &Path) -> u64 {
        match self {
            Reader::Store(format) => format.count_rows(path).unwrap_or(0),
            Reader::Hotlists => archive::count_rows(path),
            Reader::Recipe(recipe) => recipe.count_rows(path),
            Reader::Vendor(pack) => pack.count_rows(path),
        }
    }

    /// Imports one file; `on_row` is called once per row.
    pub async fn import_file(&self, store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
        match self {
            Reader::Store(format) => format.import_file(store, path, on_row).await,
            Reader::Hotlists => archive::import_file(store, path, on_row).await,
            Reader::Recipe(recipe) => recipe.import_file(store, path, on_row).await,
            Reader::Vendor(pack) => pack.import_file(store, path, on_row).await,
        }
    }
}
