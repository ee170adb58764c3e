//! docs/errors.md "Limits of a request" and docs/billing.md on real processes: long invalid values never
//! hurt another account's calls, a failed call is never charged, a bad
//! `Idempotency-Key` is refused, and a caller that goes away frees its
//! points at once. The ledger is the machine's Redis (a prefix of the
//! test's own); nothing is mocked.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::time::{Duration, Instant};

use common::process::{Process, Spawn, cli, redis_prefix, redis_url};
use common::{ADMIN_TOKEN, KEY};
use serde_json::{Value, json};

/// Points of the honest account.
const HONEST_POINTS: i64 = 100_000;

/// The split deployment (a core and a gateway process, so every call
/// crosses a real HTTP/2 connection) or the one-process `serve`.
enum Layout {
    Split,
    OneProcess,
}

struct Deployment {
    _processes: Vec<Process>,
    rest: String,
    grpc: String,
    env: Vec<(&'static str, String)>,
    data_dir: tempfile::TempDir,
}

fn deploy(layout: Layout, test: &str) -> Deployment {
    let data_dir = tempfile::tempdir().unwrap();
    let env = vec![("MEDIAOPS_REDIS_URL", redis_url()), ("MEDIAOPS_REDIS_PREFIX", redis_prefix(test))];
    let processes = match layout {
        Layout::OneProcess => vec![Process::spawn(data_dir.path(), Spawn { args: vec![], env: env.clone() })],
        Layout::Split => {
            let core = Process::spawn(data_dir.path(), Spawn { args: vec!["core"], env: env.clone() });
            let core_addr = core.grpc().to_owned();
            let gateway = Process::spawn(
                data_dir.path(),
                Spawn { args: vec!["gateway", "--core-addr", &core_addr], env: env.clone() },
            );
            vec![core, gateway]
        }
    };
    let rest = processes.iter().find_map(|p| p.rest.clone()).unwrap();
    let grpc = processes.iter().find_map(|p| p.grpc.clone()).unwrap();
    Deployment { _processes: processes, rest, grpc, env, data_dir }
}

impl Deployment {
    /// A new account with `points`; returns its key.
    fn account(&self, account: &str, points: i64) -> String {
        let created = cli(
            self.data_dir.path(),
            &self.env,
            &["keys", "create", "--account", account, "--points", &points.to_string()],
        );
        created["key"].as_str().unwrap().to_owned()
    }

    fn balance(&self, account: &str) -> i64 {
        cli(self.data_dir.path(), &self.env, &["points", "balance", "--account", account])["points"].as_i64().unwrap()
    }

