//! The board tables (migration 0011; docs/rankings.md "Boards as data"):
//! ranking boards stored ranked, the marks of the days whose snapshots
//! changed, and the builder's lock. What a board holds and when it is
//! built is decided by `rankings::boards`; this module only reads and
//! writes the tables, with one implementation generic over the two sqlx
//! backends ([`BoardSql`]) — the SQL is the same but for the lock.
//!
//! - `boards`: one row per board, keyed by [`BoardKey`]; `built_at` NULL
//!   means "waiting to be (re)built", and reads then fall back to the
//!   read-time computation, as they do while a mark names a day of the
//!   board's window or the day before. `generation` counts invalidations, so a build
//!   that raced one is not marked built ([`BoardTables::put`]).
//! - `board_rows`: `(board, rank)` → the entity's platform id (a work, an
//!   account, or an author id), the ranked figure and an optional score.
//!   Texts (titles, nicknames, the author's followers) are joined at read
//!   time from `works` / `accounts` by their natural key, as the read-time
//!   queries join them, so a board never shows a stale title.
//! - `board_dirty`: `(platform, entities, day)` marks written by triggers
//!   on the snapshot tables (`entities` = `works` or `accounts`), with a
//!   `stamp` so that the builder deletes only the marks it has read.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Pool, Row, Type};

use crate::StoreResult;
use crate::listing::{Dialect, bind_params};
use crate::model::{BoardQuery, BoardWork};
use crate::rows::{author_of, work_of};
use crate::sql;

/// Which snapshot table a mark or a board kind follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entities {
    /// `work_snapshots` (work and author boards).
    Works,
    /// `account_snapshots` (account boards).
    Accounts,
}

impl Entities {
    /// The value of `board_dirty.entities`.
    pub fn as_str(self) -> &'static str {
        match self {
            Entities::Works => "works",
            Entities::Accounts => "accounts",
        }
    }

    fn parse(value: &str) -> Option<Entities> {
        match value {
            "works" => Some(Entities::Works),
            "accounts" => Some(Entities::Accounts),
            _ => None,
        }
    }
}

/// What identifies a board: platform, kind, category (`""` = the whole
/// platform) and its window of Shanghai days (both ends included). The
/// period (`day`, `week`, `month`, `7days`) follows from the kind and the
/// window; it is stored for reading the table by hand.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoardKey {
    /// The spec's platform token (`shortvideo`, `articles`, …).
    pub platform: String,
    /// The board kind of the catalogue (`boards.kind`, e.g.
    /// `shortvideo-likes-gained`; docs/rankings.md "Catalogue").
    pub kind: String,
    /// A value of the kind's spec 4.2 category list; `""` for the whole
    /// platform (the list's 全部 / 综合全部).
    pub category: String,
    /// The window's oldest day, `YYYY-MM-DD` Asia/Shanghai (`first_day`).
    pub first: NaiveDate,
    /// The window's newest day, `YYYY-MM-DD` Asia/Shanghai (`last_day`),
    /// `>= first`.
    pub last: NaiveDate,
    /// `day`, `week`, `month` or `7days`, derived from `kind` and the
    /// window; stored for reading the table by hand.
    pub period: String,
}

impl fmt::Display for BoardKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let category = if self.category.is_empty() { "all" } else { &self.category };
        write!(f, "{} {} {}..{} {category}", self.kind, self.period, self.first, self.last)
    }
}

/// A board waiting to be built: its row id and generation, and its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The board's row id in `boards` (the `board` of its `board_rows`).
    pub id: i64,
    /// The board's invalidation count when it was read; a build is marked
    /// built only if it is unchanged ([`BoardTables::put`]).
    pub generation: i64,
    /// What the board ranks.
    pub key: BoardKey,
}

/// A board as listed by [`BoardTables::all`]: its row, and when it was
/// built (`None`: waiting for a build).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardState {
    /// The board's row id, generation and key.
    pub board: Pending,
    /// When its rows were last built; `None` while it waits for a build.
    pub built_at: Option<DateTime<Utc>>,
}

/// One ranked row as stored: the entity's platform id, the figure ranked
/// by, and the score when the board ranks by a computed one.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardRow {
    /// The work's or account's `platform_id`, or the author id.
    pub entity: String,
    /// The figure ranked by (a level or a gain of likes, views, followers
    /// or reads), or the figure shown beside a computed score.
    pub value: i64,
    /// The computed score of `shortvideo-top-account` /
    /// `articles-index-rank` boards; `None` on boards ranked by `value`.
    pub score: Option<f64>,
}

