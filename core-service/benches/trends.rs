//! Trend operations over the real hot-list archive (docs/performance.md): `hot-keywords`
//! over the whole 21-day window (2024-06-01 00:00:00 .. 2024-06-21
//! 23:59:59, every list) with the clock at 2024-06-22, p50/p99, on both
//! backends; plus the latest batch and `trend-radar` for comparison. Run:
//! `cargo bench -p core-service --bench trends` (release build).
//!
//! - Data: `../shared/data/hotlists`, imported with
//!   [`mediaops_connectors::hotlists::archive::import_archive`] (rows/s reported).
//! - Store reads (`hot_list_entries` of the 21 days, and of the latest
//!   batch) and the keyword computation alone (entries already in memory)
//!   are timed too, to tell the store's share from the operation's.
//! - Cold: the first call (titles not yet cut, background corpus not yet
//!   built). Warm: `TRENDS_BENCH_CALLS` (default 50) calls one at a time.
//! - Backends: SQLite in a temp file; PostgreSQL
//!   (`MEDIAOPS_TEST_DATABASE_URL`, default
//!   `postgres://root@127.0.0.1:5432/test`) in a fresh schema dropped at the
//!   end. `TRENDS_BENCH_BACKENDS=sqlite` (or `postgres`) runs one.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::future::Future;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mediaops_ops::data_api::DataApi;
use mediaops_ops::trend::{Trends, hot_keywords, radar};
use mediaops_proto::mediaops::skills::v1::TrendRadarRequest;
use mediaops_proto::mediaops::trend::v1::HotKeywordsRequest;
use mediaops_proto::service::Answer;
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;
use mediaops_store::model::HotListQuery;
use mediaops_store::postgres::PostgresStore;
use mediaops_store::sqlite::SqliteStore;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

fn database_url() -> String {
    std::env::var("MEDIAOPS_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into())
}

fn calls() -> usize {
    std::env::var("TRENDS_BENCH_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(50)
}

/// The `q`-quantile of sorted durations, in ms.
fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// Times `calls` runs of `f` after one cold run; prints cold, p50, p99.
async fn measure<F, Fut>(name: &str, calls: usize, f: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = usize>,
{
    let started = Instant::now();
    let items = f().await;
    let cold = started.elapsed();
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        f().await;
        times.push(started.elapsed());
    }
    times.sort();
    println!(
        "{name:<44} items {items:>5}  cold {:>8.1} ms  p50 {:>8.1} ms  p99 {:>8.1} ms  ({calls} calls)",
        cold.as_secs_f64() * 1e3,
        quantile(&times, 0.5),
        quantile(&times, 0.99),
    );
}

fn items<T>(answer: Answer<T>) -> T {
    match answer {
        Answer::Found(t) | Answer::Empty(t) => t,
        Answer::NotFound(m) => panic!("{m}"),
    }
}

async fn bench(backend: &str, store: Arc<dyn ContentStore>) {
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/hotlists");
    let started = Instant::now();
    let report = mediaops_connectors::hotlists::archive::import_archive(store.as_ref(), &archive, &mut || {}).await;
    let took = started.elapsed().as_secs_f64();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected.first());
    println!(
        "{backend}: imported {} files, {} rows in {took:.1} s ({:.0} rows/s)",
        report.files,
        report.written,
        report.written as f64 / took
    );
    let clock = Clock::from_setting(Some("2024-06-22")).unwrap();
    let (from, to) = (mediaops_store::rules::window::coverage_start(&clock), clock.now());
    for latest_only in [false, true] {
        let query = HotListQuery { sources: Vec::new(), from: Some(from), to: Some(to), latest_only };
        let store = store.clone();
        let name = if latest_only { "store read, latest batch" } else { "store read, 21 days" };
        measure(&format!("{backend} {name}"), 10, || {
            let (store, query) = (store.clone(), query.clone());
            async move { store.hot_list_entries(&query).await.unwrap().len() }
        })
        .await;
    }
    let all = HotListQuery { sources: Vec::new(), from: Some(from), to: Some(to), latest_only: false };
    let entries = Arc::new(store.hot_list_entries(&all).await.unwrap());
    let api = Arc::new(DataApi { store, clock });
    let trends = Trends::new(api);
    let calls = calls();
    let window =
        || HotKeywordsRequest { start_date: "2024-06-01 00:00:00".into(), end_date: "2024-06-21 23:59:59".into() };
    measure(&format!("{backend} hot-keywords, 21 days"), calls, || {
        let trends = trends.clone();
        async move { items(hot_keywords::hot_keywords(trends, window()).await.unwrap()).items.len() }
    })
    .await;
    let background = trends.background().await.unwrap();
    measure(&format!("{backend} hot-keywords, 21 days, compute only"), calls, || {
        let (trends, entries, background) = (trends.clone(), entries.clone(), background.clone());
        async move {
            let docs = mediaops_ops::trend::entries::documents(&entries);
            let terms = trends.terms.terms_of(docs.iter().map(|(_, title)| *title));
            let docs: Vec<_> = docs.iter().map(|(source, _)| *source).zip(terms).collect();
            mediaops_ops::trend::keywords::rank_keywords(&docs, &background, 50).len()
        }
    })
    .await;
    measure(&format!("{backend} hot-keywords, latest batch"), calls, || {
        let trends = trends.clone();
        async move { items(hot_keywords::hot_keywords(trends, HotKeywordsRequest::default()).await.unwrap()).items.len() }
    })
    .await;
    measure(&format!("{backend} trend-radar, 72 hours, all lists"), calls, || {
        let trends = trends.clone();
        async move { items(radar::radar(trends, TrendRadarRequest::default()).await.unwrap()).topics.len() }
    })
    .await;
}

#[tokio::main]
async fn main() {
    let backends = std::env::var("TRENDS_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    if backends.contains("sqlite") {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
        bench("sqlite", Arc::new(store)).await;
    }
    if backends.contains("postgres") {
        let schema = format!("trends_bench_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect(&database_url()).await.expect("PostgreSQL");
        sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await.unwrap();
        let options = PgConnectOptions::from_str(&database_url()).unwrap().options([("search_path", &schema)]);
        let store = PostgresStore::open_with(options).await.unwrap();
        bench("postgres", Arc::new(store)).await;
        sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.unwrap();
    }
}
