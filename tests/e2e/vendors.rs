//! Declarative vendor mappings and source chains (docs/vendors.md) against a local fake vendor that answers in TikHub's
//! documented envelope (`{code, message, data}`), over a store holding the
//! real archived Bilibili popular feed.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::routing::get;
use common::{BOOTSTRAP_POINTS, Service, failure, success};
use mediaops_connectors::vendors::settings::VendorSettings;
use serde_json::{Value, json};

/// What the fake vendor received: path, query and `authorization`, in order.
type Seen = Arc<Mutex<Vec<(String, HashMap<String, String>, Option<String>)>>>;

/// The fake vendor: `/search` answers per keyword (`slow` sleeps 3 s, `bad`
/// answers a shape the mapping does not fit, `code-<n>` answers business
/// code n), `/video` finds `BVvendor1` only.
async fn fake_vendor() -> (String, Seen) {
    async fn search(
        State(seen): State<Seen>,
        headers: HeaderMap,
        Query(q): Query<HashMap<String, String>>,
    ) -> axum::Json<Value> {
        let auth = headers.get("authorization").map(|v| v.to_str().unwrap().to_owned());
        seen.lock().unwrap().push(("/search".into(), q.clone(), auth));
        let keyword = q.get("keyword").cloned().unwrap_or_default();
        if keyword == "slow" {
            tokio::time::sleep(Duration::from_secs(3)).await;
        }
        if let Some(code) = keyword.strip_prefix("code-") {
            let message = match code {
                "3203" => "请求参数 category 不合法",
                "429" => "Too many requests",
                _ => "接口执行异常",
            };
            return axum::Json(json!({"code": code.parse::<i64>().unwrap(), "message": message, "data": null}));
        }
        let results = if keyword == "bad" {
            json!([{"title": "x", "like": "many"}])
        } else if keyword == "nothing" {
            json!([])
        } else {
            json!([{"title": format!("{keyword} 的视频一"), "like": 120}, {"title": format!("{keyword} 的视频二"), "like": 7}])
        };
        axum::Json(json!({
            "code": 200,
            "message": "Request successful. This request will incur a charge.",
            "data": {"data": {"numResults": 1000, "result": results}}
        }))
    }
    async fn video(State(seen): State<Seen>, Query(q): Query<HashMap<String, String>>) -> axum::Json<Value> {
        seen.lock().unwrap().push(("/video".into(), q.clone(), None));
        if q.get("bv_id").map(String::as_str) == Some("BVvendor1") {
            return axum::Json(json!({"code": 200, "message": "ok", "data": {"data": {
                "bvid": "BVvendor1", "title": "来自数据商", "owner": {"name": "商家", "mid": 42},
                "stat": {"view": 10, "like": 2, "coin": 1, "favorite": 3, "share": 4, "reply": 5, "danmaku": 6}
            }}}));
        }
        axum::Json(json!({"code": 404, "message": "video not found", "data": null}))
    }
    let seen = Seen::default();
    let app = axum::Router::new().route("/search", get(search)).route("/video", get(video)).with_state(seen.clone());
    let base = common::serve_locally(app).await;
    (base, seen)
}

/// The fake vendor's error rules, breaker and operations.
const MAPPING: &str = r#"
[[reply.errors]]
codes = ["3203"]
outcome = "invalid_input"

[[reply.errors]]
codes = ["404"]
outcome = "not_found"

[[reply.errors]]
codes = ["429"]
retry_after_secs = 60
breaker = false

[breaker]
failures = 2
open_secs = 60

[operations."videosite.search-work"]
path = "/search"
query = '{keyword: .keyword, page: (if .page > 0 then .page else 1 end)}'
response = '{items: [.data.data.result[] | {title: .title, likeCount: .like}], total: .data.data.numResults}'