/// A ranked account or author with its name: the row of the boards whose
/// answer is a name and a figure (account boards, per-author boards).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedRow {
    /// The account's platform id, or the author id (`""` for works without one).
    pub entity: String,
    /// The account's nickname; for authors, the stored account's nickname,
    /// else the author id.
    pub name: String,
    /// The figure ranked by, as [`BoardRow::value`].
    pub value: i64,
    /// The computed score, as [`BoardRow::score`].
    pub score: Option<f64>,
}

impl NamedRow {
    /// The row as stored.
    pub fn stored(&self) -> BoardRow {
        BoardRow { entity: self.entity.clone(), value: self.value, score: self.score }
    }
}

/// How the entity of a named board is named at read time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// An account of the board's platform (its nickname; an account no
    /// longer stored leaves the row out).
    Accounts,
    /// An author id: the stored account's nickname, else the id itself.
    Authors,
}

/// A mark: snapshots of `entities` on `platform` captured on `day`
/// (Asia/Shanghai) were written; `stamp` tells marks of the same day apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirtyMark {
    /// The spec's platform token of the written snapshots.
    pub platform: String,
    /// Whether work or account snapshots were written.
    pub entities: Entities,
    /// The snapshots' capture day, `YYYY-MM-DD` Asia/Shanghai.
    pub day: NaiveDate,
    /// Tells marks of the same day apart (SQLite: grows with each write;
    /// PostgreSQL: the writing transaction's `txid_current()`), so the
    /// builder deletes only the marks it read.
    pub stamp: i64,
}

/// The builder's lock, held until dropped: on PostgreSQL a session
/// advisory lock on a connection of its own (dropping it closes the
/// connection, which releases the lock); on SQLite nothing (one process
/// owns the store, and the builder has its own in-process lock).
pub struct BuilderLock {
    _held: Option<Box<dyn Send>>,
}

/// The board tables of one store.
#[async_trait]
pub trait BoardTables: Send + Sync {
    /// The built board `key` of works, in rank order, each with its stored
    /// author; `None` when it is not built (never, or invalidated since).
    async fn stored_works(&self, key: &BoardKey) -> StoreResult<Option<Vec<BoardWork>>>;

    /// The built board `key` of accounts or authors, named per `naming`.
    async fn stored_named(&self, key: &BoardKey, naming: Naming) -> StoreResult<Option<Vec<NamedRow>>>;

    /// Every mark, oldest day first.
    async fn dirty_marks(&self) -> StoreResult<Vec<DirtyMark>>;

    /// In one transaction: makes each of `keys` wait for a build (inserted,
    /// or its `built_at` cleared and its generation increased) and deletes
    /// the marks `seen` (a mark written since, with another stamp, stays).
    async fn invalidate(&self, keys: &[BoardKey], seen: &[DirtyMark]) -> StoreResult<()>;

    /// The boards waiting for a build whose last day is at most `newest`,
    /// oldest window first.
    async fn pending(&self, newest: NaiveDate) -> StoreResult<Vec<Pending>>;

    /// Every board, waiting or built, by key (for tests and inspection).
    async fn all(&self) -> StoreResult<Vec<BoardState>>;

    /// Stores `rows` (in rank order) as the board `board` and marks it
    /// built at `built_at`, unless it was invalidated since it was read
    /// (its generation changed): then nothing is written and the answer
    /// is `false`.
    async fn put(&self, board: &Pending, rows: &[BoardRow], built_at: DateTime<Utc>) -> StoreResult<bool>;

    /// Deletes a waiting board that will never be read (older than every
    /// look-back of its kind), unless it was invalidated since.
    async fn forget(&self, board: &Pending) -> StoreResult<()>;

    /// Stores, as the board `board` of keyword values (docs/rankings.md
    /// "Keyword values"), the value of `query` (its platform, window,
    /// counter and measure) of every work passing its filters on works and
    /// authors (none, or e.g. a followers bound; the works whose value is
    /// unknown left out) and marks it built at `built_at`, in one
    /// transaction, unless it
    /// was invalidated since it was read: then nothing is written and the
    /// answer is `false`. Computed in the database by one statement
    /// (`Dialect::work_values`), the expressions a keyword board computes
    /// per match.
    ///
    /// # Errors
    /// [`crate::StoreError::Invalid`] for a counter works do not have; the
    /// database's failures.
    async fn put_values(&self, board: &Pending, query: &BoardQuery, built_at: DateTime<Utc>) -> StoreResult<bool>;

