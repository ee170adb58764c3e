//! The content store (issue 5; ARCHITECTURE.md "Data"): accounts, works,
//! their snapshots over time, comments and hot-list entries in the
//! canonical [`model`], behind one trait with two implementations that pass
//! one conformance suite (`core-service/tests/store.rs`):
//!
//! - [`sqlite::SqliteStore`]: the embedded default, `<data_dir>/store.sqlite`
//!   in WAL mode, full text in FTS5.
//! - [`postgres::PostgresStore`]: `MEDIAOPS_DATABASE_URL`, for several
//!   replicas, full text in a GIN-indexed tsvector.
//!
//! Schema migrations (`store/migrations/<backend>/*.sql`) run on open.
//! Writes are idempotent upserts on natural keys: `(platform, platform_id)`
//! for accounts, works and comments; `(entity, captured_at)` for snapshots;
//! `(source, captured_at, rank)` for hot-list entries. An upsert never clears
//! a known value with an unknown one (`None` keeps what is stored).
//! Schema and formats: docs/store.md.

pub mod import;
pub mod model;
pub mod postgres;
pub mod segment;
mod sql;
pub mod sqlite;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use model::{Account, AccountRecord, AccountSnapshot, Counts, SearchPage, Work, WorkRecord, WorkSnapshot};

/// Largest `page_size` a search accepts (spec: `size` max 50).
pub const MAX_PAGE_SIZE: u32 = 50;

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A snapshot names an account or work that is not stored.
    #[error("{0} not found")]
    NotFound(String),
    /// A value the store cannot keep (empty key, page out of range).
    #[error("{field}: {message}")]
    Invalid { field: &'static str, message: String },
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl StoreError {
    pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> StoreError {
        StoreError::Invalid { field, message: message.into() }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// The content store. Every method is safe to call concurrently.
#[async_trait]
pub trait ContentStore: Send + Sync {
    /// Which backend: `sqlite` or `postgres`.
    fn backend(&self) -> &'static str;

    /// Inserts or updates an account by `(platform, platform_id)`; fields
    /// that are `None` keep their stored value.
    async fn upsert_account(&self, account: &Account) -> StoreResult<()>;

    /// Inserts or updates a work by `(platform, platform_id)` and re-indexes
    /// its text; `None` fields keep their stored value, `tags` replace the
    /// stored ones when not empty.
    async fn upsert_work(&self, work: &Work) -> StoreResult<()>;

    /// Records an account's counters at `captured_at` (replacing a snapshot
    /// at the same moment). [`StoreError::NotFound`] if the account is not
    /// stored.
    async fn add_account_snapshot(
        &self,
        platform: &str,
        platform_id: &str,
        snapshot: &AccountSnapshot,
    ) -> StoreResult<()>;

    /// Records a work's counters at `captured_at` (replacing a snapshot at
    /// the same moment); the newest snapshot's likes rank searches.
    /// [`StoreError::NotFound`] if the work is not stored.
    async fn add_work_snapshot(&self, platform: &str, platform_id: &str, snapshot: &WorkSnapshot) -> StoreResult<()>;

    /// The account whose `platform_id` or any id form equals `id`, with its
    /// newest snapshot.
    async fn get_account(&self, platform: &str, id: &str) -> StoreResult<Option<AccountRecord>>;

    /// The work whose `platform_id` or any id form equals `id`, with its
    /// newest snapshot.
    async fn get_work(&self, platform: &str, id: &str) -> StoreResult<Option<WorkRecord>>;

    /// Rows per table.
    async fn counts(&self) -> StoreResult<Counts>;

    /// Works of `platform` holding every term of `query` (segmented as in
    /// [`segment::terms`]) in title, description or tags; ranked by
    /// relevance (title matches weigh more), then newest likes, then
    /// publish time, newest first. `page` is 1-based; `page_size` is
    /// 1..=[`MAX_PAGE_SIZE`]. A query without terms matches nothing.
    async fn search_works(
        &self,
        platform: &str,
        query: &str,
        page: u32,
        page_size: u32,
    ) -> StoreResult<SearchPage<WorkRecord>>;
}

/// Checks paging arguments; returns (limit, offset).
pub(crate) fn paging(page: u32, page_size: u32) -> StoreResult<(i64, i64)> {
    if page == 0 {
        return Err(StoreError::invalid("page", "must be at least 1"));
    }
    if page_size == 0 || page_size > MAX_PAGE_SIZE {
        return Err(StoreError::invalid("pageSize", format!("must be 1..{MAX_PAGE_SIZE}")));
    }
    Ok((i64::from(page_size), i64::from(page - 1) * i64::from(page_size)))
}

/// Opens the store the settings name: PostgreSQL at `database_url` when set,
/// else the SQLite file `<data_dir>/store.sqlite` (created with the
/// directory if absent). Migrations run before it returns.
pub async fn open(database_url: Option<&str>, data_dir: &Path) -> StoreResult<Arc<dyn ContentStore>> {
    Ok(match database_url {
        Some(url) => Arc::new(postgres::PostgresStore::open(url).await?),
        None => Arc::new(sqlite::SqliteStore::open(&data_dir.join(sqlite::FILE_NAME)).await?),
    })
}
