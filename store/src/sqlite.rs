//! The embedded content store: one SQLite file (`<data_dir>/store.sqlite`)
//! in WAL mode, full text in an FTS5 table over the jieba-segmented title
//! and body (docs/store.md).

use std::future::Future;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use chrono::NaiveDate;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteQueryResult, SqliteSynchronous,
};
use sqlx::{Sqlite, SqliteConnection};

use super::backend::{Backend, SqlStore};
use super::bulk::{self, BulkReport};
use super::listing::Dialect;
use super::model::{Account, AccountSnapshot, Work, WorkSnapshot};
use super::point_cache::PointCache;
use super::retention::{self, PruneReport};
use super::{PoolSettings, StoreError, StoreResult, fts5_bm25, fts5_tokens, segment, sql};

const DIALECT: Dialect = Dialect::Sqlite;

/// The store's file name inside the data directory.
pub const FILE_NAME: &str = "store.sqlite";

/// SQLite migrations, in order.
fn migrator() -> Migrator {
    sql::migrator(&[
        (1, "content", include_str!("migrations/sqlite/0001_content.sql")),
        (2, "listings", include_str!("migrations/sqlite/0002_listings.sql")),
        (3, "tasks", include_str!("migrations/sqlite/0003_tasks.sql")),
        (5, "rankings", include_str!("migrations/sqlite/0005_rankings.sql")),
        (6, "days", DAYS_MIGRATION.as_str()),
        (7, "sync", include_str!("migrations/sqlite/0007_sync.sql")),
        (8, "state", include_str!("migrations/sqlite/0008_state.sql")),
        (9, "watchlists", include_str!("migrations/sqlite/0009_watchlists.sql")),
        (10, "feeds", include_str!("migrations/sqlite/0010_feeds.sql")),
        (11, "boards", include_str!("migrations/sqlite/0011_boards.sql")),
        (13, "fts platform", include_str!("migrations/sqlite/0013_fts_platform.sql")),
        (14, "board order", include_str!("migrations/sqlite/0014_board_order.sql")),
        (15, "vendor calls", include_str!("migrations/sqlite/0015_vendor_calls.sql")),
        (16, "tracking", include_str!("migrations/sqlite/0016_tracking.sql")),
        (18, "term lists", TERM_LISTS_MIGRATION.as_str()),
        (19, "accounts fts platform", include_str!("migrations/sqlite/0019_accounts_fts_platform.sql")),
        (20, "board values", include_str!("migrations/sqlite/0020_board_values.sql")),
        (21, "board values by work", include_str!("migrations/sqlite/0021_board_values_by_work.sql")),
        (22, "work days category", WORK_DAYS_CATEGORY_MIGRATION.as_str()),
        (23, "fts token counts", include_str!("migrations/sqlite/0023_fts_token_counts.sql")),
        (24, "work term rows", include_str!("migrations/sqlite/0024_work_term_rows.sql")),
        (26, "work score keys", include_str!("migrations/sqlite/0026_work_score_keys.sql")),
    ])
}

/// Migration 0006, the per-day aggregates (built by [`super::days`]).
static DAYS_MIGRATION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| DIALECT.days_migration());

/// Migration 0022, the works' category in `work_days` (built by
/// [`super::listing::Dialect::work_days_category_migration`]).
static WORK_DAYS_CATEGORY_MIGRATION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| DIALECT.work_days_category_migration());

/// Migration 0018, the per-term lists of works by likes (built by
/// [`super::term_lists`]).
static TERM_LISTS_MIGRATION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| DIALECT.term_lists_migration());

/// The statements that rewrite a work's term-list rows, built once (every
/// work write runs them).
static TERM_ROWS_OF_WORK: std::sync::LazyLock<[String; 2]> = std::sync::LazyLock::new(|| DIALECT.term_rows_of_work());

/// The embedded store.
pub type SqliteStore = SqlStore<Sqlite>;

/// The most of a file the bundled SQLite maps: 64 GiB, its
/// `SQLITE_MAX_MMAP_SIZE` as this workspace compiles it (`.cargo/config.toml`;
/// SQLite lowers a larger `mmap_size` to it silently).
pub const MAX_MMAP_BYTES: u64 = 64 << 30;

