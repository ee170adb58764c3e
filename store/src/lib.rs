//! The mediaops content store and durable state (docs/store.md,
//! docs/state.md), below the platform and the operations; every other crate
//! names its items by their module here (`mediaops_store::model::Work`,
//! `mediaops_store::charter::CharterStore`, …), with no second path.
//!
//! The content store (ARCHITECTURE.md "Data"): accounts, works, their
//! snapshots over time, comments and hot-list entries in the canonical
//! [`model`], behind one trait, [`ContentStore`], implemented once for both
//! backends ([`backend::SqlStore`], generic over the sqlx database) and
//! passing one conformance suite on each:
//!
//! - [`sqlite::SqliteStore`]: the embedded default, `<data_dir>/store.sqlite`
//!   in WAL mode, full text in FTS5.
//! - [`postgres::PostgresStore`]: `MEDIAOPS_DATABASE_URL`, for several
//!   replicas, full text in a GIN-indexed tsvector.
//!
//! The same database keeps the rest of the durable state of a core
//! (docs/state.md), one module per state, each holding its trait and
//! records (`mod.rs`) and their implementation for both backends
//! (`sql_store.rs`): tasks ([`task`]), sync jobs ([`sync_job`]), charters
//! ([`charter`]), article themes ([`theme`]), per-account banned-word lists
//! ([`word_list`]), the WeChat third-party state ([`wechat`]), watch lists
//! ([`watch`]) and tracking lists ([`tracking`]) with their shared row lease
//! ([`scheduled`]), feed tokens ([`feed_token`]) and vendor calls
//! ([`vendor_call`]); [`open_all`] gives them all.
//!
//! The rankings' store side is [`rankings`]: the spec 4.1/4.2/8 ranking
//! rules (periods such as the weekly Monday, the daily lag, look-backs,
//! category lists), the boards' SQL and the stored board tables. The other
//! spec rules the store applies are in [`rules`] (times, hot-list windows,
//! platform order); [`text`] is the jieba segmentation, [`clock`] the
//! service clock, [`offload`] the blocking pool, [`chinese_count`] the
//! Chinese counts.
//!
//! Schema migrations (`migrations/<backend>/*.sql`) run on open.
//! Writes are idempotent upserts on natural keys: `(platform, platform_id)`
//! for accounts, works and comments; `(entity, captured_at)` for snapshots;
//! `(source, captured_at, rank)` for hot-list entries. An upsert never clears
//! a known value with an unknown one (`None` keeps what is stored).
//! Schema and formats: docs/store.md.

pub mod backend;
pub mod bulk;
pub mod change_notices;
pub mod charter;
pub mod chinese_count;
pub mod clock;
pub mod days;
pub mod failure;
pub mod feed_token;
pub mod freshness;
pub mod fts5_bm25;
pub mod fts5_tokens;
mod history;
pub mod import;
pub mod legacy;
pub(crate) mod listing;
pub mod model;
pub mod offload;
pub mod plans;
mod point_cache;
pub mod postgres;
mod queries;
pub mod rankings;
pub mod retention;
mod rows;
pub mod rules;
pub mod scheduled;
pub mod segment;
mod sql;
pub mod sqlite;
pub mod sqlite_memory;
pub mod sync_job;
pub mod task;
pub(crate) mod term_lists;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod text;
pub mod theme;
pub mod topic;
pub mod tracking;
pub mod vendor_call;
mod wal_index;
pub mod watch;
pub mod wechat;
pub mod word_list;
mod writes;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use model::{
    Account, AccountQuery, AccountRecord, AccountSeries, AccountSnapshot, AuthorGains, BoardAccount, BoardQuery,
    BoardWork, Comment, Counts, HotListEntry, HotListQuery, Record, SearchPage, SeriesQuery, Work, WorkQuery,
    WorkRecord, WorkSeries, WorkSnapshot, WorkTotals,
};

/// Largest `page_size` a search accepts (spec: `size` max 50).
pub const MAX_PAGE_SIZE: u32 = 50;

