//! The TikHub pack's operations of several calls (docs/vendors.md "Several
//! calls"): steps (a search gives the id the final call takes), fan-outs
//! (one call per item or per platform) and refreshes (the calls write fresh
//! records, then the store answers from them).
//!
//! Each call goes over REST against the fake vendor, using the recorded
//! replies where TikHub's route was recorded (Xiaohongshu profile and
//! search, Douyin and Bilibili search) and the fixtures of
//! `tests/fixtures/vendors/tikhub` otherwise. It checks the rows, the
//! price charged once whatever the number of vendor calls, the requests
//! TikHub received in order, and the records in the store.

use mediaops_store::ContentStore;
use mediaops_store::model::HotListQuery;
use serde_json::{Value, json};

use super::tikhub_articles_video::{points, query, store_of, written_account, written_work};
use super::{alone, set_vendor_keys};
use crate::common::vendor_replay::{Seen, VendorReplay, fixtures, recorded};
use crate::common::{Service, success};

/// A service with the TikHub pack against the fake vendor, every operation
/// it maps answered by TikHub (a refresh: TikHub, then the store), its
/// clock at `now` when given (`MEDIAOPS_NOW`).
async fn tikhub_at(now: Option<&str>) -> (Service, VendorReplay) {
    tikhub_on(now, None, None).await
}

/// [`tikhub_at`], the state in the PostgreSQL database `database_url` when
/// given (else the data directory's SQLite file), the ledger in Redis under
/// `redis_prefix` when given (else the data directory's).
async fn tikhub_on(
    now: Option<&str>,
    database_url: Option<&str>,
    redis_prefix: Option<&str>,
) -> (Service, VendorReplay) {
    set_vendor_keys();
    let replay = VendorReplay::start(&[recorded("tikhub"), fixtures("tikhub")], &[]).await;
    let file = mediaops_connectors::vendors::packs::parse(mediaops_connectors::vendors::packs::pack("tikhub").unwrap())
        .unwrap();
    let vendors = mediaops_connectors::vendors::settings::VendorSettings {
        packs: vec!["tikhub".to_owned()],
        base_urls: [("tikhub".to_owned(), replay.base.clone())].into(),
        sources: alone(&file, "tikhub"),
        ..Default::default()
    };
    let service = Service::start_with(tempfile::tempdir().unwrap(), |core| {
        core.vendors = vendors;
        core.now = now.map(str::to_owned);
        core.database_url = database_url.map(str::to_owned);
        if let Some(prefix) = redis_prefix {
            core.redis_url = Some(crate::common::process::redis_url());
            core.redis_prefix = prefix.to_owned();
        }
    })
    .await;
    (service, replay)
}

/// Calls `path` with `body`, checks it answered and cost `price` points
/// exactly once, and gives its `data` and the requests TikHub received for
/// it, in order.
async fn call(service: &Service, replay: &VendorReplay, path: &str, body: Value, price: i64) -> (Value, Vec<Seen>) {
    let before_points = points(service).await;
    let before_seen = replay.seen().len();
    let (status, reply) = service.post(path, body).await;
    let data = success(status, &reply);
    assert_eq!(before_points - points(service).await, price, "{path} is charged its price once");
    (data, replay.seen()[before_seen..].to_vec())
}

/// A recorded TikHub reply, by route and file name.
fn recording(route: &str, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(recorded("tikhub").join(route).join(file)).unwrap()).unwrap()
}

fn routes(seen: &[Seen]) -> Vec<&str> {
    seen.iter().map(|s| s.route.as_str()).collect()
}

