//! Retention (docs/store.md "Retention"): snapshots older
//! than `MEDIAOPS_SNAPSHOT_RETENTION_DAYS` days are pruned, so the store's
//! hot size is bounded.
//!
//! Retention is for the series the service keeps writing (its own
//! collection, sync jobs, vendor write-back): what is kept is every snapshot
//! captured on or after the Asia/Shanghai day `today − days` (`keep_from`),
//! for every account and work all the snapshots of its newest day however
//! old (a lookup still shows its last known counters; `works.latest_*` stay
//! true), and **every** snapshot of an account or work whose newest
//! snapshot is older than `keep_from`: a series that stopped before the
//! retention window (imported history, a creator no longer followed) is
//! history, not a growing series, and is never pruned. The per-day aggregates
//! (`work_days`, `account_days`, docs/rankings.md "Store") follow: the rows
//! of the removed days go, and the row after a removed one loses its
//! `prev_*` — exactly what the migration's backfill computes from the
//! snapshots that are left. A ranking window `[F, L]` reads the day before
//! `F` as its baseline, so every window with `F − 1 ≥ keep_from` answers as
//! before the prune; older windows see less (or nothing).
//!
//! The default, [`DEFAULT_RETENTION_DAYS`] = 125, covers the longest
//! look-back the spec states for a ranking plus its baseline day:
//! `articles-index-rank`'s month rankings go back three finished months
//! (a window may start up to 122 days before today), the surge board keeps
//! about 100 days (spec 4.4, 8), the lifestyle account board looks back
//! about 85 days, the article 10万+ boards about 60. 0 keeps everything.
//!
//! The core runs [`run_once`] every [`PRUNE_EVERY`] (`server.rs`);
//! `mediaops store prune [--dry-run]` runs it by hand. On PostgreSQL a
//! prune holds a transaction advisory lock (per schema), so replicas never
//! prune at once: the second one finds it taken and skips.

use chrono::{DateTime, Days, NaiveDate, NaiveTime, Utc};
use serde::Serialize;
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;

use super::days::{ACCOUNT_DAYS, DayTable, WORK_DAYS};
use super::listing::Dialect;
use super::{ContentStore, StoreResult};
use crate::clock::shanghai_to_utc;

/// Days of snapshots kept by default (`MEDIAOPS_SNAPSHOT_RETENTION_DAYS`).
pub const DEFAULT_RETENTION_DAYS: u64 = 125;

/// How long after its start a core first prunes (a process started for a
/// moment, or a test, never does).
pub const FIRST_PRUNE_AFTER: std::time::Duration = std::time::Duration::from_secs(300);

/// How often a core prunes.
pub const PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(6 * 3600);

/// What a prune removed (or, dry, would remove).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneReport {
    /// The oldest Asia/Shanghai day kept whole (`YYYY-MM-DD`).
    #[serde(serialize_with = "date_text")]
    pub keep_from: NaiveDate,
    /// Nothing was removed; the figures are what would be.
    pub dry_run: bool,
    /// Work snapshots removed (or that would be, with `dry_run`).
    pub work_snapshots: u64,
    /// Account snapshots removed (or that would be, with `dry_run`).
    pub account_snapshots: u64,
    /// Aggregate rows (`work_days`).
    pub work_days: u64,
    /// Aggregate rows (`account_days`).
    pub account_days: u64,
}

fn date_text<S: serde::Serializer>(date: &NaiveDate, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(date)
}

/// The first day kept for a retention of `days` days on `today` (Asia/
/// Shanghai); `None` for 0 (keep everything).
pub fn keep_from(today: NaiveDate, days: u64) -> Option<NaiveDate> {
    (days > 0).then(|| today - Days::new(days))
}

/// One prune with the settings' retention: `None` when `days` is 0 or
/// another prune holds the store.
///
/// # Errors
/// The store's.
pub async fn run_once(
    store: &dyn ContentStore,
    today: NaiveDate,
    days: u64,
    dry_run: bool,
) -> StoreResult<Option<PruneReport>> {
    match keep_from(today, days) {
        Some(day) => store.prune_snapshots(day, dry_run).await,
        None => Ok(None),
    }
}

/// The core's retention job: [`run_once`] [`FIRST_PRUNE_AFTER`] after the core starts
/// serving, then every [`PRUNE_EVERY`], while the store lives.
pub struct Pruner {
    store: std::sync::Weak<dyn ContentStore>,
    clock: crate::clock::Clock,
    days: u64,
}

