//! The TikHub pack for Xiaohongshu (`lifestyle`), Douyin (`shortvideo`) and
//! TikTok (`intlshort`): every mapped operation over REST against the fake
//! vendor serving the recorded replies (`../shared/data/vendor-replies/tikhub`)
//! and, for routes without a recording, the fixtures of
//! `tests/fixtures/vendors/tikhub`. Each call: rows in the spec's shape with
//! the reply's values, the spec's price charged once, the request the vendor
//! received, and the write-back rows in the store. A sample also over gRPC.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use super::pack_service;
use crate::common::spec_tables::DATA_APIS;
use crate::common::vendor_replay::{Seen, VendorReplay, fixtures, recorded};
use crate::common::{ADMIN_TOKEN, BOOTSTRAP_POINTS, Service, admin, success, with_token};
use mediaops_store::ContentStore;
use mediaops_store::sqlite::SqliteStore;

/// The spec's price of `platform`/`slug` (spec 4.3–4.13, as the catalog
/// tables of `tests/e2e/common/spec_tables.rs` write them).
pub(crate) fn spec_price(platform: &str, slug: &str) -> i64 {
    DATA_APIS
        .iter()
        .find(|(p, s, _, _)| *p == platform && *s == slug)
        .unwrap_or_else(|| panic!("{platform}/{slug} is not a data API of the spec"))
        .2
}

/// The points left on the test key.
pub(crate) async fn points(service: &Service) -> i64 {
    let (status, body) = service.get("/api/account/balance").await;
    success(status, &body)["points"].as_i64().unwrap()
}

/// The `n`th reply (file-name order) the fake vendor serves for `folder`
/// below `root`, unwrapped as the fake vendor serves it.
pub(crate) fn reply(root: PathBuf, folder: &str, n: usize) -> Value {
    let dir = root.join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&files[n]).unwrap()).unwrap();
    match value.get_mut("response_raw") {
        Some(raw) => raw.take(),
        None => value,
    }
}

/// `POST /api/apis/<platform>/<slug>/call` with `body`: asserts success, the
/// spec's price charged once and exactly one vendor request; returns `data`
/// and that request.
pub(crate) async fn call(
    service: &Service,
    replay: &VendorReplay,
    platform: &str,
    slug: &str,
    body: Value,
) -> (Value, Seen) {
    let before = points(service).await;
    let seen_before = replay.seen().len();
    let (status, envelope) = service.post(&format!("/api/apis/{platform}/{slug}/call"), body).await;
    let data = success(status, &envelope);
    assert_eq!(before - points(service).await, spec_price(platform, slug), "{platform}/{slug} charged its price once");
    let seen = replay.seen();
    assert_eq!(seen.len(), seen_before + 1, "{platform}/{slug} asked the vendor once");
    (data, seen[seen_before].clone())
}

/// The content store of `service` (the SQLite file of its data directory).
pub(crate) async fn store_of(service: &Service) -> SqliteStore {
    SqliteStore::open(&service.data_path().join("store.sqlite")).await.unwrap()
}

/// Polls `probe` (write-back runs in the background) until it gives
/// `Some`, for at most 10 s.
pub(crate) async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    for _ in 0..100 {
        if let Some(found) = probe().await {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what} was never written back");
}

/// The stored account `id` of `platform`, once written back.
pub(crate) async fn stored_account(
    store: &SqliteStore,
    platform: &str,
    id: &str,
) -> mediaops_store::model::AccountRecord {
    eventually(&format!("account {platform}/{id}"), || async move { store.get_account(platform, id).await.unwrap() })
        .await
}

/// The stored work `id` of `platform` with a snapshot, once written back.
pub(crate) async fn stored_work(store: &SqliteStore, platform: &str, id: &str) -> mediaops_store::model::WorkRecord {
    eventually(&format!("work {platform}/{id}"), || async move {
        store.get_work(platform, id).await.unwrap().filter(|w| w.latest.is_some())
    })
    .await
}

/// `YYYY-MM-DD` `days` days before today (UTC).
fn days_ago(days: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::days(days)).format("%Y-%m-%d").to_string()
}