[operations."videosite.query-work"]
path = "/video"
query = '{bv_id: .bvId}'
response = '.data.data | {item: {bvId: .bvid, title: .title, authorName: .owner.name, playCount: .stat.view, likeCount: .stat.like, favoriteCount: .stat.favorite, shareCount: .stat.share, commentCount: .stat.reply}}'
store = '.data.data | [{type: "account", platform: "videosite", platformId: (.owner.mid | tostring), ids: {mid: (.owner.mid | tostring)}, nickname: .owner.name}, {type: "work", platform: "videosite", platformId: .bvid, ids: {bvId: .bvid}, title: .title, authorId: (.owner.mid | tostring)}, {type: "workSnapshot", platform: "videosite", platformId: .bvid, likes: .stat.like, views: .stat.view, collects: .stat.favorite, shares: .stat.share, comments: .stat.reply}]'
"#;

/// The mapping file of the fake vendor, written into `dir`.
fn mapping(dir: &std::path::Path, base: &str) -> std::path::PathBuf {
    common::fakehub_mapping(dir, base, 1, MAPPING)
}

/// A service over the archived feed whose chains are `sources`.
async fn service(sources: &[(&str, &str)]) -> (Service, Seen, tempfile::TempDir) {
    let (base, seen) = fake_vendor().await;
    let files = tempfile::tempdir().unwrap();
    let vendors = VendorSettings {
        files: vec![mapping(files.path(), &base)],
        sources: sources.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        ..VendorSettings::default()
    };
    let dir = tempfile::tempdir().unwrap();
    common::import_bilibili_feed(dir.path(), &["2023-10-27"]).await;
    let service = Service::start_with(dir, |core| core.vendors = vendors).await;
    (service, seen, files)
}

async fn search(service: &Service, keyword: &str) -> (u16, Value) {
    service.post("/api/apis/videosite/search-work/call", json!({"keyword": keyword})).await
}

async fn points(service: &Service) -> i64 {
    service.get("/api/account/balance").await.1["data"]["points"].as_i64().unwrap()
}

#[tokio::test]
async fn a_store_hit_never_calls_the_vendor_and_a_miss_falls_through() {
    let (service, seen, _files) = service(&[("videosite.search-work", "store,upstream:fakehub")]).await;
    let (status, body) = search(&service, "史记").await;
    let stored = success(status, &body);
    assert!(!stored["items"].as_array().unwrap().is_empty());
    assert!(seen.lock().unwrap().is_empty(), "a store hit never calls the vendor");

    let (status, body) = search(&service, "露营车").await;
    assert_eq!(
        success(status, &body),
        json!({"items": [{"title": "露营车 的视频一", "likeCount": 120}, {"title": "露营车 的视频二", "likeCount": 7}], "total": 1000})
    );
    let calls = seen.lock().unwrap().clone();
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].1["keyword"].as_str(), calls[0].1["page"].as_str()), ("露营车", "1"));
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - 8);

    // Empty everywhere: the store's empty answer, still a success.
    let (status, body) = search(&service, "nothing").await;
    assert_eq!(success(status, &body)["items"], json!([]));
}

#[tokio::test]
async fn vendor_codes_map_as_documented_and_failures_are_not_charged() {
    let (service, _seen, _files) =
        service(&[("videosite.search-work", "upstream:fakehub"), ("videosite.query-work", "store,upstream:fakehub")])
            .await;
    let (status, body) = search(&service, "code-3203").await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["upstream"], json!({"code": "3203", "message": "请求参数 category 不合法"}));

    let (status, body) = search(&service, "code-500").await;
    let error = failure(status, &body, 502, "upstream_unavailable");
    assert_eq!(error["upstream"], json!({"code": "500", "message": "接口执行异常"}));

    let (status, body) = search(&service, "code-429").await;
    let error = failure(status, &body, 502, "upstream_unavailable");
    assert!(error["message"].as_str().unwrap().contains("retry in 60 s"), "{error}");

    let (status, body) = search(&service, "bad").await;
    let error = failure(status, &body, 502, "upstream_unavailable");
    assert!(error["message"].as_str().unwrap().contains("does not fit"), "{error}");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS, "no failure is charged");

    // A store miss asks the vendor; the vendor's miss is a 404, uncharged.
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": "BVvendor1"})).await;
    let item = success(status, &body)["item"].clone();
    assert_eq!(
        (item["title"].as_str(), item["authorName"].as_str(), &item["playCount"]),
        (Some("来自数据商"), Some("商家"), &json!(10))
    );
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": "BVnowhere1"})).await;
    failure(status, &body, 404, "not_found");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - 4);
}