    /// The row id of the built board of keyword values `key`, for
    /// [`BoardQuery::stored_values`]; `None` when it is not built, or a
    /// mark names a day of its window or the day before (as
    /// [`BoardTables::stored_works`]).
    async fn stored_values(&self, key: &BoardKey) -> StoreResult<Option<i64>>;

    /// The values of the built board of keyword values `key` as (the work's
    /// platform id, value), by the work's row id; `None` as for
    /// [`BoardTables::stored_values`] (for tests and inspection).
    async fn values_of(&self, key: &BoardKey) -> StoreResult<Option<Vec<(String, i64)>>>;

    /// Deletes a board, built or waiting, with its rows and values, unless
    /// it was invalidated since it was read: a board of keyword values whose
    /// window no operation reads any more (a newer day is final).
    async fn discard(&self, board: &Pending) -> StoreResult<()>;

    /// After boards of keyword values were stored or deleted: on
    /// PostgreSQL, `VACUUM (ANALYZE) board_values`, so that the planner
    /// knows the table (without statistics it probed each match with a
    /// bitmap scan, guessing thousands of rows per work) and a probe reads
    /// the key alone (`INCLUDE (value)`, migration 0021: an index-only scan
    /// needs the pages marked all-visible, which a vacuum does); at
    /// 1,000,000 works it took `lifestyle-hit-data` from 22–34 to 15–18 ms
    /// (docs/rankings.md "Keyword boards read together at 1,000,000
    /// works"). Nothing on SQLite, whose plans
    /// of these reads are fixed (`CROSS JOIN`) and whose probes read the
    /// key's own rows (`WITHOUT ROWID`).
    async fn settle_values(&self) -> StoreResult<()>;

    /// Marks every day with snapshots from `from` on (every day when
    /// `None`), as if they had just been written; returns the marks added.
    async fn mark_days(&self, from: Option<NaiveDate>) -> StoreResult<u64>;

    /// The builder's lock, or `None` when another builder holds it
    /// (PostgreSQL `pg_try_advisory_lock`, one key per schema).
    async fn lock(&self) -> StoreResult<Option<BuilderLock>>;
}

/// Rows per multi-row statement (6 params each at most).
const CHUNK: usize = 500;

/// A day before every stored day (`mark_days` without a start; inside
/// PostgreSQL's date range).
fn no_start() -> NaiveDate {
    NaiveDate::from_ymd_opt(1900, 1, 1).unwrap_or_default()
}

/// [`BoardTables`] over an sqlx pool of either backend.
pub struct BoardSql<DB: Database> {
    pool: Pool<DB>,
    dialect: Dialect,
}

impl<DB: Database> BoardSql<DB> {
    /// The tables of the store whose pool is `pool`.
    pub fn new(pool: Pool<DB>, dialect: Dialect) -> Arc<BoardSql<DB>> {
        Arc::new(BoardSql { pool, dialect })
    }

    fn sql(&self, statement: String) -> String {
        self.dialect.placeholders(statement)
    }

    /// `join` (`JOIN` or `LEFT JOIN`) of the row of `table` (as `alias`)
    /// that `condition` names by its unique key, looked up once per board
    /// row whatever the statistics say: on PostgreSQL a `LATERAL` subquery
    /// with `LIMIT 1` (which the planner cannot turn into a hash join over
    /// the whole table, as it may when `board_rows` has no statistics yet);
    /// SQLite's planner already loops over the board's rows.
    fn lookup(&self, join: &str, table: &str, alias: &str, condition: &str) -> String {
        match self.dialect {
            Dialect::Sqlite => format!("{join} {table} {alias} ON {condition}"),
            Dialect::Postgres => {
                format!("{join} LATERAL (SELECT * FROM {table} {alias} WHERE {condition} LIMIT 1) {alias} ON true")
            }
        }
    }
}