/// A listing counts its matches up to this many
/// ([`model::SearchPage::total_is_lower_bound`] past it), so a count
/// reads at most `TOTAL_CAP + 1` rows however many match
/// (docs/data-apis.md "Totals").
pub const TOTAL_CAP: u64 = 10_000;

/// A keyword-filtered board or series ([`model::BoardQuery::text`],
/// [`model::SeriesQuery::text`]) ranks at most this many matching works:
/// when more match, the most liked ones (newest snapshot's likes, then row
/// id), so its cost stays bounded however common the keyword is
/// (docs/rankings.md "Keyword boards").
pub const KEYWORD_MATCH_CAP: u32 = 2_000;

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A snapshot names an account or work that is not stored.
    #[error("{0} not found")]
    NotFound(String),
    /// A value the store cannot keep (empty key, page out of range).
    #[error("{field}: {message}")]
    Invalid {
        /// The request field the value came from, in its JSON spelling (`pageSize`).
        field: &'static str,
        /// What is wrong with it, for the caller (400 `invalid_input`).
        message: String,
    },
    /// The database refused or could not run a statement; how it is
    /// answered (400, 503 `store_unavailable`, 500) is decided by
    /// [`StoreError::failure`] from the driver's code.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// A schema migration failed on open or on a readiness check
    /// (docs/store.md "Migrations").
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The files of the file-backed state of earlier releases could not be
    /// imported ([`legacy`]).
    #[error("import of the earlier file-backed state: {0}")]
    Import(String),
}

impl StoreError {
    pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> StoreError {
        StoreError::Invalid { field, message: message.into() }
    }
}

/// The result of a content-store call; the error is [`StoreError`].
pub type StoreResult<T> = Result<T, StoreError>;

/// The content store. Every method is safe to call concurrently.
#[async_trait]
pub trait ContentStore: Send + Sync {
    /// Which backend: `sqlite` or `postgres`.
    fn backend(&self) -> &'static str;

    /// Readiness (docs/store.md): the database answers and its schema is
    /// current. A schema that is missing or behind (the database was
    /// re-created empty) is migrated here, so a core recovers without a
    /// restart. An unreachable database is an error whose
    /// [`StoreError::is_unavailable`] is true; each call is bounded by the
    /// pool's acquire timeout ([`PoolSettings`]).
    async fn check(&self) -> StoreResult<()>;

    /// Writes a batch in one transaction, each record in its own savepoint:
    /// one outcome per record, in order; a failed record (e.g. a snapshot of
    /// an entity that is not stored: [`StoreError::NotFound`]) is rolled
    /// back alone and the rest are kept. Accounts, works and comments are
    /// upserts on `(platform, platform_id)` where `None` fields keep their
    /// stored value (`tags` replace the stored ones when not empty) and the
    /// text is re-indexed; snapshots replace one at the same moment; a
    /// hot-list entry replaces the one at `(source, captured_at, rank)`. The
    /// `Err` of the whole call means the transaction itself failed.
    async fn write(&self, records: &[Record]) -> StoreResult<Vec<StoreResult<()>>>;

    /// Inserts or updates an account (see [`ContentStore::write`]).
    async fn upsert_account(&self, account: &Account) -> StoreResult<()> {
        self.write_one(Record::Account(account.clone())).await
    }

    /// Inserts or updates a work (see [`ContentStore::write`]).
    async fn upsert_work(&self, work: &Work) -> StoreResult<()> {
        self.write_one(Record::Work(work.clone())).await
    }

    /// Inserts or updates a comment (see [`ContentStore::write`]).
    async fn upsert_comment(&self, comment: &Comment) -> StoreResult<()> {
        self.write_one(Record::Comment(comment.clone())).await
    }

    /// Records an account's counters at `captured_at`.
    /// [`StoreError::NotFound`] if the account is not stored.
    async fn add_account_snapshot(
        &self,
        platform: &str,
        platform_id: &str,
        snapshot: &AccountSnapshot,
    ) -> StoreResult<()> {
        self.write_one(Record::AccountSnapshot {
            platform: platform.into(),
            platform_id: platform_id.into(),
            snapshot: snapshot.clone(),
        })
        .await
    }