impl Pruner {
    /// The job for `store` with a retention of `days` days ("today" from
    /// `clock`, Asia/Shanghai).
    pub fn new(store: &std::sync::Arc<dyn ContentStore>, clock: crate::clock::Clock, days: u64) -> Pruner {
        Pruner { store: std::sync::Arc::downgrade(store), clock, days }
    }

    /// Starts the job; `None` when the retention is 0 (keep everything).
    pub fn spawn(self) -> Option<tokio::task::JoinHandle<()>> {
        if self.days == 0 {
            return None;
        }
        Some(tokio::spawn(async move {
            let mut wait = FIRST_PRUNE_AFTER;
            loop {
                tokio::time::sleep(wait).await;
                wait = PRUNE_EVERY;
                let Some(store) = self.store.upgrade() else { break };
                match run_once(store.as_ref(), self.clock.today(), self.days, false).await {
                    Ok(Some(r)) => tracing::info!(
                        keep_from = %r.keep_from,
                        work_snapshots = r.work_snapshots,
                        account_snapshots = r.account_snapshots,
                        work_days = r.work_days,
                        account_days = r.account_days,
                        "pruned snapshots older than the retention"
                    ),
                    Ok(None) => tracing::debug!("another replica is pruning the store"),
                    Err(e) => tracing::warn!(error = %e, "snapshot prune failed"),
                }
            }
        }))
    }
}

/// The statements of one aggregated snapshot table, `$1` bound to the
/// cut-off time (snapshots) or day (aggregates).
struct Statements {
    unlink: String,
    delete_days: String,
    delete_snapshots: String,
}

impl Statements {
    fn of(dialect: Dialect, t: &DayTable) -> Statements {
        let DayTable { days, snapshots, key, counters: [c1, c2], .. } = *t;
        let no_next = dialect.no_next_day();
        // Before the cut-off, of an entity still written inside the
        // retention (its newest snapshot on or after the cut-off, so its
        // newest day is kept too): a series that stopped before it, such as
        // imported history, is kept whole.
        let old_snapshot = format!(
            "captured_at < $1 AND (SELECT max(m.captured_at) FROM {snapshots} m WHERE m.{key} = {snapshots}.{key}) >= $1"
        );
        let old_day = format!("day < $1 AND (SELECT max(m.day) FROM {days} m WHERE m.{key} = {days}.{key}) >= $1");
        let p = |s: String| dialect.placeholders(s);
        Statements {
            unlink: p(format!(
                "UPDATE {days} SET prev_day = NULL, prev_{c1} = NULL, prev_{c2} = NULL WHERE ({key}, day) IN \
                 (SELECT {key}, next_day FROM {days} WHERE {old_day}) AND (day >= $1 OR next_day = {no_next})"
            )),
            delete_days: p(format!("DELETE FROM {days} WHERE {old_day}")),
            delete_snapshots: p(format!("DELETE FROM {snapshots} WHERE {old_snapshot}")),
        }
    }
}

/// The one value a prune statement binds as `$1`.
#[derive(Clone, Copy)]
enum Cut {
    /// The cut-off instant (snapshots).
    Time(DateTime<Utc>),
    /// The first day kept (aggregates).
    Day(NaiveDate),
}

/// A connection that runs the prune's statements (one per backend).
trait Prune {
    /// Runs a statement with `$1` = `cut`; the rows it changed.
    async fn run(&mut self, statement: &str, cut: Cut) -> StoreResult<u64>;
}

/// `query` with `$1` = `cut`, for either backend.
fn bind_cut<'q, DB: sqlx::Database>(
    query: sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>,
    cut: Cut,
) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>
where
    DateTime<Utc>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    NaiveDate: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    match cut {
        Cut::Time(t) => query.bind(t),
        Cut::Day(d) => query.bind(d),
    }
}

impl Prune for sqlx::SqliteConnection {
    async fn run(&mut self, statement: &str, cut: Cut) -> StoreResult<u64> {
        Ok(bind_cut(sqlx::query(statement), cut).execute(self).await?.rows_affected())
    }
}

impl Prune for sqlx::PgConnection {
    async fn run(&mut self, statement: &str, cut: Cut) -> StoreResult<u64> {
        Ok(bind_cut(sqlx::query(statement), cut).execute(self).await?.rows_affected())
    }
}

