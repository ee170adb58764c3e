//! A fake data vendor that answers with recorded replies, by route
//! (docs/vendors.md "Packs"): the real TikHub and Just One API replies of
//! `../shared/data/vendor-replies/` and the fixtures of
//! `tests/fixtures/vendors/`, each filed under the route that produced it.
//! Faults (HTTP statuses, timeouts, malformed bodies, business codes) can be
//! set per route. Only a local upstream is faked: the service under test is
//! the real one.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// The key every test gives the vendors through their key variables (the
/// fake vendor checks none; the Just One API test checks it is sent).
pub const VENDOR_KEY: &str = "pack-test-key";

/// Sets the packs' key variables (`TIKHUB_API_KEY`, `JUSTONEAPI_TOKEN`) to
/// [`VENDOR_KEY`], once per process: every test that starts a service with a
/// pack calls this first, so the tests of this binary may run in any order
/// and at once and no test sees another value.
pub fn set_vendor_keys() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for var in ["TIKHUB_API_KEY", "JUSTONEAPI_TOKEN"] {
            // SAFETY: set once, before the first service that reads them
            // starts; later calls wait for this one and set nothing.
            unsafe { std::env::set_var(var, VENDOR_KEY) };
        }
    });
}

/// The recorded replies of the shared data: `../shared/data/vendor-replies/<vendor>`.
pub fn recorded(vendor: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/vendor-replies").join(vendor)
}

/// The fixtures written for routes without a recording: `tests/fixtures/vendors/<vendor>`.
pub fn fixtures(vendor: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vendors").join(vendor)
}

/// What a route answers instead of its replies.
#[derive(Debug, Clone)]
pub enum Fault {
    /// This HTTP status with a short JSON body.
    Status(u16),
    /// No answer for this long.
    Delay(Duration),
    /// A 200 whose body is not JSON.
    Malformed,
    /// A 200 in the vendor's envelope whose business `code` is this.
    Code(i64),
}

/// One request the fake vendor received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `GET` or `POST`.
    pub method: String,
    /// The route, without the leading `/`.
    pub route: String,
    /// The query parameters.
    pub query: HashMap<String, String>,
    /// The JSON body of a POST (`Null` otherwise).
    pub body: Value,
}

#[derive(Default)]
struct Inner {
    /// Route → its replies, in file-name order.
    replies: BTreeMap<String, Vec<Value>>,
    faults: HashMap<String, Fault>,
    seen: Vec<Seen>,
}

/// A running fake vendor.
#[derive(Clone)]
pub struct VendorReplay {
    /// Its base URL (`http://127.0.0.1:<port>`).
    pub base: String,
    inner: Arc<Mutex<Inner>>,
}

impl VendorReplay {
    /// Serves every reply under `roots` (each a folder of
    /// `<route>/<name>.json`; a route is the folder's path below the root).
    /// `aliases` serve a folder under another route (`(route, folder)`), for
    /// recordings filed by endpoint name rather than path. A reply saved
    /// inside a wrapper (`{request_params, response_raw, …}`) is served as its
    /// `response_raw`.
    pub async fn start(roots: &[PathBuf], aliases: &[(&str, &str)]) -> VendorReplay {
        let mut replies: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for root in roots {
            for (route, reply) in read_replies(root) {
                replies.entry(route).or_default().push(reply);
            }
        }
        for (route, folder) in aliases {
            let found = replies.get(*folder).cloned().unwrap_or_else(|| panic!("no replies in {folder}"));
            replies.insert(route.trim_start_matches('/').to_owned(), found);
        }
        let inner = Arc::new(Mutex::new(Inner { replies, ..Inner::default() }));
        let app = axum::Router::new().fallback(answer).with_state(inner.clone());
        VendorReplay { base: super::serve_locally(app).await, inner }
    }

    /// The routes it answers.
    pub fn routes(&self) -> Vec<String> {
        self.inner.lock().unwrap().replies.keys().cloned().collect()
    }

    /// From now on `route` answers `fault`; `None` restores its replies.
    pub fn set_fault(&self, route: &str, fault: Option<Fault>) {
        let route = route.trim_start_matches('/').to_owned();
        let mut inner = self.inner.lock().unwrap();
        match fault {
            Some(fault) => inner.faults.insert(route, fault),
            None => inner.faults.remove(&route),
        };
    }

    /// From now on `route` answers from `replies` (each chosen by its
    /// `params` as the recorded ones are), e.g. the day's counters of a
    /// fixture that changes day by day.
    pub fn set_replies(&self, route: &str, replies: Vec<Value>) {
        self.inner.lock().unwrap().replies.insert(route.trim_start_matches('/').to_owned(), replies);
    }

    /// Every request received so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.inner.lock().unwrap().seen.clone()
    }
}

/// Every `(route, reply)` below `root`, in path order.
fn read_replies(root: &Path) -> Vec<(String, Value)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let route = path.parent().unwrap().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut reply: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if let Some(raw) = reply.get_mut("response_raw") {
                reply = raw.take();
            }
            (route, reply)
        })
        .collect()
}

/// Whether every parameter the reply recorded (its `params`) that the request
/// also sent (in its query or, for a POST, its JSON body's top level) has the
/// same value: a recording made for another page or keyword is not served to
/// a request that names its own.
fn fits(reply: &Value, query: &HashMap<String, String>) -> bool {
    let Some(params) = reply.get("params").and_then(Value::as_object) else { return true };
    params.iter().all(|(name, value)| match (query.get(name), value) {
        (None, _) => true,
        (Some(sent), Value::String(recorded)) => sent == recorded,
        (Some(sent), recorded) => serde_json::to_string(recorded).is_ok_and(|recorded| recorded == *sent),
    })
}

async fn answer(
    State(inner): State<Arc<Mutex<Inner>>>,
    method: Method,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let route = uri.path().trim_start_matches('/').to_owned();
    let (fault, reply) = {
        let mut inner = inner.lock().unwrap();
        inner.seen.push(Seen {
            method: method.to_string(),
            route: route.clone(),
            query: query.clone(),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        });
        let mut sent = query.clone();
        if let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&body) {
            for (name, value) in fields {
                sent.entry(name).or_insert_with(|| value.as_str().map_or_else(|| value.to_string(), str::to_owned));
            }
        }
        let replies = inner.replies.get(&route);
        let reply = replies.and_then(|r| r.iter().find(|reply| fits(reply, &sent)).or_else(|| r.first())).cloned();
        (inner.faults.get(&route).cloned(), reply)
    };
    match fault {
        Some(Fault::Status(status)) => {
            let status = StatusCode::from_u16(status).unwrap();
            (status, axum::Json(serde_json::json!({"code": status.as_u16(), "message": "fault"}))).into_response()
        }
        Some(Fault::Delay(pause)) => {
            tokio::time::sleep(pause).await;
            axum::Json(reply.unwrap_or(Value::Null)).into_response()
        }
        Some(Fault::Malformed) => (StatusCode::OK, "<html>not json").into_response(),
        Some(Fault::Code(code)) => {
            axum::Json(serde_json::json!({"code": code, "message": "fault", "data": null})).into_response()
        }
        None => match reply {
            Some(reply) => axum::Json(reply).into_response(),
            None => (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({"code": 404, "message": "no such route"})))
                .into_response(),
        },
    }
}
