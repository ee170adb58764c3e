//! The PostgreSQL content store (`MEDIAOPS_DATABASE_URL`), for several
//! replicas. Full text is a GIN-indexed `tsvector` built from the
//! jieba-segmented title (weight A) and body (weight B), written as a
//! literal so no text-search parser or locale touches the Chinese words
//! (docs/store.md).

use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;

use chrono::NaiveDate;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions, PgQueryResult};
use sqlx::{Connection, Postgres};

use super::backend::{Backend, SqlStore};
use super::bulk::{self, BulkReport};
use super::change_notices::{self, Notices};
use super::listing::Dialect;
use super::model::{Account, Work};
use super::model::{AccountSnapshot, WorkSnapshot};
use super::point_cache::PointCache;
use super::retention::{self, PruneReport};
use super::sql;
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
        (13, "search by platform", include_str!("migrations/postgres/0013_search_by_platform.sql")),
        (14, "board order", include_str!("migrations/postgres/0014_board_order.sql")),
        (15, "vendor calls", include_str!("migrations/postgres/0015_vendor_calls.sql")),
        (16, "tracking", include_str!("migrations/postgres/0016_tracking.sql")),
        (17, "search newest", include_str!("migrations/postgres/0017_search_newest.sql")),
        (18, "term lists", TERM_LISTS_MIGRATION.as_str()),
        (19, "change notices", include_str!("migrations/postgres/0019_change_notices.sql")),
        (20, "board values", include_str!("migrations/postgres/0020_board_values.sql")),
        (21, "board values by work", include_str!("migrations/postgres/0021_board_values_by_work.sql")),
        (22, "work days category", WORK_DAYS_CATEGORY_MIGRATION.as_str()),
        (25, "accounts newest", include_str!("migrations/postgres/0025_accounts_newest.sql")),
    ])
}

/// Migration 0006, the per-day aggregates (built by [`super::days`]).
static DAYS_MIGRATION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| DIALECT.days_migration());

/// Migration 0012: the aggregate triggers skip the bulk path's
/// transactions (built by [`super::days`]; PostgreSQL only).
static BULK_DAYS_MIGRATION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| DIALECT.day_triggers_switch_migration().unwrap_or_default());

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

/// The PostgreSQL store.
pub type PostgresStore = SqlStore<Postgres>;

/// The session setting every store connection starts with: no JIT
/// compilation of queries. PostgreSQL compiles a statement whose estimated
/// cost passes `jit_above_cost` (100,000 by default), and the estimates of
/// the board statements at 1,000,000 works pass it (a partial index's row
/// estimate alone, `work_days_gaps`, was 991,427 for 0 rows), while what they
/// run is a bounded index walk of a few thousand rows: `category-time-hot`
/// took 56 + 65 ms for its two boards with the compilation and 16 + 26 ms
/// without (docs/rankings.md "PostgreSQL without JIT compilation"). No statement of
/// the store is a long scan that compiled code would repay.
pub const NO_JIT: (&str, &str) = ("jit", "off");

/// Most connections of a PostgreSQL store's pool (docs/store.md
/// "PostgreSQL connections").
pub const POOL_CONNECTIONS: u32 = 8;

