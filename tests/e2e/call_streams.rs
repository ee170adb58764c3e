//! A gateway whose calls go as messages on call streams
//! (`MEDIAOPS_CORE_TRANSPORT=stream`, docs/performance.md "Calls as
//! messages on a stream"), on real processes: it answers what a unary
//! gateway answers (successes, the core's errors with their headers,
//! idempotent replays, the charges); its streams stay open past the body
//! read deadline; and a core that stops ends its streams when its notice is
//! over instead of holding them for its grace period.
//! The hang-up billing load over call streams is in `billing_hangups`.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::time::{Duration, Instant};

use common::KEY;
use common::process::{Process, Spawn, balance, cli, redis_prefix, redis_url};
use serde_json::{Value, json};

const CHECK: &str = "/api/apis/tool/check-banned-words/call";

/// An answer as a client compares it: the status, the headers a client
/// acts on, and the body without its request ids.
#[derive(Debug, PartialEq)]
struct Seen {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
}

/// Headers that must agree between the two transports.
const COMPARED_HEADERS: [&str; 5] =
    ["content-type", "retry-after", "ratelimit-policy", "ratelimit", "idempotent-replayed"];

fn without_request_ids(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("requestId");
            map.values_mut().for_each(without_request_ids);
        }
        Value::Array(items) => items.iter_mut().for_each(without_request_ids),
        _ => {}
    }
}

