//! a bounded, seeded fuzz run over every REST route of a
//! real `mediaops` process, on both store backends: wrong types, huge
//! strings, NUL and control characters, deep nesting, invalid UTF-8,
//! unknown fields, empty and non-JSON bodies, long paths, queries and
//! headers. It asserts: no 5xx but the documented 502/503 codes, no answer
//! slower than the client's timeout, no charge for any non-2xx answer (the
//! usage log and the ledger agree with the answers), another account's
//! calls beside it all succeed, and the process's memory stays bounded.
//! `MEDIAOPS_FUZZ_SEED` replays a run; the counts are printed.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::process::{Database, Process, Spawn, redis_prefix, redis_url};
use common::{ADMIN_TOKEN, KEY, with_token};
use mediaops::proto::mediaops::admin::v1::admin_service_client::AdminServiceClient;
use mediaops::proto::mediaops::admin::v1::{CreateKeyRequest, GetAccountBalanceRequest, ListUsageRequest};
use prost_reflect::{Kind, MessageDescriptor};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

/// 5xx answers the service documents (docs/errors.md): the rest are bugs.
const DOCUMENTED_5XX: [&str; 6] = [
    "upstream_unavailable",
    "maintenance",
    "not_implemented",
    "not_configured",
    "billing_unavailable",
    "store_unavailable",
];

/// Requests in flight at once.
const CONCURRENCY: usize = 8;

