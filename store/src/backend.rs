//! One store generic over the two sqlx backends: [`SqlStore`] holds the
//! pool, and every store trait (the content store, tasks, sync jobs,
//! charters, themes, word lists, WeChat state, watch lists, feed tokens) is
//! implemented once for `SqlStore<DB>` in its own module, with statements
//! written in PostgreSQL's `$n` form and turned into the backend's by
//! [`Backend::DIALECT`]. What differs between the backends (full-text
//! indexing, the JSON cast, the bulk path, pruning, migrations) is a
//! [`Backend`] item implemented in `sqlite.rs` and `postgres.rs`.
//!
//! The generic impls name what they need of the backend in `where` clauses
//! (Rust does not carry such bounds from a trait to its users): the
//! connection as an executor, the arguments, column access by name or
//! index, and `Type + Encode + Decode` of the column types they bind and
//! read (`String`, `i64`, `i32`, `bool`, `f64`, `DateTime<Utc>`,
//! `NaiveDate`). Both backends meet them; the monomorphised code is the same
//! as a hand-written impl per backend.

use std::future::Future;
use std::sync::Arc;

use chrono::NaiveDate;
use sqlx::database::HasStatementCache;
use sqlx::{Database, Pool};

use super::StoreResult;
use super::bulk::BulkReport;
use super::listing::Dialect;
use super::model::{Account, AccountSnapshot, Work, WorkSnapshot};
use super::point_cache::PointCache;
use super::retention::PruneReport;

/// What one sqlx backend does its own way; implemented for
/// [`sqlx::Sqlite`] (`sqlite.rs`) and [`sqlx::Postgres`] (`postgres.rs`).
pub trait Backend: Database + HasStatementCache {
    /// The backend's name, as [`ContentStore::backend`](super::ContentStore::backend)
    /// answers (`"sqlite"` or `"postgres"`).
    const BACKEND: &'static str;
    /// Placeholder and statement differences of the backend.
    const DIALECT: Dialect;
    /// The cast of a JSON text parameter (`""` or `"::jsonb"`).
    const JSON_CAST: &'static str;

    /// Rows a statement changed.
    fn rows_affected(result: &Self::QueryResult) -> u64;

    /// Checks the schema, running the migrations when it is missing or
    /// behind ([`ContentStore::check`](super::ContentStore::check)).
    fn ensure_schema(pool: &Pool<Self>) -> impl Future<Output = StoreResult<()>> + Send + '_;

    /// Re-indexes the text of the account row `id` (its stored nickname,
    /// signature and category) for full-text search.
    fn index_account<'a>(
        conn: &'a mut Self::Connection,
        id: i64,
        account: &'a Account,
    ) -> impl Future<Output = StoreResult<()>> + Send + 'a;

    /// Re-indexes the text of the work row `id` (its stored title,
    /// description and tags) for full-text search.
    fn index_work<'a>(
        conn: &'a mut Self::Connection,
        id: i64,
        work: &'a Work,
    ) -> impl Future<Output = StoreResult<()>> + Send + 'a;

    /// The bulk path of work snapshots ([`super::bulk`]).
    fn bulk_work_snapshots<'a>(
        pool: &'a Pool<Self>,
        platform: &'a str,
        snapshots: &'a [(String, WorkSnapshot)],
    ) -> impl Future<Output = StoreResult<BulkReport>> + Send + 'a;

    /// The bulk path of account snapshots ([`super::bulk`]).
    fn bulk_account_snapshots<'a>(
        pool: &'a Pool<Self>,
        platform: &'a str,
        snapshots: &'a [(String, AccountSnapshot)],
    ) -> impl Future<Output = StoreResult<BulkReport>> + Send + 'a;

    /// Prunes snapshots before `keep_from` ([`super::retention`]).
    fn prune_snapshots(
        pool: &Pool<Self>,
        keep_from: NaiveDate,
        dry_run: bool,
    ) -> impl Future<Output = StoreResult<Option<PruneReport>>> + Send + '_;
}

/// The store of one backend: a connection pool. [`super::sqlite::SqliteStore`]
/// and [`super::postgres::PostgresStore`] are its two instances.
pub struct SqlStore<DB: Database> {
    pub(super) pool: Pool<DB>,
    /// The point reads kept in memory (the embedded store's,
    /// [`super::point_cache`]); `None` reads every record through the pool.
    pub(super) points: Option<Arc<PointCache>>,
}

impl<DB: Database> Clone for SqlStore<DB> {
    fn clone(&self) -> Self {
        SqlStore { pool: self.pool.clone(), points: self.points.clone() }
    }
}

impl<DB: Backend> SqlStore<DB> {
    /// A statement in `$n` form in the backend's placeholders.
    pub(super) fn sql(statement: &str) -> String {
        DB::DIALECT.placeholders(statement.to_owned())
    }

    /// The change notices this store listens to (PostgreSQL; `None` on
    /// SQLite).
    pub fn notices(&self) -> Option<Arc<super::change_notices::Notices>> {
        self.points.as_ref().and_then(|points| points.notices())
    }

    /// `result` of a write to the content tables, once the point cache has
    /// counted it (whatever the result: part of it may have committed).
    pub(super) fn wrote<T>(&self, result: T) -> T {
        if let Some(points) = &self.points {
            points.wrote();
        }
        result
    }
}
