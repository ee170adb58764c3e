//! Keyword-filtered boards (docs/rankings.md "Keyword boards"): a board
//! with a full-text filter (`BoardQuery::text`, ranked from the per-day
//! aggregates over the capped matches) and a keyword series
//! (`SeriesQuery::text`) equal the figures computed from the unfiltered
//! series restricted to the matching works, on a seeded random store,
//! while the matches are under `KEYWORD_MATCH_CAP`; past the cap, the most
//! liked matches are the ones ranked. Both backends.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use mediaops_ops::rankings::series::{gain, interactions, level, read_span, top};
use mediaops_store::model::{
    Account, BoardQuery, Counter, Measure, Record, SeriesQuery, Work, WorkSeries, WorkSnapshot,
};
use mediaops_store::rankings::rules::Window;
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::{ContentStore, KEYWORD_MATCH_CAP};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

const PLATFORM: &str = "lifestyle";

/// Titles: the keyword 火锅 is in about a third of them (as a word of a
/// longer title, or the title itself), the others never hold it.
const TITLES: [&str; 6] = ["火锅", "成都火锅测评", "旅行", "川西旅行攻略", "火锅底料", "Zebra"];

fn matches_keyword(title: &str) -> bool {
    title.contains("火锅")
}

fn nov(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

/// 6 accounts (followers around 10,000, one unknown), 120 works (titles
/// from [`TITLES`], some without an author), snapshots on random days of
/// 11-01..11-12 around Shanghai midnight, some counters unknown, written in
/// random order.
fn random_records(seed: u64) -> Vec<Record> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut entities = Vec::new();
    let mut snapshots = Vec::new();
    for a in 0..6 {
        entities.push(Record::Account(Account {
            platform: PLATFORM.into(),
            platform_id: format!("a{a}"),
            nickname: format!("作者{a}"),
            fans: (a != 5).then_some(4_000 * a as i64),
            ..Account::default()
        }));
    }
    let maybe = |rng: &mut StdRng, v: i64| if rng.random_bool(0.1) { None } else { Some(v) };
    for w in 0..120 {
        entities.push(Record::Work(Work {
            platform: PLATFORM.into(),
            platform_id: format!("w{w}"),
            title: TITLES[w % TITLES.len()].into(),
            author_id: (w % 11 != 3).then(|| format!("a{}", w % 7)),
            published_at: Some(Utc.with_ymd_and_hms(2026, 11, 1 + (w % 12) as u32, 0, 0, 0).unwrap()),
            ..Work::default()
        }));
        for _ in 0..rng.random_range(0..12) {
            let day = rng.random_range(1..=12);
            let hour = if rng.random_bool(0.5) { rng.random_range(14..18) } else { rng.random_range(0..24) };
            let captured_at: DateTime<Utc> =
                Utc.with_ymd_and_hms(2026, 11, day, hour, rng.random_range(0..60), 0).unwrap();
            let (likes, views) = (rng.random_range(0..3_000), rng.random_range(0..300_000));
            let (collects, comments, shares) =
                (rng.random_range(0..50), rng.random_range(0..50), rng.random_range(0..9));
            let snapshot = WorkSnapshot {
                captured_at,
                likes: maybe(&mut rng, likes),
                views: maybe(&mut rng, views),
                collects: maybe(&mut rng, collects),
                comments: maybe(&mut rng, comments),
                shares: maybe(&mut rng, shares),
                ..Default::default()
            };
            snapshots.push(Record::WorkSnapshot { platform: PLATFORM.into(), platform_id: format!("w{w}"), snapshot });
        }
    }
    snapshots.shuffle(&mut rng);
    entities.extend(snapshots);
    entities
}

async fn write(store: &dyn ContentStore, records: &[Record]) {
    for chunk in records.chunks(2_000) {
        for outcome in store.write(chunk).await.unwrap() {
            outcome.unwrap();
        }
    }
}

/// (platform id, value) of a board's entries, ranked as the boards rank.
fn ranked(entries: Vec<(&WorkSeries, i64)>, limit: usize) -> Vec<(String, i64)> {
    top(entries, limit, |e| e.1, |e| &e.0.work.title)
        .into_iter()
        .map(|(w, v)| (w.work.platform_id.clone(), v))
        .collect()
}

