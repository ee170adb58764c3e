//! The store queries the rankings read (docs/rankings.md "Store"):
//! `work_series` and `account_series` on both backends, with their filters
//! (capture window, category, text, publish time, author, account); and the
//! boards ranked from the per-day aggregates (`work_board`,
//! `account_board`, `author_gains`), checked against the same figures
//! computed from `work_series` / `account_series` on a seeded random store
//! (gaps, several snapshots a day around Shanghai midnight, unknown
//! counters, out-of-order and replaced snapshots).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use mediaops_ops::rankings::series::{gain, level, read_span, top};
use mediaops_store::ContentStore;
use mediaops_store::model::{
    Account, AccountSnapshot, BoardQuery, Counter, Measure, Record, SeriesQuery, Work, WorkSeries, WorkSnapshot,
};
use mediaops_store::rankings::rules::Window;
use mediaops_store::sqlite::SqliteStore;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap()
}

fn records() -> Vec<Record> {
    let mut out = Vec::new();
    for (id, name, category) in [("a1", "火锅达人", "美食"), ("a2", "旅行家", "旅行")] {
        out.push(Record::Account(Account {
            platform: "shortvideo".into(),
            platform_id: id.into(),
            nickname: name.into(),
            category: Some(category.into()),
            fans: Some(10),
            ..Account::default()
        }));
        for day in [10, 11, 12] {
            out.push(Record::AccountSnapshot {
                platform: "shortvideo".into(),
                platform_id: id.into(),
                snapshot: AccountSnapshot { captured_at: at(day, 1), fans: Some(i64::from(day)), ..Default::default() },
            });
        }
    }
    for (id, author, title, category, published) in [
        ("w1", "a1", "成都火锅测评", "美食", 1),
        ("w2", "a2", "川西旅行攻略", "旅行", 5),
        ("w3", "a1", "火锅底料", "美食", 9),
    ] {
        out.push(Record::Work(Work {
            platform: "shortvideo".into(),
            platform_id: id.into(),
            title: title.into(),
            author_id: Some(author.into()),
            category: Some(category.into()),
            published_at: Some(at(published, 0)),
            ..Work::default()
        }));
        for day in [9, 10, 11, 12] {
            out.push(Record::WorkSnapshot {
                platform: "shortvideo".into(),
                platform_id: id.into(),
                snapshot: WorkSnapshot {
                    captured_at: at(day, 1),
                    likes: Some(i64::from(day) * 10),
                    ..Default::default()
                },
            });
        }
    }
    out
}

async fn check(store: &dyn ContentStore) {
    for outcome in store.write(&records()).await.unwrap() {
        outcome.unwrap();
    }
    let base = SeriesQuery {
        platform: "shortvideo".into(),
        captured_from: at(10, 0),
        captured_to: at(11, 23),
        ..SeriesQuery::default()
    };
    let works = store.work_series(&base).await.unwrap();
    let ids: Vec<&str> = works.iter().map(|w| w.work.platform_id.as_str()).collect();
    assert_eq!(ids, ["w1", "w2", "w3"]);
    let likes: Vec<Option<i64>> = works[0].snapshots.iter().map(|s| s.likes).collect();
    assert_eq!(likes, [Some(100), Some(110)], "only the window's snapshots, oldest first");
    assert_eq!(works[0].author.as_ref().unwrap().nickname, "火锅达人");

    let food = SeriesQuery { category: Some("美食".into()), ..base.clone() };
    assert_eq!(store.work_series(&food).await.unwrap().len(), 2);
    let text = SeriesQuery { text: Some("火锅".into()), published_from: Some(at(5, 0)), ..base.clone() };
    let found = store.work_series(&text).await.unwrap();
    assert_eq!(found.iter().map(|w| w.work.platform_id.as_str()).collect::<Vec<_>>(), ["w3"]);
    let by_author = SeriesQuery { author_id: Some("a2".into()), ..base.clone() };
    assert_eq!(store.work_series(&by_author).await.unwrap()[0].work.platform_id, "w2");
    let nothing = SeriesQuery { text: Some("。".into()), ..base.clone() };
    assert!(store.work_series(&nothing).await.unwrap().is_empty());

    let accounts = store.account_series(&base).await.unwrap();
    assert_eq!(accounts.len(), 2);
    assert_eq!(accounts[1].snapshots.iter().map(|s| s.fans).collect::<Vec<_>>(), [Some(10), Some(11)]);
    let travel = SeriesQuery { category: Some("旅行".into()), ..base.clone() };
    assert_eq!(store.account_series(&travel).await.unwrap()[0].account.nickname, "旅行家");
    let one = SeriesQuery { account_id: Some("a1".into()), ..base.clone() };
    assert_eq!(store.account_series(&one).await.unwrap().len(), 1);
    let empty = SeriesQuery { captured_from: at(20, 0), captured_to: at(21, 0), ..base };
    assert!(store.account_series(&empty).await.unwrap().is_empty());
}

