//! The PostgreSQL content store (`MEDIAOPS_DATABASE_URL`), for several
//! replicas. Full text is a GIN-indexed `tsvector` built from the
//! jieba-segmented title (weight A) and body (weight B), written as a
//! literal so no text-search parser or locale touches the Chinese words
//! (docs/store.md).

use std::borrow::Cow;
use std::str::FromStr;

use async_trait::async_trait;
use chrono::Utc;
use sqlx::Row;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::model::{Account, AccountRecord, AccountSnapshot, Counts, SearchPage, Work, WorkRecord, WorkSnapshot};
use super::sql::{self, account_record, bind_account, bind_work, work_record};
use super::{ContentStore, StoreError, StoreResult, paging, segment};

/// PostgreSQL migrations, in order.
fn migrator() -> Migrator {
    let migrations = vec![Migration::new(
        1,
        Cow::Borrowed("content"),
        MigrationType::Simple,
        Cow::Borrowed(include_str!("migrations/postgres/0001_content.sql")),
        false,
    )];
    Migrator { migrations: Cow::Owned(migrations), ..Migrator::DEFAULT }
}

/// The PostgreSQL store.
#[derive(Clone)]
pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user@host:port/db`) and migrates.
    pub async fn open(url: &str) -> StoreResult<PostgresStore> {
        Self::open_with(PgConnectOptions::from_str(url)?).await
    }

    /// Connects with explicit options (tests set `search_path` to a schema
    /// of their own) and migrates.
    pub async fn open_with(options: PgConnectOptions) -> StoreResult<PostgresStore> {
        let pool = PgPoolOptions::new().max_connections(8).connect_with(options).await?;
        migrator().run(&pool).await?;
        Ok(PostgresStore { pool })
    }
}

fn account_select(filter: &str) -> String {
    format!(
        "SELECT {}, {} FROM accounts a LEFT JOIN LATERAL (SELECT * FROM account_snapshots \
         WHERE account = a.id ORDER BY captured_at DESC LIMIT 1) s ON true WHERE {filter} LIMIT 1",
        sql::ACCOUNT_COLUMNS,
        sql::ACCOUNT_SNAPSHOT_COLUMNS
    )
}

fn work_select() -> String {
    format!(
        "SELECT {}, {}, s.extra::text AS s_extra FROM works w \
         LEFT JOIN work_snapshots s ON s.work = w.id AND s.captured_at = w.latest_captured_at",
        sql::WORK_COLUMNS,
        sql::WORK_SNAPSHOT_COLUMNS
    )
}

#[async_trait]
impl ContentStore for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn upsert_account(&self, account: &Account) -> StoreResult<()> {
        sql::check_key(&account.platform, &account.platform_id)?;
        bind_account!(sqlx::query(&sql::UPSERT_ACCOUNT), account, Utc::now()).execute(&self.pool).await?;
        Ok(())
    }

    async fn upsert_work(&self, work: &Work) -> StoreResult<()> {
        sql::check_key(&work.platform, &work.platform_id)?;
        let mut tx = self.pool.begin().await?;
        let row = bind_work!(sqlx::query(&sql::UPSERT_WORK), work, Utc::now()).fetch_one(&mut *tx).await?;
        let stored = Work {
            title: row.try_get("title")?,
            description: row.try_get("description")?,
            tags: serde_json::from_str(&row.try_get::<String, _>("tags")?).unwrap_or_default(),
            ..Work::default()
        };
        let (title, body) = segment::work_terms(&stored);
        sqlx::query("UPDATE works SET search_vector = $2::tsvector WHERE id = $1")
            .bind(row.try_get::<i64, _>("id")?)
            .bind(segment::tsvector_literal(&title, &body))
            .execute(&mut *tx)
            .await?;
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
             SELECT id, $3, $4, $5, $6, $7 FROM accounts WHERE platform = $1 AND platform_id = $2 \
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
             SELECT id, $3, $4, $5, $6, $7, $8, $9, $10::jsonb FROM works WHERE platform = $1 AND platform_id = $2 \
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
            "UPDATE works SET latest_likes = $3, latest_captured_at = $4 WHERE platform = $1 AND platform_id = $2 \
             AND (latest_captured_at IS NULL OR latest_captured_at <= $4)",
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
        for filter in ["a.platform = $1 AND a.platform_id = $2", sql::ACCOUNT_BY_ANY_ID.as_str()] {
            let row = sqlx::query(&account_select(filter)).bind(platform).bind(id).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                return Ok(Some(account_record!(&row)));
            }
        }
        Ok(None)
    }

    async fn get_work(&self, platform: &str, id: &str) -> StoreResult<Option<WorkRecord>> {
        for filter in ["w.platform = $1 AND w.platform_id = $2", sql::WORK_BY_ANY_ID.as_str()] {
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
        let Some(matcher) = segment::tsquery_literal(&segment::terms(query)) else {
            return Ok(SearchPage { total: 0, items: Vec::new() });
        };
        let total: i64 =
            sqlx::query_scalar("SELECT count(*) FROM works w WHERE w.search_vector @@ $1::tsquery AND w.platform = $2")
                .bind(&matcher)
                .bind(platform)
                .fetch_one(&self.pool)
                .await?;
        let statement = format!(
            "{} WHERE w.search_vector @@ $1::tsquery AND w.platform = $2 \
             ORDER BY ts_rank(w.search_vector, $1::tsquery) DESC, w.latest_likes DESC NULLS LAST, \
             w.published_at DESC NULLS LAST LIMIT $3 OFFSET $4",
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