/// The board of `query`, checked equal to the same board over its keyword
/// matched beforehand (`keyword_matches`, as a request with several boards
/// matches it once).
async fn board(store: &dyn ContentStore, query: &BoardQuery) -> Vec<(String, i64)> {
    let read = async |query: &BoardQuery| -> Vec<(String, i64)> {
        store.work_board(query).await.unwrap().into_iter().map(|b| (b.work.platform_id, b.value)).collect()
    };
    let got = read(query).await;
    let matched = BoardQuery { matched: store.keyword_matches(query).await.unwrap(), ..query.clone() };
    assert_eq!(read(&matched).await, got, "the board over its matches found beforehand");
    got
}

/// Every window of 11-01..11-12: the keyword boards of `lifestyle-hit-data`
/// and `articles-hit-cover` (with and without a publish-time filter) and
/// the keyword series equal the unfiltered series' figures over the works
/// whose title holds the keyword.
async fn compare(store: &dyn ContentStore) {
    write(store, &random_records(24)).await;
    let published_from = Some(Utc.with_ymd_and_hms(2026, 11, 4, 0, 0, 0).unwrap());
    for first in 1..=12 {
        for last in first..=12 {
            let window = Window { first: nov(first), last: nov(last) };
            let (captured_from, captured_to) = read_span(window);
            let all = store
                .work_series(&SeriesQuery {
                    platform: PLATFORM.into(),
                    captured_from,
                    captured_to,
                    ..Default::default()
                })
                .await
                .unwrap();
            for published_from in [None, published_from] {
                let here = format!("window {first}..{last}, published from {published_from:?}");
                let matching: Vec<&WorkSeries> = all
                    .iter()
                    .filter(|w| matches_keyword(&w.work.title))
                    .filter(|w| published_from.is_none_or(|from| w.work.published_at.is_some_and(|p| p >= from)))
                    .collect();
                let keyword_board = |counter, measure, at_least, limit: usize| BoardQuery {
                    platform: PLATFORM.into(),
                    first: window.first,
                    last: window.last,
                    counter,
                    measure,
                    at_least,
                    limit: Some(limit as u32),
                    published_from,
                    text: Some("火锅".into()),
                    ..BoardQuery::default()
                };
                let with = |f: &dyn Fn(&WorkSeries) -> Option<i64>| -> Vec<(&WorkSeries, i64)> {
                    matching.iter().filter_map(|w| f(w).map(|v| (*w, v))).collect()
                };

                // 低粉爆文: likes level ≥ 1,000, authors under 10,000 followers
                let expected = ranked(
                    with(&|w| {
                        let fans = w.author.as_ref().and_then(|a| a.fans);
                        level(&w.snapshots, window, |s| s.likes)
                            .filter(|l| *l >= 1_000 && fans.is_some_and(|f| f < 10_000))
                    }),
                    50,
                );
                let query = BoardQuery {
                    author_fans_below: Some(10_000),
                    ..keyword_board(Counter::Likes, Measure::Level, Some(1_000), 50)
                };
                assert_eq!(board(store, &query).await, expected, "low-fan hits, {here}");

                // 点赞TOP500 (here 7): likes level
                let expected = ranked(with(&|w| level(&w.snapshots, window, |s| s.likes)), 7);
                let got = board(store, &keyword_board(Counter::Likes, Measure::Level, None, 7)).await;
                assert_eq!(got, expected, "likes level, {here}");

                // 七日增长 / 阅读增长: likes and reads gained, above 0
                for counter in [Counter::Likes, Counter::Views] {
                    let value = |s: &WorkSnapshot| if counter == Counter::Likes { s.likes } else { s.views };
                    let expected = ranked(with(&|w| gain(&w.snapshots, window, value).filter(|g| *g > 0)), 9);
                    let got = board(store, &keyword_board(counter, Measure::Gain, Some(1), 9)).await;
                    assert_eq!(got, expected, "{counter:?} gained, {here}");
                }

                // 10万+爆文: reads level ≥ 100,000
                let expected =
                    ranked(with(&|w| level(&w.snapshots, window, |s| s.views).filter(|r| *r >= 100_000)), 50);
                let got = board(store, &keyword_board(Counter::Views, Measure::Level, Some(100_000), 50)).await;
                assert_eq!(got, expected, "reads level, {here}");

                // the keyword series (单日互动 reads it): the matching works' snapshots
                let series = store
                    .work_series(&SeriesQuery {
                        platform: PLATFORM.into(),
                        text: Some("火锅".into()),
                        published_from,
                        captured_from,
                        captured_to,
                        ..Default::default()
                    })
                    .await
                    .unwrap();
                let expected: Vec<&WorkSeries> = matching.clone();
                assert_eq!(series.iter().collect::<Vec<_>>(), expected, "keyword series, {here}");
                let matched = store.keyword_matches(&keyword_board(Counter::Likes, Measure::Level, None, 1)).await;
                let series_matched = store
                    .work_series(&SeriesQuery {
                        platform: PLATFORM.into(),
                        text: Some("火锅".into()),
                        matched: matched.unwrap(),
                        published_from,
                        captured_from,
                        captured_to,
                        ..Default::default()
                    })
                    .await
                    .unwrap();
                assert_eq!(series_matched, series, "keyword series over its matches found beforehand, {here}");
                let gained = |ws: &[&WorkSeries]| {
                    ranked(
                        ws.iter().filter_map(|w| gain(&w.snapshots, window, interactions).map(|g| (*w, g))).collect(),
                        50,
                    )
                };
                assert_eq!(gained(&series.iter().collect::<Vec<_>>()), gained(&expected), "interactions, {here}");

                // 单日互动 ranked in the store from the matches' snapshots:
                // interactions gained (above 0), and their level
                let expected = ranked(with(&|w| gain(&w.snapshots, window, interactions).filter(|g| *g > 0)), 50);
                let got = board(store, &keyword_board(Counter::Interactions, Measure::Gain, Some(1), 50)).await;
                assert_eq!(got, expected, "interactions gained, {here}");
                let expected = ranked(with(&|w| level(&w.snapshots, window, interactions)), 9);
                let got = board(store, &keyword_board(Counter::Interactions, Measure::Level, None, 9)).await;
                assert_eq!(got, expected, "interactions level, {here}");
            }
        }
    }
    // A text without terms matches nothing.
    let nothing = BoardQuery {
        platform: PLATFORM.into(),
        first: nov(1),
        last: nov(12),
        text: Some("，。".into()),
        ..BoardQuery::default()
    };
    assert!(store.work_board(&nothing).await.unwrap().is_empty());
}

