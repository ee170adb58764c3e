//! The bulk snapshot path and retention (docs/store.md "Bulk snapshots",
//! "Retention"), both backends:
//!
//! - the same seeded snapshots (out of order, several a day around
//!   Shanghai midnight, unknown counters, replacements, one of an entity
//!   that is not stored) written through `ContentStore::write` into one
//!   store and through the bulk calls, in random slices, into another leave
//!   identical snapshot tables, per-day aggregates (`work_days`,
//!   `account_days`, row by row) and newest figures of the works;
//! - a prune keeps every window inside the retention answering as before,
//!   keeps the whole series of an entity that stopped before it, and leaves the aggregates a fresh
//!   backfill would compute; a dry run removes nothing and counts the same.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use mediaops_store::ContentStore;
use mediaops_store::days::{ACCOUNT_DAYS, WORK_DAYS, backfill_statement};
use mediaops_store::model::{
    Account, AccountSnapshot, BoardQuery, Counter, Measure, Record, SeriesQuery, Work, WorkSnapshot,
};
use mediaops_store::postgres::PostgresStore;
use mediaops_store::rankings::rules::Window;
use mediaops_store::sqlite::SqliteStore;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use sqlx::Connection;

const PLATFORM: &str = "shortvideo";

/// Entities: 6 accounts and 30 works (one account and one work never get
/// a snapshot).
fn entities() -> Vec<Record> {
    let mut out = Vec::new();
    for a in 0..6 {
        out.push(Record::Account(Account {
            platform: PLATFORM.into(),
            platform_id: format!("a{a}"),
            nickname: format!("账号{}", a % 3),
            category: Some(if a % 2 == 0 { "美食" } else { "旅行" }.into()),
            fans: Some(1_000 * a as i64),
            ..Account::default()
        }));
    }
    for w in 0..30 {
        out.push(Record::Work(Work {
            platform: PLATFORM.into(),
            platform_id: format!("w{w}"),
            title: ["火锅", "旅行", "Zebra"][w % 3].into(),
            author_id: Some(format!("a{}", w % 6)),
            category: Some(if w % 3 == 0 { "旅行" } else { "美食" }.into()),
            published_at: Some(Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()),
            ..Work::default()
        }));
    }
    out
}

/// Seeded snapshots over 11-01..11-14 in random order: a third of the
/// times straddle Shanghai midnight (16:00 UTC), 10% of the counters are
/// unknown, 15% are written again at the same moment with other counters
/// (some right after, some later), and one names a work that is not
/// stored.
fn snapshots(seed: u64) -> Vec<Record> {
    let mut rng = StdRng::seed_from_u64(seed);
    let time = |rng: &mut StdRng| {
        let day = rng.random_range(1..=14);
        let hour = if rng.random_bool(0.33) { rng.random_range(15..17) } else { rng.random_range(0..24) };
        Utc.with_ymd_and_hms(2026, 11, day, hour, rng.random_range(0..60), rng.random_range(0..60)).unwrap()
    };
    let maybe = |rng: &mut StdRng, v: i64| if rng.random_bool(0.1) { None } else { Some(v) };
    let mut out = Vec::new();
    for a in 0..5 {
        for _ in 0..rng.random_range(5..30) {
            let (fans, likes) = (rng.random_range(0..50), rng.random_range(0..50));
            let snapshot = AccountSnapshot {
                captured_at: time(&mut rng),
                fans: maybe(&mut rng, fans),
                likes: maybe(&mut rng, likes),
                works: Some(3),
                reads: None,
            };
            out.push(Record::AccountSnapshot { platform: PLATFORM.into(), platform_id: format!("a{a}"), snapshot });
        }
    }
    for w in 0..29 {
        for _ in 0..rng.random_range(1..20) {
            let (likes, views) = (rng.random_range(0..40), rng.random_range(0..40));
            let snapshot = WorkSnapshot {
                captured_at: time(&mut rng),
                likes: maybe(&mut rng, likes),
                views: maybe(&mut rng, views),
                comments: Some(1),
                extra: rng.random_bool(0.2).then(|| serde_json::json!({"coin": likes})),
                ..Default::default()
            };
            out.push(Record::WorkSnapshot { platform: PLATFORM.into(), platform_id: format!("w{w}"), snapshot });
        }
    }
    out.shuffle(&mut rng);
    let mut replaced = Vec::new();
    for (i, record) in out.iter().enumerate() {
        if rng.random_bool(0.15) {
            let again = match record.clone() {
                Record::WorkSnapshot { platform, platform_id, mut snapshot } => {
                    snapshot.likes = snapshot.likes.map(|l| l + 7).or(Some(5));
                    snapshot.extra = None;
                    Record::WorkSnapshot { platform, platform_id, snapshot }
                }
                Record::AccountSnapshot { platform, platform_id, mut snapshot } => {
                    snapshot.fans = snapshot.fans.map(|f| f + 3);
                    Record::AccountSnapshot { platform, platform_id, snapshot }
                }
                other => other,
            };
            replaced.push((if rng.random_bool(0.5) { i + 1 } else { out.len() }, again));
        }
    }
    for (position, record) in replaced.into_iter().rev() {
        out.insert(position.min(out.len()), record);
    }
    let lost = WorkSnapshot { captured_at: time(&mut rng), likes: Some(1), ..Default::default() };
    out.insert(
        3,
        Record::WorkSnapshot { platform: PLATFORM.into(), platform_id: "no-such-work".into(), snapshot: lost },
    );
    out
}