#[tokio::test]
async fn sqlite_series_read_windows_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    check(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_series_read_windows_and_filters() {
    support::with_postgres("ranking_series_test", async |store| check(store).await).await;
}

/// A seeded store: 4 accounts (one without followers known), 40 works
/// (few distinct titles and small counters, so ties happen; one without an
/// author), snapshots on random days of 11-01..11-12 at random times, some
/// counters unknown, written in random order, some written twice.
fn random_records(seed: u64) -> Vec<Record> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut entities = Vec::new();
    let mut snapshots = Vec::new();
    let time = |rng: &mut StdRng| {
        let day = rng.random_range(1..=12);
        // 14:00–17:59 UTC straddles Shanghai midnight (16:00 UTC).
        let hour = if rng.random_bool(0.5) { rng.random_range(14..18) } else { rng.random_range(0..24) };
        Utc.with_ymd_and_hms(2026, 11, day, hour, rng.random_range(0..60), rng.random_range(0..60)).unwrap()
    };
    let maybe = |rng: &mut StdRng, v: i64| if rng.random_bool(0.1) { None } else { Some(v) };
    for a in 0..4 {
        entities.push(Record::Account(Account {
            platform: "shortvideo".into(),
            platform_id: format!("a{a}"),
            nickname: ["甲", "乙", "甲", "丙"][a].into(),
            category: Some(if a % 2 == 0 { "美食" } else { "旅行" }.into()),
            fans: (a != 3).then_some(5_000 * a as i64),
            ..Account::default()
        }));
        for _ in 0..rng.random_range(0..25) {
            let (fans, likes) = (rng.random_range(0..40), rng.random_range(0..40));
            let snapshot = AccountSnapshot {
                captured_at: time(&mut rng),
                fans: maybe(&mut rng, fans),
                likes: maybe(&mut rng, likes),
                ..Default::default()
            };
            snapshots.push(Record::AccountSnapshot {
                platform: "shortvideo".into(),
                platform_id: format!("a{a}"),
                snapshot,
            });
        }
    }
    for w in 0..40 {
        entities.push(Record::Work(Work {
            platform: "shortvideo".into(),
            platform_id: format!("w{w}"),
            title: ["火锅", "旅行", "Zebra", "apple"][w % 4].into(),
            author_id: (w != 7).then(|| format!("a{}", w % 5)),
            category: Some(if w % 3 == 0 { "旅行" } else { "美食" }.into()),
            published_at: Some(Utc.with_ymd_and_hms(2026, 11, 1 + (w % 12) as u32, 0, 0, 0).unwrap()),
            work_type: Some(if w % 4 == 0 { "原创" } else { "normal" }.into()),
            ..Work::default()
        }));
        for _ in 0..rng.random_range(0..14) {
            let (likes, views) = (rng.random_range(0..30), rng.random_range(0..30));
            let snapshot = WorkSnapshot {
                captured_at: time(&mut rng),
                likes: maybe(&mut rng, likes),
                views: maybe(&mut rng, views),
                ..Default::default()
            };
            snapshots.push(Record::WorkSnapshot {
                platform: "shortvideo".into(),
                platform_id: format!("w{w}"),
                snapshot,
            });
        }
    }
    // Replace some snapshots at the same moment with other counters.
    let replaced = support::replacements(&mut rng, &snapshots, 0.15, (7, 3));
    snapshots.shuffle(&mut rng);
    entities.extend(snapshots);
    entities.extend(replaced);
    entities
}

