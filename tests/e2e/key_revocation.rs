//! each core caches the API keys it has seen, and a key
//! disabled anywhere stops working on every replica within 1 s
//! (docs/billing.md "Key cache"). Two `mediaops serve` processes on the
//! machine's Redis, one shared ledger; the key is disabled with the CLI,
//! a third process, as an operator would.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::time::{Duration, Instant};

use common::process::{Process, Spawn, cli, redis_prefix, redis_url};

/// `GET /api/account/balance` with `key` on `base`: the HTTP status.
async fn balance_status(http: &reqwest::Client, base: &str, key: &str) -> u16 {
    let response = http.get(format!("{base}/api/account/balance")).bearer_auth(key).send().await.unwrap();
    response.status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_key_stops_working_on_every_replica_within_one_second() {
    let env = vec![("MEDIAOPS_REDIS_URL", redis_url()), ("MEDIAOPS_REDIS_PREFIX", redis_prefix("revocation"))];
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let replicas: Vec<Process> = dirs[..2]
        .iter()
        .map(|dir| Process::spawn(dir.path(), Spawn { args: vec!["serve"], env: env.clone() }))
        .collect();
    let created = cli(dirs[2].path(), &env, &["keys", "create", "--account", "acct_revoked", "--points", "10"]);
    let (key, key_id) = (created["key"].as_str().unwrap(), created["keyId"].as_str().unwrap());
    let http = reqwest::Client::new();

    // Every replica has seen (and cached) the key, and it works there.
    for replica in &replicas {
        for _ in 0..5 {
            assert_eq!(balance_status(&http, replica.rest(), key).await, 200);
        }
    }
    cli(dirs[2].path(), &env, &["keys", "disable", key_id]);
    let disabled_at = Instant::now();
    for (i, replica) in replicas.iter().enumerate() {
        loop {
            let status = balance_status(&http, replica.rest(), key).await;
            if status == 401 {
                break;
            }
            assert_eq!(status, 200, "replica {i}: the key works until it is refused");
            assert!(disabled_at.elapsed() < Duration::from_secs(1), "replica {i} still accepts the key after 1 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        eprintln!("replica {i}: refused {} ms after the key was disabled", disabled_at.elapsed().as_millis());
    }
    // And it stays refused (nothing re-caches a disabled key).
    for replica in &replicas {
        assert_eq!(balance_status(&http, replica.rest(), key).await, 401);
    }
}