/// Writes `records` through the bulk calls, in consecutive slices of
/// random length (each slice one call per kind, order kept); returns the
/// indexes (into `records`) reported missing.
async fn write_bulk(store: &dyn ContentStore, records: &[Record], seed: u64) -> Vec<usize> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut missing = Vec::new();
    let mut start = 0;
    while start < records.len() {
        let end = (start + rng.random_range(1..120)).min(records.len());
        let (mut works, mut accounts) = (Vec::new(), Vec::new());
        for (i, record) in records.iter().enumerate().take(end).skip(start) {
            match record {
                Record::WorkSnapshot { platform_id, snapshot, .. } => {
                    works.push((i, (platform_id.clone(), snapshot.clone())))
                }
                Record::AccountSnapshot { platform_id, snapshot, .. } => {
                    accounts.push((i, (platform_id.clone(), snapshot.clone())))
                }
                _ => unreachable!("snapshots only"),
            }
        }
        let input: Vec<_> = works.iter().map(|(_, s)| s.clone()).collect();
        let report = store.bulk_work_snapshots(PLATFORM, &input).await.unwrap();
        missing.extend(report.missing.iter().map(|&m| works[m].0));
        let input: Vec<_> = accounts.iter().map(|(_, s)| s.clone()).collect();
        let report = store.bulk_account_snapshots(PLATFORM, &input).await.unwrap();
        assert_eq!(report.written as usize, input.len() - report.missing.len());
        missing.extend(report.missing.iter().map(|&m| accounts[m].0));
        start = end;
    }
    missing.sort();
    missing
}

/// Every table the two paths write, as text rows in key order.
const DUMPS: [&str; 5] = [
    "SELECT platform, day, work, category, first_at, first_likes, first_views, last_at, last_likes, last_views, \
     prev_day, prev_likes, prev_views, next_day FROM work_days ORDER BY work, day",
    "SELECT platform, day, account, first_at, first_fans, first_likes, last_at, last_fans, last_likes, prev_day, \
     prev_fans, prev_likes, next_day FROM account_days ORDER BY account, day",
    "SELECT work, captured_at, likes, collects, comments, shares, views, watch, extra FROM work_snapshots \
     ORDER BY work, captured_at",
    "SELECT account, captured_at, fans, likes, works, reads FROM account_snapshots ORDER BY account, captured_at",
    "SELECT id, platform_id, latest_likes, latest_captured_at FROM works ORDER BY id",
];

