//! Every ranking on a generated store (issue 6), both backends: p50 / p99
//! latency of each operation's handler, called through the registry as the
//! pipeline calls it (request decode, rules, store reads, ranking, encode).
//! Run: `cargo bench -p core-service --bench rankings`.
//!
//! - Scale: `RANKINGS_BENCH_WORKS` works (default 1,000,000) spread over
//!   lifestyle, shortvideo and articles, `RANKINGS_BENCH_SNAPSHOTS` snapshots
//!   per work (default 10: one a day at 22:00 over the 10 days ending on the
//!   newest ranked day, so 10,000,000 snapshots at the default), one account
//!   per 10 works with one snapshot a day over the same days. Categories
//!   come from the spec 4.2 lists; counters grow by a seeded random amount
//!   a day, so every run writes the same store.
//! - Writing: accounts and works through the store's own write path
//!   (`ContentStore::write`, with its text indexing; on PostgreSQL four
//!   batches at once); snapshots entity by entity as bulk inserts into
//!   the snapshot tables (one `json_each` array parameter per 10,000 rows
//!   on SQLite, `UNNEST` arrays on PostgreSQL), so the triggers of migration 0006
//!   maintain the per-day aggregates exactly as for any other write; then
//!   each work's denormalised newest likes, as the write path sets them.
//! - Calls: `RANKINGS_BENCH_CALLS` (default 20) calls per operation, one at
//!   a time, the clock fixed at 2026-11-20 (newest ranked day 11-18): first
//!   at read time, then (`<backend>+boards`) after the board builder has
//!   built every board (timed, and one day's boards again).
//! - Backends: SQLite in a temp file; PostgreSQL (`MEDIAOPS_TEST_DATABASE_URL`,
//!   default `postgres://root@127.0.0.1:5432/test`) in a fresh schema dropped
//!   at the end. `RANKINGS_BENCH_BACKENDS=sqlite` (or `postgres`) runs one.
//!
//! Figures measured: docs/rankings.md "Benchmark".
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::{DateTime, Days, NaiveDate, NaiveTime, Utc};
use core_service::auth::Principal;
use core_service::clock::{Clock, shanghai_to_utc};
use core_service::data_api::DataApi;
use core_service::rankings::rules::CategoryList;
use core_service::registry::{CallContext, Registry};
use core_service::source::Fallbacks;
use core_service::store::model::{Account, Record, Work};
use core_service::store::postgres::PostgresStore;
use core_service::store::sqlite::SqliteStore;
use core_service::store::{ContentStore, StoreResult};
use futures::{StreamExt, TryStreamExt};
use prost::Message;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::sqlite::SqliteConnection;
use sqlx::{Connection, Row};

/// Records per `ContentStore::write` call.
const BATCH: usize = 5_000;
/// Snapshot rows per bulk statement.
const BULK_ROWS: usize = 10_000;
const SEED: u64 = 20_261_120;
const NOW: &str = "2026-11-20";

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The platforms and the category list each draws from.
const PLATFORMS: [(&str, CategoryList); 3] = [
    ("lifestyle", CategoryList::Lifestyle),
    ("shortvideo", CategoryList::Shortvideo),
    ("articles", CategoryList::Articles),
];

