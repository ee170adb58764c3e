//! Watch lists (docs/watchlists.md) over REST on the shared 21-day hot-list archive:
//! a watch list is created with the clock before the archive, then the
//! service restarts with `MEDIAOPS_NOW` stepping through the days; the
//! scheduler runs each missed firing as of its own time and posts digests
//! to a local fake webhook, which checks every signature (Standard Webhooks'
//! `webhook-signature` and the older `X-Mediaops-Signature`, computed here
//! with the `hmac` crate) and has the `standardwebhooks` Python library
//! verify every request as a receiver would. The test checks dedup,
//! exclusions, `@N`, quiet hours, the trend-radar order, the delivery log,
//! the charge (1 point per delivered digest), retries, deliveries refused by
//! the SSRF guard (a WARN line each, counted in `/metrics`, sent later), and
//! the 402 pause; it prints the replay's counts.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, StatusCode};
use common::{KEY, Service, failure, success};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

/// A Standard Webhooks secret (`whsec_` + base64 of the key), on `/hook`.
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/// A secret without the prefix (its own bytes are the key), on `/flaky`.
const RAW_SECRET: &str = "raw-secret-0001";
const POOR_KEY: &str = "mk_test_watch_poor_000001";

/// What the watch runner logged at WARN (any thread, any test of this
/// binary), for the lines of failed deliveries.
fn captured_log() -> String {
    static LOG: std::sync::OnceLock<Arc<Mutex<Vec<u8>>>> = std::sync::OnceLock::new();
    let log = LOG.get_or_init(|| {
        let log: Arc<Mutex<Vec<u8>>> = Arc::default();
        let sink = log.clone();
        let writer = move || Capture(sink.clone());
        // The only global subscriber of the test binary: it keeps the watch runner's warnings
        // alone, so the other subjects' logs neither pile up here nor mix in.
        let _ = tracing_subscriber::fmt()
            .with_env_filter("mediaops_ops::watch=warn")
            .with_writer(writer)
            .with_ansi(false)
            .with_target(false)
            .try_init();
        log
    });
    String::from_utf8_lossy(&log.lock().unwrap()).into_owned()
}

