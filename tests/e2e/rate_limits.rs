//! docs/rate-limits.md on real `mediaops` processes: a key of an account limited
//! to 5/s with a burst of 5 gets its burst, then 429 `rate_limited` with
//! `Retry-After` and the IETF `RateLimit` headers; refused calls are neither
//! charged nor recorded; the key works again after the wait. Once on the
//! embedded default (limit set by `mediaops keys create --rate`, the
//! `governor` cells) and once on Redis (the Lua cells), where the admin RPCs
//! change the limit at run time and gRPC callers get RESOURCE_EXHAUSTED
//! with the same metadata. Nothing is mocked.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::time::{Duration, Instant};

use common::process::{Process, Spawn, cli, redis_prefix, redis_url};
use common::{ADMIN_TOKEN, with_token};
use mediaops::proto::grpc_error::error_object;
use mediaops::proto::mediaops::account::v1::GetBalanceRequest;
use mediaops::proto::mediaops::account::v1::account_service_client::AccountServiceClient;
use mediaops::proto::mediaops::admin::v1::admin_service_client::AdminServiceClient;
use mediaops::proto::mediaops::admin::v1::{GetRateLimitRequest, SetRateLimitRequest};
use serde_json::{Value, json};

/// A 1-point call.
const CHECK: &str = "/api/apis/tool/check-banned-words/call";

/// What one REST call answered.
struct Answer {
    status: u16,
    body: Value,
    headers: reqwest::header::HeaderMap,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

async fn check(http: &reqwest::Client, rest: &str, key: &str) -> Answer {
    let body = json!({"platform": "公众号", "content": "全网最低价"});
    let response = http.post(format!("{rest}{CHECK}")).bearer_auth(key).json(&body).send().await.unwrap();
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    Answer { status, headers, body: response.json().await.unwrap() }
}

/// The account's balance and usage records, read with the CLI (a
/// different account, free, not rate limited).
fn ledger_view(data_dir: &std::path::Path, env: &[(&str, String)], account: &str) -> (i64, usize) {
    let balance = cli(data_dir, env, &["points", "balance", "--account", account])["points"].as_i64().unwrap();
    let usage = cli(data_dir, env, &["usage", "--account", account, "--limit", "1000"]);
    (balance, usage["records"].as_array().unwrap().len())
}

/// Calls until the first 429 (5/s, burst 5); asserts the burst, the headers
/// of both answers, and returns how many calls passed and the 429.
async fn spend_the_burst(http: &reqwest::Client, rest: &str, key: &str) -> (usize, Answer) {
    let started = Instant::now();
    let first = check(http, rest, key).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.header("ratelimit-policy"), Some("\"default\";q=5;w=1"), "successes carry the policy");
    assert_eq!(first.header("ratelimit"), Some("\"default\";r=4;t=1"), "4 more at once; full again within 1 s");
    assert_eq!(first.header("retry-after"), None);
    let mut passed = 1;
    let refused = loop {
        let answer = check(http, rest, key).await;
        if answer.status != 200 {
            break answer;
        }
        passed += 1;
        assert!(passed <= 30, "no 429 after {passed} calls");
    };
    // GCRA: the burst, plus one call per 200 ms the loop took.
    let refilled = (started.elapsed().as_millis() / 200) as usize;
    assert!((5..=5 + refilled).contains(&passed), "{passed} calls passed in {:?}", started.elapsed());
    common::failure(refused.status, &refused.body, 429, "rate_limited");
    assert!(refused.body["error"]["message"].as_str().unwrap().contains("5/s with a burst of 5"), "{}", refused.body);
    assert_eq!(refused.header("retry-after"), Some("1"), "whole seconds, at least 1 (the wait is ≤ 200 ms)");
    assert_eq!(refused.header("ratelimit-policy"), Some("\"default\";q=5;w=1"));
    assert_eq!(refused.header("ratelimit"), Some("\"default\";r=0;t=1"));
    (passed, refused)
}

