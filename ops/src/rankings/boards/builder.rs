//! The board builder (docs/rankings.md "Boards as data"). One run:
//!
//! 1. takes the builder lock (PostgreSQL: an advisory lock, so one builder
//!    runs across replicas; a run that finds it taken does nothing);
//! 2. reads the marks of the days whose snapshots were written, and turns
//!    each into the boards it changes ([`Kind::affected`]: the windows
//!    holding the day or starting the day after, of every kind of the
//!    mark's platform and snapshot table, every category) — in one
//!    transaction those boards are made to wait for a build (a built one
//!    is invalidated: reads fall back to the read-time computation) and
//!    the marks read are deleted;
//! 3. builds every waiting board whose days are all final (last day ≤
//!    today − 2, spec 4.1) with [`compute::rows`], the read-time
//!    computation, and stores it (a board of keyword values: every work's
//!    value, [`compute::values_query`], computed in the database); a
//!    waiting board no operation can read any more (beyond its look-back)
//!    is dropped, and so is a built board of keyword values once a newer
//!    day is final; when boards of keyword values were built or dropped,
//!    the store then settles their table (`BoardTables::settle_values`:
//!    statistics and the visibility map on PostgreSQL).
//!
//! Runs are idempotent and incremental: a late snapshot for a closed day
//! re-ranks exactly the boards of that day and of the windows holding it
//! or starting the day after.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use chrono::NaiveDate;
use serde::Serialize;

use super::compute;
use super::kinds::{self, Kind, Shape};
use crate::data_api::{DataApi, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_store::rankings::board_tables::{BoardKey, BoardTables};
use mediaops_store::rankings::rules::{self as rules, Window};

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Whether another builder held the lock (nothing was done).
    pub skipped: bool,
    /// Marks of changed days read.
    pub marks: usize,
    /// Boards made to wait for a build by those marks.
    pub invalidated: usize,
    /// Boards built and stored.
    pub built: usize,
    /// Boards computed but not stored because their days changed meanwhile
    /// (they wait for the next run).
    pub raced: usize,
    /// Waiting boards dropped because no operation can read them any more,
    /// and built boards of keyword values whose window a newer day
    /// replaced.
    pub dropped: usize,
    /// Seconds the run took.
    pub seconds: f64,
}

/// Called after each board is built: (boards done, boards to build, the board).
pub type OnBoard<'a> = &'a mut (dyn FnMut(usize, usize, &BoardKey) + Send);

/// Builds the boards of one store; one run at a time in this process.
pub struct Builder {
    api: Arc<DataApi>,
    /// The snapshot retention in days (`MEDIAOPS_SNAPSHOT_RETENTION_DAYS`;
    /// 0 = everything is kept).
    retention_days: u64,
    running: tokio::sync::Mutex<()>,
}

impl Builder {
    /// A builder over `api`'s store, with its clock ("today"), for a store
    /// that keeps every snapshot.
    pub fn new(api: Arc<DataApi>) -> Arc<Builder> {
        Builder::with_retention(api, 0)
    }

    /// A builder for a store whose snapshots older than `retention_days`
    /// are pruned (docs/store.md "Retention"; 0 = none are): a board whose
    /// window, or the day before it (its baseline), reaches before the
    /// first kept day is never invalidated, so its stored rows are not
    /// replaced by a computation over what is left of its snapshots.
    pub fn with_retention(api: Arc<DataApi>, retention_days: u64) -> Arc<Builder> {
        Arc::new(Builder { api, retention_days, running: tokio::sync::Mutex::new(()) })
    }

    /// One incremental run (module doc).
    ///
    /// # Errors
    /// The store's failures; boards built before one stay built, and the
    /// rest wait for the next run.
    pub async fn run(&self, on_board: OnBoard<'_>) -> Result<Summary, ServiceError> {
        self.run_from(None, on_board).await
    }

    /// A full rebuild: marks every day with snapshots from `from` on (every
    /// day when `None`) as changed, then runs.
    ///
    /// # Errors
    /// As [`Builder::run`].
    pub async fn rebuild(&self, from: Option<NaiveDate>, on_board: OnBoard<'_>) -> Result<Summary, ServiceError> {
        self.run_from(Some(from), on_board).await
    }

