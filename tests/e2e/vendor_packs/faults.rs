//! Vendor faults through the packs (docs/vendors.md "A call", "Default
//! chains"): 4xx, 5xx, 429, timeouts, malformed JSON and unsuccessful
//! business codes, each with its documented status and the charge released;
//! a search whose vendor fails, or whose vendor's circuit is open, is
//! answered from the store with a warning that says so; a lookup reads the
//! store while its record is fresh, else the vendor, else the older record.
//!
//! The searched operation is TikHub's `videosite.search-work`, whose route
//! is read from the pack, answered by the recorded Bilibili search.

use std::time::Duration;

use serde_json::{Value, json};

use super::{VendorSettings, pack_service_with};
use crate::common::vendor_replay::{Fault, VendorReplay, recorded};
use crate::common::{Service, failure, import_bilibili_feed, success};

const SEARCH: &str = "/api/apis/videosite/search-work/call";

/// The TikHub route of `videosite.search-work`, from the pack.
fn search_route() -> String {
    let pack = mediaops_connectors::vendors::packs::pack("tikhub").unwrap();
    let file = mediaops_connectors::vendors::packs::parse(pack).unwrap();
    file.operations["videosite.search-work"].path.trim_start_matches('/').to_owned()
}

/// An override of the pack (a file named `tikhub` in `[vendors] files`):
/// one-second timeouts, no retries, and the breaker `breaker`.
fn quick(breaker: &'static str) -> impl FnOnce(&mut VendorSettings, &std::path::Path) {
    move |vendors, dir| {
        let path = dir.join("tikhub-quick.toml");
        std::fs::write(&path, format!("name = \"tikhub\"\ntimeout_secs = 1\nretries = 0\n[breaker]\n{breaker}\n"))
            .unwrap();
        vendors.files.push(path);
    }
}

async fn points(service: &Service) -> i64 {
    service.get("/api/account/balance").await.1["data"]["points"].as_i64().unwrap()
}

async fn search(service: &Service, keyword: &str) -> (u16, Value) {
    service.post(SEARCH, json!({"keyword": keyword})).await
}

#[tokio::test]
async fn enabling_the_pack_routes_a_search_to_the_vendor_first() {
    let replay = VendorReplay::start(&[recorded("tikhub")], &[]).await;
    let route = search_route();
    let (service, _files) = pack_service_with("tikhub", &replay, tempfile::tempdir().unwrap(), |_, _| {}).await;
    let (status, body) = search(&service, "火影").await;
    assert!(!success(status, &body)["items"].as_array().unwrap().is_empty(), "{body}");
    let seen = replay.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        (seen[0].route.as_str(), seen[0].query.get("keyword").map(String::as_str)),
        (route.as_str(), Some("火影"))
    );
    // The same request again: the answer cache (cache_ttl_secs), no new request.
    let (status, body) = search(&service, "火影").await;
    success(status, &body);
    assert_eq!(replay.seen().len(), 1);
    // Both show in the vendor metrics (docs/metrics.md "Vendors").
    let metrics = service.http.get(format!("{}/metrics", service.grpc)).send().await.unwrap().text().await.unwrap();
    let series = |name: &str| {
        let prefix = format!("mediaops_{name}_total{{vendor=\"tikhub\",operation=\"videosite.search-work\"}} ");
        metrics.lines().find_map(|l| l.strip_prefix(&prefix).map(str::to_owned)).unwrap_or_else(|| panic!("{prefix}"))
    };
    assert_eq!((series("vendor_requests"), series("vendor_cache_hits")), ("1".to_owned(), "1".to_owned()));
}