/// The fake TikHub vendor: recordings first, then the fixtures.
async fn tikhub() -> VendorReplay {
    VendorReplay::start(&[recorded("tikhub"), fixtures("tikhub")], &[]).await
}

const XHS_WEB_SEARCH: &str = "api/v1/xiaohongshu/web/search_notes";
const XHS_APP_SEARCH: &str = "api/v1/xiaohongshu/app/search_notes";
const DY_SEARCH: &str = "api/v1/douyin/search/fetch_general_search_v1";
const DY_POSTS: &str = "api/v1/douyin/web/fetch_user_post_videos";

#[tokio::test]
async fn xiaohongshu_operations_answer_from_the_vendor_and_are_written_back() {
    let replay = tikhub().await;
    let (service, _files) = pack_service("tikhub", &replay).await;
    let store = &store_of(&service).await;

    // search-note: the recorded web search (陈皮, page 1).
    let web = reply(recorded("tikhub"), XHS_WEB_SEARCH, 0);
    let notes = web["data"]["data"]["items"].as_array().unwrap();
    let (data, seen) = call(&service, &replay, "lifestyle", "search-note", json!({"keyword": "陈皮", "page": 1})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["keyword"].as_str(), seen.query["page"].as_str()),
        (XHS_WEB_SEARCH, "陈皮", "1")
    );
    assert_eq!(data["source"], "tikhub");
    assert_eq!(data["keyword"], "陈皮");
    assert_eq!(data["total"], notes.len());
    let first = &notes[0]["note"];
    let item = &data["items"][0];
    assert_eq!(item["workId"], first["id"]);
    assert_eq!(item["workTitle"], first["title"]);
    assert_eq!(item["accountNickname"], first["user"]["nickname"]);
    assert_eq!(item["accountUserid"], first["user"]["userid"]);
    assert_eq!(item["workLikedCount"], first["liked_count"]);
    assert_eq!(item["workCollectedCount"], first["collected_count"]);
    assert_eq!(item["workCommentsCount"], first["comments_count"]);
    assert_eq!(item["workSharedCount"], first["shared_count"]);
    assert_eq!(item["workUrl"], format!("https://www.xiaohongshu.com/explore/{}", first["id"].as_str().unwrap()));
    assert_eq!(item["workType"], "note");
    let published = chrono::DateTime::from_timestamp(first["timestamp"].as_i64().unwrap() + 8 * 3600, 0).unwrap();
    assert_eq!(item["workPublishTime"], published.format("%Y-%m-%d %H:%M:%S").to_string(), "Asia/Shanghai");
    // Written back: the author (keyed by user id, with the display number), the note and its counters.
    let id = first["id"].as_str().unwrap();
    let note = stored_work(store, "lifestyle", id).await;
    assert_eq!(note.work.title, first["title"].as_str().unwrap());
    assert_eq!(note.work.author_id.as_deref(), first["user"]["userid"].as_str());
    assert_eq!(note.latest.unwrap().likes, first["liked_count"].as_i64());
    let author = stored_account(store, "lifestyle", first["user"]["userid"].as_str().unwrap()).await;
    assert_eq!(author.account.ids.red_id.as_deref(), first["user"]["red_id"].as_str());

    // search-user: the fixture of the web user search; fans given as "1.2万".
    let (data, seen) = call(&service, &replay, "lifestyle", "search-user", json!({"keyword": "露营"})).await;
    assert_eq!((seen.route.as_str(), seen.query["keyword"].as_str()), ("api/v1/xiaohongshu/web/search_users", "露营"));
    assert_eq!(
        data["items"],
        json!([{"accountName": "露营小队长", "accountFans": 12000, "accountId": "camp2024"},
               {"accountName": "山野营地", "accountFans": 873, "accountId": "95173"}])
    );
    let account = stored_account(store, "lifestyle", "64a0c0de000000001f00aa01").await;
    assert_eq!((account.account.fans, account.account.works), (Some(12000), Some(86)));

    // query-account: the recorded profile (user_id as the account id); a lookup.
    let profile = reply(recorded("tikhub"), "api/v1/xiaohongshu/web_v2/fetch_user_info_app", 0)["data"].clone();
    let user_id = profile["userid"].as_str().unwrap();
    let (data, seen) = call(&service, &replay, "lifestyle", "query-account", json!({"accountId": user_id})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["user_id"].as_str()),
        ("api/v1/xiaohongshu/web_v2/fetch_user_info_app", user_id)
    );
    assert_eq!(
        data["account"],
        json!({"accountName": profile["nickname"], "accountFans": profile["fans"], "accountTotalWorks": profile["note_num_stat"]["posted"],
               "intro": profile["desc"], "likedCount": profile["note_num_stat"]["liked"], "collectedCount": profile["note_num_stat"]["collected"],
               "region": profile["ip_location"]})
    );
    let account = stored_account(store, "lifestyle", user_id).await;
    assert_eq!(account.account.nickname, profile["nickname"].as_str().unwrap());
    assert_eq!(account.account.ids.red_id.as_deref(), profile["red_id"].as_str());
    assert_eq!(account.latest.expect("an account snapshot").fans, profile["fans"].as_i64());

    // search-work: page 2 of the recorded app search, a start date a month back = 半年内.
    let page2 = reply(recorded("tikhub"), XHS_APP_SEARCH, 1);
    let body = json!({"keyword": "抱枕", "page": 2, "startDate": days_ago(30)});
    let (data, seen) = call(&service, &replay, "lifestyle", "search-work", body).await;
    assert_eq!(seen.route, XHS_APP_SEARCH);
    assert_eq!((seen.query["page"].as_str(), seen.query["filter_note_time"].as_str()), ("2", "半年内"));
    let first = &page2["data"]["data"]["items"][0]["note"];
    assert_eq!(
        data["items"][0],
        json!({"title": first["title"], "likedCount": first["liked_count"], "authorNickname": first["user"]["nickname"], "totalScore": 0.0}),
        "TikHub gives no score"
    );
    let page2_notes =
        page2["data"]["data"]["items"].as_array().unwrap().iter().filter(|i| i["model_type"] == "note").count();
    assert_eq!(data["items"].as_array().unwrap().len(), page2_notes, "the notes of the page, not its other cards");
    let note = stored_work(store, "lifestyle", first["id"].as_str().unwrap()).await;
    assert_eq!(note.latest.unwrap().collects, first["collected_count"].as_i64());

    // crawl-work: the same route, page 1, the caller's sort passed on.
    let page1 = reply(recorded("tikhub"), XHS_APP_SEARCH, 0);
    let body = json!({"keyword": "抱枕", "sortType": "general", "startDate": days_ago(40), "endDate": days_ago(1)});
    let (data, seen) = call(&service, &replay, "lifestyle", "crawl-work", body).await;
    assert_eq!((seen.query["page"].as_str(), seen.query["sort_type"].as_str()), ("1", "general"));
    let first = &page1["data"]["data"]["items"][0]["note"];
    assert_eq!(
        data["items"][0],
        json!({"title": first["title"], "likedCount": first["liked_count"], "authorNickname": first["user"]["nickname"]})
    );

    // comments: under maintenance as the spec lists it; lifted by an admin, the vendor answers.
    let (status, body) =
        service.post("/api/apis/lifestyle/comments/call", json!({"noteId": "6683b283000000001f0052bf"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (503, Some("maintenance")));
    let lift = mediaops::proto::mediaops::admin::v1::SetMaintenanceRequest {
        operation_key: "lifestyle.comments".into(),
        maintenance: false,
        note: String::new(),
    };
    admin(&service).await.set_maintenance(with_token(lift, ADMIN_TOKEN)).await.unwrap();
    let thread = reply(recorded("tikhub"), "api/v1/xiaohongshu/web/get_note_comments", 0)["data"]["data"].clone();
    let note_id = thread["comments"][0]["note_id"].as_str().unwrap();
    let (data, seen) = call(&service, &replay, "lifestyle", "comments", json!({"noteId": note_id})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["note_id"].as_str()),
        ("api/v1/xiaohongshu/web/get_note_comments", note_id)
    );
    assert!(!seen.query.contains_key("lastCursor"), "no cursor on the first call");
    assert_eq!(data["total"], thread["comment_count"]);
    let expected: Vec<(&Value, i64)> = thread["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (&c["content"], c["like_count"].as_i64().unwrap()))
        .collect();
    let answered: Vec<(&Value, i64)> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (&row["content"], row["likeCount"].as_i64().unwrap_or(0)))
        .collect();
    assert_eq!(answered, expected);
    let comments = eventually("comments", || async move {
        let page = store.list_comments("lifestyle", note_id, 1, 50).await.unwrap();
        (page.total > 0).then_some(page)
    })
    .await;
    assert_eq!(comments.total as usize, expected.len());

    // The AI feed: a keyword search of AI notes on the web search route, the start time's filter.
    let body = json!({"keyword": "陈皮", "startTime": format!("{} 00:00:00", days_ago(3)), "endTime": format!("{} 23:59:59", days_ago(0))});
    let (data, seen) = call(&service, &replay, "lifestyle", "lifestyle-ai-feed", body).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["keyword"].as_str(), seen.query["noteTime"].as_str()),
        (XHS_WEB_SEARCH, "陈皮 AI", "一周内")
    );
    assert_eq!(
        data["items"][0],
        json!({"title": notes[0]["note"]["title"], "likeCount": notes[0]["note"]["liked_count"]})
    );

    // The playlet feed: a keyword search of playlets on the app search route.
    let (data, seen) =
        call(&service, &replay, "lifestyle", "lifestyle-playlet-feed", json!({"keyword": "甜宠短剧"})).await;
    assert_eq!((seen.route.as_str(), seen.query["keyword"].as_str()), (XHS_APP_SEARCH, "甜宠短剧"));
    let first = &page1["data"]["data"]["items"][0]["note"];
    assert_eq!(data["items"][0], json!({"title": first["title"], "likeCount": first["liked_count"]}));
}