    async fn run_from(&self, mark: Option<Option<NaiveDate>>, on_board: OnBoard<'_>) -> Result<Summary, ServiceError> {
        let _running = self.running.lock().await;
        let Some(tables) = self.api.store.boards() else { return Ok(Summary::default()) };
        let Some(_lock) = tables.lock().await.map_err(store_error)? else {
            return Ok(Summary { skipped: true, ..Summary::default() });
        };
        let started = Instant::now();
        if let Some(from) = mark {
            tables.mark_days(from).await.map_err(store_error)?;
        }
        let today = self.api.clock.today();
        let mut summary = self.invalidate(tables.as_ref(), today).await?;
        self.build(tables.as_ref(), today, &mut summary, on_board).await?;
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// Step 2: marks → waiting boards.
    async fn invalidate(&self, tables: &dyn BoardTables, today: NaiveDate) -> Result<Summary, ServiceError> {
        let marks = tables.dirty_marks().await.map_err(store_error)?;
        let days: BTreeSet<(&str, _, NaiveDate)> =
            marks.iter().map(|m| (m.platform.as_str(), m.entities, m.day)).collect();
        let mut keys = BTreeSet::new();
        for (platform, entities, day) in days {
            for kind in kinds::ALL.into_iter().filter(|k| k.platform() == platform && k.entities() == entities) {
                keys.extend(kind.affected(day, today));
            }
        }
        let kept_from = mediaops_store::retention::keep_from(today, self.retention_days);
        let keys: Vec<BoardKey> =
            keys.into_iter().filter(|k| kept_from.is_none_or(|kept| k.first.pred_opt() >= Some(kept))).collect();
        tables.invalidate(&keys, &marks).await.map_err(store_error)?;
        Ok(Summary { marks: marks.len(), invalidated: keys.len(), ..Summary::default() })
    }

    /// Step 3: builds the waiting boards whose days are final.
    async fn build(
        &self,
        tables: &dyn BoardTables,
        today: NaiveDate,
        summary: &mut Summary,
        on_board: OnBoard<'_>,
    ) -> Result<(), ServiceError> {
        let pending = tables.pending(rules::newest_day(today)).await.map_err(store_error)?;
        let mut values_changed = false;
        for (done, board) in pending.iter().enumerate() {
            let window = Window { first: board.key.first, last: board.key.last };
            let Some(kind) = Kind::from_name(&board.key.kind).filter(|k| k.readable(window, today)) else {
                tables.forget(board).await.map_err(store_error)?;
                summary.dropped += 1;
                continue;
            };
            let category = Some(board.key.category.as_str()).filter(|c| !c.is_empty());
            let stored = match compute::values_query(kind, window) {
                Some(values) => {
                    values_changed = true;
                    tables.put_values(board, &values, self.api.clock.now()).await
                }
                None => {
                    let rows = compute::rows(&self.api, kind, window, category).await?;
                    tables.put(board, &rows.stored(), self.api.clock.now()).await
                }
            };
            if stored.map_err(store_error)? {
                summary.built += 1;
            } else {
                summary.raced += 1;
            }
            on_board(done + 1, pending.len(), &board.key);
        }
        let dropped = summary.dropped;
        self.discard_unread_values(tables, today, summary).await?;
        if values_changed || summary.dropped > dropped {
            tables.settle_values().await.map_err(store_error)?;
        }
        Ok(())
    }

    /// Deletes the built boards of keyword values that no operation reads
    /// any more (a newer day is final): each holds a value per work of its
    /// platform, where a board of rows holds 50 rows and is kept.
    async fn discard_unread_values(
        &self,
        tables: &dyn BoardTables,
        today: NaiveDate,
        summary: &mut Summary,
    ) -> Result<(), ServiceError> {
        for state in tables.all().await.map_err(store_error)? {
            let board = state.board;
            let window = Window { first: board.key.first, last: board.key.last };
            let unread = Kind::from_name(&board.key.kind)
                .is_some_and(|k| matches!(k.shape(), Shape::Values(..)) && !k.wanted(window, today));
            if state.built_at.is_some() && unread {
                tables.discard(&board).await.map_err(store_error)?;
                summary.dropped += 1;
            }
        }
        Ok(())
    }
}
