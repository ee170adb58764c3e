//! Replicas on one host sharing their ports (`MEDIAOPS_REUSE_PORT`,
//! docs/performance.md "Replicas on one port"): two `mediaops serve`
//! processes on the machine's PostgreSQL and Redis, bound to the same REST
//! and gRPC ports; the kernel spreads new connections between them, a
//! process started on the port without the setting is refused, and when one
//! replica goes the other keeps answering on the port.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::process::{Database, Process, Spawn, binary, redis_prefix, redis_url};

/// `GET /api/account/balance` on a connection of its own (a new client per
/// call), with `request_id`: the HTTP status.
async fn balance_on_a_new_connection(base: &str, request_id: &str) -> u16 {
    let http = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let response = http
        .get(format!("{base}/api/account/balance"))
        .bearer_auth(common::KEY)
        .header("x-request-id", request_id)
        .send()
        .await
        .unwrap();
    response.status().as_u16()
}

/// How many of `ids` each process logged, waiting up to 10 s until every
/// id is found (the log lines are written in batches).
fn logged_by(processes: [&Process; 2], ids: &[String]) -> [usize; 2] {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let counts = processes.map(|process| {
            let log = process.log();
            ids.iter().filter(|id| log.iter().any(|line| line.contains(id.as_str()))).count()
        });
        if counts.iter().sum::<usize>() >= ids.len() || Instant::now() > deadline {
            return counts;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_one_port_and_either_answers() {
    let database = Database::create("shared_port");
    let env = vec![
        ("MEDIAOPS_DATABASE_URL", database.url.clone()),
        ("MEDIAOPS_REDIS_URL", redis_url()),
        ("MEDIAOPS_REDIS_PREFIX", redis_prefix("shared-port")),
        ("MEDIAOPS_REUSE_PORT", "true".to_owned()),
        ("MEDIAOPS_SHUTDOWN_NOTICE_SECS", "0".to_owned()),
    ];
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let first = Process::spawn(dirs[0].path(), Spawn { args: vec!["serve"], env: env.clone() });
    let (rest, grpc) = (first.rest().to_owned(), first.grpc().to_owned());
    let (rest_addr, grpc_addr) = (rest.trim_start_matches("http://"), grpc.trim_start_matches("http://"));
    let mut same_ports = env.clone();
    same_ports.extend([("MEDIAOPS_REST_ADDR", rest_addr.to_owned()), ("MEDIAOPS_GRPC_ADDR", grpc_addr.to_owned())]);
    let second = Process::spawn(dirs[1].path(), Spawn { args: vec!["serve"], env: same_ports.clone() });
    assert_eq!((second.rest(), second.grpc()), (rest.as_str(), grpc.as_str()), "both listen on the same ports");

    // New connections go to either process.
    let ids: Vec<String> = (0..40).map(|i| format!("shared-port-{i}-{}", std::process::id())).collect();
    for id in &ids {
        assert_eq!(balance_on_a_new_connection(&rest, id).await, 200);
    }
    let [by_first, by_second] = logged_by([&first, &second], &ids);
    assert_eq!(by_first + by_second, ids.len(), "each call was answered once: {by_first} + {by_second}");
    assert!(by_first > 0 && by_second > 0, "the kernel spread the connections: {by_first} and {by_second}");

    // Without the setting, the port stays the replicas' own.
    let mut alone: Vec<(&str, String)> =
        same_ports.into_iter().filter(|(name, _)| *name != "MEDIAOPS_REUSE_PORT").collect();
    alone.push(("MEDIAOPS_DATA_DIR", dirs[2].path().display().to_string()));
    let refused = Command::new(binary())
        .arg("serve")
        .envs(alone)
        .env("MEDIAOPS_BOOTSTRAP_KEY", common::KEY)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "a process without MEDIAOPS_REUSE_PORT does not start: {stderr}");
    assert!(stderr.contains("cannot listen on MEDIAOPS_"), "{stderr}");

    // One replica goes: the port keeps answering.
    first.signal("KILL");
    let mut first = first;
    assert!(first.wait_exit(Duration::from_secs(10)).is_some());
    for i in 0..10 {
        assert_eq!(balance_on_a_new_connection(&rest, &format!("after-{i}")).await, 200);
    }
}
