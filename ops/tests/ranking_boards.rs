//! Boards as data (docs/rankings.md "Boards as data"), on both backends,
//! on a seeded random store of the three ranked platforms (several weeks
//! of days, several categories of each spec 4.2 list, snapshots around
//! Shanghai midnight, unknown counters, out-of-order and replaced
//! snapshots):
//!
//! - every board the builder stores equals the read-time computation of
//!   the same board, row for row (works with their authors, named accounts
//!   and authors with their figures and scores);
//! - every ranking operation in scope answers the same bytes and warnings
//!   from the built boards as it did at read time before any was built;
//! - a second run builds nothing; a late snapshot for a closed day,
//!   followed by a run, re-ranks exactly the boards that day changes
//!   ([`Kind::affected`]) and they again equal the read-time computation.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use bytes::Bytes;
use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use mediaops_ops::data_api::DataApi;
use mediaops_ops::rankings::boards::builder::Builder;
use mediaops_ops::rankings::boards::compute::{self, Rows};
use mediaops_ops::rankings::boards::kinds::{self, Kind, Shape};
use mediaops_platform::auth::Principal;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_platform::source::Fallbacks;
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;
use mediaops_store::model::{Account, AccountSnapshot, Record, Work, WorkSnapshot};
use mediaops_store::rankings::board_tables::{BoardKey, BoardTables, Entities};
use mediaops_store::rankings::rules::{CategoryList, Window};
use mediaops_store::sqlite::SqliteStore;
use prost::Message;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// The service clock: Friday 2026-11-20, so the newest ranked day is 11-18.
const TODAY: &str = "2026-11-20";

const PLATFORMS: [(&str, CategoryList); 3] = [
    ("lifestyle", CategoryList::Lifestyle),
    ("shortvideo", CategoryList::Shortvideo),
    ("articles", CategoryList::Articles),
];

fn today() -> NaiveDate {
    NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap()
}

/// Day `n` of the store: Monday 2026-10-26 + n (the store spans 0..=24,
/// to Thursday 11-19, a day that is not final yet).
fn day(n: u64) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 10, 26).unwrap() + Days::new(n)
}

/// Three values of a list (its "all" value left out).
fn categories(list: CategoryList) -> Vec<String> {
    list.values().into_iter().filter(|v| Some(v.as_str()) != list.all_value()).take(3).collect()
}

/// A capture time on day `n`: half of them around Shanghai midnight
/// (14:00–17:59 UTC), so they fall on either side of it.
fn time(rng: &mut StdRng, n: u64) -> DateTime<Utc> {
    let d = day(n);
    let hour = if rng.random_bool(0.5) { rng.random_range(14..18) } else { rng.random_range(0..24) };
    let base = Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0).unwrap()) - chrono::Duration::hours(8);
    base + chrono::Duration::seconds(i64::from(hour) * 3600 + rng.random_range(0..3600))
}

fn maybe(rng: &mut StdRng, v: i64) -> Option<i64> {
    if rng.random_bool(0.05) { None } else { Some(v) }
}