/// `($1, $2, …), (…)`: `rows` groups of `width` placeholders.
fn value_groups(rows: usize, width: usize) -> String {
    (0..rows)
        .map(|r| {
            let group: Vec<String> = (1..=width).map(|c| format!("${}", r * width + c)).collect();
            format!("({})", group.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `WHERE` of one board by its key; binds: platform, kind, category,
/// first, last.
const BY_KEY: &str = "platform = $1 AND kind = $2 AND category = $3 AND first_day = $4 AND last_day = $5";

#[async_trait]
impl<DB> BoardTables for BoardSql<DB>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    f64: Type<DB> + for<'r> Decode<'r, DB>,
    Option<f64>: Type<DB> + for<'q> Encode<'q, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
    Option<DateTime<Utc>>: Type<DB> + for<'q> Encode<'q, DB>,
    bool: Type<DB> + for<'r> Decode<'r, DB>,
    NaiveDate: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    DateTime<Utc>: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
{
    async fn stored_works(&self, key: &BoardKey) -> StoreResult<Option<Vec<BoardWork>>> {
        let Some(board) = self.built(key).await? else { return Ok(None) };
        let statement = self.sql(format!(
            "SELECT {}, {}, r.value AS board_value FROM board_rows r {} {} WHERE r.board = $1 ORDER BY r.rank",
            sql::WORK_COLUMNS,
            sql::AUTHOR_COLUMNS,
            self.lookup("JOIN", "works", "w", "w.platform = $2 AND w.platform_id = r.entity"),
            self.lookup("LEFT JOIN", "accounts", "au", "au.platform = w.platform AND au.platform_id = w.author_id"),
        ));
        let rows = sqlx::query(&statement).bind(board).bind(key.platform.clone()).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(BoardWork { work: work_of(row)?, author: author_of(row)?, value: row.try_get("board_value")? });
        }
        Ok(Some(out))
    }

    async fn stored_named(&self, key: &BoardKey, naming: Naming) -> StoreResult<Option<Vec<NamedRow>>> {
        let Some(board) = self.built(key).await? else { return Ok(None) };
        let (join, name) = match naming {
            Naming::Accounts => ("JOIN", "a.nickname"),
            Naming::Authors => ("LEFT JOIN", "COALESCE(a.nickname, r.entity)"),
        };
        let statement = self.sql(format!(
            "SELECT r.entity, {name} AS name, r.value, r.score FROM board_rows r {} WHERE r.board = $1 \
             ORDER BY r.rank",
            self.lookup(join, "accounts", "a", "a.platform = $2 AND a.platform_id = r.entity")
        ));
        let rows = sqlx::query(&statement).bind(board).bind(key.platform.clone()).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(NamedRow {
                entity: row.try_get("entity")?,
                name: row.try_get("name")?,
                value: row.try_get("value")?,
                score: row.try_get("score")?,
            });
        }
        Ok(Some(out))
    }

    async fn dirty_marks(&self) -> StoreResult<Vec<DirtyMark>> {
        let statement = "SELECT platform, entities, day, stamp FROM board_dirty ORDER BY day, platform, entities";
        let rows = sqlx::query(statement).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let entities: String = row.try_get("entities")?;
            // Only the triggers write the table; another value is ignored.
            let Some(entities) = Entities::parse(&entities) else { continue };
            out.push(DirtyMark {
                platform: row.try_get("platform")?,
                entities,
                day: row.try_get("day")?,
                stamp: row.try_get("stamp")?,
            });
        }
        Ok(out)
    }

    async fn invalidate(&self, keys: &[BoardKey], seen: &[DirtyMark]) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        for chunk in keys.chunks(CHUNK) {
            let statement = self.sql(format!(
                "INSERT INTO boards (platform, kind, category, first_day, last_day, period) VALUES {} \
                 ON CONFLICT (platform, kind, category, first_day, last_day) DO UPDATE SET built_at = NULL, \
                 generation = boards.generation + 1",
                value_groups(chunk.len(), 6)
            ));
            let mut query = sqlx::query(&statement);
            for key in chunk {
                query = query
                    .bind(key.platform.clone())
                    .bind(key.kind.clone())
                    .bind(key.category.clone())
                    .bind(key.first)
                    .bind(key.last)
                    .bind(key.period.clone());
            }
            query.execute(&mut *tx).await?;
        }
        for chunk in seen.chunks(CHUNK) {
            let statement = self.sql(format!(
                "DELETE FROM board_dirty WHERE (platform, entities, day, stamp) IN (VALUES {})",
                value_groups(chunk.len(), 4)
            ));
            let mut query = sqlx::query(&statement);
            for mark in chunk {
                query = query
                    .bind(mark.platform.clone())
                    .bind(mark.entities.as_str().to_owned())
                    .bind(mark.day)
                    .bind(mark.stamp);
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn pending(&self, newest: NaiveDate) -> StoreResult<Vec<Pending>> {
        let statement = self.sql(format!(
            "SELECT {BOARD_COLUMNS} FROM boards WHERE built_at IS NULL AND last_day <= $1 \
             ORDER BY last_day, first_day, platform, kind, category"
        ));
        let rows = sqlx::query(&statement).bind(newest).fetch_all(&self.pool).await?;
        rows.iter().map(pending_of).collect()
    }

    async fn all(&self) -> StoreResult<Vec<BoardState>> {
        let statement = format!(
            "SELECT {BOARD_COLUMNS}, built_at FROM boards ORDER BY platform, kind, category, first_day, last_day"
        );
        let rows = sqlx::query(&statement).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(BoardState { board: pending_of(row)?, built_at: row.try_get("built_at")? });
        }
        Ok(out)
    }

    async fn put(&self, board: &Pending, rows: &[BoardRow], built_at: DateTime<Utc>) -> StoreResult<bool> {
        let Some(mut tx) = self.begin_build(board, built_at, "board_rows").await? else { return Ok(false) };
        for (n, chunk) in rows.chunks(CHUNK).enumerate() {
            let statement = self.sql(format!(
                "INSERT INTO board_rows (board, rank, entity, value, score) VALUES {}",
                value_groups(chunk.len(), 5)
            ));
            let mut query = sqlx::query(&statement);
            for (i, row) in chunk.iter().enumerate() {
                let rank = i64::try_from(n * CHUNK + i + 1).unwrap_or(i64::MAX);
                query = query.bind(board.id).bind(rank).bind(row.entity.clone()).bind(row.value).bind(row.score);
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn forget(&self, board: &Pending) -> StoreResult<()> {
        let statement = self.sql("DELETE FROM boards WHERE id = $1 AND generation = $2 AND built_at IS NULL".into());
        sqlx::query(&statement).bind(board.id).bind(board.generation).execute(&self.pool).await?;
        Ok(())
    }

    async fn put_values(&self, board: &Pending, query: &BoardQuery, built_at: DateTime<Utc>) -> StoreResult<bool> {
        let (fill, params) = self.dialect.work_values(query, board.id)?;
        let Some(mut tx) = self.begin_build(board, built_at, "board_values").await? else { return Ok(false) };
        bind_params(sqlx::query(&fill), &params).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn stored_values(&self, key: &BoardKey) -> StoreResult<Option<i64>> {
        self.built(key).await
    }

    async fn settle_values(&self) -> StoreResult<()> {
        if self.dialect == Dialect::Postgres {
            // Outside a transaction: `VACUUM` cannot run in one.
            sqlx::query("VACUUM (ANALYZE) board_values").execute(&self.pool).await?;
        }
        Ok(())
    }

    async fn values_of(&self, key: &BoardKey) -> StoreResult<Option<Vec<(String, i64)>>> {
        let Some(board) = self.built(key).await? else { return Ok(None) };
        let statement = self.sql(
            "SELECT w.platform_id, v.value FROM board_values v JOIN works w ON w.id = v.work WHERE v.board = $1 \
             ORDER BY v.work"
                .into(),
        );
        let rows = sqlx::query(&statement).bind(board).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push((row.try_get("platform_id")?, row.try_get("value")?));
        }
        Ok(Some(out))
    }

    async fn discard(&self, board: &Pending) -> StoreResult<()> {
        let statement = self.sql("DELETE FROM boards WHERE id = $1 AND generation = $2".into());
        sqlx::query(&statement).bind(board.id).bind(board.generation).execute(&self.pool).await?;
        Ok(())
    }

    async fn mark_days(&self, from: Option<NaiveDate>) -> StoreResult<u64> {
        let mut added = 0;
        for (days, entities) in [("work_days", Entities::Works), ("account_days", Entities::Accounts)] {
            let statement = self.sql(format!(
                "INSERT INTO board_dirty (platform, entities, day) SELECT DISTINCT platform, $1, day FROM {days} \
                 WHERE day >= $2 ON CONFLICT DO NOTHING RETURNING day"
            ));
            let rows = sqlx::query(&statement)
                .bind(entities.as_str().to_owned())
                .bind(from.unwrap_or_else(no_start))
                .fetch_all(&self.pool)
                .await?;
            added += rows.len() as u64;
        }
        Ok(added)
    }

    async fn lock(&self) -> StoreResult<Option<BuilderLock>> {
        if self.dialect == Dialect::Sqlite {
            return Ok(Some(BuilderLock { _held: None }));
        }
        // A connection of its own, closed when the lock is dropped.
        let mut conn = self.pool.acquire().await?.detach();
        let statement = "SELECT pg_try_advisory_lock(hashtext(current_schema() || '.mediaops.boards')) AS locked";
        let row = sqlx::query(statement).fetch_one(&mut conn).await?;
        let locked: bool = row.try_get("locked")?;
        Ok(locked.then(|| BuilderLock { _held: Some(Box::new(conn)) }))
    }
}

/// The columns of a board's row, as [`pending_of`] reads them.
const BOARD_COLUMNS: &str = "id, generation, platform, kind, category, first_day, last_day, period";

/// A row of [`BOARD_COLUMNS`].
fn pending_of<R: Row>(row: &R) -> StoreResult<Pending>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    NaiveDate: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    Ok(Pending {
        id: row.try_get("id")?,
        generation: row.try_get("generation")?,
        key: BoardKey {
            platform: row.try_get("platform")?,
            kind: row.try_get("kind")?,
            category: row.try_get("category")?,
            first: row.try_get("first_day")?,
            last: row.try_get("last_day")?,
            period: row.try_get("period")?,
        },
    })
}

impl<DB> BoardSql<DB>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    NaiveDate: Type<DB> + for<'q> Encode<'q, DB>,
    DateTime<Utc>: Type<DB> + for<'q> Encode<'q, DB>,
{
    /// The transaction that stores a build of `board`: `board` marked built
    /// at `built_at` and its old rows of `table` (`board_rows` or
    /// `board_values`) deleted; `None`, nothing written, when the board was
    /// invalidated since it was read (its generation changed).
    async fn begin_build(
        &self,
        board: &Pending,
        built_at: DateTime<Utc>,
        table: &str,
    ) -> StoreResult<Option<sqlx::Transaction<'static, DB>>> {
        let mut tx = self.pool.begin().await?;
        let mark = self.sql("UPDATE boards SET built_at = $1 WHERE id = $2 AND generation = $3 RETURNING id".into());
        let marked =
            sqlx::query(&mark).bind(built_at).bind(board.id).bind(board.generation).fetch_optional(&mut *tx).await?;
        if marked.is_none() {
            tx.rollback().await?;
            return Ok(None);
        }
        let clear = self.sql(format!("DELETE FROM {table} WHERE board = $1"));
        sqlx::query(&clear).bind(board.id).execute(&mut *tx).await?;
        Ok(Some(tx))
    }

    /// The row id of the built board `key`, unless a mark of its platform
    /// names a day of its window or the day before (a snapshot written
    /// since the build that the builder has not turned into an
    /// invalidation yet): then the board may be stale, and `None` sends the
    /// read to the read-time computation until the next build.
    async fn built(&self, key: &BoardKey) -> StoreResult<Option<i64>> {
        let statement = self.sql(format!(
            "SELECT id FROM boards WHERE {BY_KEY} AND built_at IS NOT NULL AND NOT EXISTS \
             (SELECT 1 FROM board_dirty d WHERE d.platform = $1 AND d.day BETWEEN $6 AND $5)"
        ));
        let row = sqlx::query(&statement)
            .bind(key.platform.clone())
            .bind(key.kind.clone())
            .bind(key.category.clone())
            .bind(key.first)
            .bind(key.last)
            .bind(key.first.pred_opt().unwrap_or(key.first))
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => Some(row.try_get("id")?),
            None => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_groups_number_placeholders_row_by_row() {
        assert_eq!(value_groups(2, 3), "($1, $2, $3), ($4, $5, $6)");
        let key = BoardKey {
            platform: "lifestyle".into(),
            kind: "lifestyle-notes".into(),
            category: String::new(),
            first: NaiveDate::from_ymd_opt(2026, 11, 9).unwrap_or_default(),
            last: NaiveDate::from_ymd_opt(2026, 11, 15).unwrap_or_default(),
            period: "week".into(),
        };
        assert_eq!(key.to_string(), "lifestyle-notes week 2026-11-09..2026-11-15 all");
    }
}
