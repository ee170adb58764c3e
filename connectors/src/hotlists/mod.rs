//! Public hot lists (docs/hotlists.md): the seven [`sources`], the
//! parsers of their live replies ([`parse`]), the [`collector`] that reads
//! them on a schedule into the content store, and the [`archive`] import of
//! archived snapshots.

pub mod archive;
pub mod collector;
pub mod config;
pub mod metrics;
pub mod parse;
pub mod sources;

pub use sources::{Source, SourceKind};