/// Both tables' statements on one connection, in its transaction (a dry
/// run rolls it back, so it counts exactly what a prune removes).
async fn prune_on(
    conn: &mut impl Prune,
    dialect: Dialect,
    keep_from: NaiveDate,
    dry_run: bool,
) -> StoreResult<PruneReport> {
    let (time, day) = (Cut::Time(shanghai_to_utc(keep_from, NaiveTime::MIN)), Cut::Day(keep_from));
    let mut report = PruneReport { keep_from, dry_run, ..PruneReport::default() };
    for (t, snapshots_out, days_out) in [
        (WORK_DAYS, &mut report.work_snapshots, &mut report.work_days),
        (ACCOUNT_DAYS, &mut report.account_snapshots, &mut report.account_days),
    ] {
        let s = Statements::of(dialect, &t);
        conn.run(&s.unlink, day).await?;
        *days_out = conn.run(&s.delete_days, day).await?;
        *snapshots_out = conn.run(&s.delete_snapshots, time).await?;
    }
    Ok(report)
}

/// [`ContentStore::prune_snapshots`] on SQLite: one transaction (one
/// process owns the file; its write lock keeps writers out meanwhile).
pub async fn sqlite(pool: &SqlitePool, keep_from: NaiveDate, dry_run: bool) -> StoreResult<Option<PruneReport>> {
    let mut tx = pool.begin().await?;
    let report = prune_on(&mut *tx, Dialect::Sqlite, keep_from, dry_run).await?;
    if dry_run {
        tx.rollback().await?
    } else {
        tx.commit().await?
    }
    Ok(Some(report))
}

/// [`ContentStore::prune_snapshots`] on PostgreSQL: one transaction that
/// first takes the schema's prune lock (`pg_try_advisory_xact_lock`); when
/// another replica holds it, `None`.
pub async fn postgres(pool: &PgPool, keep_from: NaiveDate, dry_run: bool) -> StoreResult<Option<PruneReport>> {
    let mut tx = pool.begin().await?;
    let locked: bool =
        sqlx::query_scalar("SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || '.mediaops.prune'))")
            .fetch_one(&mut *tx)
            .await?;
    if !locked {
        tx.rollback().await?;
        return Ok(None);
    }
    let report = prune_on(&mut *tx, Dialect::Postgres, keep_from, dry_run).await?;
    if dry_run {
        tx.rollback().await?
    } else {
        tx.commit().await?
    }
    Ok(Some(report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::rules::{self as rules, Checked, Period};

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default()
    }

    #[test]
    fn zero_keeps_everything() {
        assert_eq!(keep_from(date(2026, 11, 20), 0), None);
        assert_eq!(keep_from(date(2026, 11, 20), 125), Some(date(2026, 7, 18)));
    }

    /// Over a whole year of todays, the oldest window the limited rules
    /// accept (the article index's months, the surge board, the lifestyle
    /// account board, the article 10万+ window) has its baseline day kept.
    #[test]
    fn the_default_covers_every_stated_look_back() {
        for offset in 0..366 {
            let today = date(2026, 1, 1) + Days::new(offset);
            let kept = keep_from(today, DEFAULT_RETENTION_DAYS).unwrap_or(today);
            let mut starts = Vec::new();
            let month = rules::first_of_month(today) - chrono::Months::new(rules::ARTICLE_INDEX_PERIODS);
            if let Ok(Checked::Rank(w)) = rules::ARTICLES_INDEX.check(today, Period::Month, Some(month), "rankDate") {
                starts.push(w.first);
            }
            for (rule, days) in
                [(rules::SURGE, rules::SURGE_RETENTION_DAYS), (rules::ARTICLE_HOT, rules::ARTICLE_HOT_WINDOW_DAYS)]
            {
                if let Ok(Checked::Rank(w)) = rule.check(today, today - Days::new(days), None, "startTime") {
                    starts.push(w.first);
                }
            }
            let oldest = today - Days::new(rules::LIFESTYLE_DAILY_LOOKBACK_DAYS);
            if let Ok(Checked::Rank(w)) =
                rules::LIFESTYLE_TOP_ACCOUNT.check(today, Period::Day, Some(oldest), "rankDate")
            {
                starts.push(w.first);
            }
            assert_eq!(starts.len(), 4, "{today}");
            for first in starts {
                assert!(first - Days::new(1) >= kept, "{today}: a window from {first} needs {}", first - Days::new(1));
            }
        }
    }
}
