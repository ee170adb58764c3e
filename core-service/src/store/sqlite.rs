//! The embedded content store: one SQLite file (`<data_dir>/store.sqlite`)
//! in WAL mode, full text in an FTS5 table over the jieba-segmented title
//! and body (docs/store.md).

use std::path::Path;
use std::str::FromStr;

use async_trait::async_trait;
use sqlx::SqliteConnection;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

use super::listing::{Dialect, bind_params};
use super::model::{
    Account, AccountQuery, AccountRecord, Comment, Counts, HotListEntry, HotListQuery, Record, SearchPage, Work,
    WorkQuery, WorkRecord, WorkTotals,
};
use super::sql::{self, account_record, comment_record, work_record};
use super::{ContentStore, StoreError, StoreResult, segment};

const DIALECT: Dialect = Dialect::Sqlite;

/// The store's file name inside the data directory.
pub const FILE_NAME: &str = "store.sqlite";

/// SQLite migrations, in order.
fn migrator() -> Migrator {
    sql::migrator(&[
        (1, "content", include_str!("migrations/sqlite/0001_content.sql")),
        (2, "listings", include_str!("migrations/sqlite/0002_listings.sql")),
    ])
}

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
        let (title, body) = segment::work_terms(work);
        Self::index(conn, "works_fts", "title_terms", id, &title, &body).await
    }

    /// Replaces an account's FTS row with its segmented nickname and body.
    async fn index_account(conn: &mut SqliteConnection, id: i64, account: &Account) -> StoreResult<()> {
        let (nickname, body) = segment::account_terms(account);
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

#[async_trait]
impl ContentStore for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn write(&self, records: &[Record]) -> StoreResult<Vec<StoreResult<()>>> {
        sql::write_batch!(self.pool, records, Self::apply)
    }

    async fn get_account(&self, platform: &str, id: &str) -> StoreResult<Option<AccountRecord>> {
        for filter in ["a.platform = ?1 AND a.platform_id = ?2".to_owned(), sql::for_sqlite(&sql::ACCOUNT_BY_ANY_ID)] {
            let statement = format!("{} WHERE {filter} LIMIT 1", DIALECT.account_select());
            let row = sqlx::query(&statement).bind(platform).bind(id).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                return Ok(Some(account_record!(&row)));
            }
        }
        Ok(None)
    }

    async fn get_work(&self, platform: &str, id: &str) -> StoreResult<Option<WorkRecord>> {
        for filter in ["w.platform = ?1 AND w.platform_id = ?2".to_owned(), sql::for_sqlite(&sql::WORK_BY_ANY_ID)] {
            let statement = format!("{} WHERE {filter} LIMIT 1", DIALECT.work_select());
            let row = sqlx::query(&statement).bind(platform).bind(id).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                return Ok(Some(work_record!(&row)));
            }
        }
        Ok(None)
    }

    async fn counts(&self) -> StoreResult<Counts> {
        let row = sqlx::query(sql::COUNTS).fetch_one(&self.pool).await?;
        Ok(sql::counts_record!(&row))
    }

    async fn find_works(&self, query: &WorkQuery) -> StoreResult<SearchPage<WorkRecord>> {
        match DIALECT.find_works(query)? {
            Some(listing) => sql::run_listing!(&self.pool, listing, work_record),
            None => Ok(SearchPage { total: 0, items: Vec::new() }),
        }
    }

    async fn find_accounts(&self, query: &AccountQuery) -> StoreResult<SearchPage<AccountRecord>> {
        match DIALECT.find_accounts(query)? {
            Some(listing) => sql::run_listing!(&self.pool, listing, account_record),
            None => Ok(SearchPage { total: 0, items: Vec::new() }),
        }
    }

    async fn list_comments(
        &self,
        platform: &str,
        work_id: &str,
        page: u32,
        page_size: u32,
    ) -> StoreResult<SearchPage<Comment>> {
        sql::run_listing!(&self.pool, DIALECT.list_comments(platform, work_id, page, page_size)?, comment_record)
    }

    async fn work_totals(&self, platform: &str, author_id: &str) -> StoreResult<WorkTotals> {
        let row = sqlx::query(&sql::for_sqlite(sql::WORK_TOTALS))
            .bind(platform)
            .bind(author_id)
            .fetch_one(&self.pool)
            .await?;
        Ok(sql::work_totals_record!(&row))
    }

    async fn hot_list_entries(&self, query: &HotListQuery) -> StoreResult<Vec<HotListEntry>> {
        let (statement, params) = DIALECT.hot_list_entries(query);
        let rows = bind_params!(sqlx::query(&statement), &params).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(sql::hot_list_record!(row));
        }
        Ok(out)
    }
}