#[tokio::test]
async fn douyin_and_tiktok_operations_answer_from_the_vendor_and_are_written_back() {
    let replay = tikhub().await;
    let (service, _files) = pack_service("tikhub", &replay).await;
    let store = &store_of(&service).await;
    const SEC_UID: &str = "MS4wLjABAAAAfixtureSecUid0001";

    // query-account: the profile fixture; a lookup written back with a snapshot.
    let (data, seen) = call(&service, &replay, "shortvideo", "query-account", json!({"secUid": SEC_UID})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["sec_user_id"].as_str()),
        ("api/v1/douyin/web/handler_user_profile", SEC_UID)
    );
    assert_eq!(data["profile"], json!({"nickname": "徒步的猫", "followerCount": 52340, "followingCount": 211}));
    let account = stored_account(store, "shortvideo", SEC_UID).await;
    assert_eq!((account.account.ids.unique_id.as_deref(), account.account.likes), (Some("hikingcat"), Some(903_214)));
    assert_eq!(account.latest.expect("an account snapshot").fans, Some(52340));

    // search-user: a POST with a JSON body.
    let (data, seen) = call(&service, &replay, "shortvideo", "search-user", json!({"keyword": "猫", "page": 2})).await;
    assert_eq!((seen.method.as_str(), seen.route.as_str()), ("POST", "api/v1/douyin/search/fetch_user_search"));
    assert_eq!((seen.body["keyword"].as_str(), &seen.body["cursor"]), (Some("猫"), &json!(10)));
    assert_eq!(
        data["items"],
        json!([{"accountId": "hikingcat", "uid": "88000000001", "followerCount": 52340},
               {"accountId": "31415926", "uid": "88000000002", "followerCount": 1200}])
    );
    stored_account(store, "shortvideo", "MS4wLjABAAAAfixtureSecUid0002").await;

    // query-work-list: a profile link is cut to its sec_user_id.
    let body = json!({"accountId": format!("https://www.douyin.com/user/{SEC_UID}?from_tab_name=main")});
    let (data, seen) = call(&service, &replay, "shortvideo", "query-work-list", body).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["sec_user_id"].as_str(), seen.query["max_cursor"].as_str()),
        (DY_POSTS, SEC_UID, "0")
    );
    assert_eq!(
        data["items"],
        json!([{"workId": "7440000000000000001", "title": "雨后的山路 #徒步", "workUrl": "https://www.douyin.com/video/7440000000000000001"},
               {"workId": "7440000000000000002", "title": "徒步装备图集", "workUrl": "https://www.douyin.com/note/7440000000000000002"}])
    );
    let work = stored_work(store, "shortvideo", "7440000000000000002").await;
    assert_eq!((work.work.work_type.as_deref(), work.latest.unwrap().likes), (Some("note"), Some(1300)));

    // search-work: the recorded general search (猫咪), a start date a month back = 180 days.
    let search = reply(recorded("tikhub"), DY_SEARCH, 0);
    let works: Vec<&Value> =
        search["data"]["data"].as_array().unwrap().iter().filter_map(|c| c.get("aweme_info")).collect();
    let body = json!({"keyword": "猫咪", "startDate": days_ago(30)});
    let (data, seen) = call(&service, &replay, "shortvideo", "search-work", body).await;
    assert_eq!((seen.method.as_str(), seen.route.as_str()), ("POST", DY_SEARCH));
    assert_eq!((seen.body["keyword"].as_str(), seen.body["publish_time"].as_str()), (Some("猫咪"), Some("180")));
    assert_eq!(data["items"].as_array().unwrap().len(), works.len());
    let first = works[0];
    let kind = if first["aweme_type"] == 68 { "note" } else { "video" };
    let url = format!("https://www.douyin.com/{kind}/{}", first["aweme_id"].as_str().unwrap());
    assert_eq!(
        data["items"][0],
        json!({"title": first["desc"], "likeCount": first["statistics"]["digg_count"], "workUrl": url})
    );
    let work = stored_work(store, "shortvideo", first["aweme_id"].as_str().unwrap()).await;
    assert_eq!(work.work.author_id.as_deref(), first["author"]["sec_uid"].as_str());
    let counters = work.latest.unwrap();
    assert_eq!(
        (counters.likes, counters.comments),
        (first["statistics"]["digg_count"].as_i64(), first["statistics"]["comment_count"].as_i64())
    );

    // realtime-search: the same route with the caller's sort and page.
    let body = json!({"keyword": "猫咪", "sortType": "1", "publishTime": "7", "page": 2});
    let (data, seen) = call(&service, &replay, "shortvideo", "realtime-search", body).await;
    assert_eq!(
        (seen.body["sort_type"].as_str(), seen.body["publish_time"].as_str(), &seen.body["cursor"]),
        (Some("1"), Some("7"), &json!(20))
    );
    let second = works[1];
    assert_eq!(data["items"][1]["description"], second["desc"]);
    assert_eq!(data["items"][1]["likeNum"], second["statistics"]["digg_count"]);
    assert!(data["items"][1]["url"].as_str().unwrap().ends_with(second["aweme_id"].as_str().unwrap()));

    // comments: page 2 of the recorded app comments (cursor 20).
    let page2 = reply(recorded("tikhub"), "api/v1/douyin/app/v3/fetch_video_comments", 1)["data"].clone();
    let video = page2["comments"][0]["aweme_id"].as_str().unwrap();
    let (data, seen) = call(&service, &replay, "shortvideo", "comments", json!({"videoId": video, "page": 2})).await;
    assert_eq!((seen.query["aweme_id"].as_str(), seen.query["cursor"].as_str()), (video, "20"));
    assert_eq!(data["total"], page2["total"]);
    let first = &page2["comments"][0];
    assert_eq!(data["items"][0]["text"], first["text"]);
    assert_eq!(data["items"][0]["authorName"], first["user"]["nickname"]);
    assert_eq!(data["items"].as_array().unwrap().len(), page2["comments"].as_array().unwrap().len());
    let comments = eventually("comments", || async move {
        let page = store.list_comments("shortvideo", video, 1, 50).await.unwrap();
        (page.total > 0).then_some(page)
    })
    .await;
    assert_eq!(comments.total as usize, page2["comments"].as_array().unwrap().len());

    // shortvideo-user-works and shortvideo-work-list: the account's posts.
    let (data, seen) =
        call(&service, &replay, "shortvideo", "shortvideo-user-works", json!({"account": SEC_UID})).await;
    assert_eq!(seen.route, DY_POSTS);
    assert_eq!(
        data["items"][0],
        json!({"title": "雨后的山路 #徒步", "likeCount": 8800, "workUrl": "https://www.douyin.com/video/7440000000000000001"})
    );
    let body = json!({"accountId": SEC_UID, "publishTimeEnd": "2025-11-27 08:00:00"});
    let (data, seen) = call(&service, &replay, "shortvideo", "shortvideo-work-list", body).await;
    // 2025-11-27 08:00:00 Asia/Shanghai = 2025-11-27T00:00:00Z, in ms.
    assert_eq!(seen.query["max_cursor"], "1764201600000");
    assert_eq!(
        data["items"][1],
        json!({"title": "徒步装备图集", "accountName": "徒步的猫", "workUrl": "https://www.douyin.com/note/7440000000000000002"})
    );

    // query-work: the detail fixture, flat; a lookup.
    let (data, seen) =
        call(&service, &replay, "shortvideo", "query-work", json!({"videoId": "7440000000000000001"})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["aweme_id"].as_str()),
        ("api/v1/douyin/web/fetch_one_video", "7440000000000000001")
    );
    assert_eq!(
        data,
        json!({"authorName": "徒步的猫", "authorFansCount": 52340, "content": "雨后的山路 #徒步", "likeCount": 8800, "commentCount": 880,
               "collectCount": 1760, "shareCount": 440, "opusUrl": "https://www.douyin.com/video/7440000000000000001",
               "coverUrl": "https://example.invalid/v-7440000000000000001.jpg", "publishTime": "2025-11-27 07:33:20", "videoId": "7440000000000000001"})
    );
    // The list call above stored the work already; the detail adds its duration.
    let duration = eventually("the work's duration", || async move {
        store.get_work("shortvideo", "7440000000000000001").await.unwrap().and_then(|w| w.work.duration_secs)
    })
    .await;
    assert_eq!(duration, 31);

    // The AI and playlet feeds: keyword searches on the recorded general search.
    let (data, seen) = call(&service, &replay, "shortvideo", "shortvideo-ai-feed", json!({"keyword": "AI 猫咪"})).await;
    assert_eq!((seen.body["keyword"].as_str(), seen.body["publish_time"].as_str()), (Some("AI 猫咪"), Some("0")));
    assert_eq!(data["items"][0], json!({"title": works[0]["desc"], "likeCount": works[0]["statistics"]["digg_count"]}));
    let (data, seen) =
        call(&service, &replay, "shortvideo", "shortvideo-playlet-feed", json!({"keyword": "猫咪", "pageNum": 3}))
            .await;
    assert_eq!((seen.body["keyword"].as_str(), &seen.body["cursor"]), (Some("猫咪 短剧"), &json!(40)));
    assert_eq!(data["items"].as_array().unwrap().len(), works.len());

    // intlshort.search-user: the TikTok user-search fixture.
    let (data, seen) = call(&service, &replay, "intlshort", "search-user", json!({"keyword": "cat"})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["keyword"].as_str(), seen.query["offset"].as_str()),
        ("api/v1/tiktok/app/v3/fetch_user_search_result", "cat", "0")
    );
    assert_eq!(
        data,
        json!({"items": [{"uniqueId": "catsofkyoto", "fans": 2450000}, {"uniqueId": "tiny.cat.club", "fans": 38100}], "total": 2})
    );
    let account = stored_account(store, "intlshort", "6900000000000000001").await;
    assert_eq!(account.account.ids.unique_id.as_deref(), Some("catsofkyoto"));
}