/// Waits the 429's `Retry-After` (1 s), then the key works again.
async fn works_after_the_wait(http: &reqwest::Client, rest: &str, key: &str, refused: &Answer) {
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    tokio::time::sleep(Duration::from_secs(wait)).await;
    let again = check(http, rest, key).await;
    assert_eq!(again.status, 200, "{}", again.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn embedded_a_limited_key_gets_its_burst_then_429_and_is_never_charged_for_it() {
    let data_dir = tempfile::tempdir().unwrap();
    let created = cli(
        data_dir.path(),
        &[],
        &["keys", "create", "--account", "team-rl", "--points", "100", "--rate", "5/s", "--burst", "5"],
    );
    assert_eq!(created["rateLimit"], json!({"rate": "5/s", "burst": 5, "source": "account"}));
    let key = created["key"].as_str().unwrap().to_owned();
    let process = tokio::task::block_in_place(|| Process::spawn(data_dir.path(), Spawn { args: vec![], env: vec![] }));
    let http = reqwest::Client::new();
    let (passed, refused) = spend_the_burst(&http, process.rest(), &key).await;
    // Refused calls are not charged and leave no usage record; the
    // embedded ledger is the server's, so read it through the admin RPC.
    let mut admin = admin(process.grpc()).await;
    let balance = admin
        .get_balance(with_token(
            mediaops::proto::mediaops::admin::v1::GetAccountBalanceRequest { account_id: "team-rl".into() },
            ADMIN_TOKEN,
        ))
        .await
        .unwrap()
        .into_inner()
        .points;
    assert_eq!(balance, 100 - passed as i64, "1 point per passed call, none for the 429");
    let usage = admin
        .list_usage(with_token(
            mediaops::proto::mediaops::admin::v1::ListUsageRequest { account_id: "team-rl".into(), limit: 100 },
            ADMIN_TOKEN,
        ))
        .await
        .unwrap()
        .into_inner()
        .records;
    assert_eq!(usage.len(), passed, "no usage record for a refused call: ledger == usage");
    assert!(usage.iter().all(|r| r.outcome == "ok" && r.points == 1));
    works_after_the_wait(&http, process.rest(), &key, &refused).await;
}

async fn admin(grpc: &str) -> AdminServiceClient<tonic::transport::Channel> {
    AdminServiceClient::connect(grpc.to_owned()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn redis_limits_hold_for_rest_and_grpc_and_change_at_run_time() {
    let data_dir = tempfile::tempdir().unwrap();
    let env = vec![("MEDIAOPS_REDIS_URL", redis_url()), ("MEDIAOPS_REDIS_PREFIX", redis_prefix("rate_limits"))];
    let process =
        tokio::task::block_in_place(|| Process::spawn(data_dir.path(), Spawn { args: vec![], env: env.clone() }));
    let created = cli(
        data_dir.path(),
        &env,
        &["keys", "create", "--account", "team-rl", "--points", "100", "--rate", "5/s", "--burst", "5"],
    );
    let key = created["key"].as_str().unwrap().to_owned();
    let http = reqwest::Client::new();

    let (passed, refused) = spend_the_burst(&http, process.rest(), &key).await;
    assert_eq!(ledger_view(data_dir.path(), &env, "team-rl"), (100 - passed as i64, passed), "ledger == usage");
    works_after_the_wait(&http, process.rest(), &key, &refused).await;

    // gRPC callers meet the same limit: RESOURCE_EXHAUSTED, the error
    // object in the details, the fields as metadata.
    let mut admin = admin(process.grpc()).await;
    let set = |rate: &str, burst: u32| {
        with_token(SetRateLimitRequest { account_id: "team-rl".into(), rate: rate.into(), burst }, ADMIN_TOKEN)
    };
    let limit = admin.set_rate_limit(set("2/m", 2)).await.unwrap().into_inner();
    assert_eq!((limit.rate.as_str(), limit.burst, limit.source.as_str()), ("2/m", 2, "account"));
    let mut account = AccountServiceClient::connect(process.grpc().to_owned()).await.unwrap();
    // A changed limit starts with full cells; T = 30 s.
    for expected in ["\"default\";r=1;t=30", "\"default\";r=0;t=60"] {
        let answer = account.get_balance(with_token(GetBalanceRequest {}, &key)).await.unwrap();
        assert_eq!(answer.metadata().get("ratelimit").unwrap(), expected);
    }
    let status = account.get_balance(with_token(GetBalanceRequest {}, &key)).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted);
    assert_eq!(error_object(&status).unwrap().code, "rate_limited");
    let retry: u64 = status.metadata().get("retry-after").unwrap().to_str().unwrap().parse().unwrap();
    assert!((29..=30).contains(&retry), "one call per 30 s: {retry}");
    use tonic_types::StatusExt;
    let delay = status.get_error_details().retry_info().and_then(|info| info.retry_delay);
    assert_eq!(delay, Some(Duration::from_secs(retry)), "google.rpc.RetryInfo says the same as Retry-After");
    assert_eq!(status.metadata().get("ratelimit-policy").unwrap(), "\"default\";q=2;w=60");

    // Off for this account: calls pass without the fields; the empty rate
    // returns it to the default (off unless configured).
    admin.set_rate_limit(set("off", 0)).await.unwrap();
    let answer = account.get_balance(with_token(GetBalanceRequest {}, &key)).await.unwrap();
    assert!(answer.metadata().get("ratelimit").is_none());
    let back = admin.set_rate_limit(set("", 0)).await.unwrap().into_inner();
    assert_eq!((back.rate.as_str(), back.source.as_str()), ("off", "default"));
    let bad = admin.set_rate_limit(set("20 per second", 0)).await.unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    assert_eq!(error_object(&bad).unwrap().field.as_deref(), Some("rate"));
    let unknown = admin
        .get_rate_limit(with_token(GetRateLimitRequest { account_id: "nobody".into() }, ADMIN_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
}