/// A raw connection to the bench's database, for the bulk snapshot inserts.
enum Bulk {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

/// One snapshot row: entity id, capture time, two counters (works: likes,
/// views; accounts: fans, likes).
type Row3 = (i64, DateTime<Utc>, i64, i64);

impl Bulk {
    /// Inserts `rows` into `table` (`work_snapshots` or `account_snapshots`)
    /// in one transaction; works get collects = likes / 3.
    async fn insert(&mut self, table: &str, rows: &[Row3]) -> sqlx::Result<()> {
        let works = table == "work_snapshots";
        let columns =
            if works { "work, captured_at, likes, views, collects" } else { "account, captured_at, fans, likes" };
        match self {
            Bulk::Sqlite(conn) => {
                // One JSON array parameter per statement (`json_each`);
                // times in the text form sqlx writes (RFC 3339, `+00:00`).
                let statement = format!(
                    "INSERT INTO {table} ({columns}) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3{} \
                     FROM json_each(?1)",
                    if works { ", (value ->> 2) / 3" } else { "" }
                );
                let mut tx = conn.begin().await?;
                for chunk in rows.chunks(BULK_ROWS) {
                    let json: Vec<(i64, String, i64, i64)> = chunk
                        .iter()
                        .map(|&(id, at, a, b)| (id, at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, false), a, b))
                        .collect();
                    let json = serde_json::to_string(&json).unwrap_or_default();
                    sqlx::query(&statement).bind(json).execute(&mut *tx).await?;
                }
                tx.commit().await
            }
            Bulk::Postgres(conn) => {
                let statement = format!(
                    "INSERT INTO {table} ({columns}) SELECT id, at, a, b{} FROM UNNEST($1::bigint[], \
                     $2::timestamptz[], $3::bigint[], $4::bigint[]) AS r (id, at, a, b)",
                    if works { ", a / 3" } else { "" }
                );
                let mut tx = conn.begin().await?;
                for chunk in rows.chunks(BULK_ROWS) {
                    let ids: Vec<i64> = chunk.iter().map(|r| r.0).collect();
                    let ats: Vec<DateTime<Utc>> = chunk.iter().map(|r| r.1).collect();
                    let a: Vec<i64> = chunk.iter().map(|r| r.2).collect();
                    let b: Vec<i64> = chunk.iter().map(|r| r.3).collect();
                    sqlx::query(&statement).bind(ids).bind(ats).bind(a).bind(b).execute(&mut *tx).await?;
                }
                tx.commit().await
            }
        }
    }

    /// `platform_id → id` of every row of `table`.
    async fn ids(&mut self, table: &str) -> sqlx::Result<HashMap<String, i64>> {
        let statement = format!("SELECT platform_id, id FROM {table}");
        let rows = match self {
            Bulk::Sqlite(conn) => sqlx::query(&statement)
                .fetch_all(conn)
                .await?
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<sqlx::Result<_>>()?,
            Bulk::Postgres(conn) => sqlx::query(&statement)
                .fetch_all(conn)
                .await?
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<sqlx::Result<_>>()?,
        };
        Ok(rows)
    }

    /// Sets each work's newest likes and capture time from its snapshot at
    /// `newest`, as the write path does for each snapshot.
    async fn set_latest(&mut self, newest: DateTime<Utc>) -> sqlx::Result<()> {
        let statement = "UPDATE works SET latest_likes = s.likes, latest_captured_at = s.captured_at \
                         FROM work_snapshots s WHERE s.work = works.id AND s.captured_at = $1";
        match self {
            Bulk::Sqlite(conn) => {
                sqlx::query(&statement.replace('$', "?")).bind(newest).execute(conn).await?;
            }
            Bulk::Postgres(conn) => {
                sqlx::query(statement).bind(newest).execute(conn).await?;
            }
        }
        Ok(())
    }
}

/// Writes records through the store, `BATCH` a call, as many calls at once
/// as the backend takes writers (SQLite: one).
async fn write_all(store: &dyn ContentStore, records: Vec<Record>) -> StoreResult<usize> {
    let writers = if store.backend() == "sqlite" { 1 } else { 4 };
    let n = records.len();
    futures::stream::iter(records.chunks(BATCH).map(|batch| async move {
        for outcome in store.write(batch).await? {
            outcome?;
        }
        StoreResult::Ok(())
    }))
    .buffer_unordered(writers)
    .try_collect::<Vec<()>>()
    .await?;
    Ok(n)
}

