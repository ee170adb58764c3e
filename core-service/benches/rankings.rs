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
//! - Calls: `RANKINGS_BENCH_CALLS` (default 20) calls per operation, one at
//!   a time, the clock fixed at 2026-11-20 (newest ranked day 11-18).
//! - Backends: SQLite in a temp file; PostgreSQL (`MEDIAOPS_TEST_DATABASE_URL`,
//!   default `postgres://root@127.0.0.1:5432/test`) in a fresh schema dropped
//!   at the end. `RANKINGS_BENCH_BACKENDS=sqlite` (or `postgres`) runs one.
//!
//! Figures measured: docs/rankings.md "Benchmark".

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::{Days, NaiveDate, NaiveTime};
use core_service::auth::Principal;
use core_service::clock::{Clock, shanghai_to_utc};
use core_service::data_api::DataApi;
use core_service::rankings::rules::CategoryList;
use core_service::registry::{CallContext, Registry};
use core_service::source::Fallbacks;
use core_service::store::model::{Account, AccountSnapshot, Record, Work, WorkSnapshot};
use core_service::store::postgres::PostgresStore;
use core_service::store::sqlite::SqliteStore;
use core_service::store::{ContentStore, StoreResult};
use prost::Message;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

const BATCH: usize = 1000;
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

/// Writes the store: per platform `works / 3` works and `works / 30`
/// accounts, with `days` daily snapshots each.
async fn generate(store: &dyn ContentStore, works: usize, days: u64) -> StoreResult<usize> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let newest = NaiveDate::parse_from_str(NOW, "%Y-%m-%d").unwrap() - Days::new(2);
    let evening = NaiveTime::from_hms_opt(22, 0, 0).unwrap();
    let day_at = |i: u64| shanghai_to_utc(newest - Days::new(days - 1 - i), evening);
    let mut batch = Vec::with_capacity(BATCH);
    let mut written = 0;
    for (platform, list) in PLATFORMS {
        let categories: Vec<String> =
            list.values().into_iter().filter(|c| Some(c.as_str()) != list.all_value()).collect();
        let accounts = (works / 30).max(1);
        for a in 0..accounts {
            let id = format!("{platform}-a{a}");
            batch.push(Record::Account(Account {
                platform: platform.into(),
                platform_id: id.clone(),
                nickname: format!("账号{a}"),
                category: Some(categories[a % categories.len()].clone()),
                fans: Some(rng.random_range(100..2_000_000)),
                ..Account::default()
            }));
            let (mut fans, mut likes) = (rng.random_range(100..1_000_000i64), rng.random_range(0..5_000_000i64));
            for d in 0..days {
                fans += rng.random_range(-50..2_000);
                likes += rng.random_range(0..20_000);
                batch.push(Record::AccountSnapshot {
                    platform: platform.into(),
                    platform_id: id.clone(),
                    snapshot: AccountSnapshot {
                        captured_at: day_at(d),
                        fans: Some(fans),
                        likes: Some(likes),
                        ..Default::default()
                    },
                });
                written += flush_if_full(store, &mut batch).await?;
            }
        }
        for w in 0..works / 3 {
            let id = format!("{platform}-w{w}");
            let author = rng.random_range(0..accounts);
            batch.push(Record::Work(Work {
                platform: platform.into(),
                platform_id: id.clone(),
                title: format!("{}作品{w}", categories[w % categories.len()]),
                author_id: Some(format!("{platform}-a{author}")),
                category: Some(categories[w % categories.len()].clone()),
                published_at: Some(day_at(0) - chrono::Duration::days(rng.random_range(0..30))),
                work_type: Some(if w % 4 == 0 { "原创" } else { "normal" }.into()),
                ..Work::default()
            }));
            let (mut likes, mut views) = (rng.random_range(0..10_000i64), rng.random_range(0..200_000i64));
            for d in 0..days {
                likes += rng.random_range(0..3_000);
                views += rng.random_range(0..20_000);
                batch.push(Record::WorkSnapshot {
                    platform: platform.into(),
                    platform_id: id.clone(),
                    snapshot: WorkSnapshot {
                        captured_at: day_at(d),
                        likes: Some(likes),
                        views: Some(views),
                        collects: Some(likes / 3),
                        ..Default::default()
                    },
                });
                written += flush_if_full(store, &mut batch).await?;
            }
        }
    }
    written += flush(store, &mut batch).await?;
    Ok(written)
}

async fn flush_if_full(store: &dyn ContentStore, batch: &mut Vec<Record>) -> StoreResult<usize> {
    if batch.len() >= BATCH { flush(store, batch).await } else { Ok(0) }
}

async fn flush(store: &dyn ContentStore, batch: &mut Vec<Record>) -> StoreResult<usize> {
    let n = batch.len();
    if n > 0 {
        for outcome in store.write(batch).await? {
            outcome?;
        }
        batch.clear();
    }
    Ok(n)
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
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn fill(backend: &str, store: &dyn ContentStore, works: usize, days: u64) {
    let started = Instant::now();
    let written = generate(store, works, days).await.expect("generate");
    let secs = started.elapsed().as_secs_f64();
    println!("{backend}: wrote {written} records in {secs:.0} s ({:.0} rows/s)", written as f64 / secs);
}

async fn run(backend: &str, store: Arc<dyn ContentStore>, calls: usize) {
    let api = Arc::new(DataApi { store, clock: Clock::from_setting(Some(NOW)).unwrap() });
    let mut registry = Registry::from_pool(mediaops_proto::descriptor_pool()).unwrap();
    core_service::data_api::register(&api, &Fallbacks::default(), &mut registry).unwrap();
    for (method, request) in requests() {
        let info = registry.operations().find(|o| o.method.full_name() == method).expect("operation").clone();
        let handler = registry.handler(&info.grpc_path).expect("built").clone();
        let principal = Principal { account_id: "bench".into(), key_prefix: "bench".into() };
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

#[tokio::main]
async fn main() {
    let works = env("RANKINGS_BENCH_WORKS", 1_000_000);
    let days = env("RANKINGS_BENCH_SNAPSHOTS", 10) as u64;
    let calls = env("RANKINGS_BENCH_CALLS", 20);
    let backends = std::env::var("RANKINGS_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    println!("{works} works × {days} snapshots = {} work snapshots; {calls} calls per ranking", works as u64 * days);
    if backends.contains("sqlite") {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.expect("open SQLite"));
        fill("sqlite", store.as_ref(), works, days).await;
        run("sqlite", store, calls).await;
    }
    if backends.contains("postgres") {
        let url = std::env::var("MEDIAOPS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
        let schema = format!("rankings_bench_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect(&url).await.expect("PostgreSQL");
        sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await.unwrap();
        let options = PgConnectOptions::from_str(&url).unwrap().options([("search_path", &schema)]);
        let store = Arc::new(PostgresStore::open_with(options).await.expect("open PostgreSQL"));
        fill("postgres", store.as_ref(), works, days).await;
        // as autovacuum would (the test server runs with it off)
        for table in ["works", "work_snapshots", "accounts", "account_snapshots"] {
            sqlx::query(&format!("ANALYZE {schema}.{table}")).execute(&mut conn).await.unwrap();
        }
        run("postgres", store.clone(), calls).await;
        drop(store);
        sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.unwrap();
    }
}
