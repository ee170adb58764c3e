//! A `mediaops serve` whose two workers are shards (`MEDIAOPS_RUNTIME=shards`,
//! docs/performance.md "Shards: a current-thread runtime per worker") on the
//! machine's Redis: calls on many connections are served by both shards'
//! threads, each charged exactly once, and on SIGTERM the process drains,
//! exits 0 and has written every call's log line, the other shard's too.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::time::Duration;

use common::process::{Process, Spawn, balance, charged_since, redis_prefix, redis_url};
use serde_json::json;

/// Clients, each on a connection of its own, and calls per client.
const CLIENTS: usize = 8;
const CALLS_PER_CLIENT: usize = 10;

/// The time on a CPU (ns, from `/proc/<pid>/task/*/schedstat`) of each
/// thread of `pid` named `name` (a shard's thread is `shard-<n>`).
fn cpu_ns_of_threads(pid: u32, name: &str) -> Vec<u64> {
    let mut cpu_ns = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let dir = task.unwrap().path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim() != name {
            continue;
        }
        let schedstat = std::fs::read_to_string(dir.join("schedstat")).unwrap();
        cpu_ns.push(schedstat.split_whitespace().next().unwrap().parse().unwrap());
    }
    cpu_ns
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_shards_serve_charge_once_and_drain() {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![
        ("MEDIAOPS_REDIS_URL", redis_url()),
        ("MEDIAOPS_REDIS_PREFIX", redis_prefix("shards")),
        ("MEDIAOPS_RUNTIME", "shards".to_owned()),
        ("MEDIAOPS_WORKER_THREADS", "2".to_owned()),
        ("MEDIAOPS_SHUTDOWN_NOTICE_SECS", "0".to_owned()),
    ];
    let mut process = Process::spawn(dir.path(), Spawn { args: vec!["serve"], env });
    let base = process.rest().to_owned();
    let idle = cpu_ns_of_threads(process.pid(), "shard-1");
    assert_eq!(idle.len(), 1, "one more shard, on its thread");
    let before = balance(&reqwest::Client::new(), &base).await;

    let mut clients = Vec::new();
    for client in 0..CLIENTS {
        let base = base.clone();
        clients.push(tokio::spawn(async move {
            // A client of its own: a connection of its own, dealt to a shard.
            let http = reqwest::Client::new();
            for call in 0..CALLS_PER_CLIENT {
                let response = http
                    .post(format!("{base}/api/apis/tool/check-banned-words/call"))
                    .bearer_auth(common::KEY)
                    .header("x-request-id", format!("shards-{client}-{call}"))
                    .json(&json!({"platform": "抖音", "content": "全网最好的产品"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 200);
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    let calls = i64::try_from(CLIENTS * CALLS_PER_CLIENT).unwrap();
    // The check costs 1 point (spec 4.6).
    let charged = charged_since(&reqwest::Client::new(), &base, before, calls).await;
    assert_eq!(charged, calls, "every call charged once");
    // Half the connections were dealt to the second shard: its thread ran
    // their calls (a millisecond is less than one call's work in a debug
    // build; an idle shard's thread stays parked).
    let busy = cpu_ns_of_threads(process.pid(), "shard-1");
    assert!(busy[0] >= idle[0] + 1_000_000, "the second shard's thread served calls: {idle:?} → {busy:?} ns");

    process.signal("TERM");
    let status = process.wait_exit(Duration::from_secs(30)).expect("the process stops");
    assert!(status.success(), "{status:?}: {:#?}", process.log());
    let log = process.log();
    for client in 0..CLIENTS {
        for call in 0..CALLS_PER_CLIENT {
            let id = format!("request_id=\"shards-{client}-{call}\"");
            assert!(
                log.iter().any(|line| line.contains(": ok ") && line.contains(&id)),
                "the ok line of call {client}-{call} was written before the exit"
            );
        }
    }
}