/// Writes the store: per platform `works / 3` works and `works / 30`
/// accounts, with `days` daily snapshots each. Returns the rows written.
async fn generate(store: &dyn ContentStore, bulk: &mut Bulk, works: usize, days: u64) -> StoreResult<usize> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let newest = NaiveDate::parse_from_str(NOW, "%Y-%m-%d").unwrap() - Days::new(2);
    let evening = NaiveTime::from_hms_opt(22, 0, 0).unwrap();
    let day_at = |i: u64| shanghai_to_utc(newest - Days::new(days - 1 - i), evening);
    // (platform_id, starting counters) of every account and work.
    let mut account_start = Vec::new();
    let mut work_start = Vec::new();
    let mut entities = Vec::new();
    for (platform, list) in PLATFORMS {
        let categories: Vec<String> =
            list.values().into_iter().filter(|c| Some(c.as_str()) != list.all_value()).collect();
        let accounts = (works / 30).max(1);
        for a in 0..accounts {
            let id = format!("{platform}-a{a}");
            entities.push(Record::Account(Account {
                platform: platform.into(),
                platform_id: id.clone(),
                nickname: format!("账号{a}"),
                category: Some(categories[a % categories.len()].clone()),
                fans: Some(rng.random_range(100..2_000_000)),
                ..Account::default()
            }));
            account_start.push((id, rng.random_range(100..1_000_000i64), rng.random_range(0..5_000_000i64)));
        }
        for w in 0..works / 3 {
            let id = format!("{platform}-w{w}");
            let author = rng.random_range(0..accounts);
            entities.push(Record::Work(Work {
                platform: platform.into(),
                platform_id: id.clone(),
                title: format!("{}作品{w}", categories[w % categories.len()]),
                author_id: Some(format!("{platform}-a{author}")),
                category: Some(categories[w % categories.len()].clone()),
                published_at: Some(day_at(0) - chrono::Duration::days(rng.random_range(0..30))),
                work_type: Some(if w % 4 == 0 { "原创" } else { "normal" }.into()),
                ..Work::default()
            }));
            work_start.push((id, rng.random_range(0..10_000i64), rng.random_range(0..200_000i64)));
        }
    }
    let started = Instant::now();
    let mut written = write_all(store, entities).await?;
    println!("  {written} accounts and works written in {:.0} s", started.elapsed().as_secs_f64());
    let started = Instant::now();
    let account_ids = bulk.ids("accounts").await?;
    let work_ids = bulk.ids("works").await?;
    // Platform ids are unique across platforms here (they carry the platform).
    let accounts: Vec<(i64, i64, i64)> =
        account_start.into_iter().map(|(id, fans, likes)| (account_ids[&id], fans, likes)).collect();
    let works: Vec<(i64, i64, i64)> =
        work_start.into_iter().map(|(id, likes, views)| (work_ids[&id], likes, views)).collect();
    // Entity by entity (each entity's days in order): the inserts then
    // append to every index instead of touching every page each day; the
    // aggregates do not depend on the order (tests/ranking_series.rs).
    for (table, entities, steps) in [
        ("account_snapshots", &accounts, ((-50, 2_000), (0, 20_000))),
        ("work_snapshots", &works, ((0, 3_000), (0, 20_000))),
    ] {
        for chunk in entities.chunks(BULK_ROWS) {
            let mut rows: Vec<Row3> = Vec::with_capacity(chunk.len() * days as usize);
            for &(id, mut a, mut b) in chunk {
                for d in 0..days {
                    a += rng.random_range(steps.0.0..steps.0.1);
                    b += rng.random_range(steps.1.0..steps.1.1);
                    rows.push((id, day_at(d), a, b));
                }
            }
            bulk.insert(table, &rows).await?;
            written += rows.len();
        }
        println!("  {table}: {written} rows, {:.0} s of snapshots", started.elapsed().as_secs_f64());
    }
    bulk.set_latest(day_at(days - 1)).await?;
    Ok(written)
}

