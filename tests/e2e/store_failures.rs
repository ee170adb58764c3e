//! docs/errors.md "Limits of a request" (values the store sees) on real `mediaops` processes: bad input reaching the
//! store is a 400 naming its field (never a 500 or the database's words), a
//! store outage is a fast, uncharged 503 `store_unavailable` that heals by
//! itself, and readiness (`/readyz`, `grpc.health.v1`) follows the ledger
//! and the store while liveness (`/healthz`) stays about the process.
//!
//! The shared PostgreSQL and Redis servers are never stopped: each outage is
//! a TCP [`Proxy`] of this test's own that stops forwarding (or a database
//! of this test's own that is dropped).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::process::{Database, Process, Spawn, psql, redis_prefix, redis_url};
use common::{KEY, failure, success};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tonic_health::pb::health_check_response::ServingStatus;

const LIFESTYLE: &str = "mediaops.lifestyle.v1.LifestyleService";

/// Words of a database error that must never reach a client.
const DATABASE_WORDS: [&str; 6] = ["error:", "sqlx", "postgres", "tsquery", "relation", "sqlstate"];

/// A TCP forwarder to a shared server that a test can take down (the port
/// refuses connections and open ones are cut) and bring back on the same
/// port.
struct Proxy {
    port: u16,
    target: SocketAddr,
    running: Mutex<Vec<JoinHandle<()>>>,
}

impl Proxy {
    async fn start(target: &str) -> Arc<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let proxy = Arc::new(Proxy { port, target: target.parse().unwrap(), running: Mutex::new(Vec::new()) });
        proxy.serve(listener);
        proxy
    }

    fn serve(self: &Arc<Self>, listener: TcpListener) {
        let proxy = self.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let target = proxy.target;
                let pipe = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                proxy.running.lock().unwrap().push(pipe);
            }
        });
        self.running.lock().unwrap().push(accept);
    }

    /// Closes the port and cuts every open connection.
    fn down(&self) {
        for task in self.running.lock().unwrap().drain(..) {
            task.abort();
        }
    }

    /// Listens on the same port again.
    async fn up(self: &Arc<Self>) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match TcpListener::bind(("127.0.0.1", self.port)).await {
                Ok(listener) => return self.serve(listener),
                Err(e) if Instant::now() < deadline => {
                    eprintln!("rebinding {}: {e}", self.port);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot listen on {} again: {e}", self.port),
            }
        }
    }
}

/// A REST answer: status, `Retry-After`, body.
struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: Value,
}

async fn request(process: &Process, method: reqwest::Method, path: &str, body: Option<Value>) -> Answer {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", process.rest()))
        .header("authorization", format!("Bearer {KEY}"))
        .timeout(Duration::from_secs(60));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: not JSON: {text}"));
    let error = body["error"].to_string().to_lowercase();
    for word in DATABASE_WORDS {
        assert!(!error.contains(word), "{path}: a database word {word:?} reached the client: {text}");
    }
    Answer { status, retry_after, body }
}

async fn search_note(process: &Process, body: Value) -> Answer {
    request(process, reqwest::Method::POST, "/api/apis/lifestyle/search-note/call", Some(body)).await
}

async fn balance(process: &Process) -> i64 {
    let answer = request(process, reqwest::Method::GET, "/api/account/balance", None).await;
    success(answer.status, &answer.body)["points"].as_i64().unwrap()
}

/// Calls `send` and returns its answer and the points it cost.
async fn charged<F: std::future::Future<Output = Answer>>(process: &Process, send: F) -> (Answer, i64) {
    let before = balance(process).await;
    let answer = send.await;
    (answer, before - balance(process).await)
}