fn titles(items: &Value) -> Vec<&str> {
    items.as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn steps_find_the_id_the_final_call_takes() {
    let (service, replay) = tikhub_at(None).await;
    let store = store_of(&service).await;

    // WeChat Channels by exact nickname: the user search gives the username,
    // the home page the works.
    let (data, seen) =
        call(&service, &replay, "/api/apis/channels/user-works/call", json!({"nickname": "样例陈皮小店"}), 4).await;
    assert_eq!(routes(&seen), ["api/v1/wechat_channels/fetch_user_search", "api/v1/wechat_channels/fetch_home_page"]);
    assert_eq!(query(&seen[0]), [("keywords", "样例陈皮小店"), ("page", "1")]);
    assert_eq!(
        (seen[1].method.as_str(), &seen[1].body),
        ("POST", &json!({"username": "v2_fixture0001@finder", "last_buffer": ""}))
    );
    assert_eq!(data["total"], 2);
    let first = &data["items"][0];
    assert_eq!(
        (first["videoId"].as_str(), first["description"].as_str(), first["likeCount"].as_i64()),
        (Some("14000000000000000001"), Some("样例陈皮冲泡第二行"), Some(321))
    );
    assert_eq!(first["publishTime"], "2025-11-28 11:20:00");
    let work = written_work(&store, "channels", "14000000000000000001").await;
    assert_eq!(work.work.author_id.as_deref(), Some("v2_fixture0001@finder"));
    assert_eq!(work.latest.unwrap().likes, Some(321));

    // The catalog shows where its answers come from (the workbench's 数据来源).
    let (status, body) = service.get("/api/apis?platform=channels").await;
    let apis = success(status, &body);
    let entry = apis["items"].as_array().unwrap().iter().find(|e| e["operationKey"] == "channels.user-works").unwrap();
    assert_eq!(entry["dataSources"], json!({"kind": "lookup", "chain": ["upstream:tikhub"], "packs": ["tikhub"]}));

    // A nickname that is not exactly an account's: a miss, nothing charged,
    // and the home page is not asked.
    let before_points = points(&service).await;
    let before_seen = replay.seen().len();
    let (status, reply) = service.post("/api/apis/channels/user-works/call", json!({"nickname": "样例"})).await;
    assert_eq!(status, 404, "{reply}");
    assert_eq!(points(&service).await, before_points);
    assert_eq!(routes(&replay.seen()[before_seen..]), ["api/v1/wechat_channels/fetch_user_search"]);

    // Kuaishou by kwaiId: the user search gives the numeric user id.
    let (data, seen) =
        call(&service, &replay, "/api/apis/clipapp/user-works/call", json!({"kwaiId": "ks_fixture_a"}), 4).await;
    assert_eq!(routes(&seen), ["api/v1/kuaishou/app/search_user_v2", "api/v1/kuaishou/app/fetch_user_post_v2"]);
    assert_eq!(query(&seen[1]), [("user_id", "3100000001")]);
    let captions: Vec<&str> =
        data["items"].as_array().unwrap().iter().map(|i| i["caption"].as_str().unwrap()).collect();
    assert_eq!(captions, ["样例快手主页作品", "主页第二条"]);
    assert_eq!(data["items"][0]["viewCount"], 40100);
    let work = written_work(&store, "clipapp", "5200000000000011").await;
    assert_eq!(work.work.author_id.as_deref(), Some("3100000001"));
    // The search's accounts were written back too.
    written_account(&store, "clipapp", "3100000001").await;
}

#[tokio::test]
async fn fan_outs_call_once_per_item_or_platform() {
    let (service, replay) = tikhub_at(None).await;
    let store = store_of(&service).await;

    // One profile call per user id (recorded profile), one price.
    let recorded_id = "5ff98b9d0000000001008f40";
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/lifestyle/lifestyle-account-analyzer/call",
        json!({"userIds": [recorded_id, "600000000000000000000001"]}),
        6,
    )
    .await;
    assert_eq!(seen.len(), 2);
    assert!(seen.iter().all(|s| s.route == "api/v1/xiaohongshu/web_v2/fetch_user_info_app"));
    assert_eq!(query(&seen[0]), [("user_id", recorded_id)]);
    assert_eq!(query(&seen[1]), [("user_id", "600000000000000000000001")]);
    assert_eq!(
        data["items"][0],
        json!({"userId": recorded_id, "nickname": "星球研究所InstituteforPlanet", "fansCount": 1087876})
    );
    assert_eq!(data["items"].as_array().unwrap().len(), 2);
    let account = written_account(&store, "lifestyle", recorded_id).await;
    assert_eq!(account.account.nickname, "星球研究所InstituteforPlanet");

    // The playlet feed asks only the requested platform's feed.
    let (data, seen) =
        call(&service, &replay, "/api/apis/multi/playlet-feed/call", json!({"platform": 1, "pageNum": 1}), 6).await;
    assert_eq!(routes(&seen), ["api/v1/douyin/search/fetch_general_search_v1"]);
    assert_eq!(seen[0].body["keyword"], "短剧");
    let items = data["items"].as_array().unwrap();
    assert!(!items.is_empty() && items.iter().all(|i| i["platform"] == 1), "{data}");
    let reply = recording("api/v1/douyin/search/fetch_general_search_v1", "ideasseek-ai__Douyin-Search-API.json");
    let first_desc = reply["data"]["data"].as_array().unwrap().iter().find_map(|r| r["aweme_info"]["desc"].as_str());
    assert_eq!(data["items"][0]["title"].as_str(), first_desc);

    let (data, seen) = call(&service, &replay, "/api/apis/multi/playlet-feed/call", json!({"platform": 6}), 6).await;
    assert_eq!(routes(&seen), ["api/v1/bilibili/web/fetch_general_search"]);
    assert!(data["items"].as_array().unwrap().iter().all(|i| i["platform"] == 6), "{data}");
}