fn nov(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

async fn write_random(store: &dyn ContentStore, seed: u64) {
    for outcome in store.write(&random_records(seed)).await.unwrap() {
        outcome.unwrap();
    }
}

async fn check_boards(store: &dyn ContentStore) {
    write_random(store, 7).await;
    compare_boards(store).await;
    // Works written again under another category: their day rows follow
    // (the copy of migration 0022), so every board agrees again.
    let moved: Vec<Record> = random_records(7)
        .into_iter()
        .filter_map(|r| match r {
            Record::Work(w) if w.platform_id.trim_start_matches('w').parse::<u32>().is_ok_and(|n| n % 5 == 0) => {
                let category = if w.category.as_deref() == Some("美食") { "旅行" } else { "美食" };
                Some(Record::Work(Work { category: Some(category.into()), ..w }))
            }
            _ => None,
        })
        .collect();
    assert!(moved.len() >= 5, "some works change category");
    for outcome in store.write(&moved).await.unwrap() {
        outcome.unwrap();
    }
    compare_boards(store).await;
}

/// The `n` works of `works` with the highest `value` (those without one
/// left out), ties by title, as (id, value): a limited work board.
fn best_works(works: &[WorkSeries], n: usize, value: impl Fn(&WorkSeries) -> Option<i64>) -> Vec<(String, i64)> {
    let entries = works.iter().filter_map(|w| Some((w.work.platform_id.clone(), w.work.title.clone(), value(w)?)));
    top(entries.collect(), n, |e| e.2, |e| &e.1).into_iter().map(|(id, _, v)| (id, v)).collect()
}

/// Every board of every window of 11-01..11-12 equals the figures
/// computed from the series.
async fn compare_boards(store: &dyn ContentStore) {
    for first in 1..=12 {
        for last in first..=12 {
            let window = Window { first: nov(first), last: nov(last) };
            let (captured_from, captured_to) = read_span(window);
            let series_query =
                SeriesQuery { platform: "shortvideo".into(), captured_from, captured_to, ..SeriesQuery::default() };
            let board = |counter, measure, at_least, limit| BoardQuery {
                platform: "shortvideo".into(),
                first: window.first,
                last: window.last,
                counter,
                measure,
                at_least,
                limit,
                ..BoardQuery::default()
            };
            let works = store.work_series(&series_query).await.unwrap();
            let here = format!("window {first}..{last}");

            // likes gained > 0, 6 best (as the note boards)
            let expected = best_works(&works, 6, |w| gain(&w.snapshots, window, |s| s.likes).filter(|g| *g > 0));
            let got: Vec<(String, i64)> = store
                .work_board(&board(Counter::Likes, Measure::Gain, Some(1), Some(6)))
                .await
                .unwrap()
                .into_iter()
                .map(|b| (b.work.platform_id, b.value))
                .collect();
            assert_eq!(got, expected, "likes gained, {here}");

            // views level of 美食 works by authors under 10,000 followers, all of them
            let expected: Vec<(String, i64)> = works
                .iter()
                .filter(|w| w.work.category.as_deref() == Some("美食"))
                .filter(|w| w.author.as_ref().and_then(|a| a.fans).is_some_and(|f| f < 10_000))
                .filter_map(|w| Some((w.work.platform_id.clone(), level(&w.snapshots, window, |s| s.views)?)))
                .collect();
            let mut query = board(Counter::Views, Measure::Level, None, None);
            query.category = Some("美食".into());
            query.author_fans_below = Some(10_000);
            let got: Vec<(String, i64)> =
                store.work_board(&query).await.unwrap().into_iter().map(|b| (b.work.platform_id, b.value)).collect();
            assert_eq!(got, expected, "views level, {here}");

            // views level of 美食 works, 4 best (as category-time-hot: the
            // walk of the category's own rows of the last day, migration 0022)
            let expected = best_works(&works, 4, |w| {
                level(&w.snapshots, window, |s| s.views).filter(|_| w.work.category.as_deref() == Some("美食"))
            });
            let mut query = board(Counter::Views, Measure::Level, None, Some(4));
            query.category = Some("美食".into());
            let got: Vec<(String, i64)> =
                store.work_board(&query).await.unwrap().into_iter().map(|b| (b.work.platform_id, b.value)).collect();
            assert_eq!(got, expected, "views level of a category, 4 best, {here}");

            // per author: views and likes gained, each work's gain above 0
            let mut expected: std::collections::BTreeMap<String, (i64, i64)> = Default::default();
            for w in &works {
                let entry = expected.entry(w.work.author_id.clone().unwrap_or_default()).or_default();
                entry.0 += gain(&w.snapshots, window, |s| s.views).unwrap_or(0).max(0);
                entry.1 += gain(&w.snapshots, window, |s| s.likes).unwrap_or(0).max(0);
            }
            let got: std::collections::BTreeMap<String, (i64, i64)> = store
                .author_gains(&board(Counter::Views, Measure::Gain, None, None))
                .await
                .unwrap()
                .into_iter()
                .map(|a| (a.author_id, (a.views, a.likes)))
                .collect();
            let nonzero = |m: &std::collections::BTreeMap<String, (i64, i64)>| {
                m.iter().filter(|(_, v)| v.0 + v.1 > 0).map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>()
            };
            assert_eq!(nonzero(&got), nonzero(&expected), "author gains, {here}");

            // accounts: followers gained > 0, 3 best; followers level with likes gained, all
            let accounts = store.account_series(&series_query).await.unwrap();
            let expected: Vec<(String, i64)> = top(
                accounts
                    .iter()
                    .filter_map(|a| {
                        let g = gain(&a.snapshots, window, |s| s.fans).filter(|g| *g > 0)?;
                        Some((a.account.platform_id.clone(), a.account.nickname.clone(), g))
                    })
                    .collect(),
                3,
                |e| e.2,
                |e| &e.1,
            )
            .into_iter()
            .map(|(id, _, g)| (id, g))
            .collect();
            let got: Vec<(String, i64)> = store
                .account_board(&board(Counter::Fans, Measure::Gain, Some(1), Some(3)))
                .await
                .unwrap()
                .into_iter()
                .map(|b| (b.account.platform_id, b.value))
                .collect();
            assert_eq!(got, expected, "followers gained, {here}");
            let expected: Vec<(String, i64, Option<i64>)> = accounts
                .iter()
                .filter_map(|a| {
                    let fans = level(&a.snapshots, window, |s| s.fans)?;
                    Some((a.account.platform_id.clone(), fans, gain(&a.snapshots, window, |s| s.likes)))
                })
                .collect();
            let got: Vec<(String, i64, Option<i64>)> = store
                .account_board(&board(Counter::Fans, Measure::Level, None, None))
                .await
                .unwrap()
                .into_iter()
                .map(|b| (b.account.platform_id, b.value, b.likes_gained))
                .collect();
            assert_eq!(got, expected, "followers level, {here}");

            // accounts of one category (read by member, as every category board): likes gained
            let expected: Vec<(String, i64)> = accounts
                .iter()
                .filter(|a| a.account.category.as_deref() == Some("美食"))
                .filter_map(|a| Some((a.account.platform_id.clone(), gain(&a.snapshots, window, |s| s.likes)?)))
                .collect();
            let mut query = board(Counter::Likes, Measure::Gain, None, None);
            query.category = Some("美食".into());
            let got: Vec<(String, i64)> = store
                .account_board(&query)
                .await
                .unwrap()
                .into_iter()
                .map(|b| (b.account.platform_id, b.value))
                .collect();
            assert_eq!(got, expected, "likes gained in a category, {here}");
        }
    }
}

#[tokio::test]
async fn sqlite_boards_equal_the_series_figures() {
    let dir = tempfile::tempdir().unwrap();
    check_boards(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_boards_equal_the_series_figures() {
    support::with_postgres("ranking_boards_test", async |store| check_boards(store).await).await;
}

/// The statements that undo migrations 0006 and 0022 (as if the store
/// predated them), after `first` (their triggers).
fn undo_days_migration(first: &[&str]) -> Vec<String> {
    let rest =
        ["DROP TABLE work_days", "DROP TABLE account_days", "DELETE FROM _sqlx_migrations WHERE version IN (6, 22)"];
    first.iter().chain(&rest).map(|s| (*s).to_owned()).collect()
}

/// Migrations 0006 and 0022 run on a store that already holds snapshots
/// backfill the aggregates (and their copy of the works' category) to the
/// same boards.
#[tokio::test]
async fn sqlite_migration_backfills_the_aggregates() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    write_random(&SqliteStore::open(&path).await.unwrap(), 11).await;
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let mut conn = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
    let triggers = [
        "DROP TRIGGER work_days_on_insert",
        "DROP TRIGGER work_days_on_update",
        "DROP TRIGGER account_days_on_insert",
        "DROP TRIGGER account_days_on_update",
        "DROP TRIGGER works_copy_to_work_days",
    ];
    for statement in undo_days_migration(&triggers) {
        sqlx::query(&statement).execute(&mut conn).await.unwrap();
    }
    conn.close().await.unwrap();
    compare_boards(&SqliteStore::open(&path).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_migration_backfills_the_aggregates() {
    use mediaops_store::postgres::PostgresStore;
    use sqlx::Connection;
    support::with_postgres_schema("ranking_backfill_test", async |options| {
        write_random(&PostgresStore::open_with(options.clone()).await.unwrap(), 11).await;
        let mut conn = sqlx::PgConnection::connect_with(&options).await.unwrap();
        let functions = [
            "DROP FUNCTION work_days_track() CASCADE",
            "DROP FUNCTION account_days_track() CASCADE",
            "DROP FUNCTION works_copy_to_work_days() CASCADE",
        ];
        for statement in undo_days_migration(&functions) {
            sqlx::query(&statement).execute(&mut conn).await.unwrap();
        }
        conn.close().await.unwrap();
        compare_boards(&PostgresStore::open_with(options).await.unwrap()).await;
    })
    .await;
}