/// `statement`'s rows as text (`|`-joined columns, `∅` for NULL).
fn as_text(statement: &str) -> String {
    let select = statement.strip_prefix("SELECT ").unwrap();
    let (columns, rest) = select.split_once(" FROM ").unwrap();
    let joined: Vec<String> = columns.split(", ").map(|c| format!("COALESCE(CAST({c} AS TEXT), '∅')")).collect();
    format!("SELECT {} AS line FROM {rest}", joined.join(" || '|' || "))
}

/// A raw connection to a test store's database.
enum Raw {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

impl Raw {
    async fn lines(&mut self, statement: &str) -> Vec<String> {
        let statement = as_text(statement);
        match self {
            Raw::Sqlite(c) => sqlx::query_scalar(&statement).fetch_all(c).await.unwrap(),
            Raw::Postgres(c) => sqlx::query_scalar(&statement).fetch_all(c).await.unwrap(),
        }
    }

    async fn dump(&mut self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for statement in DUMPS {
            out.push(self.lines(statement).await);
        }
        out
    }

    async fn execute(&mut self, statement: &str) {
        match self {
            Raw::Sqlite(c) => sqlx::raw_sql(statement).execute(c).await.map(|_| ()),
            Raw::Postgres(c) => sqlx::raw_sql(statement).execute(c).await.map(|_| ()),
        }
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }

    fn backend(&self) -> &'static str {
        match self {
            Raw::Sqlite(_) => "sqlite",
            Raw::Postgres(_) => "postgres",
        }
    }

    /// The aggregates as they stand, and as the migration's backfill
    /// computes them from the stored snapshots.
    async fn days_and_backfill(&mut self) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
        let kept = vec![self.lines(DUMPS[0]).await, self.lines(DUMPS[1]).await];
        for t in [WORK_DAYS, ACCOUNT_DAYS] {
            self.execute(&format!("DELETE FROM {}", t.days)).await;
            let backfill = backfill_statement(self.backend(), &t);
            self.execute(&backfill).await;
        }
        (kept, vec![self.lines(DUMPS[0]).await, self.lines(DUMPS[1]).await])
    }
}

async fn write_all(store: &dyn ContentStore, records: &[Record]) -> Vec<usize> {
    let outcomes = store.write(records).await.unwrap();
    outcomes.iter().enumerate().filter(|(_, o)| o.is_err()).map(|(i, _)| i).collect()
}

/// Writes the same snapshots both ways (entities first, through `write`,
/// in both) and compares every table.
async fn compare(by_write: &dyn ContentStore, mut raw_write: Raw, by_bulk: &dyn ContentStore, mut raw_bulk: Raw) {
    for seed in [1, 2] {
        assert!(write_all(by_write, &entities()).await.is_empty());
        assert!(write_all(by_bulk, &entities()).await.is_empty());
        let records = snapshots(seed);
        let failed = write_all(by_write, &records).await;
        let missing = write_bulk(by_bulk, &records, seed).await;
        assert_eq!(missing, failed, "the missing work's snapshot, and only it");
        assert_eq!(missing, [3]);
        let (written, bulk) = (raw_write.dump().await, raw_bulk.dump().await);
        assert!(written[0].len() > 100 && written[1].len() > 20, "the store has aggregates");
        for (table, (a, b)) in DUMPS.iter().zip(written.iter().zip(&bulk)) {
            assert_eq!(a, b, "seed {seed}: {table}");
        }
        let (kept, fresh) = raw_bulk.days_and_backfill().await;
        assert_eq!(kept, fresh, "seed {seed}: the bulk path's aggregates are the backfill's");
    }
}

