//! Test harness: the real servers on free loopback ports with their own data
//! directory, and a small HTTP helper. Nothing is mocked.

#![allow(dead_code)]

pub mod own_redis;
pub mod process;
pub mod spec_tables;
pub mod vendor_replay;

use std::path::{Path, PathBuf};

use core_service::CoreSettings;
use rest_gateway::GatewaySettings;
use serde_json::Value;

/// The bootstrap key every test server starts with.
pub const KEY: &str = "mk_test_bootstrap_key_0001";

/// The admin token every test server starts with.
pub const ADMIN_TOKEN: &str = "admin_test_token_0000000001";

/// Points the bootstrap account starts with.
pub const BOOTSTRAP_POINTS: i64 = 10_000;

/// `message` with `authorization: Bearer <token>` metadata.
pub fn with_token<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    request
}

/// A gRPC client of the admin service of `service`.
pub async fn admin(
    service: &Service,
) -> mediaops::proto::mediaops::admin::v1::admin_service_client::AdminServiceClient<tonic::transport::Channel> {
    let channel = tonic::transport::Endpoint::from_shared(service.grpc.clone()).unwrap().connect().await.unwrap();
    mediaops::proto::mediaops::admin::v1::admin_service_client::AdminServiceClient::new(channel)
}

/// A running service and what a test needs to call it.
pub struct Service {
    pub running: mediaops::Running,
    pub base: String,
    pub grpc: String,
    pub data_dir: tempfile::TempDir,
    pub http: reqwest::Client,
}

impl Service {
    /// Starts both servers with [`KEY`] on a fresh data directory.
    pub async fn start() -> Service {
        let data_dir = tempfile::tempdir().unwrap();
        Service::start_in(data_dir).await
    }

    /// Starts both servers on an existing data directory.
    pub async fn start_in(data_dir: tempfile::TempDir) -> Service {
        Service::start_with(data_dir, |_| {}).await
    }

    /// Starts both servers on an existing data directory, with the core's
    /// settings changed by `adjust` first (e.g. `now`, the as-of clock).
    pub async fn start_with(data_dir: tempfile::TempDir, adjust: impl FnOnce(&mut CoreSettings)) -> Service {
        Service::start_with_gateway(data_dir, adjust, |_| {}).await
    }

    /// [`Service::start_with`], with the gateway's settings changed by
    /// `gateway_adjust` too (CORS origins, the request timeout).
    pub async fn start_with_gateway(
        data_dir: tempfile::TempDir,
        adjust: impl FnOnce(&mut CoreSettings),
        gateway_adjust: impl FnOnce(&mut GatewaySettings),
    ) -> Service {
        let mut core = CoreSettings {
            grpc_addr: "127.0.0.1:0".into(),
            data_dir: data_dir.path().to_path_buf(),
            bootstrap_key: Some(KEY.into()),
            bootstrap_points: BOOTSTRAP_POINTS,
            admin_token: Some(ADMIN_TOKEN.into()),
            ..CoreSettings::default()
        };
        adjust(&mut core);
        let mut gateway = GatewaySettings {
            rest_addr: "127.0.0.1:0".into(),
            max_body_bytes: 64 * 1024,
            ..GatewaySettings::default()
        };
        gateway_adjust(&mut gateway);
        let running = mediaops::start(&core, &gateway).await.expect("servers start");
        Service {
            base: format!("http://{}", running.rest_addr),
            grpc: format!("http://{}", running.grpc_addr),
            running,
            data_dir,
            http: reqwest::Client::new(),
        }
    }

    pub fn data_path(&self) -> PathBuf {
        self.data_dir.path().to_path_buf()
    }

