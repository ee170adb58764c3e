//! A `mediaops serve` whose Redis is reached over its Unix socket
//! (`MEDIAOPS_REDIS_URL=unix:///path/redis.sock`, README "Configuration",
//! docs/performance.md "Redis over its Unix socket"): charged calls are
//! charged once, the ledger's keys are in that Redis, and the server's
//! connections to it are the socket's.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::own_redis::OwnRedis;
use common::process::{Process, Spawn, balance, charged_since, redis_prefix};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_over_a_unix_socket_charges_once_in_that_redis() {
    let redis = OwnRedis::start();
    let prefix = redis_prefix("socket");
    let dir = tempfile::tempdir().unwrap();
    let env = vec![("MEDIAOPS_REDIS_URL", redis.socket_url()), ("MEDIAOPS_REDIS_PREFIX", prefix.clone())];
    let process = Process::spawn(dir.path(), Spawn { args: vec!["serve"], env });
    let base = process.rest().to_owned();
    let http = reqwest::Client::new();
    let before = balance(&http, &base).await;

    const CALLS: i64 = 6;
    for _ in 0..CALLS {
        let response = http
            .post(format!("{base}/api/apis/tool/check-banned-words/call"))
            .bearer_auth(common::KEY)
            .json(&json!({"platform": "抖音", "content": "全网最好的产品"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    // The check costs 1 point (spec 4.6).
    assert_eq!(charged_since(&http, &base, before, CALLS).await, CALLS, "every call charged once");

    // Read over the server's TCP port, which only this test uses.
    let mut tcp = redis::Client::open(redis.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{prefix}*")).query_async(&mut tcp).await.unwrap();
    assert!(!keys.is_empty(), "the ledger's keys are in the socket's Redis");
    let clients: String = redis::cmd("CLIENT").arg("LIST").query_async(&mut tcp).await.unwrap();
    let socket = redis.socket();
    let over_socket = clients.lines().filter(|line| line.contains(&format!("laddr={}", socket.display()))).count();
    assert!(over_socket >= 1, "the server's connections are the socket's: {clients}");
}
