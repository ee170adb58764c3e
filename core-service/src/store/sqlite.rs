//! The embedded content store: one SQLite file (`<data_dir>/store.sqlite`)
//! in WAL mode, full text in an FTS5 table over the jieba-segmented title
//! and body (docs/store.md).

use std::borrow::Cow;
use std::path::Path;
use std::str::FromStr;

use async_trait::async_trait;
use chrono::Utc;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqliteConnection};

use super::model::{Account, AccountRecord, AccountSnapshot, Counts, SearchPage, Work, WorkRecord, WorkSnapshot};
use super::sql::{self, account_record, bind_account, bind_work, work_record};
use super::{ContentStore, StoreError, StoreResult, paging, segment};

/// The store's file name inside the data directory.
pub const FILE_NAME: &str = "store.sqlite";

/// SQLite migrations, in order.
fn migrator() -> Migrator {
    let migrations = vec![Migration::new(
        1,
        Cow::Borrowed("content"),
        MigrationType::Simple,
        Cow::Borrowed(include_str!("migrations/sqlite/0001_content.sql")),
        false,
    )];
    Migrator { migrations: Cow::Owned(migrations), ..Migrator::DEFAULT }
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

    async fn index_work(conn: &mut SqliteConnection, id: i64, work: &Work) -> StoreResult<()> {
        let (title, body) = segment::work_terms(work);
        sqlx::query("DELETE FROM works_fts WHERE rowid = ?1").bind(id).execute(&mut *conn).await?;
        sqlx::query("INSERT INTO works_fts (rowid, title_terms, body_terms) VALUES (?1, ?2, ?3)")
            .bind(id)
            .bind(title.join(" "))
            .bind(body.join(" "))
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}

fn account_select(filter: &str) -> String {
    format!(
        "SELECT {}, {} FROM accounts a LEFT JOIN account_snapshots s ON s.account = a.id AND s.captured_at = \
         (SELECT max(captured_at) FROM account_snapshots WHERE account = a.id) WHERE {filter} LIMIT 1",
        sql::ACCOUNT_COLUMNS,
        sql::ACCOUNT_SNAPSHOT_COLUMNS
    )
}

fn work_select() -> String {
    format!(
        "SELECT {}, {}, s.extra AS s_extra FROM works w \
         LEFT JOIN work_snapshots s ON s.work = w.id AND s.captured_at = w.latest_captured_at",
        sql::WORK_COLUMNS,
        sql::WORK_SNAPSHOT_COLUMNS
    )
}

#[async_trait]
impl ContentStore for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn upsert_account(&self, account: &Account) -> StoreResult<()> {
        sql::check_key(&account.platform, &account.platform_id)?;
        let statement = sql::for_sqlite(&sql::UPSERT_ACCOUNT);
        bind_account!(sqlx::query(&statement), account, Utc::now()).execute(&self.pool).await?;
        Ok(())
    }

    async fn upsert_work(&self, work: &Work) -> StoreResult<()> {
        sql::check_key(&work.platform, &work.platform_id)?;
        let statement = sql::for_sqlite(&sql::UPSERT_WORK);
        let mut tx = self.pool.begin().await?;
        let row = bind_work!(sqlx::query(&statement), work, Utc::now()).fetch_one(&mut *tx).await?;
        let stored = Work {
            title: row.try_get("title")?,
            description: row.try_get("description")?,
            tags: serde_json::from_str(&row.try_get::<String, _>("tags")?).unwrap_or_default(),
            ..Work::default()
        };
        Self::index_work(&mut tx, row.try_get("id")?, &stored).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn add_account_snapshot(
        &self,
        platform: &str,
        platform_id: &str,
        snapshot: &AccountSnapshot,
    ) -> StoreResult<()> {
        let done = sqlx::query(
            "INSERT INTO account_snapshots (account, captured_at, fans, likes, works, reads) \
             SELECT id, ?3, ?4, ?5, ?6, ?7 FROM accounts WHERE platform = ?1 AND platform_id = ?2 \
             ON CONFLICT (account, captured_at) DO UPDATE SET fans = excluded.fans, likes = excluded.likes, \
             works = excluded.works, reads = excluded.reads",
        )
        .bind(platform)
        .bind(platform_id)
        .bind(snapshot.captured_at)
        .bind(snapshot.fans)
        .bind(snapshot.likes)
        .bind(snapshot.works)
        .bind(snapshot.reads)
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("account {platform}/{platform_id}")));
        }
        Ok(())
    }

    async fn add_work_snapshot(&self, platform: &str, platform_id: &str, snapshot: &WorkSnapshot) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "INSERT INTO work_snapshots (work, captured_at, likes, collects, comments, shares, views, watch, extra) \
             SELECT id, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10 FROM works WHERE platform = ?1 AND platform_id = ?2 \
             ON CONFLICT (work, captured_at) DO UPDATE SET likes = excluded.likes, collects = excluded.collects, \
             comments = excluded.comments, shares = excluded.shares, views = excluded.views, \
             watch = excluded.watch, extra = excluded.extra",
        )
        .bind(platform)
        .bind(platform_id)
        .bind(snapshot.captured_at)
        .bind(snapshot.likes)
        .bind(snapshot.collects)
        .bind(snapshot.comments)
        .bind(snapshot.shares)
        .bind(snapshot.views)
        .bind(snapshot.watch)
        .bind(snapshot.extra.as_ref().map(|e| e.to_string()))
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("work {platform}/{platform_id}")));
        }
        sqlx::query(
            "UPDATE works SET latest_likes = ?3, latest_captured_at = ?4 WHERE platform = ?1 AND platform_id = ?2 \
             AND (latest_captured_at IS NULL OR latest_captured_at <= ?4)",
        )
        .bind(platform)
        .bind(platform_id)
        .bind(snapshot.likes)
        .bind(snapshot.captured_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn get_account(&self, platform: &str, id: &str) -> StoreResult<Option<AccountRecord>> {
        for filter in ["a.platform = ?1 AND a.platform_id = ?2".to_owned(), sql::for_sqlite(&sql::ACCOUNT_BY_ANY_ID)] {
            let row = sqlx::query(&account_select(&filter)).bind(platform).bind(id).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                return Ok(Some(account_record!(&row)));
            }
        }
        Ok(None)
    }

    async fn get_work(&self, platform: &str, id: &str) -> StoreResult<Option<WorkRecord>> {
        for filter in ["w.platform = ?1 AND w.platform_id = ?2".to_owned(), sql::for_sqlite(&sql::WORK_BY_ANY_ID)] {
            let statement = format!("{} WHERE {filter} LIMIT 1", work_select());
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

    async fn search_works(
        &self,
        platform: &str,
        query: &str,
        page: u32,
        page_size: u32,
    ) -> StoreResult<SearchPage<WorkRecord>> {
        let (limit, offset) = paging(page, page_size)?;
        let Some(matcher) = segment::fts5_query(&segment::terms(query)) else {
            return Ok(SearchPage { total: 0, items: Vec::new() });
        };
        let total: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM works_fts JOIN works w ON w.id = works_fts.rowid \
             WHERE works_fts MATCH ?1 AND w.platform = ?2",
        )
        .bind(&matcher)
        .bind(platform)
        .fetch_one(&self.pool)
        .await?;
        let statement = format!(
            "{} JOIN works_fts ON works_fts.rowid = w.id WHERE works_fts MATCH ?1 AND w.platform = ?2 \
             ORDER BY bm25(works_fts, 3.0, 1.0), w.latest_likes DESC NULLS LAST, w.published_at DESC NULLS LAST \
             LIMIT ?3 OFFSET ?4",
            work_select()
        );
        let rows = sqlx::query(&statement)
            .bind(&matcher)
            .bind(platform)
            .bind(limit)
            .bind(offset)
            .fetch_all(&self.pool)
            .await?;
        let mut items = Vec::with_capacity(rows.len());
        for row in &rows {
            items.push(work_record!(row));
        }
        Ok(SearchPage { total: total as u64, items })
    }
}