/// Per platform 9 accounts (one without a follower count; nicknames and
/// titles repeat, so ties happen; followers around the 10,000 low-fan
/// line) and 36 works (one author never stored), each with snapshots on
/// random days, written in random order, some written twice.
fn random_records(seed: u64) -> Vec<Record> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut entities = Vec::new();
    let mut snapshots = Vec::new();
    for (platform, list) in PLATFORMS {
        let cats = categories(list);
        for a in 0..9 {
            entities.push(Record::Account(Account {
                platform: platform.into(),
                platform_id: format!("{platform}-a{a}"),
                nickname: ["甲", "乙", "丙", "甲"][a % 4].into(),
                category: Some(cats[a % 3].clone()),
                fans: (a != 4).then(|| rng.random_range(2_000..20_000)),
                ..Account::default()
            }));
            let (mut fans, mut likes) = (rng.random_range(0..50_000i64), rng.random_range(0..50_000i64));
            for n in 0..25 {
                for _ in 0..rng.random_range(0..3) {
                    fans += rng.random_range(-20..200);
                    likes += rng.random_range(0..500);
                    let snapshot = AccountSnapshot {
                        captured_at: time(&mut rng, n),
                        fans: maybe(&mut rng, fans),
                        likes: maybe(&mut rng, likes),
                        ..Default::default()
                    };
                    let platform_id = format!("{platform}-a{a}");
                    snapshots.push(Record::AccountSnapshot { platform: platform.into(), platform_id, snapshot });
                }
            }
        }
        for w in 0..36 {
            let published = day(rng.random_range(0..24)) - Days::new(3);
            entities.push(Record::Work(Work {
                platform: platform.into(),
                platform_id: format!("{platform}-w{w}"),
                title: ["火锅", "旅行", "Zebra", "apple", "火锅"][w % 5].into(),
                author_id: Some(format!("{platform}-a{}", w % 10)),
                category: Some(cats[w % 3].clone()),
                published_at: Some(Utc.from_utc_datetime(&published.and_hms_opt(4, 0, 0).unwrap())),
                work_type: Some(if w % 4 == 0 { "原创" } else { "normal" }.into()),
                url: Some(format!("https://example.com/{platform}/{w}")),
                cover: Some(format!("https://img.example.com/{platform}/{w}.jpg")),
                ..Work::default()
            }));
            let (mut likes, mut views) = (rng.random_range(0..2_000i64), rng.random_range(0..120_000i64));
            for n in 0..25 {
                for _ in 0..rng.random_range(0..3) {
                    likes += rng.random_range(0..300);
                    views += rng.random_range(0..8_000);
                    let snapshot = WorkSnapshot {
                        captured_at: time(&mut rng, n),
                        likes: maybe(&mut rng, likes),
                        views: maybe(&mut rng, views),
                        ..Default::default()
                    };
                    let platform_id = format!("{platform}-w{w}");
                    snapshots.push(Record::WorkSnapshot { platform: platform.into(), platform_id, snapshot });
                }
            }
        }
    }
    // Replace some snapshots at the same moment with other counters.
    let replaced = support::replacements(&mut rng, &snapshots, 0.1, (77, 33));
    snapshots.shuffle(&mut rng);
    entities.extend(snapshots);
    entities.extend(replaced);
    entities
}

async fn write(store: &dyn ContentStore, records: &[Record]) {
    for outcome in store.write(records).await.unwrap() {
        outcome.unwrap();
    }
}

