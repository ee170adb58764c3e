//! The PostgreSQL content store (`MEDIAOPS_DATABASE_URL`), for several
//! replicas. Full text is a GIN-indexed `tsvector` built from the
//! jieba-segmented title (weight A) and body (weight B), written as a
//! literal so no text-search parser or locale touches the Chinese words
//! (docs/store.md).

use std::str::FromStr;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};

use super::listing::Dialect;
use super::model::{Account, Record, Work};
use super::sql::{self, account_record, comment_record, work_record};
use super::{PoolSettings, StoreResult, segment};

/// PostgreSQL migrations, in order.
fn migrator() -> Migrator {
    sql::migrator(&[
        (1, "content", include_str!("migrations/postgres/0001_content.sql")),
        (2, "listings", include_str!("migrations/postgres/0002_listings.sql")),
        (3, "tasks", include_str!("migrations/postgres/0003_tasks.sql")),
        (5, "rankings", include_str!("migrations/postgres/0005_rankings.sql")),
        (6, "days", DAYS_MIGRATION.as_str()),
        (7, "sync", include_str!("migrations/postgres/0007_sync.sql")),
        (8, "state", include_str!("migrations/postgres/0008_state.sql")),
        (9, "watchlists", include_str!("migrations/postgres/0009_watchlists.sql")),
        (10, "feeds", include_str!("migrations/postgres/0010_feeds.sql")),
        (11, "boards", include_str!("migrations/postgres/0011_boards.sql")),
        (12, "bulk days", BULK_DAYS_MIGRATION.as_str()),
    ])
}

/// Migration 0006, the per-day aggregates (built by [`super::days`]).
static DAYS_MIGRATION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| DIALECT.days_migration());

/// Migration 0012: the aggregate triggers skip the bulk path's
/// transactions (built by [`super::days`]; PostgreSQL only).
static BULK_DAYS_MIGRATION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| DIALECT.day_triggers_switch_migration().unwrap_or_default());

/// The PostgreSQL store.
#[derive(Clone)]
pub struct PostgresStore {
    pool: PgPool,
}

/// The connect options of `url` (`postgres://user@host:port/db`).
pub fn options(url: &str) -> StoreResult<PgConnectOptions> {
    Ok(PgConnectOptions::from_str(url)?)
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user@host:port/db`) and migrates.
    pub async fn open(url: &str) -> StoreResult<PostgresStore> {
        Self::open_with(options(url)?).await
    }

    /// Connects with explicit options (tests set `search_path` to a schema
    /// of their own) and migrates, with the default [`PoolSettings`].
    pub async fn open_with(options: PgConnectOptions) -> StoreResult<PostgresStore> {
        Self::connect(options, PoolSettings::default()).await
    }

    /// Connects with explicit options and pool limits, and migrates. At most
    /// 8 connections; a call waits at most `pool.acquire_timeout` for one.
    pub async fn connect(options: PgConnectOptions, pool: PoolSettings) -> StoreResult<PostgresStore> {
        let pool =
            PgPoolOptions::new().max_connections(8).acquire_timeout(pool.acquire_timeout).connect_with(options).await?;
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
        let (title, body) = segment::work_terms_async(work).await;
        Self::index(conn, "works", id, &title, &body).await
    }

    async fn index_account(conn: &mut PgConnection, id: i64, account: &Account) -> StoreResult<()> {
        let (nickname, body) = segment::account_terms_async(account).await;
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

sql::content_store_impl!(PostgresStore, "postgres", DIALECT, postgres);
super::task::task_store_impl!(PostgresStore, DIALECT);
super::sync_job::sync_job_store_impl!(PostgresStore, DIALECT);
super::charter::charter_store_impl!(PostgresStore, DIALECT);
super::theme::theme_store_impl!(PostgresStore, DIALECT);
super::word_list::word_list_store_impl!(PostgresStore, DIALECT);
super::wechat::wechat_store_impl!(PostgresStore, DIALECT);
super::watch::watch_store_impl!(PostgresStore, DIALECT);
super::feed_token::feed_token_store_impl!(PostgresStore, DIALECT);