#[tokio::test]
async fn a_dead_vendor_answers_fast_once_its_circuit_opens() {
    let (service, seen, _files) =
        service(&[("videosite.search-work", "upstream:fakehub"), ("videosite.query-work", "store,upstream:fakehub")])
            .await;
    for _ in 0..2 {
        let (status, body) = search(&service, "slow").await;
        let error = failure(status, &body, 502, "upstream_unavailable");
        assert_eq!(error["upstream"]["code"], "timeout", "{error}");
    }
    // Answered by the vendor alone: under maintenance while its circuit is open.
    let (status, body) = search(&service, "露营").await;
    let error = failure(status, &body, 503, "maintenance");
    assert!(error["message"].as_str().unwrap().contains("fakehub"), "{error}");
    let (_, apis) = service.get("/api/apis?platform=videosite").await;
    let entry = apis["data"]["items"].as_array().unwrap().iter().find(|e| e["slug"] == "search-work").unwrap().clone();
    assert_eq!(entry["availability"]["status"], "maintenance");
    assert_eq!(entry["execution"]["mode"], "unavailable");

    // Store first: the store still answers; a miss meets the open circuit.
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": "BVvendor1"})).await;
    let error = failure(status, &body, 502, "upstream_unavailable");
    assert_eq!(error["upstream"]["code"], "circuit_open", "{error}");
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": "BV1cM41197ui"})).await;
    success(status, &body);
    assert_eq!(seen.lock().unwrap().len(), 2, "an open circuit does not call the vendor");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - 4, "only the store's answer is charged");
}

