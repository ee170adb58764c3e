//! The charging flow end to end over real gRPC, on both ledgers (real Redis):
//! reserve → run → commit/release, 402, prices from metadata, idempotency,
//! concurrency, two cores on one Redis, failing closed, reservations of a
//! dead core released after their bound.
//!
//! The operations charged here are not built yet, so each test registers a
//! small stand-in handler (`lifestyle.search-note`, `trend.hot-topics`,
//! `lifestyle.lifestyle-sync-notes`) through `Core::open_with_ledger`; the
//! billing under test is the real pipeline and the real ledgers. Upstream
//! failures come from a local fake upstream HTTP server.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use core_service::{Core, CoreSettings};
use mediaops_platform::billing::embedded::EmbeddedLedger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::billing::{Ledger, Reserved};
use mediaops_platform::registry::Registry;
use mediaops_proto::error::ServiceError;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::grpc_error::error_object;
use mediaops_proto::mediaops::account::v1::{GetBalanceRequest, account_service_client::AccountServiceClient};
use mediaops_proto::mediaops::common::v1::SyncReceipt;
use mediaops_proto::mediaops::lifestyle::v1::{
    LifestyleSyncNotesRequest, SearchNoteRequest, SearchNoteResponse, lifestyle_service_client::LifestyleServiceClient,
};
use mediaops_proto::mediaops::trend::v1::{
    HotTopicsRequest, HotTopicsResponse, trend_service_client::TrendServiceClient,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::transport::Channel;

const KEY: &str = "mk_charging_test_key_00000001";
const ACCOUNT: &str = "bootstrap";

/// A local fake upstream: `/500` answers 500, `/hang` never answers in time.
async fn fake_upstream() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]).to_string();
                if request.starts_with("GET /hang") {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                }
                let body = "{\"code\":500,\"msg\":\"upstream exploded\"}";
                let response = format!(
                    "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}")
}

/// Stand-ins for operations that are not built yet, counting their runs.
fn stand_ins(upstream: String, runs: Arc<AtomicUsize>) -> impl FnOnce(&mut Registry) -> anyhow::Result<()> {
    move |registry| {
        let counter = runs.clone();
        registry.replace(
            "mediaops.lifestyle.v1.LifestyleService.SearchNote",
            move |_ctx, req: SearchNoteRequest| {
                let upstream = upstream.clone();
                counter.fetch_add(1, Ordering::SeqCst);
                async move {
                    let path = match req.keyword.as_str() {
                        "upstream-500" => "/500",
                        "upstream-hang" => "/hang",
                        "slow" => {
                            tokio::time::sleep(Duration::from_secs(10)).await;
                            return Ok(SearchNoteResponse::default());
                        }
                        _ => {
                            return Ok(SearchNoteResponse {
                                source: "stand-in".into(),
                                keyword: req.keyword,
                                ..Default::default()
                            });
                        }
                    };
                    let client = reqwest::Client::builder().timeout(Duration::from_millis(500)).build().unwrap();
                    let outcome = client.get(format!("{upstream}{path}")).send().await;
                    let message = match outcome {
                        Ok(response) => format!("upstream answered {}", response.status()),
                        Err(e) => format!("upstream failed: {e}"),
                    };
                    Err(ServiceError::new(ErrorCode::UpstreamUnavailable, message))
                }
            },
        )?;
        let counter = runs.clone();
        registry.replace("mediaops.trend.v1.TrendService.HotTopics", move |_ctx, _req: HotTopicsRequest| {
            counter.fetch_add(1, Ordering::SeqCst);
            async move { Ok(HotTopicsResponse::default()) }
        })?;
        registry.replace(
            "mediaops.lifestyle.v1.LifestyleService.LifestyleSyncNotes",
            move |_ctx, _req: LifestyleSyncNotesRequest| {
                runs.fetch_add(1, Ordering::SeqCst);
                async move { Ok(SyncReceipt { status: "syncing".into(), accepted: true, retry_after_minutes: 30 }) }
            },
        )?;
        Ok(())
    }
}

