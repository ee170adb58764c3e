//! The boards' index-ordered statements (docs/rankings.md "Index-ordered
//! boards") answer exactly as the shapes they replaced
//! (`store::plans::use_replaced_shapes`), on a seeded random store, both
//! backends: the keyword matches (below and past the match count from which
//! SQLite walks the works most liked first, with many ties and works
//! without likes), the keyword boards over them, and the level boards over
//! windows longer than a day (`category-time-hot`: reads level with
//! category, publish-time, work-type and minimum filters, windows whose
//! works have gaps) with and without a limit; the 单日互动 board (interactions
//! gained) over the matches; relevance searches, whose count and page run
//! as one statement, below and past the count cap.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::fmt::Debug;

use chrono::{NaiveDate, TimeZone, Utc};
use mediaops_store::model::{
    Account, AccountOrder, AccountQuery, BoardQuery, Counter, Measure, Record, Total, Work, WorkOrder, WorkQuery,
    WorkSnapshot,
};
use mediaops_store::plans::{self, KEYWORD_WALK_FROM};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::{ContentStore, KEYWORD_MATCH_CAP};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One comparison at a time: the switch is process-wide and the two
/// backends' tests run at once.
static SWITCH: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `read` with the replaced shapes and with the index-ordered ones: equal.
async fn same<T: PartialEq + Debug>(what: &str, read: impl AsyncFn() -> T) -> T {
    let _one = SWITCH.lock().await;
    plans::use_replaced_shapes(true);
    let before = read().await;
    plans::use_replaced_shapes(false);
    let after = read().await;
    assert_eq!(before, after, "{what}");
    after
}

const CATEGORIES: [&str; 8] = ["美食", "旅行", "科技数码", "时尚", "母婴", "体育", "音乐", "财经"];