#[tokio::test]
async fn an_upstream_only_chain_leaves_the_store_out() {
    let (service, seen, _files) = service(&[("videosite.search-work", "upstream:fakehub")]).await;
    let (status, body) = search(&service, "史记").await;
    assert_eq!(success(status, &body)["items"][0]["title"], "史记 的视频一", "the store holds 史记 but is not asked");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn bad_mappings_and_chains_are_refused_at_start() {
    let (base, _) = fake_vendor().await;
    let files = tempfile::tempdir().unwrap();
    let good = mapping(files.path(), &base);
    let text = std::fs::read_to_string(&good).unwrap();
    let variant = |name: &str, from: &str, to: &str| {
        let path = files.path().join(name);
        std::fs::write(&path, text.replace(from, to)).unwrap();
        path
    };
    // Operations of several calls (docs/vendors.md "Several calls").
    let appended = |name: &str, more: &str| {
        let path = files.path().join(name);
        std::fs::write(&path, format!("{text}\n{more}")).unwrap();
        path
    };
    let calls = |head: &str, call: &str| {
        format!(
            "[operations.\"videosite.search-user\"]\n{head}\n[[operations.\"videosite.search-user\".calls]]\n{call}\n"
        )
    };
    let cases = [
        (
            appended(
                "refresh.toml",
                &calls(
                    "path = \"/x\"\nrefresh = true",
                    "operation = \"videosite.query-work\"\nrequest = '{bvId: .keyword}'",
                ),
            ),
            vec![],
            "a refresh makes its calls and leaves the answer to the store",
        ),
        (
            appended(
                "unmapped.toml",
                &calls("response = '{items: []}'", "operation = \"videosite.query-account\"\nrequest = '{}'"),
            ),
            vec![],
            "operation videosite.query-account is not mapped by this file",
        ),
        (
            appended("route.toml", &calls("response = '{items: []}'", "route = \"nothing\"\nrequest = '{}'")),
            vec![],
            "no route nothing in [routes]",
        ),
        (
            appended("noanswer.toml", &calls("", "operation = \"videosite.query-work\"\nrequest = '{}'")),
            vec![],
            "response (the jq filter giving our answer) is missing",
        ),
        (variant("op.toml", "videosite.query-work", "videosite.no-such-op"), vec![], "does not exist"),
        (
            variant("jq.toml", "total: .data.data.numResults", "total: .data.data.numResults |"),
            vec![],
            "does not compile",
        ),
        (variant("path.toml", "path = \"/video\"", "path = \"/video/{noSuchField}\""), vec![], "noSuchField"),
        (good.clone(), vec![("videosite.search-work", "upstream:other")], "no vendor file names other"),
        (good.clone(), vec![("videosite.search-user", "upstream:fakehub")], "does not map"),
        (good.clone(), vec![("videosite.search-work", "upstream:fakehub,store:fresh")], "store:fresh comes first"),
        (good.clone(), vec![("videosite.search-work", "store,upstream:fakehub,store")], "the store comes once"),
        (good.clone(), vec![("articles.render", "upstream:fakehub")], "does not map"),
    ];
    for (file, sources, expected) in cases {
        let settings = core_service::CoreSettings {
            data_dir: tempfile::tempdir().unwrap().keep(),
            vendors: VendorSettings {
                files: vec![file],
                sources: sources.into_iter().map(|(k, v): (&str, &str)| (k.to_owned(), v.to_owned())).collect(),
                ..VendorSettings::default()
            },
            ..core_service::CoreSettings::default()
        };
        let error = match core_service::Core::open(&settings).await {
            Ok(_) => panic!("{expected}: the core started"),
            Err(e) => format!("{e:#}"),
        };
        assert!(error.contains(expected), "{expected} not in {error}");
    }
}

#[tokio::test]
async fn the_key_goes_where_the_vendor_wants_it_and_comes_from_the_environment() {
    use mediaops::proto::mediaops::videosite::v1::SearchWorkRequest;
    use mediaops_connectors::vendors::Vendor;
    use mediaops_platform::registry::Registry;
    use prost::Message;

    let (base, seen) = fake_vendor().await;
    let files = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(mapping(files.path(), &base)).unwrap();
    let registry = Registry::from_pool(mediaops::proto::descriptor_pool()).unwrap();
    let outbound = mediaops_connectors::outbound::OutboundSettings::default();
    let env = |name: &str| (name == "FAKEHUB_KEY").then(|| "secret-123".to_owned());
    let request =
        bytes::Bytes::from(SearchWorkRequest { keyword: "露营".into(), ..Default::default() }.encode_to_vec());

    for (auth, expected_header, expected_query) in [
        (r#"{ kind = "bearer", token_env = "FAKEHUB_KEY" }"#, Some("Bearer secret-123"), None),
        (r#"{ kind = "query", name = "token", token_env = "FAKEHUB_KEY" }"#, None, Some("secret-123")),
    ] {
        let path = files.path().join("auth.toml");
        std::fs::write(&path, text.replace(r#"{ kind = "none" }"#, auth)).unwrap();
        let vendor = Vendor::load(&path, &registry, &outbound, &env, &Default::default()).unwrap();
        let operation = vendor.operation("videosite.search-work").unwrap();
        vendor.call(&operation, request.clone()).await.unwrap();
        let (_, query, header) = seen.lock().unwrap().pop().unwrap();
        assert_eq!(header.as_deref(), expected_header);
        assert_eq!(query.get("token").map(String::as_str), expected_query);
    }

    let path = files.path().join("unset.toml");
    std::fs::write(&path, text.replace(r#"{ kind = "none" }"#, r#"{ kind = "bearer", token_env = "UNSET_KEY" }"#))
        .unwrap();
    let error = Vendor::load(&path, &registry, &outbound, &env, &Default::default()).unwrap_err().to_string();
    assert!(error.contains("UNSET_KEY") && !error.contains("secret"), "{error}");
}

#[test]
fn the_packs_load() {
    let registry = mediaops_platform::registry::Registry::from_pool(mediaops::proto::descriptor_pool()).unwrap();
    let outbound = mediaops_connectors::outbound::OutboundSettings::default();
    let env = |name: &str| ["TIKHUB_API_KEY", "JUSTONEAPI_TOKEN"].contains(&name).then(|| "example-key".to_owned());
    for pack in mediaops_connectors::vendors::packs::PACKS {
        let file = mediaops_connectors::vendors::packs::parse(pack).unwrap_or_else(|e| panic!("{e:#}"));
        let vendor =
            mediaops_connectors::vendors::Vendor::from_file(file, &registry, &outbound, &env, &Default::default())
                .unwrap_or_else(|e| panic!("{}: {e:#}", pack.name));
        assert_eq!(vendor.name(), pack.name);
        assert!(vendor.operation_keys().count() >= 3, "{}", pack.name);
    }
}

#[tokio::test]
async fn with_redis_every_core_shares_the_answer_cache() {
    use mediaops::proto::mediaops::videosite::v1::SearchWorkRequest;
    use mediaops_connectors::vendors::Vendor;
    use mediaops_connectors::vendors::cache::CacheBackend;
    use mediaops_platform::registry::Registry;
    use prost::Message;

    let (base, seen) = fake_vendor().await;
    let files = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(mapping(files.path(), &base)).unwrap();
    let path = files.path().join("cached.toml");
    std::fs::write(&path, text.replace("path = \"/search\"", "path = \"/search\"\ncache_ttl_secs = 60")).unwrap();
    let registry = Registry::from_pool(mediaops::proto::descriptor_pool()).unwrap();
    let outbound = mediaops_connectors::outbound::OutboundSettings::default();
    let url = std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("mediaops-test-{}", uuid::Uuid::new_v4().simple());
    let core = async || {
        let cache = CacheBackend::redis(&url, &prefix).await.unwrap();
        Vendor::load(&path, &registry, &outbound, &|_| None, &cache).unwrap()
    };
    let (a, b) = (core().await, core().await);
    let ask = |keyword: &str| {
        bytes::Bytes::from(SearchWorkRequest { keyword: keyword.into(), ..Default::default() }.encode_to_vec())
    };

    let first = a.call(&a.operation("videosite.search-work").unwrap(), ask("露营")).await.unwrap();
    let again = b.call(&b.operation("videosite.search-work").unwrap(), ask("露营")).await.unwrap();
    assert_eq!(first, again);
    assert_eq!(seen.lock().unwrap().len(), 1, "the second core answered from the shared cache");
    b.call(&b.operation("videosite.search-work").unwrap(), ask("徒步")).await.unwrap();
    assert_eq!(seen.lock().unwrap().len(), 2, "another request is not a hit");

    let mut redis = redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{prefix}:*")).query_async(&mut redis).await.unwrap();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|k| k.starts_with(&format!("{prefix}:vcache:fakehub:videosite.search-work:"))));
    redis::cmd("DEL").arg(&keys).query_async::<()>(&mut redis).await.unwrap();
}

#[tokio::test]
async fn a_found_vendor_answer_is_written_back_and_the_store_answers_next() {
    let (service, seen, _files) = service(&[("videosite.query-work", "store,upstream:fakehub")]).await;
    let ask = || service.post("/api/apis/videosite/query-work/call", json!({"bvId": "BVvendor1"}));
    let (status, body) = ask().await;
    assert_eq!(success(status, &body)["item"]["title"], "来自数据商");
    assert_eq!(seen.lock().unwrap().len(), 1);

    // The write-back runs in the background: wait for the store to answer.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let before = seen.lock().unwrap().len();
        let (status, body) = ask().await;
        let item = success(status, &body)["item"].clone();
        if seen.lock().unwrap().len() == before {
            assert_eq!(
                (item["title"].as_str(), item["authorName"].as_str(), &item["playCount"], &item["likeCount"]),
                (Some("来自数据商"), Some("商家"), &json!(10), &json!(2)),
                "the stored work, its author and its snapshot"
            );
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the answer was never written back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