struct TestCore {
    channel: Channel,
    ledger: Arc<dyn Ledger>,
    runs: Arc<AtomicUsize>,
    _dir: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// A core over `ledger` with the stand-ins, its bootstrap key holding
/// `points`; with the counter of the stand-ins' runs and its data folder.
async fn open(ledger: Arc<dyn Ledger>, points: i64) -> (Core, Arc<AtomicUsize>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let settings = CoreSettings {
        data_dir: dir.path().to_path_buf(),
        bootstrap_key: Some(KEY.into()),
        bootstrap_points: points,
        reservation_ttl_secs: 5,
        operation_timeout_secs: 2,
        ..CoreSettings::default()
    };
    let runs = Arc::new(AtomicUsize::new(0));
    let core = Core::open_with_ledger(&settings, ledger, stand_ins(fake_upstream().await, runs.clone())).await.unwrap();
    (core, runs, dir)
}

async fn start(ledger: Arc<dyn Ledger>, points: i64) -> TestCore {
    let (core, runs, dir) = open(ledger.clone(), points).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(core.serve(listener, async move {
        let _ = stopped.await;
    }));
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
    TestCore { channel, ledger, runs, _dir: dir, _stop: stop }
}

fn embedded() -> (Arc<dyn Ledger>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (Arc::new(EmbeddedLedger::open(dir.path()).unwrap()), dir)
}

async fn redis(prefix: &str) -> Arc<dyn Ledger> {
    let url = std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    Arc::new(RedisLedger::connect(&url, prefix).await.expect("Redis at 127.0.0.1:6379"))
}

fn fresh_prefix() -> String {
    format!("mediaops-test-{}", uuid::Uuid::new_v4().simple())
}

fn authorized<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    request
}

fn with_idempotency<T>(message: T, key: &str) -> tonic::Request<T> {
    let mut request = authorized(message);
    request.metadata_mut().insert("idempotency-key", key.parse().unwrap());
    request
}

fn code_of(status: &tonic::Status) -> String {
    error_object(status).map(|e| e.code).unwrap_or_default()
}

async fn search(core: &TestCore, keyword: &str) -> Result<SearchNoteResponse, tonic::Status> {
    let request = SearchNoteRequest { keyword: keyword.into(), page: 1 };
    LifestyleServiceClient::new(core.channel.clone()).search_note(authorized(request)).await.map(|r| r.into_inner())
}

async fn balance(core: &TestCore) -> i64 {
    balance_of(&core.ledger).await
}

async fn balance_of(ledger: &Arc<dyn Ledger>) -> i64 {
    ledger.balance(ACCOUNT).await.unwrap().unwrap()
}

async fn both_ledgers() -> Vec<(Arc<dyn Ledger>, Option<tempfile::TempDir>)> {
    let (embedded, dir) = embedded();
    vec![(embedded, Some(dir)), (redis(&fresh_prefix()).await, None)]
}

#[tokio::test]
async fn success_is_charged_once_and_the_caller_sees_its_balance() {
    for (ledger, _dir) in both_ledgers().await {
        let core = start(ledger, 10).await;
        let answer = search(&core, "露营").await.unwrap();
        assert_eq!(answer.keyword, "露营");
        assert_eq!(balance(&core).await, 6, "search-note costs 4 (spec 4.3)");
        let own = AccountServiceClient::new(core.channel.clone())
            .get_balance(authorized(GetBalanceRequest {}))
            .await
            .unwrap();
        assert_eq!((own.get_ref().account_id.as_str(), own.get_ref().points), (ACCOUNT, 6));
        let log = core.ledger.usage_log(ACCOUNT, 10).await.unwrap();
        let charged: Vec<_> = log.iter().filter(|r| r.operation_key == "lifestyle.search-note").collect();
        assert_eq!((charged.len(), charged[0].points, charged[0].outcome.as_str()), (1, 4, "ok"));
    }
}

#[tokio::test]
async fn a_short_balance_is_402_and_nothing_runs() {
    for (ledger, _dir) in both_ledgers().await {
        let core = start(ledger, 3).await;
        let status = search(&core, "露营").await.unwrap_err();
        assert_eq!(code_of(&status), "insufficient_points");
        assert!(
            status.message().contains("costs 4") && status.message().contains("balance is 3"),
            "{}",
            status.message()
        );
        assert_eq!(core.runs.load(Ordering::SeqCst), 0, "nothing was executed");
        assert_eq!(balance(&core).await, 3);
    }
}