#[tokio::test]
async fn the_syncs_page_through_the_vendor_and_store_the_works_uncharged() {
    let replay = tikhub().await;
    let (service, _files) = pack_service("tikhub", &replay).await;
    let store = &store_of(&service).await;

    for (platform, slug, body, route, user, works) in [
        (
            "lifestyle",
            "lifestyle-sync-notes",
            json!({"redId": "64a0c0de000000001f00aa01"}),
            "api/v1/xiaohongshu/app/get_user_notes",
            "64a0c0de000000001f00aa01",
            ["6650ab000000000012030b01", "6640aa000000000012030b03"],
        ),
        (
            "shortvideo",
            "shortvideo-sync-notes",
            json!({"accountId": "MS4wLjABAAAAfixtureSecUid0001"}),
            DY_POSTS,
            "MS4wLjABAAAAfixtureSecUid0001",
            ["7440000000000000001", "7430000000000000003"],
        ),
    ] {
        let (status, envelope) = service.post(&format!("/api/apis/{platform}/{slug}/call"), body).await;
        assert_eq!(success(status, &envelope), json!({"status": "syncing", "accepted": true, "retryAfterMinutes": 30}));
        let task = service.finished_task(envelope["taskId"].as_str().unwrap()).await;
        assert_eq!(task["status"], "success", "{task}");
        // Two pages: the account on each, three works with a snapshot each.
        assert_eq!((&task["sync"]["pages"], &task["sync"]["works"]), (&json!(2), &json!(3)), "{task}");
        let asked: Vec<Seen> = replay.seen().into_iter().filter(|s| s.route == route).collect();
        assert_eq!(asked.len(), 2, "{platform}: two pages");
        let cursor = if platform == "lifestyle" { "cursor" } else { "max_cursor" };
        let expected = if platform == "lifestyle" { "6650aa000000000012030b02" } else { "1764000000000" };
        assert_eq!(asked[1].query[cursor], expected, "{platform}: page 2 asked with page 1's cursor");
        stored_account(store, platform, user).await;
        for work in works {
            let stored = stored_work(store, platform, work).await;
            assert_eq!(stored.work.author_id.as_deref(), Some(user));
        }
    }
    let note = stored_work(store, "lifestyle", "6650ab000000000012030b01").await;
    assert_eq!(note.latest.unwrap().likes, Some(15000), "1.5万 read as a number");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS, "syncs are never charged");
}

