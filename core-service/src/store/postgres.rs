//! The PostgreSQL content store (`MEDIAOPS_DATABASE_URL`), for several
//! replicas. Full text is a GIN-indexed `tsvector` built from the
//! jieba-segmented title (weight A) and body (weight B), written as a
//! literal so no text-search parser or locale touches the Chinese words
//! (docs/store.md).

use std::str::FromStr;

use async_trait::async_trait;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};

use super::listing::{Dialect, bind_params};
use super::model::{
    Account, AccountQuery, AccountRecord, Comment, Counts, HotListEntry, HotListQuery, Record, SearchPage, Work,
    WorkQuery, WorkRecord, WorkTotals,
};
use super::sql::{self, account_record, comment_record, work_record};
use super::{ContentStore, StoreResult, segment};

/// PostgreSQL migrations, in order.
fn migrator() -> Migrator {
    sql::migrator(&[
        (1, "content", include_str!("migrations/postgres/0001_content.sql")),
        (2, "listings", include_str!("migrations/postgres/0002_listings.sql")),
    ])
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

const DIALECT: Dialect = Dialect::Postgres;

impl PostgresStore {
    /// Rewrites a row's tsvector from its segmented head and body terms.
    async fn index(conn: &mut PgConnection, table: &str, id: i64, head: &[String], body: &[String]) -> StoreResult<()> {
        sqlx::query(&format!("UPDATE {table} SET search_vector = $2::tsvector WHERE id = $1"))
            .bind(id)
            .bind(segment::tsvector_literal(head, body))
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    async fn index_work(conn: &mut PgConnection, id: i64, work: &Work) -> StoreResult<()> {
        let (title, body) = segment::work_terms(work);
        Self::index(conn, "works", id, &title, &body).await
    }

    async fn index_account(conn: &mut PgConnection, id: i64, account: &Account) -> StoreResult<()> {
        let (nickname, body) = segment::account_terms(account);
        Self::index(conn, "accounts", id, &nickname, &body).await
    }

    async fn apply(conn: &mut PgConnection, record: &Record) -> StoreResult<()> {
        sql::apply_record!(conn, record, same, "::jsonb", Self::index_account, Self::index_work)
    }
}

/// Shared statements already use PostgreSQL's placeholders.
fn same(statement: &str) -> String {
    statement.to_owned()
}

#[async_trait]
impl ContentStore for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn write(&self, records: &[Record]) -> StoreResult<Vec<StoreResult<()>>> {
        sql::write_batch!(self.pool, records, Self::apply)
    }

    async fn get_account(&self, platform: &str, id: &str) -> StoreResult<Option<AccountRecord>> {
        for filter in ["a.platform = $1 AND a.platform_id = $2", sql::ACCOUNT_BY_ANY_ID.as_str()] {
            let statement = format!("{} WHERE {filter} LIMIT 1", DIALECT.account_select());
            let row = sqlx::query(&statement).bind(platform).bind(id).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                return Ok(Some(account_record!(&row)));
            }
        }
        Ok(None)
    }

    async fn get_work(&self, platform: &str, id: &str) -> StoreResult<Option<WorkRecord>> {
        for filter in ["w.platform = $1 AND w.platform_id = $2", sql::WORK_BY_ANY_ID.as_str()] {
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
        let row = sqlx::query(sql::WORK_TOTALS).bind(platform).bind(author_id).fetch_one(&self.pool).await?;
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