#[tokio::test]
async fn upstream_failures_and_timeouts_release_the_charge() {
    for (ledger, _dir) in both_ledgers().await {
        let core = start(ledger, 10).await;
        for keyword in ["upstream-500", "upstream-hang", "slow"] {
            let status = search(&core, keyword).await.unwrap_err();
            assert_eq!(code_of(&status), "upstream_unavailable", "{keyword}: {status:?}");
            assert_eq!(balance(&core).await, 10, "{keyword} charged nothing");
        }
        let log = core.ledger.usage_log(ACCOUNT, 10).await.unwrap();
        assert!(
            log.iter()
                .filter(|r| r.operation_key == "lifestyle.search-note")
                .all(|r| r.points == 0 && r.outcome == "upstream_unavailable")
        );
    }
}

#[tokio::test]
async fn prices_come_from_the_metadata() {
    for (ledger, _dir) in both_ledgers().await {
        let core = start(ledger, 100).await;
        let mut trend = TrendServiceClient::new(core.channel.clone());
        trend.hot_topics(authorized(HotTopicsRequest::default())).await.unwrap();
        assert_eq!(balance(&core).await, 88, "all three platforms by default: 12");
        let two = HotTopicsRequest {
            platforms: vec!["articles".into(), "lifestyle".into(), "articles".into()],
            ..Default::default()
        };
        trend.hot_topics(authorized(two)).await.unwrap();
        assert_eq!(balance(&core).await, 80, "4 per distinct platform");
        let bad = HotTopicsRequest { platforms: vec!["weibo".into()], ..Default::default() };
        let status = trend.hot_topics(authorized(bad)).await.unwrap_err();
        assert_eq!(code_of(&status), "invalid_input");
        assert_eq!(error_object(&status).unwrap().field.as_deref(), Some("platforms[0]"));

        let sync = LifestyleSyncNotesRequest { red_id: "r1".into() };
        let receipt =
            LifestyleServiceClient::new(core.channel.clone()).lifestyle_sync_notes(authorized(sync)).await.unwrap();
        assert_eq!(receipt.get_ref().retry_after_minutes, 30);
        let comments =
            mediaops_proto::mediaops::lifestyle::v1::CommentsRequest { note_id: "n".into(), cursor: String::new() };
        let status =
            LifestyleServiceClient::new(core.channel.clone()).comments(authorized(comments)).await.unwrap_err();
        assert_eq!(code_of(&status), "maintenance");
        assert_eq!(balance(&core).await, 80, "sync and maintenance are not charged; 400 never reaches billing");
    }
}

#[tokio::test]
async fn an_idempotent_retry_is_charged_and_run_once() {
    for (ledger, _dir) in both_ledgers().await {
        let core = start(ledger, 20).await;
        let mut client = LifestyleServiceClient::new(core.channel.clone());
        let request = || SearchNoteRequest { keyword: "露营".into(), page: 1 };
        let first = client.search_note(with_idempotency(request(), "retry-1")).await.unwrap().into_inner();
        let second = client.search_note(with_idempotency(request(), "retry-1")).await.unwrap().into_inner();
        assert_eq!(first, second, "the retry gets the first answer back");
        assert_eq!((balance(&core).await, core.runs.load(Ordering::SeqCst)), (16, 1));

        let other = SearchNoteRequest { keyword: "别的".into(), page: 1 };
        let status = client.search_note(with_idempotency(other, "retry-1")).await.unwrap_err();
        assert_eq!(code_of(&status), "conflict", "one key, two different requests");

        let failing = || SearchNoteRequest { keyword: "upstream-500".into(), page: 1 };
        client.search_note(with_idempotency(failing(), "retry-2")).await.unwrap_err();
        client.search_note(with_idempotency(failing(), "retry-2")).await.unwrap_err();
        assert_eq!(core.runs.load(Ordering::SeqCst), 3, "a failed request runs again on retry");
        assert_eq!(balance(&core).await, 16);
    }
}

/// 64 clients × 50 calls of 4 points on a balance covering 1000 calls.
async fn hammer(channels: Vec<Channel>) -> (usize, usize) {
    let tasks: Vec<_> = (0..64)
        .map(|i| {
            let mut client = LifestyleServiceClient::new(channels[i % channels.len()].clone());
            tokio::spawn(async move {
                let (mut ok, mut short) = (0, 0);
                for _ in 0..50 {
                    match client.search_note(authorized(SearchNoteRequest { keyword: "x".into(), page: 1 })).await {
                        Ok(_) => ok += 1,
                        Err(status) if code_of(&status) == "insufficient_points" => short += 1,
                        Err(status) => panic!("unexpected {status:?}"),
                    }
                }
                (ok, short)
            })
        })
        .collect();
    let mut totals = (0, 0);
    for task in tasks {
        let (ok, short) = task.await.unwrap();
        totals.0 += ok;
        totals.1 += short;
    }
    totals
}

