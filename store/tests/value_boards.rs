//! Keyword boards of stored values ranked together
//! (`ContentStore::value_boards`, docs/rankings.md "Keyword values") answer
//! as each board read alone (`ContentStore::work_board` over the same
//! stored values), on both backends, on a store where many matches tie at
//! each board's cut: few distinct likes, few distinct titles, so the cut
//! keeps tied rows and the title, then the row id, orders them.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use chrono::{NaiveDate, TimeZone, Utc};
use mediaops_store::ContentStore;
use mediaops_store::model::{BoardQuery, Counter, Measure, Record, Work, WorkSnapshot};
use mediaops_store::rankings::board_tables::BoardKey;
use mediaops_store::sqlite::SqliteStore;

fn nov(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

/// 600 lifestyle works titled 作品 and one of seven words, written in an
/// order unlike their titles; likes on 11-06 and 11-12 from 0..20, so
/// every value is shared by about 30 works; every fifth work has no
/// snapshot of 11-12.
async fn fill(store: &dyn ContentStore) {
    let mut records = Vec::new();
    for w in 0..600u32 {
        let id = format!("w{w}");
        records.push(Record::Work(Work {
            platform: "lifestyle".into(),
            platform_id: id.clone(),
            title: format!("作品{}", ["庚", "甲", "己", "乙", "戊", "丙", "丁"][(w * 3 % 7) as usize]),
            ..Work::default()
        }));
        for (day, likes) in [(6, (w * 7) % 13), (12, (w * 7) % 13 + (w * 11) % 7)] {
            if day == 12 && w % 5 == 0 {
                continue;
            }
            let snapshot = WorkSnapshot {
                captured_at: Utc.with_ymd_and_hms(2026, 11, day, 4, 0, 0).unwrap(),
                likes: Some(i64::from(likes)),
                ..Default::default()
            };
            records.push(Record::WorkSnapshot { platform: "lifestyle".into(), platform_id: id.clone(), snapshot });
        }
    }
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
}

/// Stores the keyword values of `query` (its platform, counter, measure
/// and window over every work) as board `kind`; its row id.
async fn store_values(store: &dyn ContentStore, kind: &str, query: &BoardQuery) -> i64 {
    let tables = store.boards().unwrap();
    let key = BoardKey {
        platform: query.platform.clone(),
        kind: kind.into(),
        category: String::new(),
        first: query.first,
        last: query.last,
        period: "day".into(),
    };
    // The writes' marks are taken as the builder takes them: a board whose
    // window a mark names is not read.
    let marks = tables.dirty_marks().await.unwrap();
    tables.invalidate(std::slice::from_ref(&key), &marks).await.unwrap();
    let pending = tables.pending(query.last).await.unwrap();
    let board = pending.iter().find(|p| p.key == key).unwrap();
    let whole = BoardQuery { text: None, matched: None, limit: None, ..query.clone() };
    assert!(tables.put_values(board, &whole, Utc::now()).await.unwrap());
    tables.stored_values(&key).await.unwrap().unwrap()
}

fn ids(rows: impl IntoIterator<Item = (Work, i64)>) -> Vec<(String, i64)> {
    rows.into_iter().map(|(work, value)| (work.platform_id, value)).collect()
}

async fn compare(store: &dyn ContentStore) {
    fill(store).await;
    let base = BoardQuery {
        platform: "lifestyle".into(),
        first: nov(12),
        last: nov(12),
        counter: Counter::Likes,
        measure: Measure::Level,
        text: Some("作品".into()),
        ..BoardQuery::default()
    };
    let matched = store.keyword_matches(&base).await.unwrap();
    assert_eq!(matched.as_ref().map(|m| m.len()), Some(600), "every work matches");
    let gain = BoardQuery { first: nov(6), measure: Measure::Gain, ..base.clone() };
    let level_values = store_values(store, "level", &base).await;
    let gain_values = store_values(store, "gain", &gain).await;
    let stored = |q: &BoardQuery, values: i64, limit: u32, at_least: Option<i64>| BoardQuery {
        matched: matched.clone(),
        stored_values: Some(values),
        limit: Some(limit),
        at_least,
        ..q.clone()
    };
    // A limit whose last row is the first of its run of equal values (the
    // third highest value's).
    let whole = BoardQuery { limit: None, ..stored(&base, level_values, 1, None) };
    let mut values: Vec<i64> = store.work_board(&whole).await.unwrap().into_iter().map(|b| b.value).collect();
    values.sort_unstable_by(|a, b| b.cmp(a));
    let mut distinct = values.clone();
    distinct.dedup();
    let run_start = values.iter().filter(|v| **v > distinct[2]).count() + 1;
    let boards = [
        stored(&base, level_values, 25, None),
        stored(&base, level_values, 200, Some(3)),
        stored(&base, level_values, u32::try_from(run_start).unwrap(), None),
        stored(&gain, gain_values, 40, Some(1)),
        stored(&gain, gain_values, 1_000, None),
    ];
    let queries: Vec<&BoardQuery> = boards.iter().collect();
    let together = store.value_boards(&queries).await.unwrap().expect("ranked together");
    assert_eq!(together.len(), boards.len());
    let mut tied = 0;
    for (query, got) in boards.iter().zip(together) {
        let alone = ids(store.work_board(query).await.unwrap().into_iter().map(|b| (b.work, b.value)));
        let got = ids(got);
        assert_eq!(got, alone, "{:?} {:?} at least {:?}", query.measure, query.limit, query.at_least);
        // Whether rows tied with the last one were left out (a cut inside
        // a run of equal values).
        let every = store.work_board(&BoardQuery { limit: None, ..query.clone() }).await.unwrap();
        if let Some(last) = got.last().map(|(_, v)| *v) {
            let equal = every.iter().filter(|b| b.value == last).count();
            tied += usize::from(equal > got.iter().filter(|(_, v)| *v == last).count());
        }
    }
    assert_eq!(tied, 4, "four boards cut inside a run of equal values");
}

#[tokio::test]
async fn sqlite_value_boards_rank_as_each_board_alone() {
    let dir = tempfile::tempdir().unwrap();
    compare(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_value_boards_rank_as_each_board_alone() {
    support::with_postgres("value_boards_test", async |store| compare(store).await).await;
}