/// `GET path` without a key: status and JSON body.
async fn probe(process: &Process, path: &str) -> (u16, Value) {
    let response = reqwest::get(format!("{}{path}", process.rest())).await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// The core's `grpc.health.v1` status of `service`.
async fn health(process: &Process, service: &str) -> ServingStatus {
    let channel = tonic::transport::Endpoint::from_shared(process.grpc().to_owned()).unwrap().connect().await.unwrap();
    let mut client = tonic_health::pb::health_client::HealthClient::new(channel);
    let request = tonic_health::pb::HealthCheckRequest { service: service.to_owned() };
    client.check(request).await.unwrap().into_inner().status()
}

/// Polls `check` every 200 ms until it is true or `limit` passes.
async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    while !check().await {
        assert!(Instant::now() < deadline, "{what} did not happen within {limit:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `host:port` of a `scheme://[user@]host:port/…` URL.
fn host_port(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, rest)| rest);
    rest.split('/').next().unwrap().to_owned()
}

fn spawn(dir: &tempfile::TempDir, env: Vec<(&str, String)>) -> Process {
    Process::spawn(dir.path(), Spawn { args: vec![], env })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_a_400_naming_the_field_never_a_500_or_database_words() {
    let db = Database::create("hardening_input");
    let dir = tempfile::tempdir().unwrap();
    let process = spawn(&dir, vec![("MEDIAOPS_DATABASE_URL", db.url.clone())]);

    // Over PostgreSQL's 2,047-byte word limit: the term is cut, never a 500.
    let long_keywords = ["a".repeat(2047), "a".repeat(2048), "a".repeat(5000), "露营".repeat(1024)];
    for keyword in &long_keywords {
        let (answer, cost) = charged(&process, search_note(&process, json!({"keyword": keyword}))).await;
        match answer.status {
            200 => {
                success(answer.status, &answer.body);
            }
            400 => {
                assert_eq!(answer.body["error"]["field"], "keyword", "{}", answer.body);
                assert_eq!(cost, 0, "a refused keyword is not charged");
            }
            other => panic!("a {}-character keyword answered {other}: {}", keyword.chars().count(), answer.body),
        }
    }

    let refusals = [
        ("/api/apis/lifestyle/query-account/call", json!({"accountId": "a\u{0}b"}), "accountId"),
        ("/api/apis/lifestyle/query-account/call", json!({"accountId": "a\u{1}b"}), "accountId"),
        ("/api/apis/lifestyle/search-note/call", json!({"keyword": "露营\u{0}"}), "keyword"),
    ];
    for (path, body, field) in refusals {
        let send = request(&process, reqwest::Method::POST, path, Some(body.clone()));
        let (answer, cost) = charged(&process, send).await;
        let error = failure(answer.status, &answer.body, 400, "invalid_input");
        assert_eq!(error["field"], field, "{body}");
        assert_eq!(cost, 0, "{body} was charged");
    }

    for path in ["/api/tasks/%00", "/api/tasks/a%01b", "/api/tasks/%0A"] {
        let (answer, cost) = charged(&process, request(&process, reqwest::Method::GET, path, None)).await;
        assert!(matches!(answer.status, 400 | 404), "{path}: {} {}", answer.status, answer.body);
        assert_eq!(cost, 0, "{path} was charged");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_outage_is_a_fast_uncharged_503_and_the_store_heals_by_itself() {
    let db = Database::create("hardening_outage");
    let proxy = Proxy::start(&host_port(&common::process::postgres_url())).await;
    let url = format!("postgres://root@127.0.0.1:{}/{}", proxy.port, db.name);
    let dir = tempfile::tempdir().unwrap();
    let env = vec![
        ("MEDIAOPS_DATABASE_URL", url),
        ("MEDIAOPS_STORE_ACQUIRE_TIMEOUT_SECS", "2".to_owned()),
        ("MEDIAOPS_READINESS_INTERVAL_SECS", "1".to_owned()),
    ];
    let process = tokio::task::block_in_place(|| spawn(&dir, env));
    let search = json!({"keyword": "露营"});
    let answer = search_note(&process, search.clone()).await;
    success(answer.status, &answer.body);
    assert_eq!(probe(&process, "/readyz").await, (200, json!({"status": "ready"})));

    // PostgreSQL stops answering: refused connections, open ones cut.
    proxy.down();
    let started = Instant::now();
    let (answer, cost) = charged(&process, search_note(&process, search.clone())).await;
    let took = started.elapsed();
    eprintln!("the store outage answered in {took:?}");
    failure(answer.status, &answer.body, 503, "store_unavailable");
    assert!(answer.retry_after.as_deref().is_some_and(|s| s.parse::<u64>().is_ok()), "Retry-After in seconds");
    assert!(took < Duration::from_secs(8), "the outage answered after {took:?}");
    assert_eq!(cost, 0, "an unavailable store charges nothing");
    eventually(Duration::from_secs(10), "/readyz naming the store", || async {
        probe(&process, "/readyz").await == (503, json!({"status": "not_ready", "down": ["store"]}))
    })
    .await;
    assert_eq!(health(&process, "").await, ServingStatus::NotServing);
    assert_eq!(health(&process, LIFESTYLE).await, ServingStatus::NotServing);
    assert_eq!(health(&process, mediaops_proto::readiness::STORE).await, ServingStatus::NotServing);
    assert_eq!(health(&process, mediaops_proto::readiness::LEDGER).await, ServingStatus::Serving);
    assert_eq!(probe(&process, "/healthz").await, (200, json!({"status": "ok"})), "liveness is the process");

    // Back: the next calls succeed without a restart.
    proxy.up().await;
    eventually(Duration::from_secs(15), "a search after the outage", || async {
        search_note(&process, search.clone()).await.status == 200
    })
    .await;
    eventually(Duration::from_secs(10), "/readyz ready again", || async { probe(&process, "/readyz").await.0 == 200 })
        .await;

    // The database is dropped, then re-created empty: 503 (never 500)
    // until the readiness check has migrated it, then 200.
    tokio::task::block_in_place(|| psql(&format!("DROP DATABASE {} WITH (FORCE)", db.name)));
    let (answer, cost) = charged(&process, search_note(&process, search.clone())).await;
    failure(answer.status, &answer.body, 503, "store_unavailable");
    assert_eq!(cost, 0);
    tokio::task::block_in_place(|| psql(&format!("CREATE DATABASE {}", db.name)));
    eventually(Duration::from_secs(15), "a search on the re-created database", || async {
        let answer = search_note(&process, search.clone()).await;
        assert!(matches!(answer.status, 200 | 503), "{} {}", answer.status, answer.body);
        if answer.status == 503 {
            assert_eq!(answer.body["error"]["code"], "store_unavailable", "{}", answer.body);
        }
        answer.status == 200
    })
    .await;
    // The check that migrated may have reported before the schema was
    // whole; the next one reports SERVING.
    eventually(Duration::from_secs(15), "SERVING after the migration", || async {
        health(&process, "").await == ServingStatus::Serving
    })
    .await;
    let logs = process.output().join("\n");
    assert!(logs.contains("running the migrations"), "the migrations re-ran: {logs}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_follows_the_ledger_while_liveness_stays_up() {
    let proxy = Proxy::start(&host_port(&redis_url())).await;
    let dir = tempfile::tempdir().unwrap();
    let env = vec![
        ("MEDIAOPS_REDIS_URL", format!("redis://127.0.0.1:{}", proxy.port)),
        ("MEDIAOPS_REDIS_PREFIX", redis_prefix("hardening_ready")),
        ("MEDIAOPS_READINESS_INTERVAL_SECS", "1".to_owned()),
    ];
    let process = tokio::task::block_in_place(|| spawn(&dir, env));
    assert_eq!(probe(&process, "/readyz").await, (200, json!({"status": "ready"})));
    assert_eq!(health(&process, "").await, ServingStatus::Serving);
    assert_eq!(health(&process, LIFESTYLE).await, ServingStatus::Serving);

    proxy.down();
    eventually(Duration::from_secs(10), "/readyz naming the ledger", || async {
        probe(&process, "/readyz").await == (503, json!({"status": "not_ready", "down": ["ledger"]}))
    })
    .await;
    assert_eq!(health(&process, "").await, ServingStatus::NotServing);
    assert_eq!(health(&process, LIFESTYLE).await, ServingStatus::NotServing);
    assert_eq!(health(&process, mediaops_proto::readiness::LEDGER).await, ServingStatus::NotServing);
    assert_eq!(health(&process, mediaops_proto::readiness::STORE).await, ServingStatus::Serving);
    assert_eq!(probe(&process, "/healthz").await, (200, json!({"status": "ok"})));
    let answer = search_note(&process, json!({"keyword": "露营"})).await;
    failure(answer.status, &answer.body, 503, "billing_unavailable");
    assert!(answer.retry_after.is_some(), "billing_unavailable says when to retry");

    proxy.up().await;
    eventually(Duration::from_secs(15), "/readyz ready again", || async {
        probe(&process, "/readyz").await == (200, json!({"status": "ready"}))
    })
    .await;
    assert_eq!(health(&process, LIFESTYLE).await, ServingStatus::Serving);
    let answer = search_note(&process, json!({"keyword": "露营"})).await;
    success(answer.status, &answer.body);
}