/// The default of [`PoolSettings::sqlite_mmap_bytes`]: [`MAX_MMAP_BYTES`], so
/// the whole file is mapped (SQLite maps no more than the file's size;
/// docs/store.md "Memory mapping").
pub const DEFAULT_MMAP_BYTES: u64 = MAX_MMAP_BYTES;

/// Rows a connection's worker thread may read ahead of the task that
/// takes them (sqlx's `row_buffer_size`, 50 by default). With 50, the
/// worker of a statement answering hundreds of rows (a keyword board call:
/// about 650 works) stopped every 50 rows until the task caught up, and
/// each stop cost both threads a wake-up; 1,024 lets such a statement run
/// through (docs/performance.md "SQLite's memory and rows"). A listing that
/// streams more rows still stops the worker, 1,024 rows ahead at most.
const ROW_BUFFER: usize = 1024;

impl SqliteStore {
    /// Opens (creating the file and its directory if absent) and migrates,
    /// with the default [`PoolSettings`].
    pub async fn open(path: &Path) -> StoreResult<SqliteStore> {
        Self::open_with(path, PoolSettings::default()).await
    }

    /// Opens as [`SqliteStore::open`] with `settings`' memory mapping.
    pub async fn open_with(path: &Path, settings: PoolSettings) -> StoreResult<SqliteStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::invalid("dataDir", format!("cannot create {}: {e}", dir.display())))?;
        }
        restrict(path).map_err(|e| StoreError::invalid("dataDir", format!("cannot create {}: {e}", path.display())))?;
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(std::time::Duration::from_secs(10))
            .pragma("mmap_size", settings.sqlite_mmap_bytes.to_string())
            .row_buffer_size(ROW_BUFFER);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .after_connect(|conn, _| Box::pin(register_functions(conn)))
            .connect_with(options)
            .await?;
        migrator().run(&pool).await?;
        let points = PointCache::open(path).map(Arc::new);
        Ok(SqlStore { pool, points })
    }
}

/// Registers the store's own SQL functions on a new connection of the
/// pool: the relevance score [`fts5_bm25`] (docs/data-apis.md "Search at
/// scale") and the token count [`fts5_tokens`] it is given.
async fn register_functions(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    let mut handle = conn.lock_handle().await?;
    let db = handle.as_raw_handle().as_ptr();
    let refused =
        |name: &str, code| sqlx::Error::Configuration(format!("cannot register {name} (SQLite code {code})").into());
    // SAFETY: the handle is locked for these calls alone and stays open.
    unsafe { fts5_bm25::register(db) }.map_err(|code| refused(fts5_bm25::NAME, code))?;
    // SAFETY: as above.
    unsafe { fts5_tokens::register(db) }.map_err(|code| refused(fts5_tokens::NAME, code))
}

/// Replaces a work's FTS row with its segmented title and body and its
/// platform's term ([`segment::platform_term`]), then its term-list rows
/// from that row (docs/rankings.md "Keyword boards").
async fn index_work(conn: &mut SqliteConnection, id: i64, work: &Work) -> StoreResult<()> {
    let (title, body) = segment::work_terms_async(work).await;
    let columns = [
        ("title_terms", title.join(" ")),
        ("body_terms", body.join(" ")),
        ("platform_terms", segment::platform_term(&work.platform)),
    ];
    index(conn, "works", id, columns).await?;
    for statement in TERM_ROWS_OF_WORK.iter() {
        sqlx::query(statement).bind(id).execute(&mut *conn).await?;
    }
    Ok(())
}

/// Replaces an account's FTS row with its segmented nickname and body and
/// its platform's term (migration 0019).
async fn index_account(conn: &mut SqliteConnection, id: i64, account: &Account) -> StoreResult<()> {
    let (nickname, body) = segment::account_terms_async(account).await;
    let columns = [
        ("nickname_terms", nickname.join(" ")),
        ("body_terms", body.join(" ")),
        ("platform_terms", segment::platform_term(&account.platform)),
    ];
    index(conn, "accounts", id, columns).await
}

