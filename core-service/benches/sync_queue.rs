//! The sync queues (docs/sync.md "Queue"): how many jobs a second go through
//! push, then pull and acknowledge, on the embedded queue (SQLite, and
//! PostgreSQL in a fresh schema) and on Redis Streams (a fresh key prefix).
//! Only the queue: no vendor, no store writes.
//! Run: `cargo bench -p core-service --bench sync_queue`.
//!
//! - `SYNC_BENCH_JOBS` jobs (default 5,000) pushed one at a time, then
//!   taken by `SYNC_BENCH_CONSUMERS` concurrent consumers (default 4), each
//!   pulling and acknowledging until the queue is empty.
//! - Reported: push rate, delivery rate, and p50 / p99 of one pull +
//!   acknowledge.
//! - `MEDIAOPS_TEST_DATABASE_URL` (default `postgres://root@127.0.0.1:5432/test`),
//!   `MEDIAOPS_TEST_REDIS_URL` (default `redis://127.0.0.1:6379`).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use mediaops_ops::sync::queue::{EmbeddedQueue, SyncQueue};
use mediaops_ops::sync::redis_queue::RedisQueue;
use mediaops_store::postgres::PostgresStore;
use mediaops_store::sqlite::SqliteStore;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

const LEASE: Duration = Duration::from_secs(60);

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

async fn measure(name: &str, queue: Arc<dyn SyncQueue>, jobs: usize, consumers: usize) {
    let started = Instant::now();
    let now = Utc::now();
    for i in 0..jobs {
        queue.push(&format!("job-{i}"), now).await.expect("push");
    }
    let pushed = started.elapsed();

    let started = Instant::now();
    let mut handles = Vec::new();
    for c in 0..consumers {
        let queue = queue.clone();
        handles.push(tokio::spawn(async move {
            let consumer = format!("bench-{c}");
            let mut rounds = Vec::new();
            loop {
                let t = Instant::now();
                let Some(delivery) = queue.pull(&consumer).await.expect("pull") else { break };
                queue.ack(&consumer, &delivery).await.expect("ack");
                rounds.push(t.elapsed());
            }
            rounds
        }));
    }
    let mut rounds = Vec::new();
    for handle in handles {
        rounds.extend(handle.await.expect("consumer"));
    }
    let delivered = started.elapsed();
    rounds.sort();
    let at = |q: f64| rounds[((rounds.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1e3;
    println!(
        "{name}: pushed {jobs} in {:.2} s ({:.0}/s); delivered {} in {:.2} s ({:.0}/s) with {consumers} consumers; \
         pull+ack p50 {:.2} ms, p99 {:.2} ms",
        pushed.as_secs_f64(),
        jobs as f64 / pushed.as_secs_f64(),
        rounds.len(),
        delivered.as_secs_f64(),
        rounds.len() as f64 / delivered.as_secs_f64(),
        at(0.5),
        at(0.99),
    );
}

#[tokio::main]
async fn main() {
    let jobs = env("SYNC_BENCH_JOBS", 5000);
    let consumers = env("SYNC_BENCH_CONSUMERS", 4);

    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite = Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.expect("SQLite"));
    measure("embedded (SQLite)", Arc::new(EmbeddedQueue::new(sqlite, LEASE)), jobs, consumers).await;

    let url =
        std::env::var("MEDIAOPS_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
    let schema = format!("sync_bench_{}", uuid::Uuid::new_v4().simple());
    let mut conn = PgConnection::connect(&url).await.expect("PostgreSQL");
    sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await.expect("schema");
    let options = PgConnectOptions::from_str(&url).expect("url").options([("search_path", &schema)]);
    let postgres = Arc::new(PostgresStore::open_with(options).await.expect("open PostgreSQL"));
    measure("embedded (PostgreSQL)", Arc::new(EmbeddedQueue::new(postgres.clone(), LEASE)), jobs, consumers).await;
    drop(postgres);
    sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.expect("drop schema");

    let url = std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("mediaops-bench-sync-{}", uuid::Uuid::new_v4().simple());
    let redis = Arc::new(RedisQueue::connect(&url, &prefix, LEASE).await.expect("Redis"));
    measure("Redis Streams", redis, jobs, consumers).await;
    let mut conn =
        redis::Client::open(url.as_str()).expect("url").get_multiplexed_async_connection().await.expect("Redis");
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{prefix}:*")).query_async(&mut conn).await.expect("keys");
    if !keys.is_empty() {
        redis::cmd("DEL").arg(&keys).query_async::<()>(&mut conn).await.expect("del");
    }
}