#[tokio::test]
async fn every_vendor_fault_gives_its_documented_status_and_releases_the_charge() {
    let replay = VendorReplay::start(&[recorded("tikhub")], &[]).await;
    let route = search_route();
    // The breaker never opens here, so each fault reaches the vendor.
    let (service, _files) =
        pack_service_with("tikhub", &replay, tempfile::tempdir().unwrap(), quick("failures = 0")).await;
    let before = points(&service).await;
    // (fault, HTTP status, error code, `error.upstream.code`) per the pack's
    // `[reply]` rules and docs/vendors.md "A call".
    let cases = [
        (Fault::Status(400), 502, "upstream_unavailable", Some("400")),
        (Fault::Status(401), 502, "upstream_unavailable", Some("401")),
        (Fault::Status(500), 502, "upstream_unavailable", Some("500")),
        (Fault::Status(429), 502, "upstream_unavailable", Some("429")),
        (Fault::Delay(Duration::from_secs(3)), 502, "upstream_unavailable", Some("timeout")),
        (Fault::Malformed, 502, "upstream_unavailable", None),
        (Fault::Code(500), 502, "upstream_unavailable", Some("500")),
        (Fault::Code(429), 502, "upstream_unavailable", Some("429")),
        (Fault::Code(402), 502, "upstream_unavailable", Some("402")),
        (Fault::Code(400), 400, "invalid_input", Some("400")),
    ];
    let count = cases.len();
    for (fault, status, code, upstream) in cases {
        replay.set_fault(&route, Some(fault.clone()));
        let started = std::time::Instant::now();
        // A keyword the store does not hold: no fallback answers.
        let (got, body) = search(&service, "no-such-keyword-anywhere").await;
        let error = failure(got, &body, status, code);
        if let Some(upstream) = upstream {
            assert_eq!(error["upstream"]["code"], upstream, "{fault:?}: {body}");
        }
        assert!(body.get("warnings").is_none(), "{fault:?}: nothing answered, so nothing to warn about: {body}");
        assert_eq!(points(&service).await, before, "{fault:?}: the charge is released");
        println!("{fault:?}: {got} in {:?}", started.elapsed());
    }
    let seen = replay.seen().iter().filter(|s| s.route == route).count();
    assert_eq!(seen, count, "one vendor request per call, no retries");

    // The vendor's "not found" (the pack's 404 rule) is a miss: the chain
    // goes on to the store, whose empty answer stands.
    replay.set_fault(&route, Some(Fault::Code(404)));
    let (status, body) = search(&service, "no-such-keyword-anywhere").await;
    assert_eq!(success(status, &body)["items"], json!([]), "{body}");
}

#[tokio::test]
async fn a_search_whose_vendor_fails_is_answered_from_the_store_with_a_warning() {
    let replay = VendorReplay::start(&[recorded("tikhub")], &[]).await;
    let route = search_route();
    let data_dir = tempfile::tempdir().unwrap();
    import_bilibili_feed(data_dir.path(), &["2023-10-27"]).await;
    let (service, _files) = pack_service_with("tikhub", &replay, data_dir, quick("failures = 0")).await;

    // The vendor first: its (recorded) answer, no warning. (Another keyword
    // than below: answers are cached per request.)
    let (status, body) = search(&service, "火影").await;
    let fresh = success(status, &body);
    assert!(body.get("warnings").is_none(), "{body}");
    assert_eq!(replay.seen().iter().filter(|s| s.route == route).count(), 1);

    replay.set_fault(&route, Some(Fault::Status(503)));
    let before = points(&service).await;
    let (status, body) = search(&service, "史记").await;
    let stored = success(status, &body);
    assert_ne!(stored, fresh, "the store's answer, not the vendor's");
    assert!(stored["items"].as_array().is_some_and(|items| !items.is_empty()), "{body}");
    let warnings = body["warnings"].as_array().unwrap_or_else(|| panic!("a warning: {body}"));
    let warning = warnings[0].as_str().unwrap();
    assert!(warning.contains("upstream:tikhub failed") && warning.contains("store"), "{warning}");
    assert!(points(&service).await < before, "an answer from the store is an answer: it is charged");
    assert_eq!(replay.seen().iter().filter(|s| s.route == route).count(), 2, "the vendor was asked first");
}