#[tokio::test]
async fn refreshes_write_what_the_vendor_found_before_the_store_answers() {
    // The recorded searches were made on 2026-02-05: the service's day.
    let (service, replay) = tikhub_at(Some("2026-02-05T20:00:00+08:00")).await;
    let store = store_of(&service).await;

    // The skill's mentions over 30 days: the asked platform's search is
    // asked first, so the store counts the notes it wrote (it held none).
    let (data, seen) = call(
        &service,
        &replay,
        "/api/skills/cn-last30days/invoke",
        json!({"keyword": "陈皮", "platforms": ["lifestyle"]}),
        4,
    )
    .await;
    assert_eq!(routes(&seen), ["api/v1/xiaohongshu/web/search_notes"]);
    assert_eq!(data["trend"]["keyword"], "陈皮");
    assert!(data["trend"]["mentions"].as_i64().unwrap() > 0, "{data}");

    // Three platforms' last 30 days: both searches are asked, then the store
    // answers from what they wrote (the recorded notes of the window).
    let (data, seen) =
        call(&service, &replay, "/api/apis/multi/cn30-multi-search/call", json!({"keyword": "陈皮"}), 12).await;
    assert_eq!(routes(&seen), ["api/v1/xiaohongshu/web/search_notes", "api/v1/douyin/search/fetch_general_search_v1"]);
    assert_eq!(seen[0].query["keyword"], "陈皮");
    assert_eq!(seen[1].body["keyword"], "陈皮");
    let found = titles(&data["lifestyleResult"]);
    assert!(found.contains(&"陈皮的4种泡水搭配"), "{data}");
    assert!(!found.contains(&"陈皮泡水真假分明"), "a note of the next day is outside: {data}");
    assert!(!found.contains(&"新会陈皮（一）"), "a note of 2025-11 is outside the 30 days: {data}");
    let notes = recording("api/v1/xiaohongshu/web/search_notes", "ideasseek-ai__xiaohongshu-search.json");
    let note = notes["data"]["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i.get("note").or_else(|| i.get("note_card")))
        .find(|n| n["title"] == "陈皮的4种泡水搭配" || n["display_title"] == "陈皮的4种泡水搭配")
        .unwrap();
    written_work(&store, "lifestyle", note["id"].as_str().unwrap()).await;

    // Top works per platform: only the asked platform's search is called.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/multi/multi-content-export-top/call",
        json!({"platforms": [3], "keyword": "陈皮"}),
        4,
    )
    .await;
    assert_eq!(routes(&seen), ["api/v1/xiaohongshu/web/search_notes"]);
    assert_eq!(data["items"][0]["platform"], 3);
    assert!(!data["items"][0]["list"].as_array().unwrap().is_empty(), "{data}");

    // Account diagnosis by name: Douyin's user search writes the account,
    // the store scores it.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/shortvideo/shortvideo-account-diagnosis/call",
        json!({"accountNames": ["徒步的猫"]}),
        6,
    )
    .await;
    assert_eq!(routes(&seen), ["api/v1/douyin/search/fetch_user_search"]);
    assert_eq!(seen[0].body["keyword"], "徒步的猫");
    assert_eq!(data["items"][0]["accountName"], "徒步的猫");
    assert_eq!(data["items"][0]["followerCount"], 52340);
    written_account(&store, "shortvideo", "MS4wLjABAAAAfixtureSecUid0001").await;

    // Similar accounts: the named account is refreshed, then compared with
    // the stored ones (the search wrote two).
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/shortvideo/shortvideo-similar-account/call",
        json!({"accountId": "hikingcat"}),
        6,
    )
    .await;
    assert_eq!(routes(&seen), ["api/v1/douyin/search/fetch_user_search"]);
    assert_eq!(data["items"][0]["accountName"], "猫猫徒步日记", "{data}");

    // A vendor failure: the store still answers, with a warning naming it.
    replay.set_fault("api/v1/douyin/search/fetch_user_search", Some(crate::common::vendor_replay::Fault::Status(500)));
    let (status, reply) = service
        .post("/api/apis/shortvideo/shortvideo-account-diagnosis/call", json!({"accountNames": ["徒步的猫"]}))
        .await;
    let data = success(status, &reply);
    assert_eq!(data["items"][0]["followerCount"], 52340);
    assert!(reply.to_string().contains("upstream:tikhub failed"), "{reply}");
}