/// Replaces row `id` of the FTS table `{owner}_fts` with `columns` (name,
/// text), then sets `{owner}.fts_tokens` of that row to the FTS row's token
/// count ([`fts5_tokens`], migration 0023).
async fn index<const N: usize>(
    conn: &mut SqliteConnection,
    owner: &str,
    id: i64,
    columns: [(&str, String); N],
) -> StoreResult<()> {
    let table = format!("{owner}_fts");
    sqlx::query(&format!("DELETE FROM {table} WHERE rowid = ?1")).bind(id).execute(&mut *conn).await?;
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    let placeholders: Vec<String> = (2..=N + 1).map(|i| format!("?{i}")).collect();
    let statement =
        format!("INSERT INTO {table} (rowid, {}) VALUES (?1, {})", names.join(", "), placeholders.join(", "));
    let mut query = sqlx::query(&statement).bind(id);
    for (_, text) in columns {
        query = query.bind(text);
    }
    query.execute(&mut *conn).await?;
    let tokens = format!(
        "UPDATE {owner} SET fts_tokens = (SELECT {}(sz) FROM {table}_docsize WHERE id = ?1) WHERE id = ?1",
        fts5_tokens::NAME
    );
    sqlx::query(&tokens).bind(id).execute(&mut *conn).await?;
    Ok(())
}

impl Backend for Sqlite {
    const BACKEND: &'static str = "sqlite";
    const DIALECT: Dialect = DIALECT;
    const JSON_CAST: &'static str = "";

    fn rows_affected(result: &SqliteQueryResult) -> u64 {
        result.rows_affected()
    }

    fn ensure_schema(pool: &SqlitePool) -> impl Future<Output = StoreResult<()>> + Send + '_ {
        sql::ensure_schema(pool, migrator())
    }

    fn index_account<'a>(
        conn: &'a mut SqliteConnection,
        id: i64,
        account: &'a Account,
    ) -> impl Future<Output = StoreResult<()>> + Send + 'a {
        index_account(conn, id, account)
    }

    fn index_work<'a>(
        conn: &'a mut SqliteConnection,
        id: i64,
        work: &'a Work,
    ) -> impl Future<Output = StoreResult<()>> + Send + 'a {
        index_work(conn, id, work)
    }

    fn bulk_work_snapshots<'a>(
        pool: &'a SqlitePool,
        platform: &'a str,
        snapshots: &'a [(String, WorkSnapshot)],
    ) -> impl Future<Output = StoreResult<BulkReport>> + Send + 'a {
        bulk::sqlite::load(pool, platform, snapshots)
    }

    fn bulk_account_snapshots<'a>(
        pool: &'a SqlitePool,
        platform: &'a str,
        snapshots: &'a [(String, AccountSnapshot)],
    ) -> impl Future<Output = StoreResult<BulkReport>> + Send + 'a {
        bulk::sqlite::load(pool, platform, snapshots)
    }

    fn prune_snapshots(
        pool: &SqlitePool,
        keep_from: NaiveDate,
        dry_run: bool,
    ) -> impl Future<Output = StoreResult<Option<PruneReport>>> + Send + '_ {
        retention::sqlite(pool, keep_from, dry_run)
    }
}

/// Creates the file `path` readable by its owner only (mode 0600 on Unix:
/// it holds WeChat refresh tokens), or makes an existing one so, with its
/// WAL and shared-memory files (SQLite gives those the file's mode).
fn restrict(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path)?;
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            match std::fs::set_permissions(&name, std::fs::Permissions::from_mode(0o600)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mapping size each pool connection reports.
    async fn mmap_size(store: &SqliteStore) -> i64 {
        sqlx::query_scalar("PRAGMA mmap_size").fetch_one(&store.pool).await.unwrap()
    }

    #[tokio::test]
    async fn connections_map_the_file_as_set() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let default = SqliteStore::open(&path).await.unwrap();
        assert_eq!(mmap_size(&default).await, DEFAULT_MMAP_BYTES as i64);
        default.pool.close().await;
        let none = PoolSettings { sqlite_mmap_bytes: 0, ..PoolSettings::default() };
        let unmapped = SqliteStore::open_with(&path, none).await.unwrap();
        assert_eq!(mmap_size(&unmapped).await, 0);
    }
}