fn nov(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

/// Lifestyle: more works than [`KEYWORD_WALK_FROM`], every title holding
/// 作品 and one category word (an eighth of them each), likes drawn from a
/// small range (many ties) on one to three days, a tenth without any
/// snapshot; articles: 3,000 with reads on random days of 11-01..11-12
/// (gaps), two work types, published over those days. Accounts with
/// followers around 10,000.
async fn fill(store: &dyn ContentStore) {
    let mut rng = StdRng::seed_from_u64(37);
    let lifestyle = usize::try_from(KEYWORD_WALK_FROM).unwrap() + 2_000;
    let mut records = Vec::new();
    for platform in ["lifestyle", "articles"] {
        for a in 0..40 {
            records.push(Record::Account(Account {
                platform: platform.into(),
                platform_id: format!("a{a}"),
                nickname: format!("作者{a}"),
                fans: (a % 9 != 0).then_some(500 * a),
                ..Account::default()
            }));
        }
    }
    let mut snapshots: Vec<(&str, Vec<(String, WorkSnapshot)>)> = vec![("lifestyle", vec![]), ("articles", vec![])];
    for (platform, works) in [("lifestyle", lifestyle), ("articles", 3_000)] {
        for w in 0..works {
            let id = format!("w{w}");
            let category = CATEGORIES[w % CATEGORIES.len()];
            records.push(Record::Work(Work {
                platform: platform.into(),
                platform_id: id.clone(),
                title: format!("{category}作品{}", w % 50),
                author_id: (w % 13 != 0).then(|| format!("a{}", w % 40)),
                category: Some(category.into()),
                work_type: Some(if w % 3 == 0 { "原创" } else { "normal" }.into()),
                published_at: Some(Utc.with_ymd_and_hms(2026, 11, 1 + (w % 12) as u32, 3, 0, 0).unwrap()),
                ..Work::default()
            }));
            if platform == "lifestyle" && w % 10 == 0 {
                continue;
            }
            let days: Vec<u32> =
                (1..=12).filter(|_| rng.random_bool(if platform == "articles" { 0.5 } else { 0.2 })).collect();
            let mut views = rng.random_range(0..150_000);
            for day in days {
                views += rng.random_range(0..20_000);
                let snapshot = WorkSnapshot {
                    captured_at: Utc.with_ymd_and_hms(2026, 11, day, 10, 0, 0).unwrap(),
                    likes: rng.random_bool(0.95).then(|| rng.random_range(0..40)),
                    views: rng.random_bool(0.95).then_some(views),
                    ..Default::default()
                };
                let of_platform = if platform == "lifestyle" { 0 } else { 1 };
                snapshots[of_platform].1.push((id.clone(), snapshot));
            }
        }
    }
    for chunk in records.chunks(5_000) {
        for outcome in store.write(chunk).await.unwrap() {
            outcome.unwrap();
        }
    }
    for (platform, snapshots) in snapshots {
        for chunk in snapshots.chunks(20_000) {
            assert!(store.bulk_work_snapshots(platform, chunk).await.unwrap().missing.is_empty());
        }
    }
}

/// Platform ids and values of a board.
async fn board(store: &dyn ContentStore, query: &BoardQuery) -> Vec<(String, i64)> {
    store.work_board(query).await.unwrap().into_iter().map(|b| (b.work.platform_id, b.value)).collect()
}

async fn compare(store: &dyn ContentStore) {
    fill(store).await;
    // Keyword matches: every work (past the walk threshold), a category
    // (an eighth), a publish-time filter, a word matching nothing.
    let published_from = Some(Utc.with_ymd_and_hms(2026, 11, 6, 0, 0, 0).unwrap());
    for (keyword, published_from) in
        [("作品", None), ("作品", published_from), ("美食", None), ("美食作品", published_from), ("火锅", None)]
    {
        let query = BoardQuery {
            platform: "lifestyle".into(),
            first: nov(12),
            last: nov(12),
            counter: Counter::Likes,
            measure: Measure::Level,
            limit: Some(500),
            published_from,
            text: Some(keyword.into()),
            ..BoardQuery::default()
        };
        let here = format!("{keyword}, published from {published_from:?}");
        // The matches as each shape finds them (PostgreSQL's replaced shape
        // matches the keyword in every statement: `None`).
        let matches = async |q: &BoardQuery| store.keyword_matches(q).await.unwrap();
        let matched = {
            let _one = SWITCH.lock().await;
            plans::use_replaced_shapes(true);
            let before = matches(&query).await;
            plans::use_replaced_shapes(false);
            let after = matches(&query).await;
            match (&before, store.backend()) {
                (None, "postgres") => assert!(after.is_some(), "matched once with the index-ordered shapes: {here}"),
                _ => assert_eq!(before, after, "matches of {here}"),
            }
            after
        };
        if let Some(ids) = &matched {
            assert!(ids.len() <= KEYWORD_MATCH_CAP as usize);
            if keyword == "作品" && published_from.is_none() {
                assert_eq!(ids.len(), KEYWORD_MATCH_CAP as usize, "past the cap");
            }
        }
        let windows = [
            ((12, 12), Counter::Likes, Measure::Level),
            ((6, 12), Counter::Likes, Measure::Gain),
            ((12, 12), Counter::Likes, Measure::Gain),
            ((12, 12), Counter::Interactions, Measure::Gain),
        ];
        for (window, counter, measure) in windows {
            let q = BoardQuery { first: nov(window.0), last: nov(window.1), counter, measure, ..query.clone() };
            // As a request reads it: the matches found once by the shape
            // in use (none on PostgreSQL's replaced shape), then the board.
            let read = async || board(store, &BoardQuery { matched: matches(&q).await, ..q.clone() }).await;
            let got = same(&format!("board of {here}, {window:?} {counter:?} {measure:?}"), read).await;
            if keyword != "火锅" {
                assert!(!got.is_empty(), "{here}: a board with entries");
            }
        }
    }
    // Relevance searches: the count and the page in one statement equal
    // the count then the page (past the cap, below it, a publish window,
    // deep and empty pages, an exact total); the page alone, uncounted, is
    // the capped count's page.
    let window = (Some(Utc.with_ymd_and_hms(2026, 11, 3, 0, 0, 0).unwrap()), None);
    for (keyword, (published_from, published_to), page, total) in [
        ("作品", (None, None), 1, Total::Capped),
        ("作品", (None, None), 37, Total::Capped),
        ("作品", (None, None), 600, Total::Capped),
        ("作品", window, 1, Total::Capped),
        ("作品", window, 2, Total::Exact),
        ("美食", (None, None), 1, Total::Capped),
        ("美食作品", window, 3, Total::Capped),
        ("火锅", (None, None), 1, Total::Capped),
    ] {
        let query = WorkQuery {
            platform: "lifestyle".into(),
            text: Some(keyword.into()),
            published_from,
            published_to,
            order: WorkOrder::Relevance,
            page,
            page_size: 20,
            total,
            ..WorkQuery::default()
        };
        let here = format!("search {keyword} {published_from:?} page {page} {total:?}");
        let found = same(&here, async || store.find_works(&query).await.unwrap()).await;
        assert_eq!(found.total_is_lower_bound, keyword == "作品" && total == Total::Capped, "{here}");
        if total == Total::Capped {
            let uncounted = WorkQuery { total: Total::Uncounted, ..query };
            let alone = same(&here, async || store.find_works(&uncounted).await.unwrap()).await;
            assert_eq!((alone.total, alone.total_is_lower_bound), (0, true), "{here} uncounted");
            assert_eq!(alone.items, found.items, "{here} uncounted");
        }
    }
    // The count of a search with no other filter reads the full-text index
    // alone on SQLite: it must count the platform's matches only (both
    // platforms' titles hold 作品, both platforms' nicknames 作者).
    let articles = WorkQuery {
        platform: "articles".into(),
        text: Some("作品".into()),
        order: WorkOrder::Relevance,
        page: 2,
        page_size: 20,
        ..WorkQuery::default()
    };
    let found = same("search 作品 on articles", async || store.find_works(&articles).await.unwrap()).await;
    assert_eq!((found.total, found.total_is_lower_bound, found.items.len()), (3_000, false, 20));
    for (page, nickname) in [(1, None), (2, None), (3, None), (1, Some("作者7"))] {
        let query = AccountQuery {
            platform: "lifestyle".into(),
            text: Some("作者".into()),
            nickname: nickname.map(str::to_owned),
            order: AccountOrder::Relevance,
            page,
            page_size: 20,
            ..AccountQuery::default()
        };
        let here = format!("account search 作者 page {page} {nickname:?}");
        let found = same(&here, async || store.find_accounts(&query).await.unwrap()).await;
        let (total, items) = if nickname.is_some() { (1, 1) } else { (40, [20, 20, 0][page as usize - 1]) };
        assert_eq!((found.total, found.items.len()), (total, items), "{here}");
        let uncounted = AccountQuery { total: Total::Uncounted, ..query };
        let alone = same(&here, async || store.find_accounts(&uncounted).await.unwrap()).await;
        assert_eq!((alone.total, alone.total_is_lower_bound, alone.items), (0, true, found.items), "{here} uncounted");
    }
    // Level boards over reads, windows longer than a day (and one day).
    let mut compared = 0;
    for (first, last) in [(1, 12), (3, 9), (6, 7), (10, 12), (11, 11), (1, 2)] {
        for category in [None, Some("美食")] {
            for (at_least, work_types) in [(Some(100_000), vec![]), (None, vec!["原创".to_owned()]), (None, vec![])] {
                for (limit, below) in [(Some(50), None), (Some(7), Some(10_000)), (None, None)] {
                    let query = BoardQuery {
                        platform: "articles".into(),
                        category: category.map(str::to_owned),
                        first: nov(first),
                        last: nov(last),
                        counter: Counter::Views,
                        measure: Measure::Level,
                        at_least,
                        author_fans_below: below,
                        published_from: Some(Utc.with_ymd_and_hms(2026, 11, first, 0, 0, 0).unwrap()),
                        published_to: Some(Utc.with_ymd_and_hms(2026, 11, last, 23, 59, 59).unwrap()),
                        work_types: work_types.clone(),
                        limit,
                        ..BoardQuery::default()
                    };
                    let here =
                        format!("reads level {first}..{last} {category:?} {at_least:?} {work_types:?} {limit:?}");
                    let got = same(&here, async || board(store, &query).await).await;
                    compared += usize::from(!got.is_empty());
                }
            }
        }
    }
    assert!(compared > 40, "most level boards have entries ({compared})");
}

#[tokio::test]
async fn sqlite_index_ordered_boards_answer_as_before() {
    let dir = tempfile::tempdir().unwrap();
    compare(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_index_ordered_boards_answer_as_before() {
    support::with_postgres("board_plans_test", async |store| compare(store).await).await;
}
