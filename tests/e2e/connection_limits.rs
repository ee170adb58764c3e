//! docs/errors.md "Limits and timeouts" on the real `mediaops` binary: a slow or idle
//! client is disconnected by the header, body and first-request timeouts on
//! both ports; the connection cap holds with one WARN line and the service
//! answers again once the idle connections are gone; SIGTERM (and SIGINT)
//! let an in-flight call finish, then the process exits 0.
//!
//! Every socket is on 127.0.0.1 and every wait is bounded.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;
use mediaops_connectors::test_support::fake_web;

use std::time::{Duration, Instant};

use common::process::{Process, Spawn};
use common::{KEY, failure, success};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The timeout the tests configure for request heads (seconds).
const HEADER_SECS: u64 = 1;

/// A priced operation (the body never completes, so it must not be charged).
const CHECK: &str = "/api/apis/tool/check-banned-words/call";

/// Starts `mediaops serve` with short limits plus `env`.
fn start(env: Vec<(&'static str, String)>) -> (tempfile::TempDir, Process) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec![
        ("MEDIAOPS_HEADER_READ_TIMEOUT_SECS", HEADER_SECS.to_string()),
        ("MEDIAOPS_BODY_READ_TIMEOUT_SECS", "2".to_string()),
        ("MEDIAOPS_IDLE_TIMEOUT_SECS", "5".to_string()),
    ];
    all.extend(env);
    let process = tokio::task::block_in_place(|| Process::spawn(dir.path(), Spawn { args: vec![], env: all }));
    (dir, process)
}

/// `host:port` of a `http://host:port` URL.
fn host(url: &str) -> &str {
    url.strip_prefix("http://").unwrap_or(url)
}

/// Reads until the server closes (EOF or reset) and returns what came and
/// how long it took from `since`; `None` if it is still open after `limit`.
async fn read_until_closed(stream: &mut TcpStream, since: Instant, limit: Duration) -> Option<(Vec<u8>, Duration)> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.checked_sub(since.elapsed())?;
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some((got, since.elapsed())),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// Status and JSON body of a raw HTTP/1.1 response (`Content-Length` framed).
fn parse_response(raw: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no response head in {text:?}"));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn get(url: &str, key: Option<&str>) -> (u16, Value) {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let mut request = client.get(url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn balance(process: &Process) -> i64 {
    let (status, body) = get(&format!("{}/api/account/balance", process.rest()), Some(KEY)).await;
    success(status, &body)["points"].as_i64().unwrap()
}

