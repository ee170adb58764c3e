//! The per-term lists of works by likes (migration 0018, docs/rankings.md
//! "Keyword boards"): a keyword's capped matches read from them
//! (`keyword_matches` with the index-ordered shapes) are the works the
//! full-text match finds, in the same order, on both backends — past the
//! cap (many ties, works without likes), with several terms (a phrase
//! whose shorter terms come with its longest, and one with a substring of
//! it that is no dictionary word, which must still be looked up), with
//! category and publish-time filters, with letters FTS5 folds (`café`,
//! full-width letters: the segmenter drops them, so they never reach either
//! index) and terms listed under the folded term on SQLite (CJK extension
//! B) — after works and snapshots are written through
//! the write path and the bulk path, after later and out-of-order snapshots
//! and renamed works, and after the migration's backfill rebuilds the lists
//! of a store written before it.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::str::FromStr;

use chrono::{NaiveDate, TimeZone, Utc};
use mediaops_store::model::{BoardQuery, Counter, Measure, Record, Work, WorkSnapshot};
use mediaops_store::postgres::PostgresStore;
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::test_support as support;
use mediaops_store::{ContentStore, KEYWORD_MATCH_CAP, plans};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One check at a time: SQLite's compares the shapes, switched
/// process-wide, and the two backends' tests run at once.
static SWITCH: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const WORKS: usize = KEYWORD_MATCH_CAP as usize + 400;
const CATEGORIES: [&str; 3] = ["美食", "旅行", "日常"];