async fn sqlite(dir: &std::path::Path, name: &str) -> (SqliteStore, Raw) {
    let path = dir.join(name);
    let store = SqliteStore::open(&path).await.unwrap();
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    (store, Raw::Sqlite(sqlx::SqliteConnection::connect_with(&options).await.unwrap()))
}

async fn postgres(options: &sqlx::postgres::PgConnectOptions) -> (PostgresStore, Raw) {
    let store = PostgresStore::open_with(options.clone()).await.unwrap();
    (store, Raw::Postgres(sqlx::PgConnection::connect_with(options).await.unwrap()))
}

#[tokio::test]
async fn sqlite_bulk_equals_the_write_path() {
    let dir = tempfile::tempdir().unwrap();
    let (a, raw_a) = sqlite(dir.path(), "write.sqlite").await;
    let (b, raw_b) = sqlite(dir.path(), "bulk.sqlite").await;
    compare(&a, raw_a, &b, raw_b).await;
}

#[tokio::test]
async fn postgres_bulk_equals_the_write_path() {
    support::with_postgres_schema("bulk_write_test", async |written| {
        support::with_postgres_schema("bulk_bulk_test", async |bulk| {
            let (a, raw_a) = postgres(&written).await;
            let (b, raw_b) = postgres(&bulk).await;
            compare(&a, raw_a, &b, raw_b).await;
        })
        .await
    })
    .await;
}

fn nov(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap()
}

/// Every board of every window `[F, L]` with `F − 1 ≥ keep_from` up to
/// 11-14, and each work's series of those windows.
async fn boards(store: &dyn ContentStore, keep_from: NaiveDate) -> Vec<String> {
    let mut out = Vec::new();
    for first in keep_from.succ_opt().unwrap().iter_days().take_while(|d| *d <= nov(14)) {
        for last in first.iter_days().take_while(|d| *d <= nov(14)) {
            let window = Window { first, last };
            let board = |counter, measure| BoardQuery {
                platform: PLATFORM.into(),
                first: window.first,
                last: window.last,
                counter,
                measure,
                ..BoardQuery::default()
            };
            for measure in [Measure::Gain, Measure::Level] {
                let works = store.work_board(&board(Counter::Likes, measure)).await.unwrap();
                out.push(format!(
                    "{window:?} works {measure:?}: {:?}",
                    works.iter().map(|b| (&b.work.platform_id, b.value)).collect::<Vec<_>>()
                ));
                let accounts = store.account_board(&board(Counter::Fans, measure)).await.unwrap();
                out.push(format!(
                    "{window:?} accounts {measure:?}: {:?}",
                    accounts.iter().map(|b| (&b.account.platform_id, b.value, b.likes_gained)).collect::<Vec<_>>()
                ));
            }
            let gains = store.author_gains(&board(Counter::Views, Measure::Gain)).await.unwrap();
            out.push(format!(
                "{window:?} authors: {:?}",
                gains.iter().map(|g| (&g.author_id, g.views, g.likes)).collect::<Vec<_>>()
            ));
        }
    }
    out
}

/// An old work (`w-old`) whose snapshots stop on 11-02, with two that day.
fn old_work() -> Vec<Record> {
    let mut out = vec![Record::Work(Work {
        platform: PLATFORM.into(),
        platform_id: "w-old".into(),
        title: "旧作品".into(),
        ..Work::default()
    })];
    for (day, hour, likes) in [(1, 3, 1), (2, 1, 2), (2, 9, 3)] {
        out.push(Record::WorkSnapshot {
            platform: PLATFORM.into(),
            platform_id: "w-old".into(),
            snapshot: WorkSnapshot { captured_at: at(day, hour), likes: Some(likes), ..Default::default() },
        });
    }
    out
}