#[tokio::test]
async fn a_mapped_operation_answers_over_grpc() {
    use mediaops::proto::mediaops::shortvideo::v1::CommentsRequest;
    use mediaops::proto::mediaops::shortvideo::v1::shortvideo_service_client::ShortvideoServiceClient;
    let replay = tikhub().await;
    let (service, _files) = pack_service("tikhub", &replay).await;
    let page1 = reply(recorded("tikhub"), "api/v1/douyin/app/v3/fetch_video_comments", 0)["data"].clone();
    let video = page1["comments"][0]["aweme_id"].as_str().unwrap().to_owned();

    let mut client = ShortvideoServiceClient::connect(service.grpc.clone()).await.unwrap();
    let request = with_token(CommentsRequest { video_id: video.clone(), page: 1 }, crate::common::KEY);
    let answer = client.comments(request).await.unwrap().into_inner();
    assert_eq!(answer.total, page1["total"].as_i64().unwrap());
    assert_eq!(answer.items[0].text, page1["comments"][0]["text"].as_str().unwrap());
    assert_eq!(answer.items[0].author_name, page1["comments"][0]["user"]["nickname"].as_str().unwrap());
    let seen = replay.seen();
    assert_eq!((seen[0].query["aweme_id"].as_str(), seen[0].query["cursor"].as_str()), (video.as_str(), "0"));
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - spec_price("shortvideo", "comments"));
}

#[tokio::test]
async fn a_mapped_operation_answers_over_mcp() {
    let replay = tikhub().await;
    let (service, _files) = pack_service("tikhub", &replay).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "intlshort_search-user", "arguments": {"keyword": "cat"}}});
    let response = service
        .http
        .post(format!("{}/mcp", service.base))
        .bearer_auth(crate::common::KEY)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let answer: Value = response.json().await.unwrap();
    let envelope = &answer["result"]["structuredContent"];
    assert_eq!(envelope["success"], true, "{answer}");
    assert_eq!(envelope["data"]["items"][0], json!({"uniqueId": "catsofkyoto", "fans": 2450000}));
    assert_eq!(replay.seen()[0].route, "api/v1/tiktok/app/v3/fetch_user_search_result");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - spec_price("intlshort", "search-user"));
}