/// Log lines containing `needle`.
fn lines_with(process: &Process, needle: &str) -> Vec<String> {
    process.output().into_iter().filter(|l| l.contains(needle)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partial_request_head_is_closed_after_the_header_timeout() {
    let (_dir, process) = start(vec![]);
    let mut stream = TcpStream::connect(host(process.rest())).await.unwrap();
    let since = Instant::now();
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").await.unwrap();
    let closed = read_until_closed(&mut stream, since, Duration::from_secs(10)).await;
    let (_, took) = closed.expect("the server closes a connection whose head never completes");
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(5), "closed after {took:?}");

    // A client that never sends a byte is closed the same way.
    let mut silent = TcpStream::connect(host(process.rest())).await.unwrap();
    let closed = read_until_closed(&mut silent, Instant::now(), Duration::from_secs(10)).await;
    assert!(closed.is_some(), "a silent connection is closed");
    let (status, body) = get(&format!("{}/healthz", process.rest()), None).await;
    assert_eq!(status, 200, "{body}");

    // A keep-alive connection is answered, then closed when no next head comes.
    let mut keep_alive = TcpStream::connect(host(process.rest())).await.unwrap();
    keep_alive.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.unwrap();
    let closed = read_until_closed(&mut keep_alive, Instant::now(), Duration::from_secs(10)).await;
    let (raw, took) = closed.expect("an idle keep-alive connection is closed");
    assert_eq!(parse_response(&raw).0, 200);
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(5), "closed after {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partial_body_is_408_request_timeout_and_not_charged() {
    let (_dir, process) = start(vec![]);
    let before = balance(&process).await;
    let mut stream = TcpStream::connect(host(process.rest())).await.unwrap();
    let head = format!(
        "POST {CHECK} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {KEY}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"text\": "
    );
    let since = Instant::now();
    stream.write_all(head.as_bytes()).await.unwrap();
    let closed = read_until_closed(&mut stream, since, Duration::from_secs(15)).await;
    let (raw, took) = closed.expect("a stalled body is answered and closed");
    assert!(took >= Duration::from_millis(1900) && took < Duration::from_secs(8), "answered after {took:?}");
    let (status, body) = parse_response(&raw);
    let error = failure(status, &body, 408, "request_timeout");
    assert!(error["message"].as_str().unwrap().contains("MEDIAOPS_BODY_READ_TIMEOUT_SECS"), "{error}");
    assert_eq!(balance(&process).await, before, "nothing is charged");

    // The same body sent in time is served.
    let client = reqwest::Client::new();
    let response = client
        .post(format!("{}{CHECK}", process.rest()))
        .bearer_auth(KEY)
        .json(&json!({"text": "一段普通的文字"}))
        .send()
        .await
        .unwrap();
    assert_ne!(response.status().as_u16(), 408);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grpc_port_closes_silent_and_half_preface_connections() {
    let (_dir, process) = start(vec![]);
    let grpc = host(process.grpc()).to_owned();
    let mut silent = TcpStream::connect(&grpc).await.unwrap();
    let closed = read_until_closed(&mut silent, Instant::now(), Duration::from_secs(10)).await;
    let (_, took) = closed.expect("a silent connection to the gRPC port is closed");
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(5), "closed after {took:?}");

    let mut half = TcpStream::connect(&grpc).await.unwrap();
    let since = Instant::now();
    half.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
    let closed = read_until_closed(&mut half, since, Duration::from_secs(10)).await;
    let (_, took) = closed.expect("a half HTTP/2 preface is closed");
    assert!(took < Duration::from_secs(5), "closed after {took:?}");

    // A whole preface without a request (no HEADERS frame) is closed too.
    let mut no_request = TcpStream::connect(&grpc).await.unwrap();
    let since = Instant::now();
    no_request.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00").await.unwrap();
    let closed = read_until_closed(&mut no_request, since, Duration::from_secs(10)).await;
    let (_, took) = closed.expect("an HTTP/2 connection that never sends a request is closed");
    assert!(took < Duration::from_secs(6), "closed after {took:?}");

    // The port still serves: the gateway's health check goes through it.
    let (status, body) = get(&format!("{}/healthz", process.rest()), None).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_cap_holds_warns_once_and_recovers() {
    const CAP: usize = 20;
    let (_dir, process) = start(vec![
        ("MEDIAOPS_MAX_CONNECTIONS", CAP.to_string()),
        ("MEDIAOPS_HEADER_READ_TIMEOUT_SECS", "3".to_string()),
    ]);
    let rest = host(process.rest()).to_owned();
    let health = format!("{}/healthz", process.rest());
    let limit_line = "connection limit reached: 20 connections open on the REST port (MEDIAOPS_MAX_CONNECTIONS)";

    // Under the cap: idle connections do not stop the service.
    let mut idle = Vec::new();
    for _ in 0..CAP / 2 {
        idle.push(TcpStream::connect(&rest).await.unwrap());
    }
    let (status, body) = get(&health, None).await;
    assert_eq!(status, 200, "{body}");
    assert!(lines_with(&process, limit_line).is_empty());

    // Over the cap: the rest wait in the backlog and one line says so.
    for _ in CAP / 2..CAP * 2 {
        idle.push(TcpStream::connect(&rest).await.unwrap());
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while lines_with(&process, limit_line).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(lines_with(&process, limit_line).len(), 1, "{:#?}", process.output());
    assert!(lines_with(&process, limit_line)[0].contains("WARN"));

    // The server closes every idle one (first the served, then the waiting).
    let since = Instant::now();
    for stream in &mut idle {
        let closed = read_until_closed(stream, since, Duration::from_secs(20)).await;
        assert!(closed.is_some(), "every idle connection is closed by the header timeout");
    }
    drop(idle);
    let (status, body) = get(&health, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(lines_with(&process, limit_line).len(), 1, "the limit is logged once, not per connection");
}

/// Starts `mediaops serve` with `ai-web-search` on fake upstreams whose
/// chat answer takes 3 s, starts a call, sends `signal` while it is in
/// flight: the call answers 200, the process exits 0 within the grace
/// period, and the call's charge is committed (seen after a restart).
async fn an_in_flight_call_finishes_after(signal: &str) {
    let (searxng, chat) = (fake_web::searxng().await, fake_web::chat().await);
    chat.set(fake_web::ChatMode::Answer { delay: Duration::from_secs(3) });
    let web_search = vec![
        ("MEDIAOPS_WEB_SEARCH__SEARXNG_URL", searxng.url.clone()),
        ("MEDIAOPS_WEB_SEARCH__CHAT_URL", chat.url.clone()),
        ("MEDIAOPS_WEB_SEARCH__CHAT_API_KEY", fake_web::CHAT_KEY.to_string()),
        ("MEDIAOPS_WEB_SEARCH__WAIT_SECS", "20".to_string()),
    ];
    let mut env = web_search.clone();
    env.push(("MEDIAOPS_SHUTDOWN_GRACE_SECS", "10".to_string()));
    env.push(("MEDIAOPS_SHUTDOWN_NOTICE_SECS", "1".to_string()));
    let (dir, mut process) = start(env);
    let before = balance(&process).await;

    let url = format!("{}/api/skills/ai-web-search/invoke", process.rest());
    let call = tokio::spawn(async move {
        let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
        let response = client.post(url).bearer_auth(KEY).json(&json!({"query": "露营"})).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json::<Value>().await.unwrap_or(Value::Null))
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while chat.count() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(chat.count(), 1, "the call reached the slow upstream");
    let signalled = Instant::now();
    process.signal(signal);

    // The notice period (docs/state.md): the port still accepts, and
    // readiness says the gateway is stopping, so a load balancer moves away.
    let readyz = format!("{}/readyz", process.rest());
    let mut ready = (0, Value::Null);
    while ready.0 != 503 && signalled.elapsed() < Duration::from_millis(900) {
        let response = reqwest::get(&readyz).await.unwrap();
        ready = (response.status().as_u16(), response.json::<Value>().await.unwrap());
    }
    assert_eq!(ready.0, 503, "readiness turns not ready at once on {signal}");
    assert_eq!(ready.1, json!({"status": "not_ready", "down": ["gateway"]}));

    // Then new connections are refused while the call drains.
    let rest = host(process.rest()).to_owned();
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut refused = false;
    while !refused && Instant::now() < deadline {
        refused = TcpStream::connect(&rest).await.is_err();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(refused, "the REST port stops accepting on {signal}");

    let (status, body) = tokio::time::timeout(Duration::from_secs(20), call).await.unwrap().unwrap();
    let data = success(status, &body);
    assert_eq!(data["status"], "success", "{body}");
    let exit = tokio::task::block_in_place(|| process.wait_exit(Duration::from_secs(12)));
    let exit = exit.unwrap_or_else(|| panic!("no exit after SIG{signal}: {:#?}", process.output()));
    assert_eq!(exit.code(), Some(0), "{:#?}", process.output());
    assert!(signalled.elapsed() < Duration::from_secs(12), "exited within the notice and grace periods");
    let said = format!("SIG{signal} received: shutting down");
    assert_eq!(lines_with(&process, &said).len(), 1, "{:#?}", process.output());
    drop(process);

    // The answered call was charged once and nothing stays reserved.
    let restarted = tokio::task::block_in_place(|| Process::spawn(dir.path(), Spawn { args: vec![], env: web_search }));
    assert_eq!(balance(&restarted).await, before - 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_an_in_flight_call_and_exits_0() {
    an_in_flight_call_finishes_after("TERM").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_drains_an_in_flight_call_and_exits_0() {
    an_in_flight_call_finishes_after("INT").await;
}