async fn check_prune(store: &dyn ContentStore, mut raw: Raw) {
    write_all(store, &entities()).await;
    write_all(store, &snapshots(5)).await;
    assert!(write_all(store, &old_work()).await.is_empty());
    let keep_from = nov(8);
    let before = boards(store, keep_from).await;
    let series_query = SeriesQuery {
        platform: PLATFORM.into(),
        captured_from: at(8, 0) - chrono::Duration::hours(8),
        captured_to: at(14, 16),
        ..SeriesQuery::default()
    };
    let series_before = format!("{:?}", store.work_series(&series_query).await.unwrap());
    let tables_before = raw.dump().await;

    let dry = store.prune_snapshots(keep_from, true).await.unwrap().unwrap();
    assert!(dry.dry_run);
    assert_eq!(raw.dump().await, tables_before, "a dry run removes nothing");
    assert!(dry.work_snapshots > 0 && dry.account_snapshots > 0 && dry.work_days > 0 && dry.account_days > 0);
    let done = store.prune_snapshots(keep_from, false).await.unwrap().unwrap();
    assert_eq!((done.work_snapshots, done.account_snapshots), (dry.work_snapshots, dry.account_snapshots));
    assert_eq!((done.work_days, done.account_days), (dry.work_days, dry.account_days));
    assert!(!done.dry_run);

    assert_eq!(boards(store, keep_from).await, before, "windows inside the retention answer as before");
    assert_eq!(format!("{:?}", store.work_series(&series_query).await.unwrap()), series_before);
    let old = store.get_work(PLATFORM, "w-old").await.unwrap().unwrap();
    let latest = old.latest.unwrap();
    assert_eq!((latest.captured_at, latest.likes), (at(2, 9), Some(3)), "the old work's newest snapshot is kept");
    let old_rows: Vec<String> = raw
        .lines("SELECT captured_at FROM work_snapshots WHERE work = (SELECT id FROM works WHERE platform_id = 'w-old')")
        .await;
    assert_eq!(old_rows.len(), 3, "a series that stopped before the retention (11-02) is kept whole: {old_rows:?}");
    let removed = |before: &[String], after: &[String]| (before.len() - after.len()) as u64;
    let tables_after = raw.dump().await;
    assert_eq!(removed(&tables_before[0], &tables_after[0]), done.work_days);
    assert_eq!(removed(&tables_before[2], &tables_after[2]), done.work_snapshots);
    let (kept, fresh) = raw.days_and_backfill().await;
    assert_eq!(kept, fresh, "the aggregates after the prune are a fresh backfill's");
    let again = store.prune_snapshots(keep_from, false).await.unwrap().unwrap();
    assert_eq!((again.work_snapshots, again.account_snapshots, again.work_days, again.account_days), (0, 0, 0, 0));
}

#[tokio::test]
async fn sqlite_prune_keeps_windows_inside_the_retention() {
    let dir = tempfile::tempdir().unwrap();
    let (store, raw) = sqlite(dir.path(), "store.sqlite").await;
    check_prune(&store, raw).await;
}

#[tokio::test]
async fn postgres_prune_keeps_windows_inside_the_retention() {
    support::with_postgres_schema("prune_test", async |options| {
        let (store, raw) = postgres(&options).await;
        check_prune(&store, raw).await;
    })
    .await;
}

/// A second replica's prune finds the lock taken and skips.
#[tokio::test]
async fn postgres_prunes_one_replica_at_a_time() {
    support::with_postgres_schema("prune_lock_test", async |options| {
        let (store, _) = postgres(&options).await;
        let mut holder = sqlx::PgConnection::connect_with(&options).await.unwrap();
        let mut tx = holder.begin().await.unwrap();
        let taken: bool =
            sqlx::query_scalar("SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || '.mediaops.prune'))")
                .fetch_one(&mut *tx)
                .await
                .unwrap();
        assert!(taken);
        assert_eq!(store.prune_snapshots(nov(8), false).await.unwrap(), None);
        tx.rollback().await.unwrap();
        assert!(store.prune_snapshots(nov(8), false).await.unwrap().is_some());
    })
    .await;
}