    /// Records a work's counters at `captured_at`; the newest snapshot's
    /// likes rank searches. [`StoreError::NotFound`] if the work is not
    /// stored.
    async fn add_work_snapshot(&self, platform: &str, platform_id: &str, snapshot: &WorkSnapshot) -> StoreResult<()> {
        self.write_one(Record::WorkSnapshot {
            platform: platform.into(),
            platform_id: platform_id.into(),
            snapshot: snapshot.clone(),
        })
        .await
    }

    /// Writes many snapshots of `platform`'s works at once, each given as
    /// `(platform_id, snapshot)` (the bulk path, [`bulk`]; docs/store.md
    /// "Bulk snapshots"): the stored result is the write path's for the
    /// same snapshots one by one in order — a snapshot replaces the one at
    /// the same moment, the per-day aggregates are exactly the row
    /// triggers' and `latest_*` moves forward only — at a fraction of the
    /// cost. One transaction per call; snapshots of works that are not
    /// stored are skipped and listed in [`bulk::BulkReport::missing`]. The
    /// `Err` means nothing of the call was written.
    async fn bulk_work_snapshots(
        &self,
        platform: &str,
        snapshots: &[(String, WorkSnapshot)],
    ) -> StoreResult<bulk::BulkReport>;

    /// [`ContentStore::bulk_work_snapshots`] for accounts' snapshots.
    async fn bulk_account_snapshots(
        &self,
        platform: &str,
        snapshots: &[(String, AccountSnapshot)],
    ) -> StoreResult<bulk::BulkReport>;

    /// Retention ([`retention`]; docs/store.md "Retention"): removes the
    /// snapshots captured before the Asia/Shanghai day `keep_from`, except
    /// every snapshot of each entity's newest day, and the per-day
    /// aggregate rows of the removed days (the rows after them lose their
    /// `prev_*`, as a fresh backfill would give). With `dry_run` nothing
    /// is removed and the report counts what would be. `None` when another
    /// prune holds the store (PostgreSQL: one replica at a time, an
    /// advisory lock).
    async fn prune_snapshots(
        &self,
        keep_from: chrono::NaiveDate,
        dry_run: bool,
    ) -> StoreResult<Option<retention::PruneReport>>;

    /// Writes one record and returns its outcome.
    async fn write_one(&self, record: Record) -> StoreResult<()> {
        self.write(std::slice::from_ref(&record)).await?.pop().unwrap_or(Ok(()))
    }

    /// The account whose `platform_id` or any id form equals `id`, with its
    /// newest snapshot.
    async fn get_account(&self, platform: &str, id: &str) -> StoreResult<Option<AccountRecord>>;

    /// The work whose `platform_id` or any id form equals `id`, with its
    /// newest snapshot.
    async fn get_work(&self, platform: &str, id: &str) -> StoreResult<Option<WorkRecord>>;

    /// Rows per table.
    async fn counts(&self) -> StoreResult<Counts>;

    /// Works matching every filter of `query`, in its order, one page, with
    /// the total of all matches as [`WorkQuery::total`] asks (none when
    /// [`model::Total::Uncounted`]). [`StoreError::Invalid`] for bad
    /// paging.
    async fn find_works(&self, query: &WorkQuery) -> StoreResult<SearchPage<WorkRecord>>;

    /// Accounts matching every filter of `query`, one page, with the total
    /// as [`AccountQuery::total`] asks.
    async fn find_accounts(&self, query: &AccountQuery) -> StoreResult<SearchPage<AccountRecord>>;

    /// Comments on the work `work_id` (the work's `platform_id`), most liked
    /// first, one page, with the total.
    async fn list_comments(
        &self,
        platform: &str,
        work_id: &str,
        page: u32,
        page_size: u32,
    ) -> StoreResult<SearchPage<Comment>>;