/// How long a pooled connection may sit unused before it is pinged on its
/// next use, so that one the server or the network dropped meanwhile (a
/// restart, a failover) is replaced instead of failing a call (the default
/// of [`PoolSettings::ping_after_idle`]).
pub const PING_AFTER_IDLE: std::time::Duration = std::time::Duration::from_secs(30);

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

    /// Connects with explicit options and pool limits, and migrates.
    /// At most [`POOL_CONNECTIONS`] connections, each opened when calls
    /// first need it and then kept open (a call after a quiet hour finds
    /// them as the last call left them: their statements prepared, their
    /// server's catalog caches warm); a call waits at most
    /// `pool.acquire_timeout` for one. A connection is checked with a ping
    /// only when it comes back to use after `pool.ping_after_idle` unused
    /// ([`PING_AFTER_IDLE`] by default), not on every call (a round trip to
    /// the server each). Every connection runs with `jit = off`
    /// ([`NO_JIT`]). docs/store.md "PostgreSQL connections".
    pub async fn connect(options: PgConnectOptions, pool: PoolSettings) -> StoreResult<PostgresStore> {
        let options = options.options([NO_JIT]);
        let ping_after_idle = pool.ping_after_idle;
        let pool = PgPoolOptions::new()
            .max_connections(POOL_CONNECTIONS)
            .idle_timeout(None)
            .max_lifetime(None)
            .test_before_acquire(false)
            .before_acquire(move |conn, meta| {
                Box::pin(async move {
                    if meta.idle_for >= ping_after_idle {
                        conn.ping().await?;
                    }
                    Ok(true)
                })
            })
            .acquire_timeout(pool.acquire_timeout)
            .connect_with(options.clone())
            .await?;
        migrator().run(&pool).await?;
        let notices = Arc::new(Notices::default());
        let listening = change_notices::listen(options, &notices);
        Ok(SqlStore { pool, points: Some(Arc::new(PointCache::notified(notices, listening))) })
    }
}

const DIALECT: Dialect = Dialect::Postgres;

/// Rewrites a row's tsvector from its segmented head and body terms.
async fn index(conn: &mut PgConnection, table: &str, id: i64, head: &[String], body: &[String]) -> StoreResult<()> {
    sqlx::query(&format!("UPDATE {table} SET search_vector = $2::tsvector WHERE id = $1"))
        .bind(id)
        .bind(segment::tsvector_literal(head, body))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Rewrites a work's tsvector, then its term-list rows from it
/// (docs/rankings.md "Keyword boards").
async fn index_work(conn: &mut PgConnection, id: i64, work: &Work) -> StoreResult<()> {
    let (title, body) = segment::work_terms_async(work).await;
    index(conn, "works", id, &title, &body).await?;
    for statement in TERM_ROWS_OF_WORK.iter() {
        sqlx::query(statement).bind(id).execute(&mut *conn).await?;
    }
    Ok(())
}

async fn index_account(conn: &mut PgConnection, id: i64, account: &Account) -> StoreResult<()> {
    let (nickname, body) = segment::account_terms_async(account).await;
    index(conn, "accounts", id, &nickname, &body).await
}

impl Backend for Postgres {
    const BACKEND: &'static str = "postgres";
    const DIALECT: Dialect = DIALECT;
    const JSON_CAST: &'static str = "::jsonb";

    fn rows_affected(result: &PgQueryResult) -> u64 {
        result.rows_affected()
    }

    fn ensure_schema(pool: &PgPool) -> impl Future<Output = StoreResult<()>> + Send + '_ {
        sql::ensure_schema(pool, migrator())
    }

    fn index_account<'a>(
        conn: &'a mut PgConnection,
        id: i64,
        account: &'a Account,
    ) -> impl Future<Output = StoreResult<()>> + Send + 'a {
        index_account(conn, id, account)
    }

    fn index_work<'a>(
        conn: &'a mut PgConnection,
        id: i64,
        work: &'a Work,
    ) -> impl Future<Output = StoreResult<()>> + Send + 'a {
        index_work(conn, id, work)
    }

    fn bulk_work_snapshots<'a>(
        pool: &'a PgPool,
        platform: &'a str,
        snapshots: &'a [(String, WorkSnapshot)],
    ) -> impl Future<Output = StoreResult<BulkReport>> + Send + 'a {
        bulk::postgres::load(pool, platform, snapshots)
    }

    fn bulk_account_snapshots<'a>(
        pool: &'a PgPool,
        platform: &'a str,
        snapshots: &'a [(String, AccountSnapshot)],
    ) -> impl Future<Output = StoreResult<BulkReport>> + Send + 'a {
        bulk::postgres::load(pool, platform, snapshots)
    }

    fn prune_snapshots(
        pool: &PgPool,
        keep_from: NaiveDate,
        dry_run: bool,
    ) -> impl Future<Output = StoreResult<Option<PruneReport>>> + Send + '_ {
        retention::postgres(pool, keep_from, dry_run)
    }
}