#[tokio::test]
async fn while_the_vendors_circuit_is_open_a_search_is_answered_from_the_store() {
    let replay = VendorReplay::start(&[recorded("tikhub")], &[]).await;
    let route = search_route();
    let data_dir = tempfile::tempdir().unwrap();
    import_bilibili_feed(data_dir.path(), &["2023-10-27"]).await;
    let (service, _files) =
        pack_service_with("tikhub", &replay, data_dir, quick("failures = 1\nopen_secs = 600")).await;

    replay.set_fault(&route, Some(Fault::Status(500)));
    let (status, body) = search(&service, "史记").await;
    success(status, &body);
    replay.set_fault(&route, None);
    let asked = replay.seen().len();

    let (status, body) = search(&service, "史记").await;
    assert!(!success(status, &body)["items"].as_array().unwrap().is_empty(), "{body}");
    assert_eq!(replay.seen().len(), asked, "an open circuit is not called");
    let warning = body["warnings"][0].as_str().unwrap_or_else(|| panic!("a warning: {body}"));
    assert!(warning.contains("upstream:tikhub failed") && warning.contains("not called"), "{warning}");

    // Nothing in the store either: the open circuit's 502, charge released.
    let before = points(&service).await;
    let (status, body) = search(&service, "no-such-keyword-anywhere").await;
    assert_eq!(failure(status, &body, 502, "upstream_unavailable")["upstream"]["code"], "circuit_open");
    assert_eq!(points(&service).await, before);
}

/// The TikHub route of `videosite.query-work` (a lookup), from the pack.
fn lookup_route() -> String {
    let pack = mediaops_connectors::vendors::packs::pack("tikhub").unwrap();
    let file = mediaops_connectors::vendors::packs::parse(pack).unwrap();
    file.operations["videosite.query-work"].path.trim_start_matches('/').to_owned()
}

#[tokio::test]
async fn a_lookup_reads_the_store_while_its_record_is_fresh_else_the_vendor() {
    // No recording of this route: the fake vendor answers 404 (a 502).
    let replay = VendorReplay::start(&[recorded("tikhub")], &[]).await;
    let route = lookup_route();
    let data_dir = tempfile::tempdir().unwrap();
    // The archived feed of 2023: older than any max_age_secs.
    import_bilibili_feed(data_dir.path(), &["2023-10-27"]).await;
    let store = mediaops_store::sqlite::SqliteStore::open(&data_dir.path().join("store.sqlite")).await.unwrap();
    let fresh = mediaops_store::import::jsonl::parse_value(json!({
        "type": "workSnapshot", "platform": "videosite", "platformId": "BV1cM41197ui",
        "capturedAt": chrono::Utc::now().to_rfc3339(), "likes": 7, "views": 70,
    }))
    .unwrap();
    use mediaops_store::ContentStore;
    assert!(store.write(&[fresh]).await.unwrap().iter().all(Result::is_ok));
    drop(store);
    let (service, _files) = pack_service_with("tikhub", &replay, data_dir, quick("failures = 0")).await;
    let lookup = |bv: &'static str| service.post("/api/apis/videosite/query-work/call", json!({"bvId": bv}));

    // Captured just now: the store answers, the vendor is not asked.
    let (status, body) = lookup("BV1cM41197ui").await;
    assert_eq!(success(status, &body)["item"]["likeCount"], 7, "{body}");
    assert!(body.get("warnings").is_none(), "{body}");
    assert!(replay.seen().iter().all(|s| s.route != route), "a fresh record needs no vendor");

    // A record of 2023 only: the vendor is asked; it fails, so the older
    // stored record answers, with a warning that says so.
    let stale = {
        let feed =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/works/bilibili/2023-10-27/list.json");
        let list: Value = serde_json::from_str(&std::fs::read_to_string(feed).unwrap()).unwrap();
        list["list"][1]["bvid"].as_str().unwrap().to_owned()
    };
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": stale})).await;
    assert_eq!(success(status, &body)["item"]["bvId"], stale.as_str(), "{body}");
    assert_eq!(replay.seen().iter().filter(|s| s.route == route).count(), 1, "a stale record asks the vendor");
    let warning = body["warnings"][0].as_str().unwrap_or_else(|| panic!("a warning: {body}"));
    assert!(warning.contains("upstream:tikhub failed") && warning.contains("2023-10-2"), "{warning}");
}