    /// The totals of the stored works of the author `author_id` (an
    /// account's `platform_id`) on `platform`.
    async fn work_totals(&self, platform: &str, author_id: &str) -> StoreResult<WorkTotals>;

    /// The totals of the stored works each author of `author_ids` (accounts'
    /// `platform_id`s) published on `platform` in `[from, to]`, one per
    /// author in the order given (an author with none: all zeros), read in
    /// one statement: what the account analyzers average over (spec 4.5,
    /// docs/rankings.md). At most [`MAX_TOTALS_AUTHORS`] authors, else
    /// [`StoreError::Invalid`].
    async fn published_totals(
        &self,
        platform: &str,
        author_ids: &[String],
        from: chrono::DateTime<chrono::Utc>,
        to: chrono::DateTime<chrono::Utc>,
    ) -> StoreResult<Vec<WorkTotals>>;

    /// Hot-list entries per [`HotListQuery`].
    async fn hot_list_entries(&self, query: &HotListQuery) -> StoreResult<Vec<HotListEntry>>;

    /// The works of a platform with their snapshots captured in a window
    /// (rankings, docs/rankings.md): per work, its snapshots oldest first
    /// and its stored author; works without a snapshot in the window are
    /// left out. Order: by row id.
    async fn work_series(&self, query: &SeriesQuery) -> StoreResult<Vec<WorkSeries>>;

    /// The accounts of a platform with their snapshots captured in a
    /// window, oldest first; accounts without one are left out.
    async fn account_series(&self, query: &SeriesQuery) -> StoreResult<Vec<AccountSeries>>;

    /// The snapshots of the work `(platform, platform_id)` (its stored
    /// `platform_id`, not another id form) captured in `[from, to]`, oldest
    /// first, without their `extra` (docs/history.md); empty when the work
    /// is not stored or has none in the window.
    async fn work_snapshots(
        &self,
        platform: &str,
        platform_id: &str,
        from: chrono::DateTime<chrono::Utc>,
        to: chrono::DateTime<chrono::Utc>,
    ) -> StoreResult<Vec<WorkSnapshot>>;

    /// The hot-list entries whose title is exactly `title`, of the lists
    /// `sources` (every list when empty), captured in `[from, to]`, by
    /// capture time, list and rank, without their `extra` (docs/history.md).
    async fn hot_title_entries(
        &self,
        title: &str,
        sources: &[String],
        from: chrono::DateTime<chrono::Utc>,
        to: chrono::DateTime<chrono::Utc>,
    ) -> StoreResult<Vec<HotListEntry>>;

    /// A board of works ranked in the database from the per-day aggregates
    /// (docs/rankings.md "Store"): the works of `query` with a snapshot
    /// inside its window, by the level or gain of likes or views
    /// ([`BoardQuery`]); the same figures [`ContentStore::work_series`]
    /// gives, without reading every snapshot. [`StoreError::Invalid`] for
    /// followers (works keep none).
    async fn work_board(&self, query: &BoardQuery) -> StoreResult<Vec<BoardWork>>;

    /// Keyword boards over one keyword's matches, each reading a built
    /// board of keyword values ([`BoardQuery::stored_values`]), ranked in
    /// one statement that reads each match's values of every board with one
    /// descent (docs/rankings.md "Keyword values"): the boards in
    /// `queries`' order, each its works and the values they rank by, the
    /// rows and order [`ContentStore::work_board`] gives, without the
    /// authors (the keyword boards that read them show none). `Ok(None)`
    /// when `queries` are not such boards (fewer than two; one without
    /// stored values, a limit or the others' matches; one with a filter that
    /// reads the works, such as a publish time): read each with
    /// [`ContentStore::work_board`].
    async fn value_boards(&self, queries: &[&BoardQuery]) -> StoreResult<Option<Vec<Vec<(Work, i64)>>>>;

