//! `mediaops import`'s readers beyond the store crate's own formats
//! (docs/store.md "Import", docs/data-sources.md): the import recipes (one
//! TOML file per format, jq filters run by the vendor mappings' jaq engine),
//! recorded vendor replies through a pack's write-back filters, and
//! `import auto`, which recognises each file's format by its content.

pub mod auto;
pub mod document;
pub mod reader;
pub mod recipe;
pub mod vendor_replies;

pub use reader::Reader;
