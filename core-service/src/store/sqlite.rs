//! The embedded content store: one SQLite file (`<data_dir>/store.sqlite`)
//! in WAL mode, full text in an FTS5 table over the jieba-segmented title
//! and body (docs/store.md).

use std::path::Path;
use std::str::FromStr;

use sqlx::SqliteConnection;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

use super::listing::Dialect;
use super::model::{Account, Record, Work};
use super::sql::{self, account_record, comment_record, work_record};
use super::{StoreError, StoreResult, segment};

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
    ])
}

/// Migration 0006, the per-day aggregates (built by [`super::days`]).
static DAYS_MIGRATION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| DIALECT.days_migration());

/// The embedded store.
#[derive(Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating the file and its directory if absent) and migrates.
    pub async fn open(path: &Path) -> StoreResult<SqliteStore> {
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
            .busy_timeout(std::time::Duration::from_secs(10));
        let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options).await?;
        migrator().run(&pool).await?;
        Ok(SqliteStore { pool })
    }

    /// Replaces a work's FTS row with its segmented title and body.
    async fn index_work(conn: &mut SqliteConnection, id: i64, work: &Work) -> StoreResult<()> {
        let (title, body) = segment::work_terms_async(work).await;
        Self::index(conn, "works_fts", "title_terms", id, &title, &body).await
    }

    /// Replaces an account's FTS row with its segmented nickname and body.
    async fn index_account(conn: &mut SqliteConnection, id: i64, account: &Account) -> StoreResult<()> {
        let (nickname, body) = segment::account_terms_async(account).await;
        Self::index(conn, "accounts_fts", "nickname_terms", id, &nickname, &body).await
    }

    async fn index(
        conn: &mut SqliteConnection,
        table: &str,
        head: &str,
        id: i64,
        head_terms: &[String],
        body_terms: &[String],
    ) -> StoreResult<()> {
        sqlx::query(&format!("DELETE FROM {table} WHERE rowid = ?1")).bind(id).execute(&mut *conn).await?;
        sqlx::query(&format!("INSERT INTO {table} (rowid, {head}, body_terms) VALUES (?1, ?2, ?3)"))
            .bind(id)
            .bind(head_terms.join(" "))
            .bind(body_terms.join(" "))
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    async fn apply(conn: &mut SqliteConnection, record: &Record) -> StoreResult<()> {
        sql::apply_record!(conn, record, sql::for_sqlite, "", Self::index_account, Self::index_work)
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

sql::content_store_impl!(SqliteStore, "sqlite", DIALECT, sqlite);
super::task::task_store_impl!(SqliteStore, DIALECT);
super::sync_job::sync_job_store_impl!(SqliteStore, DIALECT);
super::charter::charter_store_impl!(SqliteStore, DIALECT);
super::theme::theme_store_impl!(SqliteStore, DIALECT);
super::word_list::word_list_store_impl!(SqliteStore, DIALECT);
super::wechat::wechat_store_impl!(SqliteStore, DIALECT);
super::watch::watch_store_impl!(SqliteStore, DIALECT);
super::feed_token::feed_token_store_impl!(SqliteStore, DIALECT);