/// One generated request.
#[derive(Debug, Clone)]
struct Case {
    what: &'static str,
    method: reqwest::Method,
    path: String,
    content_type: Option<&'static str>,
    body: Option<Vec<u8>>,
    headers: Vec<(&'static str, Vec<u8>)>,
}

/// A bad value for a field of `kind`: a wrong type, or a bad string.
fn bad_value(rng: &mut StdRng, kind: &Kind, list: bool) -> (&'static str, Value) {
    let wrong_types = [json!(123), json!(true), json!({"a": 1}), json!(1e308), json!(-1), json!([1, "x", null])];
    let strings = [
        ("huge string", json!("a".repeat(100_000))),
        ("string at the limit", json!("é".repeat(1_000))),
        ("NUL", json!("a\u{0}b")),
        ("control characters", json!("\u{1}\u{1b}[31m\u{7f}")),
        ("tsquery syntax", json!("a & !b | c:* <-> 'd'")),
        ("SQL", json!("'; DROP TABLE works; --")),
        ("emoji and RTL", json!("🏕️\u{202e}露营")),
        ("blank", json!("   ")),
    ];
    match (kind, list) {
        (_, true) if rng.random_bool(0.3) => ("huge list", json!(vec!["x"; 20_000])),
        (Kind::String, _) if rng.random_bool(0.8) => {
            let (what, value) = strings.choose(rng).unwrap().clone();
            (what, if list { json!([value]) } else { value })
        }
        (Kind::Int32 | Kind::Int64 | Kind::Uint32 | Kind::Uint64 | Kind::Double | Kind::Float, _)
            if rng.random_bool(0.5) =>
        {
            (
                "extreme number",
                [json!(i64::MAX), json!(-1), json!(0), json!(1.5), json!(u64::MAX)].choose(rng).unwrap().clone(),
            )
        }
        _ => ("wrong type", wrong_types.choose(rng).unwrap().clone()),
    }
}

/// Deeply nested arrays, past any parser's recursion limit.
fn deep(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// The cases of one route: body-level junk, then bad values field by field.
fn route_cases(rng: &mut StdRng, method: &reqwest::Method, path: &str, input: &MessageDescriptor) -> Vec<Case> {
    let json = Some("application/json");
    let case = |what, path: String, content_type, body: Option<Vec<u8>>| Case {
        what,
        method: method.clone(),
        path,
        content_type,
        body,
        headers: Vec::new(),
    };
    let filled = fill_path(rng, path, false);
    let mut cases = vec![
        case("long path parameter", fill_path(rng, path, true), json, Some(b"{}".to_vec())),
        case("unknown query parameters", format!("{filled}?zzz=1&%zz=%FF&a={}", "q".repeat(10_000)), None, None),
    ];
    if *method == reqwest::Method::GET {
        for field in input.fields().take(6) {
            let (what, value) = bad_value(rng, &field.kind(), field.is_list());
            let text = value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
            let query: String =
                form_urlencoded::Serializer::new(String::new()).append_pair(field.json_name(), &text).finish();
            cases.push(case(what, format!("{filled}?{query}"), None, None));
        }
        return cases;
    }
    cases.extend([
        case("empty object", filled.clone(), json, Some(b"{}".to_vec())),
        case("empty body", filled.clone(), json, Some(Vec::new())),
        case("not JSON", filled.clone(), json, Some(b"not json {".to_vec())),
        case("JSON array", filled.clone(), json, Some(b"[1, 2]".to_vec())),
        case("invalid UTF-8", filled.clone(), json, Some(b"{\"keyword\": \"\xff\xfe\"}".to_vec())),
        case("deep nesting", filled.clone(), json, Some(format!("{{\"x\": {}}}", deep(5_000)).into_bytes())),
        case("unknown field", filled.clone(), json, Some(b"{\"zzz\": 1, \"\": null}".to_vec())),
        case("text/plain body", filled.clone(), Some("text/plain"), Some(b"{}".to_vec())),
        case("huge key", filled.clone(), json, Some(format!("{{\"{}\": 1}}", "k".repeat(100_000)).into_bytes())),
    ]);
    for field in input.fields().take(8) {
        for _ in 0..2 {
            let (what, value) = bad_value(rng, &field.kind(), field.is_list());
            let body = serde_json::to_vec(&json!({field.json_name(): value})).unwrap();
            cases.push(case(what, filled.clone(), json, Some(body)));
        }
    }
    cases
}

/// `path` with each `{param}` filled: a plain word, or (when `bad`) a
/// long, NUL or traversal segment.
fn fill_path(rng: &mut StdRng, path: &str, bad: bool) -> String {
    let mut out = String::new();
    for segment in path.split('/').skip(1) {
        out.push('/');
        if segment.starts_with('{') {
            let bad_segments = ["%00", "a%00b", "%FF%FE", "..%2F..%2Fetc", &"s".repeat(10_000), "%E9%9C%B2%E8%90%A5"];
            out.push_str(if bad { bad_segments.choose(rng).unwrap() } else { "fuzz" });
        } else {
            out.push_str(segment);
        }
    }
    out
}

/// Header-level junk, put on some cases.
fn bad_headers(rng: &mut StdRng) -> Vec<(&'static str, Vec<u8>)> {
    let choices: Vec<Vec<(&'static str, Vec<u8>)>> = vec![
        vec![("x-request-id", "r".repeat(10_000).into_bytes())],
        vec![("authorization", format!("Bearer {}", "k".repeat(10_000)).into_bytes())],
        vec![("authorization", "Bearer mk_ü_not_ascii_key_000".as_bytes().to_vec())],
        vec![("idempotency-key", "order-ü-42".as_bytes().to_vec())],
        vec![("idempotency-key", "i".repeat(300).into_bytes())],
        vec![("x-junk", "j".repeat(60_000).into_bytes())],
    ];
    choices.choose(rng).unwrap().clone()
}

fn all_cases(seed: u64) -> Vec<Case> {
    let mut rng = StdRng::seed_from_u64(seed);
    let routes = rest_gateway::routes::routes(mediaops::proto::descriptor_pool()).unwrap();
    let mut cases = Vec::new();
    for route in &routes {
        let method: reqwest::Method = route.method.as_str().parse().unwrap();
        cases.extend(route_cases(&mut rng, &method, &route.path, &route.input));
    }
    for case in &mut cases {
        if rng.random_bool(0.1) {
            case.headers = bad_headers(&mut rng);
        }
    }
    cases
}

/// What one answer was.
struct Answer {
    status: u16,
    request_id: Option<String>,
    code: Option<String>,
}

/// Sends one case: `Ok(None)` when the client cannot even build the
/// request (e.g. a URI over the `http` crate's 64 KiB), so it was not sent.
async fn send(http: &reqwest::Client, base: &str, n: usize, case: &Case) -> Result<Option<Answer>, String> {
    let mut request = http.request(case.method.clone(), format!("{base}{}", case.path)).bearer_auth(KEY);
    request = request.header("x-request-id", format!("fuzz-{n}"));
    if let Some(content_type) = case.content_type {
        request = request.header("content-type", content_type);
    }
    for (name, value) in &case.headers {
        request = request.header(*name, reqwest::header::HeaderValue::from_bytes(value).map_err(|e| e.to_string())?);
    }
    if let Some(body) = &case.body {
        request = request.body(body.clone());
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) if e.is_builder() => return Ok(None),
        Err(e) => return Err(format!("{} {} {}: {e}", case.what, case.method, shown(&case.path))),
    };
    let status = response.status().as_u16();
    let request_id = response.headers().get("x-request-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let code = body["error"]["code"].as_str().map(str::to_owned);
    Ok(Some(Answer { status, request_id, code }))
}

/// A path as a problem line shows it: the first 100 characters.
fn shown(path: &str) -> String {
    path.chars().take(100).collect()
}

/// Resident memory of `pid` in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

async fn fuzz(backend: &str, env: Vec<(&'static str, String)>) {
    let seed = std::env::var("MEDIAOPS_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(21);
    let data_dir = tempfile::tempdir().unwrap();
    let process = Process::spawn(data_dir.path(), Spawn { args: vec![], env });
    let base = process.rest().to_owned();
    let mut admin = AdminServiceClient::connect(process.grpc().to_owned()).await.unwrap();
    let honest_key = admin
        .create_key(with_token(
            CreateKeyRequest { account_id: "honest".into(), points: 100_000, ..Default::default() },
            ADMIN_TOKEN,
        ))
        .await
        .unwrap()
        .into_inner()
        .key;
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let cases = Arc::new(all_cases(seed));
    let rss_before = rss_kib(process.pid());

    // The honest account calls beside the fuzz run until it ends.
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let honest = {
        let (http, base, done) = (http.clone(), base.clone(), done.clone());
        tokio::spawn(async move {
            let mut statuses = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) && statuses.len() < 5_000 {
                let response = http
                    .post(format!("{base}/api/apis/tool/check-banned-words/call"))
                    .bearer_auth(&honest_key)
                    .json(&json!({"platform": "公众号", "content": "全网最低价"}))
                    .send()
                    .await;
                statuses.push(response.map(|r| r.status().as_u16()).unwrap_or(0));
            }
            statuses
        })
    };

    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..CONCURRENCY {
        let (http, base, cases, next) = (http.clone(), base.clone(), cases.clone(), next.clone());
        workers.spawn(async move {
            let mut answers = Vec::new();
            loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = cases.get(n) else { break };
                answers.push((n, send(&http, &base, n, case).await));
            }
            answers
        });
    }
    let mut answers = Vec::new();
    while let Some(batch) = workers.join_next().await {
        answers.extend(batch.unwrap());
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let honest = honest.await.unwrap();
    let rss_after = rss_kib(process.pid());

    // Counts by status, and every answer checked.
    let mut by_status: BTreeMap<u16, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut not_sent = 0;
    let mut status_of_request = std::collections::HashMap::new();
    for (n, answer) in &answers {
        match answer {
            Err(e) => problems.push(format!("#{n} no answer: {e}")),
            Ok(None) => not_sent += 1,
            Ok(Some(answer)) => {
                *by_status.entry(answer.status).or_default() += 1;
                let documented = answer.code.as_deref().is_some_and(|c| DOCUMENTED_5XX.contains(&c));
                if answer.status >= 500 && !(matches!(answer.status, 502 | 503) && documented) {
                    let case = &cases[*n];
                    problems.push(format!(
                        "#{n} {} {} {}: {} {:?}",
                        case.what,
                        case.method,
                        shown(&case.path),
                        answer.status,
                        answer.code
                    ));
                }
                if let Some(id) = &answer.request_id {
                    status_of_request.insert(id.clone(), answer.status);
                }
            }
        }
    }
    println!(
        "fuzz {backend} (seed {seed}): {} requests ({not_sent} the client could not build), by status {by_status:?}; {} honest calls beside; RSS {} → {} MiB",
        answers.len() - not_sent,
        honest.len(),
        rss_before / 1024,
        rss_after / 1024
    );
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(
        honest.iter().all(|s| *s == 200),
        "honest calls failed: {:?}",
        honest.iter().filter(|s| **s != 200).collect::<Vec<_>>()
    );

    // No charge for any non-2xx answer; the ledger agrees with the usage log.
    let usage = admin
        .list_usage(with_token(ListUsageRequest { account_id: "bootstrap".into(), limit: 10_000 }, ADMIN_TOKEN))
        .await
        .unwrap()
        .into_inner()
        .records;
    let mut charged = 0;
    for record in &usage {
        if record.points > 0 {
            let status = status_of_request.get(&record.request_id);
            assert!(status.is_some_and(|s| (200..300).contains(s)), "{record:?} charged for a {status:?} answer");
            charged += record.points;
        }
    }
    let balance = |account: &str| GetAccountBalanceRequest { account_id: account.into() };
    let left = admin.get_balance(with_token(balance("bootstrap"), ADMIN_TOKEN)).await.unwrap().into_inner().points;
    assert_eq!(common::BOOTSTRAP_POINTS - left, charged, "the ledger and the usage log disagree");
    let honest_left = admin.get_balance(with_token(balance("honest"), ADMIN_TOKEN)).await.unwrap().into_inner().points;
    assert_eq!(100_000 - honest_left, honest.len() as i64, "the honest account was not charged exactly per call");
    assert!(rss_after < rss_before + 512 * 1024, "RSS grew from {rss_before} to {rss_after} KiB");

    // The log stays bounded and keeps keys out (docs/errors.md "Limits of a request").
    let log = process.output();
    let longest = log.iter().map(String::len).max().unwrap_or(0);
    println!("fuzz {backend}: {} log lines, the longest {longest} bytes", log.len());
    assert!(longest <= mediaops::proto::logging::MAX_LINE_BYTES + 40, "a {longest} byte log line");
    assert!(!log.iter().any(|line| line.contains(KEY)), "an API key was logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fuzz_every_route_on_sqlite_with_the_embedded_ledger() {
    fuzz("sqlite", Vec::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fuzz_every_route_on_postgresql_with_redis() {
    let database = Database::create("fuzz");
    let env = vec![
        ("MEDIAOPS_DATABASE_URL", database.url.clone()),
        ("MEDIAOPS_REDIS_URL", redis_url()),
        ("MEDIAOPS_REDIS_PREFIX", redis_prefix("fuzz")),
    ];
    fuzz("postgresql", env).await;
}
