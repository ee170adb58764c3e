//! The 40 ms stall of mid-size answers. Answers of ~5–60 KB took ~44 ms
//! instead of ~2 ms when Nagle's algorithm on one side of the gateway↔core
//! connection met delayed ACKs on the other; every socket now sets
//! `TCP_NODELAY`. A latency regression test, allowed here because the
//! failure it guards against is a fixed 40 ms timer, not noise. It is
//! measured against a baseline in the same run: the same ~30 KB answer from
//! one process (`serve`, no gateway↔core hop) and from a split deployment (a
//! core and a gateway, separate processes over gRPC). The stall added 40 ms
//! to every call after the first, so the fastest of 20 split calls could
//! never come within 40 ms of the fastest one-process call; without it the
//! hop costs a few milliseconds even in the test's debug build (release:
//! 3–6 ms per call in all). The fastest call, not the median, is what a busy
//! machine cannot spoil.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::time::{Duration, Instant};

use common::KEY;
use common::process::{Process, Spawn};

/// The fastest of 20 calls of `GET /api/skills` at `rest` (after one to
/// warm up), all 20 times sorted, and the answer's size.
async fn fastest_of_twenty(rest: &str) -> (Duration, Vec<Duration>, usize) {
    let http = reqwest::Client::new();
    let url = format!("{rest}/api/skills");
    let call = || async {
        let started = Instant::now();
        let response = http.get(&url).bearer_auth(KEY).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let size = response.bytes().await.unwrap().len();
        (started.elapsed(), size)
    };
    let (_, size) = call().await;
    let mut times = Vec::new();
    for _ in 0..20 {
        times.push(call().await.0);
    }
    times.sort();
    (times[0], times, size)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thirty_kilobyte_answer_through_the_gateway_takes_no_40_ms_stall() {
    let (one_dir, core_dir, gateway_dir) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = Process::spawn(one_dir.path(), Spawn { args: vec!["serve"], env: vec![] });
    let (baseline, _, size) = fastest_of_twenty(one.rest()).await;
    assert!((15_000..=80_000).contains(&size), "GET /api/skills is a mid-size answer: {size} bytes");
    drop(one);
    let core = Process::spawn(core_dir.path(), Spawn { args: vec!["core"], env: vec![] });
    let gateway =
        Process::spawn(gateway_dir.path(), Spawn { args: vec!["gateway", "--core-addr", core.grpc()], env: vec![] });
    let (fastest, times, _) = fastest_of_twenty(gateway.rest()).await;
    let median = times[times.len() / 2];
    eprintln!(
        "GET /api/skills ({size} bytes): one process fastest {baseline:?}; through gateway and core fastest {fastest:?}, median {median:?}"
    );
    assert!(
        fastest < baseline + Duration::from_millis(25),
        "fastest split call {fastest:?} against {baseline:?} in one process: the 40 ms stall is back? {times:?}"
    );
}