    /// The row ids of the works matching `query.text` (platform, category
    /// and publish-time filters of `query` applied), at most
    /// [`KEYWORD_MATCH_CAP`], the most liked first (docs/rankings.md
    /// "Keyword boards"); empty when the text has no terms. A request
    /// ranking several boards over one keyword matches it once and passes
    /// the ids on ([`BoardQuery::matched`], [`SeriesQuery::matched`]).
    /// `None` without a text, and on a backend whose boards match the
    /// keyword in their own statement
    /// (`listing::Dialect::matches_keywords_once`: PostgreSQL with the
    /// replaced statement shapes of [`plans`]).
    async fn keyword_matches(&self, query: &BoardQuery) -> StoreResult<Option<model::KeywordMatches>>;

    /// A board of accounts (followers or likes), as [`ContentStore::work_board`].
    async fn account_board(&self, query: &BoardQuery) -> StoreResult<Vec<BoardAccount>>;

    /// The stored ranking boards of this store (docs/rankings.md "Boards as
    /// data"); `None` for a store without board tables.
    fn boards(&self) -> Option<Arc<dyn rankings::board_tables::BoardTables>> {
        None
    }

    /// Per author, the views and likes gained by the works of `query`
    /// (platform, category, publish time, work type and window; its counter,
    /// measure, threshold and limit are not used), ordered by author id.
    async fn author_gains(&self, query: &BoardQuery) -> StoreResult<Vec<AuthorGains>>;

    /// Works of `platform` holding every term of `query` (title,
    /// description, tags), by relevance, page `page` (from 1) of
    /// `page_size` (1..=[`MAX_PAGE_SIZE`]); [`StoreError::Invalid`] for bad
    /// paging. A query without terms matches nothing.
    async fn search_works(
        &self,
        platform: &str,
        query: &str,
        page: u32,
        page_size: u32,
    ) -> StoreResult<SearchPage<WorkRecord>> {
        self.find_works(&WorkQuery {
            platform: platform.into(),
            text: Some(query.into()),
            page,
            page_size,
            ..WorkQuery::default()
        })
        .await
    }
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

/// Most authors one [`ContentStore::published_totals`] reads (each is a
/// bound parameter; SQLite allows 32,766 in a statement).
pub const MAX_TOTALS_AUTHORS: usize = 1_000;

/// Settings of the store's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSettings {
    /// Longest wait for a PostgreSQL connection (from the pool or a new
    /// one) before a call fails with 503 `store_unavailable` instead of
    /// hanging (`MEDIAOPS_STORE_ACQUIRE_TIMEOUT_SECS`, default 2 s).
    pub acquire_timeout: std::time::Duration,
    /// Bytes of the SQLite file each connection reads through a memory
    /// mapping instead of `read` calls into its own page cache
    /// (`PRAGMA mmap_size`; `MEDIAOPS_SQLITE_MMAP_MIB`, default
    /// [`sqlite::DEFAULT_MMAP_BYTES`]; 0 = none; docs/store.md "Memory
    /// mapping"). Unused by PostgreSQL.
    pub sqlite_mmap_bytes: u64,
    /// How long a PostgreSQL connection may sit unused in the pool before it
    /// is pinged on its next use, and replaced when the server or the
    /// network dropped it meanwhile (default [`postgres::PING_AFTER_IDLE`];
    /// zero = a ping on every use; docs/store.md "PostgreSQL connections").
    /// Unused by SQLite.
    pub ping_after_idle: std::time::Duration,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            acquire_timeout: std::time::Duration::from_secs(2),
            sqlite_mmap_bytes: sqlite::DEFAULT_MMAP_BYTES,
            ping_after_idle: postgres::PING_AFTER_IDLE,
        }
    }
}

/// Opens the store the settings name: PostgreSQL at `database_url` when set,
/// else the SQLite file `<data_dir>/store.sqlite` (created with the
/// directory if absent). Migrations run before it returns. For the
/// commands that read and write content (`import`, `collectors`); a core
/// opens everything with [`open_all`].
pub async fn open(database_url: Option<&str>, data_dir: &Path) -> StoreResult<Arc<dyn ContentStore>> {
    Ok(connect(database_url, data_dir, PoolSettings::default()).await?.content)
}