fn nov(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

/// The title of work `w`: every one holds 作品; others add a phrase
/// (美味佳肴), words FTS5 folds or not, or nothing else.
fn title(w: usize, renamed: bool) -> String {
    let word = match (w + usize::from(renamed)) % 7 {
        0 => "美味佳肴",
        1 => "美味 佳肴",
        2 => "café 美食",
        3 => "Ａｂ 日记",
        4 => "cafe 日记",
        5 => "𠀀𠀁 美食",
        _ => "随手",
    };
    format!("{word} 作品{}", w % 40)
}

fn work(w: usize, renamed: bool) -> Record {
    Record::Work(Work {
        platform: "lifestyle".into(),
        platform_id: format!("w{w}"),
        title: title(w, renamed),
        category: Some(CATEGORIES[w % CATEGORIES.len()].into()),
        published_at: Some(Utc.with_ymd_and_hms(2026, 11, 1 + (w % 10) as u32, 3, 0, 0).unwrap()),
        ..Work::default()
    })
}

/// A snapshot of `w` on 11-`day` at `hour` (likes from a small range, so
/// many ties; a tenth unknown; views always known).
fn snapshot(rng: &mut StdRng, day: u32, hour: u32) -> WorkSnapshot {
    WorkSnapshot {
        captured_at: Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap(),
        likes: rng.random_bool(0.9).then(|| rng.random_range(0..30)),
        views: Some(rng.random_range(0..1_000)),
        ..Default::default()
    }
}

/// Writes `snapshots` (work index, snapshot): even works through the write
/// path, odd ones through the bulk path.
async fn write_snapshots(store: &dyn ContentStore, snapshots: Vec<(usize, WorkSnapshot)>) {
    let (written, bulk): (Vec<_>, Vec<_>) = snapshots.into_iter().partition(|(w, _)| w % 2 == 0);
    let records: Vec<Record> = written
        .into_iter()
        .map(|(w, snapshot)| Record::WorkSnapshot {
            platform: "lifestyle".into(),
            platform_id: format!("w{w}"),
            snapshot,
        })
        .collect();
    for chunk in records.chunks(1_000) {
        for outcome in store.write(chunk).await.unwrap() {
            outcome.unwrap();
        }
    }
    let bulk: Vec<(String, WorkSnapshot)> = bulk.into_iter().map(|(w, s)| (format!("w{w}"), s)).collect();
    assert!(store.bulk_work_snapshots("lifestyle", &bulk).await.unwrap().missing.is_empty());
}

/// Every work, and one snapshot of each on 11-12 (the day the boards
/// read).
async fn fill(store: &dyn ContentStore, rng: &mut StdRng) {
    let works: Vec<Record> = (0..WORKS).map(|w| work(w, false)).collect();
    for chunk in works.chunks(1_000) {
        for outcome in store.write(chunk).await.unwrap() {
            outcome.unwrap();
        }
    }
    write_snapshots(store, (0..WORKS).map(|w| (w, snapshot(rng, 12, 10))).collect()).await;
}

/// Later snapshots (new newest likes), out-of-order ones (older: the
/// newest likes stay) and renamed works (new terms).
async fn change(store: &dyn ContentStore, rng: &mut StdRng) {
    let mut snapshots: Vec<(usize, WorkSnapshot)> =
        (0..WORKS).filter(|w| w % 3 == 0).map(|w| (w, snapshot(rng, 14, 9))).collect();
    snapshots.extend((0..WORKS).filter(|w| w % 5 == 0).map(|w| (w, snapshot(rng, 11, 9))));
    write_snapshots(store, snapshots).await;
    let renamed: Vec<Record> = (0..WORKS).filter(|w| w % 11 == 0).map(|w| work(w, true)).collect();
    for outcome in store.write(&renamed).await.unwrap() {
        outcome.unwrap();
    }
}

/// The platform ids of a board over 11-12 by views (known for every work,
/// so the board holds every capped match, in row-id order without a
/// limit), its matches found in the statement (`matched: None`) or by
/// `keyword_matches` beforehand.
async fn board_ids(store: &dyn ContentStore, query: &BoardQuery, beforehand: bool) -> Vec<String> {
    let matched = if beforehand { store.keyword_matches(query).await.unwrap() } else { None };
    let query = BoardQuery { matched, ..query.clone() };
    store.work_board(&query).await.unwrap().into_iter().map(|b| b.work.platform_id).collect()
}

/// The term lists' matches equal the full-text match's, for every keyword
/// and filter; `stage` names the state of the store.
async fn check(store: &dyn ContentStore, stage: &str) {
    let _one = SWITCH.lock().await;
    let published_from = Some(Utc.with_ymd_and_hms(2026, 11, 4, 0, 0, 0).unwrap());
    let keywords = [
        "作品",
        "美味佳肴",
        "美味 佳肴",
        "佳肴作品",
        "美味佳肴 美味",
        "美味佳肴 味佳",
        "cafe",
        "café",
        "ａｂ",
        "𠀀𠀁",
        "日记",
        "美食",
        "火锅",
        "，。",
    ];
    let mut compared = 0;
    for keyword in keywords {
        for (category, published_from) in [(None, None), (Some("美食"), None), (None, published_from)] {
            let query = BoardQuery {
                platform: "lifestyle".into(),
                category: category.map(str::to_owned),
                first: nov(12),
                last: nov(12),
                counter: Counter::Views,
                measure: Measure::Level,
                published_from,
                text: Some(keyword.into()),
                ..BoardQuery::default()
            };
            let here = format!("{stage}: {keyword} {category:?} {published_from:?}");
            let in_statement = board_ids(store, &query, false).await;
            assert_eq!(board_ids(store, &query, true).await, in_statement, "{here}");
            assert!(in_statement.len() <= KEYWORD_MATCH_CAP as usize, "{here}");
            if keyword == "作品" && category.is_none() && published_from.is_none() {
                assert_eq!(in_statement.len(), KEYWORD_MATCH_CAP as usize, "{here}: past the cap");
            }
            if store.backend() == "sqlite" {
                // SQLite's replaced shape matches beforehand too: the same
                // ids in the same order.
                plans::use_replaced_shapes(true);
                let before = store.keyword_matches(&query).await.unwrap();
                plans::use_replaced_shapes(false);
                assert_eq!(store.keyword_matches(&query).await.unwrap(), before, "{here}: ids and order");
            }
            compared += usize::from(!in_statement.is_empty());
        }
    }
    assert!(compared >= 20, "{stage}: most keywords match ({compared})");
}

/// Fills, changes and checks `store`; `rebuilt` reopens it after
/// forgetting migration 0018 (so that its backfill runs on the stored
/// works) and checks the reopened store.
async fn run<S: ContentStore>(store: &S, rebuilt: impl AsyncFnOnce() -> S) {
    let mut rng = StdRng::seed_from_u64(18);
    fill(store, &mut rng).await;
    check(store, "written").await;
    change(store, &mut rng).await;
    check(store, "changed").await;
    let reopened = rebuilt().await;
    check(&reopened, "backfilled").await;
    change(&reopened, &mut rng).await;
    check(&reopened, "changed after the backfill").await;
}

/// Statements that undo migration 0018, so that reopening runs it again.
const FORGET_SQLITE: &str = "DROP TRIGGER work_terms_likes; DROP TABLE work_terms; \
     DELETE FROM _sqlx_migrations WHERE version = 18;";
const FORGET_POSTGRES: &str = "DROP TRIGGER work_terms_likes ON works; DROP FUNCTION work_terms_likes(); \
     DROP TABLE work_terms; DELETE FROM _sqlx_migrations WHERE version = 18;";

#[tokio::test]
async fn sqlite_term_lists_match_as_the_full_text_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let store = SqliteStore::open(&path).await.unwrap();
    run(&store, async || {
        let options = sqlx::sqlite::SqliteConnectOptions::from_str("sqlite:").unwrap().filename(&path);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        sqlx::raw_sql(FORGET_SQLITE).execute(&pool).await.unwrap();
        pool.close().await;
        SqliteStore::open(&path).await.unwrap()
    })
    .await;
}

#[tokio::test]
async fn postgres_term_lists_match_as_the_full_text_index() {
    support::with_postgres_schema("term_lists_test", async |options| {
        let store = PostgresStore::open_with(options.clone()).await.unwrap();
        run(&store, async || {
            let pool = sqlx::PgPool::connect_with(options.clone()).await.unwrap();
            sqlx::raw_sql(FORGET_POSTGRES).execute(&pool).await.unwrap();
            pool.close().await;
            PostgresStore::open_with(options).await.unwrap()
        })
        .await;
    })
    .await;
}