    /// The account's usage records (newest first).
    fn usage(&self, account: &str) -> Vec<Value> {
        let usage = cli(self.data_dir.path(), &self.env, &["usage", "--account", account, "--limit", "100000"]);
        usage["records"].as_array().unwrap().clone()
    }
}

async fn post(http: &reqwest::Client, url: String, key: &str, body: &Value) -> (u16, Value) {
    let response = http.post(url).bearer_auth(key).json(body).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Bodies with one long invalid value each, on the fields the issue saw
/// break the connection: over the gateway's limit (100,000 characters) and
/// exactly at it (1,000 characters, so the core sees it and answers).
fn attacks() -> Vec<(&'static str, Value)> {
    let mut bodies = Vec::new();
    for long in ["a".repeat(100_000), "é".repeat(1_000)] {
        let long = json!(long);
        bodies.extend([
            ("tool/check-banned-words", json!({"platform": long, "content": "x"})),
            ("trend/hot-keywords", json!({"startDate": long, "endDate": long})),
            ("shortvideo/douyin-rise-fans-rank", json!({"period": long, "rankDate": long})),
            ("shortvideo/shortvideo-sync-notes", json!({"accountId": long})),
            ("articles/category-time-hot", json!({"category": long})),
        ]);
    }
    bodies
}

async fn collateral(layout: Layout, test: &str) {
    let deployment = deploy(layout, test);
    let honest_key = deployment.account("honest", HONEST_POINTS);
    let http = reqwest::Client::new();
    let started = Instant::now();

    // 8 honest workers, 40 calls each, beside 4 attackers sending every
    // attack body 5 times.
    let mut honest = Vec::new();
    for worker in 0..8 {
        let (http, rest, key) = (http.clone(), deployment.rest.clone(), honest_key.clone());
        honest.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            for i in 0..40 {
                let body = json!({"platform": "公众号", "content": format!("全网最低价 {worker}-{i}")});
                let url = format!("{rest}/api/apis/tool/check-banned-words/call");
                statuses.push(post(&http, url, &key, &body).await.0);
            }
            statuses
        }));
    }
    let mut attackers = Vec::new();
    for _ in 0..4 {
        let (http, rest) = (http.clone(), deployment.rest.clone());
        attackers.push(tokio::spawn(async move {
            let mut answers = Vec::new();
            for _ in 0..5 {
                for (path, body) in attacks() {
                    let (status, envelope) = post(&http, format!("{rest}/api/apis/{path}/call"), KEY, &body).await;
                    answers.push((path, status, envelope));
                }
            }
            answers
        }));
    }
    let mut honest_statuses = Vec::new();
    for worker in honest {
        honest_statuses.extend(worker.await.unwrap());
    }
    let mut attack_answers = Vec::new();
    for attacker in attackers {
        attack_answers.extend(attacker.await.unwrap());
    }
    let elapsed = started.elapsed();

    // Every figure first (the note compares them before and after the fix),
    // then the assertions.
    let ok = honest_statuses.iter().filter(|s| **s == 200).count();
    let mut failed: std::collections::BTreeMap<u16, usize> = std::collections::BTreeMap::new();
    for status in honest_statuses.iter().filter(|s| **s != 200) {
        *failed.entry(*status).or_default() += 1;
    }
    let charged = HONEST_POINTS - deployment.balance("honest");
    let usage = deployment.usage("honest");
    let usage_points: i64 = usage.iter().map(|r| r["points"].as_i64().unwrap()).sum();
    let usage_ok = usage.iter().filter(|r| r["outcome"] == "ok").count();
    let mut attack_statuses: std::collections::BTreeMap<u16, usize> = std::collections::BTreeMap::new();
    for (_, status, _) in &attack_answers {
        *attack_statuses.entry(*status).or_default() += 1;
    }
    println!(
        "{test}: {} honest calls: {ok} answered 200, failed by status {failed:?}; {} attack requests by status \
         {attack_statuses:?}; ledger charged {charged}, usage log {usage_points} points over {usage_ok} ok records; \
         {elapsed:?}",
        honest_statuses.len(),
        attack_answers.len()
    );
    assert!(failed.is_empty(), "honest calls failed: {failed:?}");
    for (path, status, envelope) in &attack_answers {
        assert_eq!(*status, 400, "{path}: {envelope}");
        let message = envelope["error"]["message"].as_str().unwrap();
        assert!(message.chars().count() <= 600, "{path}: a {} character message", message.chars().count());
        assert!(envelope["error"]["field"].is_string(), "{path}: no field named: {envelope}");
    }

    // The ledger, the usage log and the answers agree.
    assert_eq!(charged, ok as i64, "check-banned-words costs 1 point per successful call");
    assert_eq!(usage_points, charged);
    assert_eq!(usage_ok, ok);
    assert_eq!(deployment.balance("bootstrap"), common::BOOTSTRAP_POINTS, "the attacker's failed calls were charged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn long_invalid_values_never_hurt_other_calls_on_a_split_deployment() {
    collateral(Layout::Split, "collateral_split").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn long_invalid_values_never_hurt_other_calls_in_one_process() {
    collateral(Layout::OneProcess, "collateral_one").await;
}

#[tokio::test]
async fn grpc_callers_meet_the_same_limits_and_a_short_message() {
    use mediaops::proto::mediaops::tool::v1::{CheckBannedWordsRequest, tool_service_client::ToolServiceClient};
    let deployment = deploy(Layout::Split, "grpc_limits");
    let mut client = ToolServiceClient::connect(deployment.grpc.clone()).await.unwrap();
    let request = CheckBannedWordsRequest { platform: "a".repeat(100_000), content: "x".into() };
    let status = client.check_banned_words(common::with_token(request, KEY)).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(status.message().len() < 700, "a {} byte grpc-message", status.message().len());
    assert!(status.message().contains("`platform`"), "{}", status.message());
    // The connection still serves.
    let request = CheckBannedWordsRequest { platform: "公众号".into(), content: "x".into() };
    client.check_banned_words(common::with_token(request, KEY)).await.unwrap();
    let _ = ADMIN_TOKEN;
}

#[tokio::test]
async fn an_idempotency_key_outside_the_rule_is_refused_naming_the_header() {
    let deployment = deploy(Layout::OneProcess, "idempotency_header");
    let http = reqwest::Client::new();
    let url = format!("{}/api/apis/tool/check-banned-words/call", deployment.rest);
    let body = json!({"platform": "公众号", "content": "全网最低价"});
    let bad: [&[u8]; 4] = ["order-ü-42".as_bytes(), b"with space", b"", &[b'k'; 256]];
    for key in bad {
        for _ in 0..2 {
            let response = http
                .post(&url)
                .bearer_auth(KEY)
                .header("Idempotency-Key", reqwest::header::HeaderValue::from_bytes(key).unwrap())
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 400, "{:?}", String::from_utf8_lossy(key));
            let envelope: Value = response.json().await.unwrap();
            assert_eq!(envelope["error"]["field"], "Idempotency-Key");
        }
    }
    assert_eq!(deployment.balance("bootstrap"), common::BOOTSTRAP_POINTS, "a refused call was charged");
    // A good key still runs once and is charged once.
    for _ in 0..2 {
        let response =
            http.post(&url).bearer_auth(KEY).header("Idempotency-Key", "order-42").json(&body).send().await.unwrap();
        assert_eq!(response.status(), 200);
    }
    assert_eq!(deployment.balance("bootstrap"), common::BOOTSTRAP_POINTS - 1);
}