/// The content store and the other state kept in its database
/// (docs/state.md).
pub struct Opened {
    /// The content store: accounts, works, snapshots, comments, hot lists (docs/store.md).
    pub content: Arc<dyn ContentStore>,
    /// Asynchronous tasks (docs/tasks.md).
    pub tasks: Arc<dyn task::TaskStore>,
    /// Sync jobs and the embedded sync queue (docs/sync.md).
    pub sync: Arc<dyn sync_job::SyncJobStore>,
    /// Positioning charters (docs/charter.md).
    pub charters: Arc<dyn crate::charter::CharterStore>,
    /// Default and custom article themes (docs/articles.md).
    pub themes: Arc<dyn crate::theme::ThemeStore>,
    /// Per-account banned-word lists (docs/banned-words.md).
    pub words: Arc<dyn crate::word_list::CustomWordStore>,
    /// WeChat third-party platform state (docs/wechat.md "State").
    pub wechat: Arc<dyn crate::wechat::WechatStore>,
    /// Watch lists, their seen-sets and delivery logs (docs/watchlists.md).
    pub watch: Arc<dyn crate::watch::WatchStore>,
    /// Feed tokens (docs/watchlists.md "Feeds").
    pub feed_tokens: Arc<dyn crate::feed_token::FeedTokenStore>,
    /// Vendor calls (docs/vendors.md "Vendor spend").
    pub vendor_calls: Arc<dyn crate::vendor_call::VendorCallStore>,
    /// Tracking lists and their run logs (docs/tracking.md).
    pub tracking: Arc<dyn crate::tracking::TrackingStore>,
    /// The change notices a PostgreSQL store listens to, for what the
    /// process keeps in memory of it (docs/store.md "Point reads on
    /// PostgreSQL"); `None` on SQLite, which one process writes.
    pub notices: Option<Arc<change_notices::Notices>>,
}

/// [`open`], also giving every other store on the same database
/// ([`Opened`]), after importing once the files of the file-backed state of
/// earlier releases found in `data_dir` ([`legacy`]; docs/state.md
/// "Upgrading"). `pool` bounds the PostgreSQL pool (SQLite keeps the
/// driver's defaults).
///
/// # Errors
/// The database cannot be opened or migrated, or the import fails
/// ([`StoreError::Import`]).
pub async fn open_all(database_url: Option<&str>, data_dir: &Path, pool: PoolSettings) -> StoreResult<Opened> {
    let opened = connect(database_url, data_dir, pool).await?;
    legacy::import(data_dir, &opened).await.map_err(|e| StoreError::Import(e.message))?;
    Ok(opened)
}

impl Opened {
    /// Every store of one backend (one database).
    pub fn of<S>(store: S) -> Opened
    where
        S: ContentStore
            + task::TaskStore
            + sync_job::SyncJobStore
            + crate::charter::CharterStore
            + crate::theme::ThemeStore
            + crate::word_list::CustomWordStore
            + crate::wechat::WechatStore
            + crate::watch::WatchStore
            + crate::feed_token::FeedTokenStore
            + crate::vendor_call::VendorCallStore
            + crate::tracking::TrackingStore
            + 'static,
    {
        let store = Arc::new(store);
        Opened {
            content: store.clone(),
            tasks: store.clone(),
            sync: store.clone(),
            charters: store.clone(),
            themes: store.clone(),
            words: store.clone(),
            wechat: store.clone(),
            watch: store.clone(),
            feed_tokens: store.clone(),
            vendor_calls: store.clone(),
            tracking: store,
            notices: None,
        }
    }
}

async fn connect(database_url: Option<&str>, data_dir: &Path, pool: PoolSettings) -> StoreResult<Opened> {
    Ok(match database_url {
        Some(url) => {
            let store = postgres::PostgresStore::connect(postgres::options(url)?, pool).await?;
            Opened { notices: store.notices(), ..Opened::of(store) }
        }
        None => Opened::of(sqlite::SqliteStore::open_with(&data_dir.join(sqlite::FILE_NAME), pool).await?),
    })
}