#[tokio::test]
async fn concurrent_clients_never_overdraw() {
    for (ledger, _dir) in both_ledgers().await {
        let core = start(ledger, 4 * 1000 + 2).await;
        let (ok, short) = hammer(vec![core.channel.clone()]).await;
        assert_eq!((ok, short), (1000, 2200), "exactly what the balance implies");
        assert_eq!(balance(&core).await, 2, "start − Σ prices of the successes, never negative");
    }
}

#[tokio::test]
async fn two_cores_on_one_redis_never_overdraw() {
    let prefix = fresh_prefix();
    let first = start(redis(&prefix).await, 4 * 1000 + 2).await;
    let second = start(redis(&prefix).await, 0).await;
    let (ok, short) = hammer(vec![first.channel.clone(), second.channel.clone()]).await;
    assert_eq!((ok, short), (1000, 2200));
    assert_eq!(balance(&first).await, 2);
    assert!(first.runs.load(Ordering::SeqCst) > 0 && second.runs.load(Ordering::SeqCst) > 0, "both cores served");
}

#[tokio::test]
async fn a_dead_cores_reservation_is_released_after_its_bound() {
    let prefix = fresh_prefix();
    {
        // A core that reserved and died before settling.
        let dying = redis(&prefix).await;
        dying.insert_key(KEY, ACCOUNT).await.unwrap();
        dying.grant(ACCOUNT, 10).await.unwrap();
        let held = dying.reserve(ACCOUNT, "in-flight", 6, Duration::from_secs(1)).await.unwrap();
        assert_eq!(held, Reserved::Held { balance: 4 });
    }
    let survivor = start(redis(&prefix).await, 0).await;
    let mut restored = false;
    for _ in 0..40 {
        if balance(&survivor).await == 10 {
            restored = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(restored, "the sweeper of a running core released the reservation");

    let dir = tempfile::tempdir().unwrap();
    {
        let embedded = EmbeddedLedger::open(dir.path()).unwrap();
        embedded.grant(ACCOUNT, 10).await.unwrap();
        embedded.reserve(ACCOUNT, "in-flight", 6, Duration::from_secs(60)).await.unwrap();
    }
    let reopened = EmbeddedLedger::open(dir.path()).unwrap();
    assert_eq!(reopened.balance(ACCOUNT).await.unwrap(), Some(10), "a restart releases what the dead process held");
}

/// A Redis server of this test's own, so it can be stopped and started.
struct OwnRedis {
    port: u16,
    dir: tempfile::TempDir,
    child: std::process::Child,
}

impl OwnRedis {
    fn start(port: u16, dir: tempfile::TempDir) -> OwnRedis {
        let child = std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .arg("--dir")
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server on PATH");
        OwnRedis { port, dir, child }
    }

    async fn wait_ready(&self) {
        for _ in 0..50 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("redis-server did not start");
    }

    fn stop(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.dir
    }
}

#[tokio::test]
async fn billing_fails_closed_while_redis_is_down_and_recovers() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = OwnRedis::start(port, tempfile::tempdir().unwrap());
    server.wait_ready().await;
    let ledger: Arc<dyn Ledger> =
        Arc::new(RedisLedger::connect(&format!("redis://127.0.0.1:{port}"), "mediaops").await.unwrap());
    let core = start(ledger, 100).await;
    search(&core, "x").await.unwrap();
    assert_eq!(core.runs.load(Ordering::SeqCst), 1);

    let dir = server.stop();
    for _ in 0..3 {
        let status = search(&core, "x").await.unwrap_err();
        assert_eq!(code_of(&status), "billing_unavailable", "{status:?}");
    }
    assert_eq!(core.runs.load(Ordering::SeqCst), 1, "nothing runs for free");

    let server = OwnRedis::start(port, dir);
    server.wait_ready().await;
    let mut recovered = false;
    for _ in 0..40 {
        if search(&core, "x").await.is_ok() {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(recovered, "calls succeed again once Redis is back");
    assert_eq!(core.ledger.balance(ACCOUNT).await.unwrap(), Some(92), "two charged calls, none lost");
    server.stop();
}

/// `search-note` as the one-process gateway calls it: the core's pipeline
/// without gRPC (`Pipeline::call_in_process`, docs/billing.md "When a call
/// is charged").
const SEARCH_NOTE: &str = "/mediaops.lifestyle.v1.LifestyleService/SearchNote";

fn in_process_request(keyword: &str) -> tonic::Request<bytes::Bytes> {
    use prost::Message;
    let body = SearchNoteRequest { keyword: keyword.into(), page: 1 }.encode_to_vec();
    let mut request = tonic::Request::new(bytes::Bytes::from(body));
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    request
}

/// Waits (10 s at most) until `seen` answers `wanted`; fails naming `what`
/// and the last value seen.
async fn wait_until<T, F>(what: &str, wanted: T, mut seen: impl FnMut() -> F)
where
    T: PartialEq + std::fmt::Debug,
    F: std::future::Future<Output = T>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let value = seen().await;
        if value == wanted {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what} stayed {value:?}, not {wanted:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the account's balance is `points`.
async fn wait_for_balance(ledger: &Arc<dyn Ledger>, points: i64) {
    wait_until("the balance", points, || balance_of(ledger)).await;
}

/// Waits until `count` calls of the account are committed: the commit runs
/// behind the answer, and its usage record (`ok`) says when.
async fn wait_for_commits(ledger: &Arc<dyn Ledger>, count: usize) {
    let committed =
        || async { ledger.usage_log(ACCOUNT, 20).await.unwrap().iter().filter(|r| r.outcome == "ok").count() };
    wait_until("the calls committed", count, committed).await;
}

#[tokio::test]
async fn an_in_process_call_is_charged_only_once_its_answer_is_delivered() {
    use prost::Message;
    for (ledger, _dir) in both_ledgers().await {
        let (core, runs, _data) = open(ledger.clone(), 10).await;
        let serving = core.start().await.unwrap();
        let pipeline = serving.pipeline();

        // Delivered: committed, 4 points (spec 4.3).
        let answer = pipeline.call_in_process(SEARCH_NOTE, in_process_request("露营")).await.unwrap();
        let response = SearchNoteResponse::decode(answer.response.get_ref().clone()).unwrap();
        assert_eq!(response.keyword, "露营");
        assert!(answer.response.metadata().get("x-request-id").is_some(), "the answer names its request id");
        assert_eq!(balance_of(&ledger).await, 6, "held while the answer is on its way");
        answer.delivery.settle(true);
        wait_for_commits(&ledger, 1).await;
        assert_eq!(balance_of(&ledger).await, 6, "committed: 4 points charged");

        // Not delivered, or its delivery dropped: released at once.
        let answer = pipeline.call_in_process(SEARCH_NOTE, in_process_request("露营")).await.unwrap();
        assert_eq!(balance_of(&ledger).await, 2);
        answer.delivery.settle(false);
        wait_for_balance(&ledger, 6).await;
        let answer = pipeline.call_in_process(SEARCH_NOTE, in_process_request("露营")).await.unwrap();
        assert_eq!(balance_of(&ledger).await, 2);
        drop(answer);
        wait_for_balance(&ledger, 6).await;
        assert_eq!(runs.load(Ordering::SeqCst), 3);

        // Failures are the gRPC client's statuses: an upstream failure is
        // released, an unknown path is unimplemented, a short balance 402.
        let failed = pipeline.call_in_process(SEARCH_NOTE, in_process_request("upstream-500")).await.err().unwrap();
        assert_eq!(code_of(&failed), "upstream_unavailable");
        wait_for_balance(&ledger, 6).await;
        let unknown =
            pipeline.call_in_process("/no.such.v1.Service/Method", in_process_request("x")).await.err().unwrap();
        assert_eq!(unknown.code(), tonic::Code::Unimplemented);
        let first = pipeline.call_in_process(SEARCH_NOTE, in_process_request("露营")).await.unwrap();
        let short = pipeline.call_in_process(SEARCH_NOTE, in_process_request("露营")).await.err().unwrap();
        assert_eq!(code_of(&short), "insufficient_points");
        first.delivery.settle(true);
        wait_for_commits(&ledger, 2).await;
        assert_eq!(balance_of(&ledger).await, 2);
    }
}
