//! Charged calls against a bare Redis EVALSHA loop on the same machine
//! (docs/billing.md "Measured"). Needs Redis at 127.0.0.1:6379 (MEDIAOPS_TEST_REDIS_URL
//! overrides). Run: `cargo bench -p core-service --bench charging`.
//!
//! - bare: EVALSHA of the reserve script, sequentially and from 64 tasks;
//! - charged: full gRPC calls (authenticate, price, reserve, run, commit,
//!   usage) of a 4-point operation whose handler does no work, the same two ways;
//! - rate limit: one check of a limited account's two cells (docs/rate-limits.md
//!   4), by the Redis GCRA script and by the in-process `governor` cells.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::sync::Arc;
use std::time::{Duration, Instant};

use core_service::{Core, CoreSettings};
use mediaops_platform::billing::Ledger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::rate_limit::local::LocalLimiter;
use mediaops_platform::rate_limit::redis::RedisLimiter;
use mediaops_platform::rate_limit::{Limit, Quota, RateLimiter};
use mediaops_proto::mediaops::lifestyle::v1::{
    SearchNoteRequest, SearchNoteResponse, lifestyle_service_client::LifestyleServiceClient,
};

const KEY: &str = "mk_bench_key_000000000000001";
const CALLS: usize = 4000;
const TASKS: usize = 64;

fn report(name: &str, calls: usize, elapsed: Duration) -> f64 {
    let per_call = elapsed.as_secs_f64() / calls as f64 * 1e6;
    println!(
        "{name:<40} {calls:>6} calls  {:>9.0} calls/s  {per_call:>8.1} µs/call",
        calls as f64 / elapsed.as_secs_f64()
    );
    per_call
}

async fn bare(url: &str, prefix: &str, parallel: usize) -> Duration {
    let client = redis::Client::open(url).unwrap();
    let script = redis::Script::new(include_str!("../../platform/src/billing/lua/reserve.lua"));
    let started = Instant::now();
    let tasks: Vec<_> = (0..parallel)
        .map(|t| {
            let client = client.clone();
            let script = script.clone();
            let keys: Vec<String> = ["balance", "res", "resexp", "res-cancelled"]
                .iter()
                .map(|k| format!("{prefix}:{{bare{t}}}:{k}"))
                .collect();
            tokio::spawn(async move {
                let mut conn = client.get_multiplexed_async_connection().await.unwrap();
                let _: () = redis::cmd("SET").arg(&keys[0]).arg(i64::MAX / 2).query_async(&mut conn).await.unwrap();
                for i in 0..CALLS / parallel {
                    let mut invocation = script.prepare_invoke();
                    for key in &keys {
                        invocation.key(key);
                    }
                    // `lua/reserve.lua`: the clock, then points, id and expiry.
                    let _: (i64, i64) =
                        invocation.arg(0).arg(1).arg(i).arg(i64::MAX).invoke_async(&mut conn).await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    started.elapsed()
}

/// `CALLS` rate-limit checks of a limit never reached, from `parallel`
/// tasks (an account each).
async fn rate_limit(limiter: Arc<dyn RateLimiter>, parallel: usize) -> Duration {
    let started = Instant::now();
    let tasks: Vec<_> = (0..parallel)
        .map(|t| {
            let limiter = limiter.clone();
            tokio::spawn(async move {
                for _ in 0..CALLS / parallel {
                    let verdict = limiter.check(&format!("bench{t}"), "key").await.unwrap();
                    assert!(verdict.is_some_and(|v| v.allowed));
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    started.elapsed()
}

async fn charged(channel: tonic::transport::Channel, parallel: usize) -> Duration {
    let started = Instant::now();
    let tasks: Vec<_> = (0..parallel)
        .map(|_| {
            let mut client = LifestyleServiceClient::new(channel.clone());
            tokio::spawn(async move {
                for _ in 0..CALLS / parallel {
                    let mut request = tonic::Request::new(SearchNoteRequest { keyword: "x".into(), page: 1 });
                    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
                    client.search_note(request).await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    started.elapsed()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let url = std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("mediaops-bench-{}", uuid::Uuid::new_v4().simple());
    let dir = tempfile::tempdir()?;
    let settings = CoreSettings {
        data_dir: dir.path().to_path_buf(),
        bootstrap_key: Some(KEY.into()),
        bootstrap_points: 1_000_000_000,
        ..CoreSettings::default()
    };
    let ledger: Arc<dyn Ledger> = Arc::new(RedisLedger::connect(&url, &prefix).await?);
    let core = Core::open_with_ledger(&settings, ledger.clone(), |registry| {
        registry.replace("mediaops.lifestyle.v1.LifestyleService.SearchNote", |_ctx, _req: SearchNoteRequest| async {
            Ok(SearchNoteResponse::default())
        })
    })
    .await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(core.serve(listener, std::future::pending()));
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?.connect().await?;
    charged(channel.clone(), 1).await; // warm up

    let bare_seq = report("bare EVALSHA reserve, sequential", CALLS, bare(&url, &prefix, 1).await);
    let charged_seq = report("charged gRPC call, sequential", CALLS, charged(channel.clone(), 1).await);
    let bare_par = report(&format!("bare EVALSHA reserve, {TASKS} tasks"), CALLS, bare(&url, &prefix, TASKS).await);
    let charged_par = report(&format!("charged gRPC call, {TASKS} tasks"), CALLS, charged(channel, TASKS).await);
    println!(
        "ratio charged/bare per call: sequential {:.1}×, {TASKS} tasks {:.1}×",
        charged_seq / bare_seq,
        charged_par / bare_par
    );
    let never = Limit::Quota(Quota { count: 1_000_000, period_secs: 1, burst: 1_000_000 });
    let gcra: Arc<dyn RateLimiter> = Arc::new(RedisLimiter::connect(&url, &prefix, never).await?);
    let local: Arc<dyn RateLimiter> = Arc::new(LocalLimiter::new(ledger, never));
    report("rate limit, Redis GCRA, sequential", CALLS, rate_limit(gcra.clone(), 1).await);
    report(&format!("rate limit, Redis GCRA, {TASKS} tasks"), CALLS, rate_limit(gcra, TASKS).await);
    // In process, over the Redis ledger here: the account's own limit is
    // one HMGET (a map lookup over the embedded ledger).
    report("rate limit, governor + HMGET, sequential", CALLS, rate_limit(local, 1).await);
    Ok(())
}