#[tokio::test]
async fn hot_list_refreshes_add_a_capture_the_trend_operations_read() {
    let (service, replay) = tikhub_at(None).await;
    let store = store_of(&service).await;

    let (data, seen) =
        call(&service, &replay, "/api/apis/trend/hot-topics/call", json!({"platforms": ["shortvideo"]}), 4).await;
    assert_eq!(routes(&seen), ["api/v1/douyin/app/v3/fetch_hot_search_list"]);
    assert_eq!(query(&seen[0]), [("board_sub_type", ""), ("board_type", "0")]);
    let items = data["items"].as_array().unwrap();
    assert_eq!(titles(&data["items"]), ["样例热点一", "样例热点二", "样例热点三"]);
    assert_eq!((items[0]["heat"].as_i64(), items[0]["rank"].as_i64()), (Some(11_900_000), Some(1)));
    assert_eq!(items[0]["platform"], "shortvideo");

    let (data, seen) =
        call(&service, &replay, "/api/apis/trend/shortvideo-hot-trend/call", json!({"platform": 1}), 9).await;
    assert_eq!(routes(&seen), ["api/v1/douyin/app/v3/fetch_hot_search_list"]);
    assert_eq!(data["items"][0]["title"], "样例热点一");
    assert_eq!(data["items"][0]["url"], "https://www.douyin.com/hot/1900001");

    let (data, seen) =
        call(&service, &replay, "/api/apis/trend/trending-hub-keyword/call", json!({"platforms": [1, 2]}), 6).await;
    assert_eq!(routes(&seen), ["api/v1/douyin/app/v3/fetch_hot_search_list", "api/v1/weibo/web_v2/fetch_hot_search"]);
    let weibo: Vec<&str> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["item"]["title"].as_str().is_some_and(|t| t.starts_with("样例微博")))
        .map(|i| i["item"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(weibo, ["样例微博热搜一", "样例微博热搜二"], "the ad is left out: {data}");

    let (_, seen) = call(&service, &replay, "/api/apis/trend/hot-keywords/call", json!({}), 6).await;
    assert_eq!(routes(&seen), ["api/v1/douyin/app/v3/fetch_hot_search_list", "api/v1/weibo/web_v2/fetch_hot_search"]);

    // Every refresh is a capture of the lists in the store.
    let entries =
        store.hot_list_entries(&HotListQuery { sources: vec!["weibo".into()], ..Default::default() }).await.unwrap();
    assert_eq!(entries.iter().filter(|e| e.title == "样例微博热搜一").count(), 2, "two refreshes asked Weibo");
    assert!(entries.iter().all(|e| e.title != "样例推广"));
}

/// `mediaops usage --vendors` on the service's data directory (and
/// database), its ledger in Redis under `redis_prefix`.
fn vendor_usage(service: &Service, database_url: Option<&str>, redis_prefix: &str) -> Value {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mediaops"));
    command
        .args(["usage", "--vendors"])
        .current_dir(service.data_path())
        .env("MEDIAOPS_DATA_DIR", service.data_path())
        .env("MEDIAOPS_REDIS_URL", crate::common::process::redis_url())
        .env("MEDIAOPS_REDIS_PREFIX", redis_prefix);
    match database_url {
        Some(url) => command.env("MEDIAOPS_DATABASE_URL", url),
        None => command.env_remove("MEDIAOPS_DATABASE_URL"),
    };
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test]
async fn usage_vendors_sets_vendor_spend_against_points_on_both_databases() {
    let database = crate::common::process::Database::create("vendor_calls");
    for url in [None, Some(database.url.as_str())] {
        // The ledger in Redis: the command reads it while the core runs.
        let prefix = crate::common::process::redis_prefix("vendor_calls");
        let (service, replay) = tikhub_on(None, url, Some(&prefix)).await;
        // Two requests (the user search, then the home page) at 0.01 USD.
        call(&service, &replay, "/api/apis/channels/user-works/call", json!({"nickname": "样例陈皮小店"}), 4).await;
        // The same call again: the answer cache answers, nothing is asked.
        let (_, seen) =
            call(&service, &replay, "/api/apis/channels/user-works/call", json!({"nickname": "样例陈皮小店"}), 4).await;
        assert!(seen.is_empty(), "{seen:?}");
        // The calls are recorded in the background: wait for them (10 s at most).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let row = loop {
            let usage = vendor_usage(&service, url, &prefix);
            let row = usage["operations"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["operationKey"] == "channels.user-works")
                .cloned();
            if let Some(row) = row.filter(|r| r["vendorCalls"] == 2 && r["cacheHits"] == 1) {
                break row;
            }
            assert!(std::time::Instant::now() < deadline, "{url:?}: the calls were never recorded: {usage}");
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        };
        assert_eq!((&row["pack"], &row["currency"]), (&json!("tikhub"), &json!("USD")), "{row}");
        assert!((row["vendorSpend"].as_f64().unwrap() - 0.02).abs() < 1e-9, "{row}");
        assert_eq!((&row["chargedCalls"], &row["pointsCharged"]), (&json!(2), &json!(8)), "{row}");
    }
}