/// One log line's bytes, appended to the captured log.
struct Capture(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One request the fake webhook received: (path, headers, body).
type Request = (String, HeaderMap, Vec<u8>);

/// What the fake webhook received.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<Request>>>);

/// A local webhook: `/hook` answers 204; `/flaky` answers 500 to the first
/// attempt of each digest (by its idempotency key), then 204.
async fn fake_webhook() -> (String, Received) {
    let received = Received::default();
    let flaky_seen: Arc<Mutex<HashSet<String>>> = Arc::default();
    let log = received.clone();
    let app = axum::Router::new().route(
        "/{path}",
        axum::routing::post(
            move |axum::extract::Path(path): axum::extract::Path<String>,
                  headers: HeaderMap,
                  body: axum::body::Bytes| {
                let log = log.clone();
                let flaky_seen = flaky_seen.clone();
                async move {
                    let key = headers.get("idempotency-key").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                    if path == "flaky" && flaky_seen.lock().unwrap().insert(key) {
                        return StatusCode::INTERNAL_SERVER_ERROR;
                    }
                    log.0.lock().unwrap().push((path, headers, body.to_vec()));
                    StatusCode::NO_CONTENT
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, received)
}

/// The secret of the channel at `path`.
fn secret_of(path: &str) -> &'static str {
    if path == "flaky" { RAW_SECRET } else { SECRET }
}

/// The `X-Mediaops-Signature` a receiver expects for `body` at `timestamp`:
/// keyed by the secret's own bytes, whatever its form.
fn expected_signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The `webhook-signature` of Standard Webhooks: keyed by the base64 after
/// `whsec_`, or by a secret's own bytes without the prefix.
fn expected_standard_signature(secret: &str, id: &str, timestamp: &str, body: &[u8]) -> String {
    use base64::Engine;
    let engine = base64::engine::general_purpose::STANDARD;
    let key = match secret.strip_prefix("whsec_") {
        Some(encoded) => engine.decode(encoded).unwrap(),
        None => secret.as_bytes().to_vec(),
    };
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    format!("v1,{}", engine.encode(mac.finalize().into_bytes()))
}

/// Has the `standardwebhooks` Python library verify `requests` (signature
/// and timestamp, as a receiver does); answers how many it verified.
fn verify_with_standard_webhooks(requests: &[Request]) -> u64 {
    use base64::Engine;
    let requests: Vec<Value> = requests
        .iter()
        .map(|(path, headers, body)| {
            let headers: serde_json::Map<String, Value> =
                headers.iter().map(|(name, value)| (name.to_string(), json!(value.to_str().unwrap()))).collect();
            json!({
                "secret": secret_of(path),
                "raw": !secret_of(path).starts_with("whsec_"),
                "headers": headers,
                "body": base64::engine::general_purpose::STANDARD.encode(body),
            })
        })
        .collect();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/watchlists/verify_standard_webhooks.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs (.ci/run installs it and standardwebhooks)");
    let input = serde_json::to_vec(&json!({"requests": requests})).unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &input).unwrap();
    let output = child.wait_with_output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "standardwebhooks did not verify the digests:\n{err}{out}");
    serde_json::from_str::<Value>(&out).unwrap()["verified"].as_u64().unwrap()
}

/// The `mediaops_watchlist_deliveries_total` of `status` for webhooks, from
/// the core's `/metrics`.
async fn deliveries_counted(service: &Service, status: &str) -> u64 {
    let text = service.http.get(format!("{}/metrics", service.grpc)).send().await.unwrap().text().await.unwrap();
    let series = format!("mediaops_watchlist_deliveries_total{{channel_type=\"webhook\",status=\"{status}\"}} ");
    text.lines().find_map(|l| l.strip_prefix(series.as_str())).map_or(0, |n| n.trim().parse().unwrap())
}

async fn start(dir: tempfile::TempDir, now: &str) -> Service {
    start_guarded(dir, now, true).await
}

/// The service at `now`; with `allow_loopback` false the outbound guard
/// refuses the local webhook, as after a restart without
/// `MEDIAOPS_OUTBOUND__ALLOW`.
async fn start_guarded(dir: tempfile::TempDir, now: &str, allow_loopback: bool) -> Service {
    let now = now.to_owned();
    Service::start_with(dir, move |core| {
        core.now = Some(now);
        if allow_loopback {
            core.outbound.allow = vec!["127.0.0.1".into()];
        }
        core.outbound.retry_backoff_ms = 10;
        core.watchlists.tick_secs = 0.1;
    })
    .await
}

async fn put(service: &Service, key: &str, id: &str, body: Value) -> (u16, Value) {
    service.call_with_key(reqwest::Method::PUT, &format!("/api/watchlists/{id}"), Some(body), Some(key)).await
}

/// Waits until the watch list's next run is after `now` (the scheduler
/// caught up) or it left the `active` state.
async fn caught_up(service: &Service, key: &str, id: &str, now: &str) -> Value {
    let now = chrono::DateTime::parse_from_rfc3339(now).unwrap();
    for _ in 0..600 {
        let (status, body) =
            service.call_with_key(reqwest::Method::GET, &format!("/api/watchlists/{id}"), None, Some(key)).await;
        let data = success(status, &body);
        let next = data["nextRunAt"].as_str().map(|t| chrono::DateTime::parse_from_rfc3339(t).unwrap());
        if data["state"] != "active" || next.is_some_and(|t| t > now) {
            return data;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the scheduler did not catch up with {now}");
}

fn watchlist(hook: &str) -> Value {
    json!({
        "name": "高考与欧洲杯",
        "keywords": "# exams, essays left out\n高考 !作文 @3\n+高考 +作文\n欧洲杯 @2\n",
        "sources": ["weibo", "douyin", "baidu", "zhihu"],
        "schedule": "0 8,12,22 * * *",
        "quietHours": "21:30-07:30",
        "channels": [
            {"type": "webhook", "url": format!("{hook}/hook"), "secret": SECRET},
            {"type": "webhook", "url": format!("{hook}/flaky"), "secret": RAW_SECRET}
        ]
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_list_replays_the_archive_into_signed_deduplicated_digests() {
    captured_log();
    let (hook, received) = fake_webhook().await;
    let dir = common::hotlist_archive_copy();
    common::add_key_with_points(dir.path(), POOR_KEY, "poor", 0).await;
    let mut service = start(dir, "2024-06-01T00:00:00+08:00").await;

    // Validation: each 400 names the field inside the watch list (the body)
    // and, for a keyword group, its line.
    let mut bad = watchlist(&hook);
    bad["keywords"] = json!("高考\n!只有排除");
    let (status, body) = put(&service, KEY, "exams", json!(bad)).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "keywords");
    assert!(error["message"].as_str().unwrap().contains("line 2"), "{error}");
    for (field, value, named) in [
        ("schedule", json!("every morning"), "schedule"),
        ("quietHours", json!("7-9"), "quietHours"),
        ("sources", json!(["weibo", "myspace"]), "sources[1]"),
        ("channels", json!([{"type": "webhook", "url": "http://10.1.2.3/hook"}]), "channels[0].url"),
        ("channels", json!([{"type": "pager", "url": "https://example.com"}]), "channels[0].type"),
        (
            "channels",
            json!([{"type": "webhook", "url": format!("{hook}/hook"), "secret": "whsec_not base64"}]),
            "channels[0].secret",
        ),
    ] {
        let mut bad = watchlist(&hook);
        bad[field] = value;
        let (status, body) = put(&service, KEY, "exams", bad).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], named, "{body}");
    }
    let (status, body) = put(&service, KEY, "bad id!", watchlist(&hook)).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "id");

    let (status, body) = put(&service, KEY, "exams", watchlist(&hook)).await;
    let created = success(status, &body);
    assert_eq!(created["state"], "active");
    assert_eq!(created["status"], "active");
    assert_eq!(created["nextRunAt"], "2024-06-01T00:00:00.000Z", "08:00 in Shanghai");
    assert_eq!(created["channels"][0]["hasSecret"], true);
    assert!(!body.to_string().contains(SECRET), "secrets are never answered");
    let (status, body) = put(&service, POOR_KEY, "exams", watchlist(&hook)).await;
    success(status, &body);
    let (status, body) = service.get("/api/watchlists").await;
    assert_eq!(success(status, &body)["total"], 1, "a key sees only its account's watch lists");
    let (status, body) = service.get("/api/watchlists/nothing-here").await;
    failure(status, &body, 404, "not_found");

    // Replay: the clock steps through the archive's days. The restart of
    // June 3 runs without the loopback allowance: the SSRF guard refuses
    // its deliveries, which are logged, counted, and sent by the next
    // firing once the guard lets them through again.
    let days: Vec<String> = (1..=21).step_by(2).chain([21]).map(|d| format!("2024-06-{d:02}T23:59:00+08:00")).collect();
    let (mut verified, mut refused_runs) = (0, 0);
    for now in &days {
        let common::Service { running, data_dir, .. } = service;
        running.shutdown().await.unwrap();
        let guarded = now.starts_with("2024-06-03");
        service = start_guarded(data_dir, now, !guarded).await;
        caught_up(&service, KEY, "exams", now).await;
        if guarded {
            refused_runs = deliveries_counted(&service, "failed").await;
            assert!(refused_runs >= 2, "the refused deliveries are counted: {refused_runs}");
            assert_eq!(deliveries_counted(&service, "delivered").await, 0);
            let log = captured_log();
            let warnings: Vec<&str> = log
                .lines()
                .filter(|l| l.contains("WARN") && l.contains("watch-list delivery failed") && l.contains("exams"))
                .collect();
            assert!(warnings.len() as u64 >= refused_runs, "one WARN line a failed delivery: {warnings:#?}");
            let warning = warnings[0];
            let named = |field: &str, value: &str| {
                warning.contains(&format!("{field}={value}")) || warning.contains(&format!("{field}=\"{value}\""))
            };
            assert!(named("watchlist", "exams") && named("channel_type", "webhook"), "{warning}");
            assert!(warning.contains("reason=") && !warning.contains(RAW_SECRET), "{warning}");
            println!("refused by the SSRF guard: {warning}");
        }
        // What arrived since the last restart verifies with the Standard
        // Webhooks library, timestamps included (the wall clock, not June 2024).
        let fresh = received.0.lock().unwrap()[verified..].to_vec();
        verified += fresh.len();
        if !fresh.is_empty() {
            assert_eq!(verify_with_standard_webhooks(&fresh), fresh.len() as u64);
        }
    }
    let poor = caught_up(&service, POOR_KEY, "exams", days.last().unwrap()).await;

    // Every request is signed both ways and carries its digest id as
    // idempotency key and webhook id, stamped with the wall clock.
    let received = received.0.lock().unwrap().clone();
    let mut digests = Vec::new();
    let wall_clock = chrono::Utc::now().timestamp();
    for (path, headers, body) in &received {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let timestamp = header("x-mediaops-timestamp");
        let secret = secret_of(path);
        assert_eq!(header("x-mediaops-signature"), expected_signature(secret, &timestamp, body), "{path}");
        assert_eq!(header("webhook-timestamp"), timestamp);
        let id = header("webhook-id");
        assert_eq!(header("webhook-signature"), expected_standard_signature(secret, &id, &timestamp, body), "{path}");
        assert!((wall_clock - timestamp.parse::<i64>().unwrap()).abs() < 3600, "not the replay's clock: {timestamp}");
        let digest: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(header("idempotency-key"), digest["digestId"].as_str().unwrap());
        assert_eq!(id, digest["digestId"].as_str().unwrap());
        if path == "hook" {
            digests.push(digest);
        }
    }
    println!("standardwebhooks verified {verified} requests");
    let flaky = received.iter().filter(|(path, ..)| path == "flaky").count();
    assert_eq!(flaky, digests.len(), "the flaky channel got every digest after one retry");

    let (mut items, mut pushed_keys) = (0, HashSet::new());
    for digest in &digests {
        assert_eq!(digest["watchlistId"], "exams");
        let run_at = chrono::DateTime::parse_from_rfc3339(digest["runAt"].as_str().unwrap()).unwrap();
        let local = run_at.with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap());
        assert!(matches!(chrono::Timelike::hour(&local), 8 | 12), "22:00 is in the quiet hours: {local}");
        let list = digest["items"].as_array().unwrap();
        assert!(!list.is_empty());
        assert!(list.windows(2).all(|w| w[0]["score"].as_i64() >= w[1]["score"].as_i64()), "hottest first");
        let per_line = |line: i64| list.iter().filter(|i| i["groupLine"] == line).count();
        assert!(per_line(2) <= 3 && per_line(4) <= 2, "@N caps a group per push: {digest}");
        for item in list {
            let title = item["title"].as_str().unwrap();
            let source = item["source"].as_str().unwrap();
            assert!(["weibo", "douyin", "baidu", "zhihu"].contains(&source), "{item}");
            match item["groupLine"].as_i64().unwrap() {
                2 => assert!(title.contains("高考") && !title.contains("作文"), "{item}"),
                3 => assert!(title.contains("高考") && title.contains("作文"), "{item}"),
                4 => assert!(title.contains("欧洲杯"), "{item}"),
                other => panic!("line {other}"),
            }
            assert!(!item["trajectory"].as_array().unwrap().is_empty());
            let key: String = title.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
            assert!(pushed_keys.insert((source.to_owned(), key)), "pushed twice: {item}");
            items += 1;
        }
    }
    let matched: i64 = digests.iter().map(|d| d["matched"].as_i64().unwrap()).sum();
    let deduplicated: i64 = digests.iter().map(|d| d["deduplicated"].as_i64().unwrap()).sum();
    println!(
        "replay: {} digests pushed ({items} items), {matched} matched stories counted over the runs, {deduplicated} deduplicated",
        digests.len()
    );
    assert!(digests.len() >= 30, "{} digests", digests.len());
    assert!(deduplicated > 0);
    // What the archive holds: the first digest at 08:00 on June 1, the
    // essay topic at noon of the first exam day (on Weibo, Baidu too), and
    // the next morning led by the maths paper, hot on five other lists.
    let at =
        |run_at: &str| digests.iter().find(|d| d["runAt"] == run_at).unwrap_or_else(|| panic!("no digest at {run_at}"));
    assert_eq!(digests[0]["runAt"], "2024-06-01T00:00:00Z");
    let exam_noon = at("2024-06-07T04:00:00Z")["items"].as_array().unwrap().clone();
    let essay = exam_noon.iter().find(|i| i["title"] == "高考作文").unwrap_or_else(|| panic!("{exam_noon:?}"));
    assert_eq!((essay["source"].as_str(), essay["groupLine"].as_i64()), (Some("weibo"), Some(3)));
    assert!(essay["alsoOn"].as_array().unwrap().contains(&json!("baidu")), "{essay}");
    let maths = &at("2024-06-08T00:00:00Z")["items"][0];
    assert_eq!((maths["title"].as_str(), maths["source"].as_str()), (Some("高考数学"), Some("weibo")));
    assert_eq!(maths["alsoOn"].as_array().unwrap().len(), 5, "{maths}");

    // The delivery log: two lines a digest, and two a refused run; one
    // point a delivered digest, charged once.
    let (status, body) = service.get("/api/watchlists/exams/deliveries?limit=200").await;
    let log = success(status, &body)["items"].as_array().unwrap().clone();
    let delivered: Vec<&Value> = log.iter().filter(|l| l["status"] == "delivered").collect();
    let failed: Vec<&Value> = log.iter().filter(|l| l["status"] == "failed").collect();
    assert_eq!(delivered.len(), digests.len() * 2);
    assert_eq!((failed.len() as u64, delivered.len() + failed.len()), (refused_runs, log.len()), "{log:?}");
    assert!(failed.iter().all(|l| l["points"] == 0 && !l["lastError"].as_str().unwrap().is_empty()), "{failed:?}");
    assert!(delivered.iter().filter(|l| l["channel"] == 1).all(|l| l["attempts"] == 2), "the flaky one was retried");
    assert_eq!(log.iter().map(|l| l["points"].as_i64().unwrap()).sum::<i64>(), digests.len() as i64);
    let (status, body) = service.get("/api/account/balance").await;
    let balance = success(status, &body);
    assert_eq!(balance["points"].as_i64().unwrap(), common::BOOTSTRAP_POINTS - digests.len() as i64, "{balance}");

    // No points: paused at its first digest, visibly, and nothing was sent for it.
    assert_eq!(poor["state"], "paused_insufficient_points", "{poor}");
    assert!(poor["stateReason"].as_str().unwrap().contains("balance is 0"), "{poor}");
    assert!(poor["nextRunAt"].is_null());
    let (status, body) =
        service.call_with_key(reqwest::Method::GET, "/api/watchlists/exams/deliveries", None, Some(POOR_KEY)).await;
    let poor_log = success(status, &body)["items"].as_array().unwrap().clone();
    assert_eq!(poor_log.len(), 2);
    assert!(poor_log.iter().all(|l| l["status"] == "insufficient_points" && l["points"] == 0));

    // Delete: gone with its log.
    let (status, body) = service.call(reqwest::Method::DELETE, "/api/watchlists/exams", None).await;
    assert_eq!(success(status, &body)["deleted"], true);
    let (status, body) = service.get("/api/watchlists/exams/deliveries").await;
    failure(status, &body, 404, "not_found");
    let (status, body) = service.call(reqwest::Method::DELETE, "/api/watchlists/exams", None).await;
    failure(status, &body, 404, "not_found");
    service.running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_channel_without_its_settings_is_not_configured() {
    let service = Service::start().await;
    let mut body = watchlist("https://example.com");
    body["channels"] = json!([{"type": "email", "to": ["ops@example.com"]}]);
    let (status, answer) = put(&service, KEY, "robots", body).await;
    assert_eq!(failure(status, &answer, 503, "not_configured")["field"], "channels[0].type");
}