/// One request of each ranking, encoded.
fn requests() -> Vec<(&'static str, Bytes)> {
    use mediaops_proto::mediaops::{articles::v1 as ar, lifestyle::v1 as ls, shortvideo::v1 as sv};
    let enc = |m: &dyn Fn() -> Vec<u8>| Bytes::from(m());
    let day = "2026-11-18".to_owned();
    vec![
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleTopAccount",
            enc(&|| {
                ls::LifestyleTopAccountRequest { period: "day".into(), rank_date: day.clone(), r#type: String::new() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleHitData",
            enc(&|| {
                ls::LifestyleHitDataRequest { keyword: "美味佳肴".into(), start_date: String::new() }.encode_to_vec()
            }),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleDailyTop",
            enc(&|| ls::LifestyleRankRequest { rank_date: day.clone(), category: String::new() }.encode_to_vec()),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleLowFansTop",
            enc(&|| ls::LifestyleRankRequest { rank_date: day.clone(), category: "日常生活".into() }.encode_to_vec()),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleWeeklyTop",
            enc(&|| {
                ls::LifestyleRankRequest { rank_date: "2026-11-09".into(), category: String::new() }.encode_to_vec()
            }),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleAccountAnalyzer",
            enc(&|| {
                ls::LifestyleAccountAnalyzerRequest { user_ids: vec!["lifestyle-a1".into(), "lifestyle-a2".into()] }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.DouyinRiseFansRank",
            enc(&|| {
                sv::DouyinRiseFansRankRequest {
                    period: "day".into(), rank_date: day.clone(), category: "全部".into()
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoTopAccount",
            enc(&|| {
                sv::ShortvideoTopAccountRequest {
                    period: "day".into(),
                    rank_date: day.clone(),
                    category: "美食".into(),
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoContentSurge",
            enc(&|| {
                sv::ShortvideoContentSurgeRequest { r#type: String::new(), start_time: "2026-11-12".into() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoLikesRank",
            enc(&|| {
                sv::ShortvideoLikesRankRequest { r#type: String::new(), start_time: day.clone(), end_time: day.clone() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoAccountDiagnosis",
            enc(&|| {
                sv::ShortvideoAccountDiagnosisRequest { account_names: vec!["shortvideo-a1".into()] }.encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoSimilarAccount",
            enc(&|| {
                sv::ShortvideoSimilarAccountRequest { account_name: String::new(), account_id: "shortvideo-a1".into() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.CategoryTimeHot",
            enc(&|| {
                ar::CategoryTimeHotRequest {
                    r#type: "科技数码".into(),
                    start_date: "2026-10-01".into(),
                    end_date: day.clone(),
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesIndexRank",
            enc(&|| {
                ar::ArticlesIndexRankRequest {
                    rank_type: "day".into(),
                    rank_date: day.clone(),
                    category: String::new(),
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesRaiseRank",
            enc(&|| ar::ArticlesRaiseRankRequest { rank_date: day.clone() }.encode_to_vec()),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesHitCover",
            enc(&|| {
                ar::ArticlesHitCoverRequest { keyword: "科技数码".into(), start_date: String::new() }.encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesAccountAnalyzer",
            enc(&|| ar::ArticlesAccountAnalyzerRequest { account_names: vec!["articles-a1".into()] }.encode_to_vec()),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesSimilarAccount",
            enc(&|| {
                ar::ArticlesSimilarAccountRequest { account_name: "articles-a1".into(), account_type: String::new() }
                    .encode_to_vec()
            }),
        ),
    ]
    .into_iter()
    .chain(search_requests())
    .collect()
}

/// One request of each `search-*` operation and of the searches of the
/// skills and `multi`, and the keyword boards again with a keyword that
/// matches every work of the platform (the generated titles are
/// `<category>作品<n>`: a category matches 1/24 of a platform, 作品 all of
/// it, past the count cap from 30,000 works on): issue 24 items 2 and 3.
/// Printed in this order (two calls of one operation share its name).
fn search_requests() -> Vec<(&'static str, Bytes)> {
    use mediaops_proto::mediaops::{
        articles::v1 as ar, lifestyle::v1 as ls, multi::v1 as mu, shortvideo::v1 as sv, skills::v1 as sk,
    };
    let all = || "作品".to_owned();
    let note = |keyword: &str, page| ls::SearchNoteRequest { keyword: keyword.into(), page }.encode_to_vec();
    let entries: Vec<(&'static str, Vec<u8>)> = vec![
        ("mediaops.lifestyle.v1.LifestyleService.SearchNote", note("美味佳肴", 1)),
        ("mediaops.lifestyle.v1.LifestyleService.SearchNote", note("作品", 1)),
        ("mediaops.lifestyle.v1.LifestyleService.SearchNote", note("作品", 200)),
        (
            "mediaops.lifestyle.v1.LifestyleService.SearchUser",
            ls::SearchUserRequest { keyword: "账号".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.SearchWork",
            ls::SearchWorkRequest { keyword: "美味佳肴".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.SearchWork",
            sv::SearchWorkRequest { keyword: "美食".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.SearchUser",
            sv::SearchUserRequest { keyword: "账号".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.SearchArticle",
            ar::SearchArticleRequest { keyword: "科技数码".into(), page: 1 }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.SearchArticle",
            ar::SearchArticleRequest { keyword: all(), page: 1 }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesSearchUser",
            ar::ArticlesSearchUserRequest { keyword: "账号".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.skills.v1.SkillsService.ArticlesSearch",
            sk::ArticlesSearchRequest { keyword: "科技数码".into() }.encode_to_vec(),
        ),
        (
            "mediaops.skills.v1.SkillsService.LifestyleViralNotes",
            sk::LifestyleViralNotesRequest { keyword: "美味佳肴".into(), page: 1 }.encode_to_vec(),
        ),
        (
            "mediaops.multi.v1.MultiService.Cn30MultiSearch",
            mu::Cn30MultiSearchRequest { keyword: all(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleHitData",
            ls::LifestyleHitDataRequest { keyword: all(), start_date: String::new() }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesHitCover",
            ar::ArticlesHitCoverRequest { keyword: all(), start_date: String::new() }.encode_to_vec(),
        ),
    ];
    entries.into_iter().map(|(method, body)| (method, Bytes::from(body))).collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn fill(backend: &str, store: &dyn ContentStore, mut bulk: Bulk, works: usize, days: u64) {
    let started = Instant::now();
    let written = generate(store, &mut bulk, works, days).await.expect("generate");
    let secs = started.elapsed().as_secs_f64();
    println!("{backend}: wrote {written} rows in {secs:.0} s ({:.0} rows/s)", written as f64 / secs);
}

async fn run(backend: &str, store: Arc<dyn ContentStore>, calls: usize) {
    let api = Arc::new(DataApi { store, clock: Clock::from_setting(Some(NOW)).unwrap() });
    let mut registry = Registry::from_pool(mediaops_proto::descriptor_pool()).unwrap();
    core_service::data_api::register(&api, &Fallbacks::default(), &mut registry).unwrap();
    for (method, request) in requests() {
        let info = registry.operations().find(|o| o.method.full_name() == method).expect("operation").clone();
        let handler = registry.handler(&info.grpc_path).expect("built").clone();
        let principal = Principal { account_id: "bench".into(), key_id: "bench".into(), key_prefix: "bench".into() };
        let ctx = CallContext::new("bench".into(), principal, info.clone());
        let mut times = Vec::with_capacity(calls);
        let mut size = 0;
        for _ in 0..calls {
            let t = Instant::now();
            let answer = handler(ctx.clone(), request.clone()).await.unwrap_or_else(|e| panic!("{method}: {e}"));
            times.push(t.elapsed());
            size = answer.len();
        }
        let warnings = ctx.warnings.list();
        times.sort();
        println!(
            "{backend}  {:<40} p50 {:>8.1} ms  p99 {:>8.1} ms  ({size} bytes){}",
            info.key(),
            percentile(&times, 0.5).as_secs_f64() * 1e3,
            percentile(&times, 0.99).as_secs_f64() * 1e3,
            if warnings.is_empty() { String::new() } else { format!("  warnings: {warnings:?}") }
        );
    }
}

/// Builds every board of the generated store (docs/rankings.md "Boards as
/// data") and then one day's again (the newest day marked changed, as after
/// a daily import), timing both; the calls after it read built boards.
async fn build_boards(backend: &str, store: Arc<dyn ContentStore>) {
    use core_service::rankings::boards::builder::Builder;
    let api = Arc::new(DataApi { store: store.clone(), clock: Clock::from_setting(Some(NOW)).unwrap() });
    let builder = Builder::new(api);
    let all = builder.run(&mut |_, _, _| {}).await.expect("build the boards");
    println!("{backend}: built {} boards in {:.1} s ({:?})", all.built, all.seconds, all);
    let newest = NaiveDate::parse_from_str(NOW, "%Y-%m-%d").unwrap() - Days::new(2);
    let day = builder.rebuild(Some(newest), &mut |_, _, _| {}).await.expect("build a day's boards");
    println!("{backend}: one day's boards ({newest}): {} boards in {:.1} s", day.built, day.seconds);
}

#[tokio::main]
async fn main() {
    let works = env("RANKINGS_BENCH_WORKS", 1_000_000);
    let days = env("RANKINGS_BENCH_SNAPSHOTS", 10) as u64;
    let calls = env("RANKINGS_BENCH_CALLS", 20);
    let backends = std::env::var("RANKINGS_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    println!("{works} works × {days} snapshots = {} work snapshots; {calls} calls per ranking", works as u64 * days);
    if backends.contains("sqlite") {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.sqlite");
        let store = Arc::new(SqliteStore::open(&path).await.expect("open SQLite"));
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .foreign_keys(true)
            .synchronous(sqlx::sqlite::SqliteSynchronous::Normal);
        let mut conn = SqliteConnection::connect_with(&options).await.expect("SQLite");
        // A large page cache for the bulk writer only (the store's own
        // connections, which the calls use, keep the default).
        sqlx::query("PRAGMA cache_size = -2000000").execute(&mut conn).await.expect("cache");
        let bulk = Bulk::Sqlite(conn);
        fill("sqlite", store.as_ref(), bulk, works, days).await;
        run("sqlite", store.clone(), calls).await;
        build_boards("sqlite", store.clone()).await;
        run("sqlite+boards", store, calls).await;
    }
    if backends.contains("postgres") {
        let url = std::env::var("MEDIAOPS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
        let schema = format!("rankings_bench_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect(&url).await.expect("PostgreSQL");
        sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await.unwrap();
        let options = PgConnectOptions::from_str(&url).unwrap().options([("search_path", &schema)]);
        let store = Arc::new(PostgresStore::open_with(options.clone()).await.expect("open PostgreSQL"));
        let bulk = Bulk::Postgres(PgConnection::connect_with(&options).await.expect("PostgreSQL"));
        fill("postgres", store.as_ref(), bulk, works, days).await;
        // as autovacuum would (the test server runs with it off)
        let started = Instant::now();
        for table in ["works", "work_snapshots", "work_days", "accounts", "account_snapshots", "account_days"] {
            sqlx::raw_sql(&format!("VACUUM ANALYZE {schema}.{table}")).execute(&mut conn).await.unwrap();
        }
        println!("postgres: VACUUM ANALYZE in {:.0} s", started.elapsed().as_secs_f64());
        run("postgres", store.clone(), calls).await;
        build_boards("postgres", store.clone()).await;
        run("postgres+boards", store.clone(), calls).await;
        drop(store);
        sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.unwrap();
    }
}