async fn post(http: &reqwest::Client, base: &str, key: &str, body: &Value, idempotency: Option<&str>) -> Seen {
    let mut request = http.post(format!("{base}{CHECK}")).bearer_auth(key).json(body);
    if let Some(idempotency) = idempotency {
        request = request.header("Idempotency-Key", idempotency);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = COMPARED_HEADERS
        .iter()
        .filter_map(|name| response.headers().get(*name).map(|v| ((*name).to_owned(), v.to_str().unwrap().to_owned())))
        .collect();
    let mut body: Value = response.json().await.unwrap();
    without_request_ids(&mut body);
    Seen { status, headers, body }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_on_call_streams_answers_as_a_unary_gateway_does() {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![("MEDIAOPS_REDIS_URL", redis_url()), ("MEDIAOPS_REDIS_PREFIX", redis_prefix("call_streams_same"))];
    let core = Process::spawn(dir.path(), Spawn { args: vec!["core"], env: env.clone() });
    let gateway = |transport: &str| {
        let mut env = env.clone();
        env.push(("MEDIAOPS_CORE_TRANSPORT", transport.to_owned()));
        Process::spawn(dir.path(), Spawn { args: vec!["gateway", "--core-addr", core.grpc()], env })
    };
    let (unary, streams) = (gateway("unary"), gateway("stream"));
    let (unary, streams) = (unary.rest().to_owned(), streams.rest().to_owned());
    let http = reqwest::Client::new();
    let poor = cli(dir.path(), &env, &["keys", "create", "--account", "poor", "--points", "0"])["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let check = json!({"platform": "抖音", "content": "全网最好的产品"});
    let cases: [(&str, &str, Value); 4] = [
        ("a charged success", KEY, check.clone()),
        ("a request the core refuses (a required field missing)", KEY, json!({"platform": "抖音"})),
        ("an unknown key", "mk_no_such_key_0000000000000001", check.clone()),
        ("a balance too short", &poor, check.clone()),
    ];
    for (case, key, body) in &cases {
        let before = balance(&http, &unary).await;
        let by_unary = post(&http, &unary, key, body, None).await;
        let after_unary = balance(&http, &unary).await;
        let by_streams = post(&http, &streams, key, body, None).await;
        let after_streams = balance(&http, &unary).await;
        assert_eq!(by_streams, by_unary, "{case}: the two gateways answer alike");
        assert_eq!(before - after_unary, after_unary - after_streams, "{case}: the two gateways charge alike");
    }
    // A replay under an Idempotency-Key answers the stored answer, uncharged.
    let before = balance(&http, &unary).await;
    let first = post(&http, &streams, KEY, &check, Some("call-streams-replay-1")).await;
    let replay = post(&http, &streams, KEY, &check, Some("call-streams-replay-1")).await;
    assert_eq!(first.status, 200);
    assert_eq!(replay.body, first.body, "the replay is the stored answer");
    assert!(replay.headers.iter().any(|(name, _)| name == "idempotent-replayed"), "{replay:?}");
    let charged = common::process::charged_since(&http, &unary, before, 1).await;
    assert_eq!(charged, 1, "the call and its replay cost one call's price");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_core_ends_its_call_streams_when_its_notice_is_over() {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![
        ("MEDIAOPS_REDIS_URL", redis_url()),
        ("MEDIAOPS_REDIS_PREFIX", redis_prefix("call_streams_stop")),
        ("MEDIAOPS_SHUTDOWN_NOTICE_SECS", "1".to_owned()),
        ("MEDIAOPS_SHUTDOWN_GRACE_SECS", "30".to_owned()),
        // No renewal of the streams while the test runs: only the core's
        // goaway can end them.
        ("MEDIAOPS_CORE_REFRESH_SECS", "3600".to_owned()),
        ("MEDIAOPS_CORE_TRANSPORT", "stream".to_owned()),
        // Shorter than the pause below: a call stream has no body deadline.
        ("MEDIAOPS_BODY_READ_TIMEOUT_SECS", "1".to_owned()),
    ];
    let mut core = Process::spawn(dir.path(), Spawn { args: vec!["core"], env: env.clone() });
    let gateway = Process::spawn(dir.path(), Spawn { args: vec!["gateway", "--core-addr", core.grpc()], env });
    let http = reqwest::Client::new();
    let check = json!({"platform": "抖音", "content": "全网最好的产品"});
    assert_eq!(post(&http, gateway.rest(), KEY, &check, None).await.status, 200, "a call opens the streams");
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(post(&http, gateway.rest(), KEY, &check, None).await.status, 200, "and they outlive the body deadline");
    let broke = |log: Vec<String>| log.into_iter().filter(|l| l.contains("call stream") && l.contains("broke")).count();
    assert_eq!(broke(core.log()) + broke(gateway.log()), 0, "no call stream broke: {:?}", gateway.log());

    let signalled = Instant::now();
    core.signal("TERM");
    // During the notice the core still answers on the open streams.
    assert_eq!(post(&http, gateway.rest(), KEY, &check, None).await.status, 200, "answered during the notice");
    let exit = core.wait_exit(Duration::from_secs(40));
    let took = signalled.elapsed();
    let log = core.log().join("\n");
    assert!(exit.is_some_and(|s| s.success()), "the core exits 0: {exit:?}\n{log}");
    assert!(
        took < Duration::from_secs(15),
        "the core's streams ended at its goaway, not at the end of its 30 s grace: it took {took:?}\n{log}"
    );
    assert!(log.contains("all connections closed"), "every connection closed before the grace was over:\n{log}");
    // With its only core gone, the gateway answers at once: 502, nothing charged.
    let started = Instant::now();
    let gone = post(&http, gateway.rest(), KEY, &check, None).await;
    assert_eq!(gone.status, 502, "{gone:?}");
    assert_eq!(gone.body["error"]["code"], "upstream_unavailable", "{gone:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "answered in {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_deals_its_calls_to_every_serving_core_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![("MEDIAOPS_REDIS_URL", redis_url()), ("MEDIAOPS_REDIS_PREFIX", redis_prefix("call_streams_spread"))];
    let cores = [
        Process::spawn(dir.path(), Spawn { args: vec!["core"], env: env.clone() }),
        Process::spawn(dir.path(), Spawn { args: vec!["core"], env: env.clone() }),
    ];
    let both = format!("{},{}", cores[0].grpc(), cores[1].grpc());
    let gateway = Process::spawn(dir.path(), Spawn { args: vec!["gateway", "--core-addr", &both], env });
    // Until the core set's first round has found both cores serving.
    let log = || gateway.log().join("\n");
    let started = Instant::now();
    while !log().contains("calls go to 2 of 2") {
        assert!(started.elapsed() < Duration::from_secs(15), "the gateway finds both cores:\n{}", log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let http = reqwest::Client::new();
    const CALLS: usize = 40;
    for n in 0..CALLS {
        let response = http
            .post(format!("{}{CHECK}", gateway.rest()))
            .bearer_auth(KEY)
            .header("X-Request-Id", format!("spread-{n}"))
            .json(&json!({"platform": "抖音", "content": "全网最好的产品"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    // Each core's access log names the calls it answered (written in batches).
    let served = |core: &Process| core.log().iter().filter(|l| l.contains("spread-") && l.contains(" ok")).count();
    let started = Instant::now();
    while served(&cores[0]) + served(&cores[1]) < CALLS && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (first, second) = (served(&cores[0]), served(&cores[1]));
    println!("calls answered by each core: {first}, {second}");
    assert_eq!(first + second, CALLS, "every call was answered once");
    assert!(first >= CALLS / 4 && second >= CALLS / 4, "both cores share the calls: {first} and {second}");
}