    /// `method path` with the bootstrap key and an optional JSON body.
    pub async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        self.call_with_key(method, path, body, Some(KEY)).await
    }

    pub async fn call_with_key(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        key: Option<&str>,
    ) -> (u16, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(key) = key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }

    /// The task `id` (`GET /api/tasks/{id}`) once it has finished
    /// (`success` or `failed`), polled for at most 30 s.
    pub async fn finished_task(&self, id: &str) -> Value {
        for _ in 0..300 {
            let (status, body) = self.get(&format!("/api/tasks/{id}")).await;
            let task = success(status, &body);
            if matches!(task["status"].as_str(), Some("success" | "failed")) {
                return task;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("task {id} did not finish in 30 s");
    }
}

/// Adds a key for another account, with 100 points, before the service
/// opens `data_dir`.
pub async fn add_key(data_dir: &Path, key: &str, account: &str) {
    add_key_with_points(data_dir, key, account, 100).await;
}

/// Adds a key for another account with `points` (0: none), before the
/// service opens `data_dir`.
pub async fn add_key_with_points(data_dir: &Path, key: &str, account: &str, points: i64) {
    use mediaops_platform::billing::Ledger;
    let ledger = mediaops_platform::billing::embedded::EmbeddedLedger::open(data_dir).unwrap();
    ledger.insert_key(key, account).await.unwrap();
    if points > 0 {
        ledger.grant(account, points).await.unwrap();
    }
}

/// Imports the archived Bilibili popular feed (`../shared/data/works/
/// bilibili`, the days in `days`) into the embedded store of `data_dir`,
/// as `mediaops import bilibili-popular` does.
pub async fn import_bilibili_feed(data_dir: &Path, days: &[&str]) {
    let store = mediaops_store::sqlite::SqliteStore::open(&data_dir.join("store.sqlite")).await.unwrap();
    let feed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/works/bilibili");
    for day in days {
        let report = mediaops_store::import::bilibili_popular::import_file(
            &store,
            &feed.join(day).join("list.json"),
            &mut || {},
        )
        .await;
        assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    }
}

/// A fresh data directory holding the embedded store with the whole shared
/// hot-list archive (`../shared/data/hotlists`, imported as `mediaops
/// import hotlists` does). The archive is imported once per test binary (on
/// its own runtime) and copied for each caller (the database with its WAL
/// files).
pub fn hotlist_archive_copy() -> tempfile::TempDir {
    static TEMPLATE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        std::thread::spawn(|| {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(async {
                let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/hotlists");
                let dir = tempfile::tempdir().unwrap();
                let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
                let report = mediaops_connectors::hotlists::archive::import_archive(&store, &archive, &mut || {}).await;
                assert!(report.rejected.is_empty(), "{:?}", &report.rejected[..report.rejected.len().min(5)]);
                assert!(report.written > 20_000, "{} rows", report.written);
                drop(store);
                dir
            })
        })
        .join()
        .unwrap()
    });
    // The template's pool closes its connections on their own threads after
    // `drop(store)`: the last close checkpoints the WAL into the database and
    // deletes `-wal` / `-shm`, possibly while a copy is under way. A file that
    // vanishes mid-copy means the checkpoint finished: copy everything again.
    for _ in 0..50 {
        let dir = tempfile::tempdir().unwrap();
        let copied = std::fs::read_dir(template.path()).unwrap().try_for_each(|entry| {
            let path = entry?.path();
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).map(drop)
        });
        match copied {
            Ok(()) => return dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            Err(e) => panic!("copying the hot-list store: {e}"),
        }
    }
    panic!("the hot-list store's files kept changing while being copied")
}

/// Asserts the failure envelope and returns its error object.
pub fn failure(status: u16, body: &Value, expected_status: u16, code: &str) -> Value {
    assert_eq!(status, expected_status, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert!(body["data"].is_null(), "{body}");
    assert!(body["requestId"].as_str().is_some_and(|s| !s.is_empty()), "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"].as_str().is_some_and(|s| !s.is_empty()), "{body}");
    body["error"].clone()
}

/// Asserts the success envelope and returns `data`.
pub fn success(status: u16, body: &Value) -> Value {
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], true, "{body}");
    assert!(body["error"].is_null(), "{body}");
    assert!(body["requestId"].as_str().is_some_and(|s| !s.is_empty()), "{body}");
    body["data"].clone()
}

/// The operations with no handler yet and not under maintenance, as
/// `(operationKey, REST path)`: what the service answers with 503
/// `not_implemented`. Read from a core's registry on a scratch data
/// directory, so tests need no hand-kept list of what is built.
pub async fn unbuilt_operations() -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let settings = CoreSettings { data_dir: dir.path().to_path_buf(), ..CoreSettings::default() };
    let core = core_service::Core::open(&settings).await.expect("core opens");
    let registry = core.registry();
    registry
        .operations()
        .filter(|op| !registry.is_implemented(&op.grpc_path) && !op.under_maintenance())
        .filter_map(|op| Some((op.key().to_owned(), op.meta.http.as_ref()?.path.clone())))
        .collect()
}

/// Serves `app` (a fake upstream: a vendor, an API) on a free loopback
/// port until the test ends; its base URL.
pub async fn serve_locally(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

/// Writes `dir/fakehub.toml`: the vendor mapping (docs/vendors.md) of a fake
/// vendor `fakehub` at `base`, no key, in TikHub's envelope (`{code,
/// message, data}`, success 200), with `timeout_secs` and no retries,
/// followed by `rest` (its error rules, breaker and operations).
pub fn fakehub_mapping(dir: &Path, base: &str, timeout_secs: u64, rest: &str) -> PathBuf {
    let text = format!(
        "name = \"fakehub\"\nbase_url = \"{base}\"\nauth = {{ kind = \"none\" }}\ntimeout_secs = {timeout_secs}\n\
         retries = 0\n\n[reply]\ncode = \".code\"\nmessage = \".message\"\nsuccess = [\"200\"]\n{rest}"
    );
    let path = dir.join("fakehub.toml");
    std::fs::write(&path, text).unwrap();
    path
}