/// One request of an operation: its gRPC method and encoded message.
type Call = (&'static str, Bytes);

/// Requests of every operation in scope over the canonical windows of the
/// store (days, Monday weeks, months, the surge's 7 days), for the whole
/// platform, one named category and an out-of-list or "all" value.
fn requests() -> Vec<Call> {
    use mediaops_proto::mediaops::{articles::v1 as ar, lifestyle::v1 as ls, shortvideo::v1 as sv};
    let enc = |m: &dyn Fn() -> Vec<u8>| Bytes::from(m());
    let mut out: Vec<Call> = Vec::new();
    let days: Vec<String> = (8..=23).map(|n| day(n).to_string()).collect();
    let weeks = ["2026-10-26", "2026-11-02", "2026-11-09", "2026-11-16"];
    let months = ["2026-10-01", "2026-11-01"];
    let lifestyle = categories(CategoryList::Lifestyle);
    let shortvideo = categories(CategoryList::Shortvideo);
    let articles = categories(CategoryList::Articles);
    let periods: Vec<(&str, String)> = days
        .iter()
        .map(|d| ("day", d.clone()))
        .chain(weeks.iter().map(|w| ("week", (*w).to_owned())))
        .chain(months.iter().map(|m| ("month", (*m).to_owned())))
        .collect();
    for (period, date) in &periods {
        for cat in ["", lifestyle[0].as_str(), "综合全部"] {
            out.push((
                "mediaops.lifestyle.v1.LifestyleService.LifestyleTopAccount",
                enc(&|| {
                    ls::LifestyleTopAccountRequest {
                        period: (*period).into(),
                        rank_date: date.clone(),
                        r#type: cat.into(),
                    }
                    .encode_to_vec()
                }),
            ));
        }
        for cat in ["", shortvideo[1].as_str(), "全部"] {
            for method in ["DouyinRiseFansRank", "ShortvideoTopAccount"] {
                let message = if method == "DouyinRiseFansRank" {
                    sv::DouyinRiseFansRankRequest {
                        period: (*period).into(),
                        rank_date: date.clone(),
                        category: cat.into(),
                    }
                    .encode_to_vec()
                } else {
                    sv::ShortvideoTopAccountRequest {
                        period: (*period).into(),
                        rank_date: date.clone(),
                        category: cat.into(),
                    }
                    .encode_to_vec()
                };
                let method = if method == "DouyinRiseFansRank" {
                    "mediaops.shortvideo.v1.ShortvideoService.DouyinRiseFansRank"
                } else {
                    "mediaops.shortvideo.v1.ShortvideoService.ShortvideoTopAccount"
                };
                out.push((method, Bytes::from(message)));
            }
        }
        for cat in ["", articles[2].as_str(), "科技"] {
            out.push((
                "mediaops.articles.v1.ArticlesService.ArticlesIndexRank",
                enc(&|| {
                    ar::ArticlesIndexRankRequest {
                        rank_type: (*period).into(),
                        rank_date: date.clone(),
                        category: cat.into(),
                    }
                    .encode_to_vec()
                }),
            ));
        }
        for cat in ["", lifestyle[1].as_str(), "综合全部"] {
            for method in ["LifestyleDailyTop", "LifestyleLowFansTop", "LifestyleWeeklyTop"] {
                let message =
                    ls::LifestyleRankRequest { rank_date: date.clone(), category: cat.into() }.encode_to_vec();
                let method = match method {
                    "LifestyleDailyTop" => "mediaops.lifestyle.v1.LifestyleService.LifestyleDailyTop",
                    "LifestyleLowFansTop" => "mediaops.lifestyle.v1.LifestyleService.LifestyleLowFansTop",
                    _ => "mediaops.lifestyle.v1.LifestyleService.LifestyleWeeklyTop",
                };
                out.push((method, Bytes::from(message)));
            }
        }
    }
    for date in &days {
        out.push((
            "mediaops.articles.v1.ArticlesService.ArticlesRaiseRank",
            enc(&|| ar::ArticlesRaiseRankRequest { rank_date: date.clone() }.encode_to_vec()),
        ));
        for cat in ["", shortvideo[0].as_str(), "全部"] {
            out.push((
                "mediaops.shortvideo.v1.ShortvideoService.ShortvideoContentSurge",
                enc(&|| {
                    sv::ShortvideoContentSurgeRequest { r#type: cat.into(), start_time: date.clone() }.encode_to_vec()
                }),
            ));
            out.push((
                "mediaops.shortvideo.v1.ShortvideoService.ShortvideoLikesRank",
                enc(&|| {
                    sv::ShortvideoLikesRankRequest {
                        r#type: cat.into(),
                        start_time: date.clone(),
                        end_time: date.clone(),
                    }
                    .encode_to_vec()
                }),
            ));
        }
    }
    // The keyword boards: the newest day's keyword values (a start date
    // filters the matches), and articles over their default window (the
    // stored values), the same window asked by date, and a longer one
    // (computed at read time).
    for keyword in ["火锅", "apple", "旅行 火锅"] {
        for start in ["", "2026-11-01"] {
            out.push((
                "mediaops.lifestyle.v1.LifestyleService.LifestyleHitData",
                enc(&|| {
                    ls::LifestyleHitDataRequest { keyword: keyword.into(), start_date: start.into() }.encode_to_vec()
                }),
            ));
        }
        for start in ["", "2026-11-12", "2026-11-01"] {
            out.push((
                "mediaops.articles.v1.ArticlesService.ArticlesHitCover",
                enc(&|| {
                    ar::ArticlesHitCoverRequest { keyword: keyword.into(), start_date: start.into() }.encode_to_vec()
                }),
            ));
        }
    }
    for (start, end) in [("2026-10-26", "2026-11-01"), ("2026-11-02", "2026-11-08"), ("2026-10-01", "2026-10-31")] {
        for cat in ["", articles[0].as_str()] {
            out.push((
                "mediaops.articles.v1.ArticlesService.CategoryTimeHot",
                enc(&|| {
                    ar::CategoryTimeHotRequest { r#type: cat.into(), start_date: start.into(), end_date: end.into() }
                        .encode_to_vec()
                }),
            ));
        }
    }
    out
}

/// Calls every request through the registry as the pipeline does: the
/// encoded answer (or the error) and the warnings, per request.
async fn answers(api: &Arc<DataApi>, calls: &[Call]) -> Vec<(String, Vec<String>)> {
    let mut registry = Registry::from_pool(mediaops_proto::descriptor_pool()).unwrap();
    mediaops_ops::services::register_store_reads(api, &Fallbacks::default(), &mut registry).unwrap();
    let mut out = Vec::new();
    for (method, request) in calls {
        let info = registry.operations().find(|o| o.method.full_name() == *method).expect("operation").clone();
        let handler = registry.handler(&info.grpc_path).expect("built").clone();
        let principal = Principal { account_id: "t".into(), key_id: "t".into(), key_prefix: "t".into() };
        let ctx = CallContext::new("t".into(), principal, info.clone());
        let answer = match handler(ctx.clone(), request.clone()).await {
            Ok(bytes) => format!("{method} {bytes:?}"),
            Err(e) => format!("{method} error {e:?}"),
        };
        out.push((answer, ctx.warnings.list()));
    }
    out
}

fn window_of(key: &BoardKey) -> Window {
    Window { first: key.first, last: key.last }
}

fn category_of(key: &BoardKey) -> Option<&str> {
    Some(key.category.as_str()).filter(|c| !c.is_empty())
}

/// Every built board equals the read-time computation of the same board;
/// returns how many were compared.
async fn compare_boards(api: &DataApi, tables: &dyn BoardTables) -> usize {
    let mut compared = 0;
    for state in tables.all().await.unwrap() {
        let key = &state.board.key;
        if state.built_at.is_none() {
            continue;
        }
        let kind = Kind::from_name(&key.kind).unwrap();
        let stored = match kind.shape() {
            Shape::Works => Rows::Works(tables.stored_works(key).await.unwrap().unwrap()),
            Shape::Named(naming) => Rows::Named(tables.stored_named(key, naming).await.unwrap().unwrap()),
            Shape::Values(..) => {
                // Every work's value, as the keyword boards compute it
                // per match (the whole platform, no minimum, no limit).
                let mut stored = tables.values_of(key).await.unwrap().unwrap();
                let query = compute::values_query(kind, window_of(key)).unwrap();
                let board = mediaops_ops::rankings::work_board(api, &query).await.unwrap();
                let mut computed: Vec<(String, i64)> =
                    board.into_iter().map(|b| (b.work.platform_id, b.value)).collect();
                stored.sort();
                computed.sort();
                assert!(!stored.is_empty(), "values {key}");
                assert_eq!(stored, computed, "values {key}");
                compared += 1;
                continue;
            }
        };
        let computed = compute::rows(api, kind, window_of(key), category_of(key)).await.unwrap();
        assert_eq!(stored, computed, "board {key}");
        compared += 1;
    }
    compared
}

/// (key → generation) of every board, and the keys of the built ones.
async fn generations(tables: &dyn BoardTables) -> (BTreeMap<BoardKey, i64>, BTreeSet<BoardKey>) {
    let all = tables.all().await.unwrap();
    let built = all.iter().filter(|s| s.built_at.is_some()).map(|s| s.board.key.clone()).collect();
    (all.into_iter().map(|s| (s.board.key, s.board.generation)).collect(), built)
}

async fn check(store: Arc<dyn ContentStore>) {
    write(store.as_ref(), &random_records(24)).await;
    let api = Arc::new(DataApi { store: store.clone(), clock: Clock::from_setting(Some(TODAY)).unwrap() });
    let tables = store.boards().expect("board tables");
    let calls = requests();
    let at_read_time = answers(&api, &calls).await;
    assert!(at_read_time.iter().filter(|(a, _)| a.contains("error")).count() < calls.len() / 4);

    let builder = Builder::new(api.clone());
    let mut seen = 0;
    let summary = builder.run(&mut |_, _, _| seen += 1).await.unwrap();
    assert!(!summary.skipped);
    assert!(summary.built > 1_000, "{summary:?}");
    assert_eq!((summary.dropped, summary.raced, seen), (0, 0, summary.built));
    assert_eq!(compare_boards(&api, tables.as_ref()).await, summary.built);
    // A board of each kind was built (for the whole platform).
    let (_, built) = generations(tables.as_ref()).await;
    for kind in kinds::ALL {
        assert!(built.iter().any(|k| k.kind == kind.name() && k.category.is_empty()), "{}", kind.name());
    }
    // The operations answer the same from the boards.
    let from_boards = answers(&api, &calls).await;
    for ((call, before), after) in calls.iter().zip(&at_read_time).zip(&from_boards) {
        assert_eq!(before, after, "{}", call.0);
    }

    // Idempotent: nothing changed, nothing is built again.
    let again = builder.run(&mut |_, _, _| {}).await.unwrap();
    assert_eq!((again.marks, again.invalidated, again.built), (0, 0, 0), "{again:?}");

    // With a snapshot retention whose first kept day is day 10, a full
    // rebuild re-ranks only the boards whose window and baseline day are
    // kept: the older ones keep their stored rows (their snapshots would
    // be pruned).
    let kept = day(10);
    let retained = Builder::with_retention(api.clone(), (today() - kept).num_days() as u64);
    let (before, _) = generations(tables.as_ref()).await;
    let rebuilt = retained.rebuild(None, &mut |_, _, _| {}).await.unwrap();
    let (after, _) = generations(tables.as_ref()).await;
    let changed: BTreeSet<&BoardKey> =
        after.iter().filter(|(key, generation)| before.get(*key) != Some(*generation)).map(|(key, _)| key).collect();
    assert!(rebuilt.built > 0 && !changed.is_empty(), "{rebuilt:?}");
    assert!(changed.iter().all(|key| key.first > kept), "a board reaching before {kept} was re-ranked");
    assert!(before.keys().any(|key| key.first <= kept && !changed.contains(key)), "older boards were kept");

    // A late snapshot for a closed day: a shortvideo work jumps on Tuesday
    // 11-10 (day 15), a lifestyle account on Sunday 11-01 (day 6).
    let (generation_before, _) = generations(tables.as_ref()).await;
    let work_day = day(15);
    let account_day = day(6);
    let late = vec![
        Record::WorkSnapshot {
            platform: "shortvideo".into(),
            platform_id: "shortvideo-w5".into(),
            snapshot: WorkSnapshot {
                captured_at: Utc.from_utc_datetime(&work_day.and_hms_opt(12, 0, 0).unwrap()),
                likes: Some(9_000_000),
                views: Some(1),
                ..Default::default()
            },
        },
        Record::AccountSnapshot {
            platform: "lifestyle".into(),
            platform_id: "lifestyle-a2".into(),
            snapshot: AccountSnapshot {
                captured_at: Utc.from_utc_datetime(&account_day.and_hms_opt(3, 0, 0).unwrap()),
                fans: Some(7_000_000),
                ..Default::default()
            },
        },
    ];
    write(store.as_ref(), &late).await;
    let marks: BTreeSet<(String, Entities, NaiveDate)> =
        tables.dirty_marks().await.unwrap().into_iter().map(|m| (m.platform, m.entities, m.day)).collect();
    let expected_marks: BTreeSet<_> = [
        ("lifestyle".to_owned(), Entities::Accounts, account_day),
        ("shortvideo".to_owned(), Entities::Works, work_day),
    ]
    .into();
    assert_eq!(marks, expected_marks);
    // Until a run has seen the marks, a built board of a marked day (or of
    // the day after it) is passed over, so reads take the read-time
    // computation with the late snapshot; boards of other days still serve.
    let day_board = Kind::ShortvideoLikes.key(kinds::Span::Day, Window::day(work_day), None);
    let next_board = Kind::ShortvideoLikes.key(kinds::Span::Day, Window::day(work_day + Days::new(1)), None);
    let earlier_board = Kind::ShortvideoLikes.key(kinds::Span::Day, Window::day(day(3)), None);
    assert!(tables.stored_works(&day_board).await.unwrap().is_none(), "a marked day's board is passed over");
    assert!(tables.stored_works(&next_board).await.unwrap().is_none(), "so is the next day's");
    assert!(tables.stored_works(&earlier_board).await.unwrap().is_some(), "other days' boards still serve");
    let marked =
        mediaops_ops::rankings::boards::works(&api, Kind::ShortvideoLikes, Window::day(work_day), None).await.unwrap();
    assert_eq!(marked[0].work.platform_id, "shortvideo-w5", "the late snapshot is read before the next run");
    let mut affected = BTreeSet::new();
    for kind in kinds::ALL {
        for (platform, entities, day) in &expected_marks {
            if kind.platform() == platform && kind.entities() == *entities {
                affected.extend(kind.affected(*day, today()));
            }
        }
    }
    let late_run = builder.run(&mut |_, _, _| {}).await.unwrap();
    let (generation_after, built) = generations(tables.as_ref()).await;
    let changed: BTreeSet<BoardKey> = generation_after
        .iter()
        .filter(|(key, generation)| generation_before.get(*key) != Some(*generation))
        .map(|(key, _)| key.clone())
        .collect();
    assert_eq!(changed, affected, "exactly the boards of the days changed are re-ranked");
    assert_eq!((late_run.marks, late_run.invalidated), (2, affected.len()));
    let complete: BTreeSet<&BoardKey> = affected.iter().filter(|k| k.last <= today() - Days::new(2)).collect();
    assert_eq!(late_run.built, complete.len(), "{late_run:?}");
    assert!(complete.iter().all(|k| built.contains(*k)));
    assert!(compare_boards(&api, tables.as_ref()).await >= summary.built);
    // The late snapshot is on the boards: the work tops its day's likes board.
    let top = tables.stored_works(&day_board).await.unwrap().unwrap();
    assert_eq!(top[0].work.platform_id, "shortvideo-w5");

    // A late note snapshot on the newest day: until a run has seen its
    // mark, the keyword boards compute their values again (and rank the
    // late figure); after it, the stored values hold it, and the answers
    // are the same.
    let newest = Window::day(today() - Days::new(2));
    let values = async || {
        mediaops_ops::rankings::boards::stored_values(&api, Kind::LifestyleKeywordLikes, newest).await.unwrap()
    };
    assert!(values().await.is_some(), "the newest day's keyword values are built");
    let keyword_calls: Vec<Call> = calls.iter().filter(|c| c.0.ends_with("LifestyleHitData")).cloned().collect();
    let before_late = answers(&api, &keyword_calls).await;
    let late_note = Record::WorkSnapshot {
        platform: "lifestyle".into(),
        platform_id: "lifestyle-w0".into(),
        snapshot: WorkSnapshot {
            captured_at: Utc.from_utc_datetime(&newest.last.and_hms_opt(6, 0, 0).unwrap()),
            likes: Some(9_000_000),
            ..Default::default()
        },
    };
    write(store.as_ref(), &[late_note]).await;
    assert!(values().await.is_none(), "a marked day's keyword values are passed over");
    let marked = answers(&api, &keyword_calls).await;
    assert_ne!(marked, before_late, "the late snapshot is ranked before the next run");
    builder.run(&mut |_, _, _| {}).await.unwrap();
    assert!(values().await.is_some(), "rebuilt");
    assert_eq!(answers(&api, &keyword_calls).await, marked);
}

#[tokio::test]
async fn sqlite_boards_equal_the_read_time_rankings() {
    let dir = tempfile::tempdir().unwrap();
    check(Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap())).await;
}

#[tokio::test]
async fn postgres_boards_equal_the_read_time_rankings() {
    support::with_postgres_schema("ranking_boards_test", async |options| {
        let store = mediaops_store::postgres::PostgresStore::open_with(options.clone()).await.unwrap();
        check(Arc::new(store)).await;
        // The builder settled the keyword values' table: statistics
        // gathered (`reltuples` is -1 until then) and pages marked
        // all-visible, which a probe needs to read the key alone.
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect_with(&options).await.unwrap();
        let (tuples, all_visible): (f32, i32) =
            sqlx::query_as("SELECT reltuples, relallvisible FROM pg_class WHERE oid = to_regclass('board_values')")
                .fetch_one(&mut conn)
                .await
                .unwrap();
        assert!(tuples > 0.0 && all_visible > 0, "board_values: {tuples} tuples, {all_visible} all-visible pages");
    })
    .await;
}