#[tokio::test]
async fn sqlite_keyword_boards_equal_the_series_figures() {
    let dir = tempfile::tempdir().unwrap();
    compare(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_keyword_boards_equal_the_series_figures() {
    support::with_postgres("keyword_boards_test", async |store| compare(store).await).await;
}

/// `KEYWORD_MATCH_CAP + 5` matching works (likes 0, 1, 2, …) and a few
/// more liked works that do not match: a keyword board ranks the
/// `KEYWORD_MATCH_CAP` most liked matches, leaving out the 5 least liked.
async fn past_the_cap(store: &dyn ContentStore) {
    let at = Utc.with_ymd_and_hms(2026, 11, 10, 4, 0, 0).unwrap();
    let n = KEYWORD_MATCH_CAP as i64 + 5;
    let mut records = Vec::new();
    for (i, title) in (0..n).map(|i| (i, "火锅测评")).chain((n..n + 3).map(|i| (i, "旅行"))) {
        let id = format!("w{i}");
        records.push(Record::Work(Work {
            platform: PLATFORM.into(),
            platform_id: id.clone(),
            title: title.into(),
            ..Work::default()
        }));
        let snapshot = WorkSnapshot { captured_at: at, likes: Some(i), ..Default::default() };
        records.push(Record::WorkSnapshot { platform: PLATFORM.into(), platform_id: id, snapshot });
    }
    write(store, &records).await;
    let query = BoardQuery {
        platform: PLATFORM.into(),
        first: nov(10),
        last: nov(10),
        counter: Counter::Likes,
        measure: Measure::Level,
        text: Some("火锅".into()),
        ..BoardQuery::default()
    };
    // `board` also checks the same board over the matches found beforehand.
    let mut values: Vec<i64> = board(store, &query).await.into_iter().map(|(_, value)| value).collect();
    values.sort_unstable();
    assert_eq!(values, (5..n).collect::<Vec<_>>());
    let matched = store.keyword_matches(&query).await.unwrap().expect("matched once on both backends");
    assert_eq!(matched.len(), KEYWORD_MATCH_CAP as usize, "the most liked matches, no more");
}

#[tokio::test]
async fn sqlite_keyword_boards_rank_the_most_liked_matches_past_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    past_the_cap(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_keyword_boards_rank_the_most_liked_matches_past_the_cap() {
    support::with_postgres("keyword_cap_test", async |store| past_the_cap(store).await).await;
}

/// `TOTAL_CAP + 5` works matching 露营 (and a few that do not): the total
/// is the cap, flagged as a lower bound; a relevance page ranks the cap's
/// most recently stored matches (the 5 first written are left out), also
/// when not counted, and an exact count still counts them all.
async fn search_past_the_cap(store: &dyn ContentStore) {
    use mediaops_store::TOTAL_CAP;
    use mediaops_store::model::{Total, WorkQuery};
    let n = TOTAL_CAP as usize + 5;
    let mut records = Vec::new();
    for i in 0..n + 3 {
        // the first five are the keyword alone: the most relevant (the
        // shortest, and first by row id among equals), but the oldest stored
        let title = match i {
            0..5 => "露营",
            i if i < n => "露营装备",
            _ => "旅行",
        };
        records.push(Record::Work(Work {
            platform: PLATFORM.into(),
            platform_id: format!("w{i}"),
            title: title.into(),
            ..Work::default()
        }));
    }
    write(store, &records).await;
    let query = WorkQuery {
        platform: PLATFORM.into(),
        text: Some("露营".into()),
        page: 1,
        page_size: 50,
        ..Default::default()
    };
    let page = store.find_works(&query).await.unwrap();
    assert_eq!((page.total, page.total_is_lower_bound), (TOTAL_CAP, true));
    assert_eq!(page.items.len(), 50);
    let first_written: Vec<String> = (0..5).map(|i| format!("w{i}")).collect();
    assert!(page.items.iter().all(|r| !first_written.contains(&r.work.platform_id)), "outside the window");
    let uncounted = store.find_works(&WorkQuery { total: Total::Uncounted, ..query.clone() }).await.unwrap();
    assert_eq!(uncounted.items, page.items, "uncounted: the same page of the newest matches");
    let exact = store.find_works(&WorkQuery { total: Total::Exact, ..query.clone() }).await.unwrap();
    assert_eq!((exact.total, exact.total_is_lower_bound), (n as u64, false));
    // below the cap the five most relevant come first
    let few = WorkQuery { published_from: None, category: None, ..query };
    let mut small = Vec::new();
    for i in 0..8 {
        small.push(Record::Work(Work {
            platform: "articles".into(),
            platform_id: format!("a{i}"),
            title: if i < 2 { "露营" } else { "露营装备" }.into(),
            ..Work::default()
        }));
    }
    write(store, &small).await;
    let page = store.find_works(&WorkQuery { platform: "articles".into(), ..few }).await.unwrap();
    assert_eq!((page.total, page.total_is_lower_bound), (8, false));
    assert_eq!(page.items.iter().take(2).map(|r| r.work.platform_id.as_str()).collect::<Vec<_>>(), ["a0", "a1"]);
}

#[tokio::test]
async fn sqlite_search_counts_to_the_cap_and_ranks_the_newest_matches_past_it() {
    let dir = tempfile::tempdir().unwrap();
    search_past_the_cap(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_search_counts_to_the_cap_and_ranks_the_newest_matches_past_it() {
    support::with_postgres("search_cap_test", async |store| search_past_the_cap(store).await).await;
}