#[tokio::test]
async fn a_caller_that_goes_away_frees_its_points_at_once() {
    // A slow upstream: the images API answers after 30 s.
    let slow = common::process::slow_upstream(Duration::from_secs(30));
    let data_dir = tempfile::tempdir().unwrap();
    let env = vec![
        ("MEDIAOPS_REDIS_URL", redis_url()),
        ("MEDIAOPS_REDIS_PREFIX", redis_prefix("disconnect")),
        ("MEDIAOPS_IMAGES__BASE_URL", slow),
        ("MEDIAOPS_IMAGES__API_KEY", "sk-test".to_owned()),
    ];
    let process = Process::spawn(data_dir.path(), Spawn { args: vec![], env: env.clone() });
    let deployment = Deployment {
        rest: process.rest().to_owned(),
        grpc: process.grpc().to_owned(),
        _processes: vec![process],
        env,
        data_dir,
    };
    let url = format!("{}/api/skills/image-gen/invoke", deployment.rest);
    let call = reqwest::Client::new().post(url).bearer_auth(KEY).json(&json!({"prompt": "露营"})).send();
    // Go away after 1 s, while the reservation is held.
    assert!(tokio::time::timeout(Duration::from_secs(1), call).await.is_err(), "the call was not slow");
    let held = deployment.balance("bootstrap");
    assert!(held < common::BOOTSTRAP_POINTS, "nothing was reserved ({held})");
    // Released well before the reservation's 120 s time to live.
    let deadline = Instant::now() + Duration::from_secs(5);
    while deployment.balance("bootstrap") != common::BOOTSTRAP_POINTS {
        assert!(Instant::now() < deadline, "the hold of a call whose caller went away was not released");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let usage = deployment.usage("bootstrap");
    assert_eq!(usage[0]["outcome"], "cancelled", "{usage:?}");
    assert_eq!(usage[0]["points"], 0);
}
