//! The Just One API pack: every mapped operation over REST against the fake
//! vendor serving the recorded replies (`../shared/data/vendor-replies/justoneapi`,
//! filed by endpoint name, so served under their route by alias) and the
//! fixtures of `tests/fixtures/vendors/justoneapi`. Each call: rows in the
//! spec's shape with the reply's values, the spec's price charged once, the
//! request the vendor received (the token in the query), and the write-back
//! rows in the store.

use serde_json::json;

use super::pack_service;
use super::tikhub_lifestyle_shortvideo::{call, eventually, points, reply, store_of, stored_account, stored_work};
use crate::common::vendor_replay::{Seen, VendorReplay, fixtures, recorded};
use crate::common::{ADMIN_TOKEN, BOOTSTRAP_POINTS, admin, success, with_token};
use mediaops::proto::mediaops::admin::v1::SetMaintenanceRequest;
use mediaops_store::ContentStore;

const NOTE_LIST: &str = "api/xiaohongshu/get-user-note-list/v4";
const NOTE_SEARCH: &str = "api/xiaohongshu/search-note/v4";
const VIDEO_SEARCH: &str = "api/douyin/search-video/v4";
const VIDEO_LIST: &str = "api/douyin/get-user-video-list/v3";
const SEC_UID: &str = "MS4wLjABAAAAfixtureSecUid0001";

/// The fake Just One API: the recorded note lists under their route, then the fixtures.
async fn justoneapi() -> VendorReplay {
    VendorReplay::start(
        &[recorded("justoneapi"), fixtures("justoneapi")],
        &[(NOTE_LIST, "xiaohongshu-user-note-list-v4")],
    )
    .await
}

/// The key travels as `?token=` (docs/vendors.md), on every request.
fn assert_token(seen: &Seen) {
    assert_eq!(seen.query.get("token").map(String::as_str), Some(super::VENDOR_KEY), "{}", seen.route);
}

#[tokio::test]
async fn xiaohongshu_operations_answer_from_just_one_api() {
    let replay = justoneapi().await;
    let (service, _files) = pack_service("justoneapi", &replay).await;
    let store = &store_of(&service).await;
    let search = reply(fixtures("justoneapi"), NOTE_SEARCH, 0)["data"]["items"].clone();
    let first = &search[0]["note"];

    let (data, seen) = call(&service, &replay, "lifestyle", "search-note", json!({"keyword": "露营", "page": 1})).await;
    assert_token(&seen);
    assert_eq!(
        (seen.route.as_str(), seen.query["keyword"].as_str(), seen.query["sortType"].as_str()),
        (NOTE_SEARCH, "露营", "general")
    );
    assert_eq!((&data["source"], &data["total"]), (&json!("justoneapi"), &json!(2)));
    assert_eq!(data["items"][0]["workId"], first["id"]);
    assert_eq!(data["items"][0]["workLikedCount"], first["liked_count"]);
    assert_eq!(data["items"][0]["workPublishTime"], "2025-11-20 08:53:20");
    let note = stored_work(store, "lifestyle", first["id"].as_str().unwrap()).await;
    assert_eq!(note.latest.unwrap().likes, first["liked_count"].as_i64());

    let body = json!({"keyword": "露营", "page": 2, "startDate": (chrono::Utc::now() - chrono::Duration::days(3)).format("%Y-%m-%d").to_string()});
    let (data, seen) = call(&service, &replay, "lifestyle", "search-work", body).await;
    assert_eq!((seen.query["page"].as_str(), seen.query["timeFilter"].as_str()), ("2", "一周内"));
    assert_eq!(
        data["items"][1],
        json!({"title": "露营灯怎么选", "likedCount": 88, "authorNickname": "山野营地", "totalScore": 0.0})
    );

    let (data, seen) =
        call(&service, &replay, "lifestyle", "crawl-work", json!({"keyword": "露营", "sortType": "time_descending"}))
            .await;
    assert_eq!((seen.query["sortType"].as_str(), seen.query["timeFilter"].as_str()), ("time_descending", "不限"));
    assert_eq!(data["items"][0], json!({"title": "周末湖边露营", "likedCount": 1520, "authorNickname": "露营小队长"}));

    let body = json!({"keyword": "露营", "startTime": "2025-01-01 00:00:00", "endTime": "2025-01-31 23:59:59"});
    let (data, seen) = call(&service, &replay, "lifestyle", "lifestyle-ai-feed", body).await;
    assert_eq!(
        (seen.query["keyword"].as_str(), seen.query["timeFilter"].as_str()),
        ("露营 AI", "不限"),
        "a start over half a year back"
    );
    assert_eq!(data["items"][0], json!({"title": "周末湖边露营", "likeCount": 1520}));
    let (data, seen) =
        call(&service, &replay, "lifestyle", "lifestyle-playlet-feed", json!({"keyword": "露营", "pageNum": 2})).await;
    assert_eq!((seen.query["keyword"].as_str(), seen.query["page"].as_str()), ("露营 短剧", "2"));
    assert_eq!(data["items"][1], json!({"title": "露营灯怎么选", "likeCount": 88}));

    // The cross-platform playlet feed asks the platform's own feed.
    let (data, seen) = call(&service, &replay, "multi", "playlet-feed", json!({"platform": 3})).await;
    assert_eq!((seen.route.as_str(), seen.query["keyword"].as_str()), (NOTE_SEARCH, "短剧"));
    assert_eq!(data["items"][1], json!({"title": "露营灯怎么选", "platform": 3}));

    let (data, seen) = call(&service, &replay, "lifestyle", "search-user", json!({"keyword": "露营"})).await;
    assert_eq!(seen.route, "api/xiaohongshu/search-user/v2");
    assert_eq!(data["items"][0], json!({"accountName": "露营小队长", "accountFans": 12000, "accountId": "camp2024"}));
    stored_account(store, "lifestyle", "64a0c0de000000001f00aa02").await;

    let (data, seen) =
        call(&service, &replay, "lifestyle", "query-account", json!({"accountId": "64a0c0de000000001f00aa01"})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["userId"].as_str()),
        ("api/xiaohongshu/get-user/v3", "64a0c0de000000001f00aa01")
    );
    assert_eq!(
        data["account"],
        json!({"accountName": "露营小队长", "accountFans": 12034, "accountTotalWorks": 86, "intro": "周末去露营", "likedCount": 45012, "collectedCount": 9031, "region": "浙江"})
    );
    // A list of accounts: one profile call each (docs/vendors.md "Several calls").
    let (data, seen) = call(
        &service,
        &replay,
        "lifestyle",
        "lifestyle-account-analyzer",
        json!({"userIds": ["64a0c0de000000001f00aa01"]}),
    )
    .await;
    assert_eq!(
        (seen.route.as_str(), seen.query["userId"].as_str()),
        ("api/xiaohongshu/get-user/v3", "64a0c0de000000001f00aa01")
    );
    assert_eq!(
        data["items"],
        json!([{"userId": "64a0c0de000000001f00aa01", "nickname": "露营小队长", "fansCount": 12034}])
    );
    // The searches above stored the account already; the profile adds its likes and collects.
    let counters = eventually("the profile's counters", || async move {
        let account = store.get_account("lifestyle", "64a0c0de000000001f00aa01").await.unwrap()?.account;
        account.likes.map(|likes| (likes, account.collects, account.fans))
    })
    .await;
    assert_eq!(counters, (45012, Some(9031), Some(12034)));

    // comments: under maintenance as the spec lists it; lifted by an admin, the first page of the note's comments.
    let lift =
        SetMaintenanceRequest { operation_key: "lifestyle.comments".into(), maintenance: false, note: String::new() };
    admin(&service).await.set_maintenance(with_token(lift, ADMIN_TOKEN)).await.unwrap();
    let body = json!({"noteId": "6650ab000000000012030b01", "cursor": "ignored"});
    let (data, seen) = call(&service, &replay, "lifestyle", "comments", body).await;
    assert_eq!(seen.route, "api/xiaohongshu/get-note-comment/v4");
    assert_eq!(seen.query["noteId"], "6650ab000000000012030b01");
    assert!(!seen.query.contains_key("cursor") && !seen.query.contains_key("lastCursor"), "V4 has no paging");
    assert_eq!(
        data,
        json!({"items": [{"content": "湖边这个营地在哪里", "likeCount": 12}, {"content": "装备好齐全", "likeCount": 3}], "total": 31})
    );
    let comments = eventually("comments", || async move {
        let page = store.list_comments("lifestyle", "6650ab000000000012030b01", 1, 50).await.unwrap();
        (page.total > 0).then_some(page)
    })
    .await;
    assert_eq!((comments.total, comments.items[0].likes), (2, Some(12)));
}

#[tokio::test]
async fn douyin_and_bilibili_operations_answer_from_just_one_api() {
    let replay = justoneapi().await;
    let (service, _files) = pack_service("justoneapi", &replay).await;
    let store = &store_of(&service).await;

    let (data, seen) = call(&service, &replay, "shortvideo", "search-user", json!({"keyword": "猫", "page": 2})).await;
    assert_token(&seen);
    assert_eq!((seen.route.as_str(), seen.query["page"].as_str()), ("api/douyin/search-user/v2", "2"));
    assert_eq!(data["items"][1], json!({"accountId": "31415926", "uid": "88000000002", "followerCount": 1200}));
    stored_account(store, "shortvideo", "MS4wLjABAAAAfixtureSecUid0002").await;

    let search = reply(fixtures("justoneapi"), VIDEO_SEARCH, 0)["data"]["data"].clone();
    let (data, seen) = call(&service, &replay, "shortvideo", "search-work", json!({"keyword": "徒步"})).await;
    assert_eq!((seen.route.as_str(), seen.query["publishTime"].as_str()), (VIDEO_SEARCH, "_0"));
    assert_eq!(data["items"][0]["likeCount"], search[0]["aweme_info"]["statistics"]["digg_count"]);
    assert_eq!(data["items"][1]["workUrl"], "https://www.douyin.com/note/7440000000000000002");
    let work = stored_work(store, "shortvideo", "7440000000000000002").await;
    assert_eq!(work.latest.unwrap().likes, Some(1300));

    let body = json!({"keyword": "徒步", "sortType": "2", "publishTime": "180", "page": 3});
    let (data, seen) = call(&service, &replay, "shortvideo", "realtime-search", body).await;
    assert_eq!(
        (seen.query["sortType"].as_str(), seen.query["publishTime"].as_str(), seen.query["page"].as_str()),
        ("_2", "_180", "3")
    );
    assert_eq!(
        data["items"][0],
        json!({"description": "雨后的山路 #徒步", "likeNum": 8800, "url": "https://www.douyin.com/video/7440000000000000001", "fansNum": 52340})
    );
    let (data, seen) =
        call(&service, &replay, "shortvideo", "shortvideo-ai-feed", json!({"keyword": "人工智能"})).await;
    assert_eq!(seen.query["keyword"], "人工智能");
    assert_eq!(data["items"][0], json!({"title": "雨后的山路 #徒步", "likeCount": 8800}));
    let (data, seen) =
        call(&service, &replay, "shortvideo", "shortvideo-playlet-feed", json!({"keyword": "徒步"})).await;
    assert_eq!(seen.query["keyword"], "徒步 短剧");
    assert_eq!(data["items"].as_array().unwrap().len(), 2);

    // comments: the endpoint pages by number; the comments are written back.
    let (data, seen) =
        call(&service, &replay, "shortvideo", "comments", json!({"videoId": "7440000000000000001", "page": 2})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["awemeId"].as_str(), seen.query["page"].as_str()),
        ("api/douyin/get-video-comment/v1", "7440000000000000001", "2")
    );
    assert_eq!(data["total"], 57);
    assert_eq!(data["items"][0], json!({"text": "这条山路好美", "likeCount": 35, "authorName": "爱爬山的鱼"}));
    assert_eq!(data["items"][1]["text"], "求路线");
    let comments = eventually("comments", || async move {
        let page = store.list_comments("shortvideo", "7440000000000000001", 1, 50).await.unwrap();
        (page.total > 0).then_some(page)
    })
    .await;
    assert_eq!((comments.total, comments.items[0].author_name.as_deref()), (2, Some("爱爬山的鱼")));
    let (data, seen) =
        call(&service, &replay, "shortvideo", "query-work", json!({"videoId": "7440000000000000001"})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["videoId"].as_str()),
        ("api/douyin/get-video-detail/v2", "7440000000000000001")
    );
    assert_eq!(
        (&data["authorName"], &data["likeCount"], &data["publishTime"]),
        (&json!("徒步的猫"), &json!(8800), &json!("2025-11-27 07:33:20"))
    );

    let (data, seen) =
        call(&service, &replay, "shortvideo", "query-work-list", json!({"accountId": SEC_UID, "offset": 0})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["secUid"].as_str(), seen.query["maxCursor"].as_str()),
        (VIDEO_LIST, SEC_UID, "0")
    );
    assert_eq!(data["items"][0]["workId"], "7440000000000000001");
    let (data, _) = call(
        &service,
        &replay,
        "shortvideo",
        "shortvideo-user-works",
        json!({"account": format!("https://www.douyin.com/user/{SEC_UID}")}),
    )
    .await;
    assert_eq!(
        data["items"][1],
        json!({"title": "徒步装备图集", "likeCount": 1300, "workUrl": "https://www.douyin.com/note/7440000000000000002"})
    );
    let body = json!({"accountId": SEC_UID, "publishTimeEnd": "2025-11-27 08:00:00"});
    let (data, seen) = call(&service, &replay, "shortvideo", "shortvideo-work-list", body).await;
    assert_eq!(seen.query["maxCursor"], "1764201600000");
    assert_eq!(data["items"][0]["accountName"], "徒步的猫");

    let (data, seen) = call(&service, &replay, "videosite", "query-work", json!({"bvId": "BV1fx411c7Aa"})).await;
    assert_eq!(
        (seen.route.as_str(), seen.query["bvid"].as_str()),
        ("api/bilibili/get-video-detail/v2", "BV1fx411c7Aa")
    );
    assert_eq!(
        (&data["item"]["title"], &data["item"]["playCount"], &data["item"]["authorName"]),
        (&json!("一起去看海"), &json!(10234), &json!("看海的人"))
    );
    let video = stored_work(store, "videosite", "BV1fx411c7Aa").await;
    assert_eq!((video.work.duration_secs, video.latest.unwrap().views), (Some(185), Some(10234)));
    let (data, seen) = call(&service, &replay, "videosite", "search-work", json!({"keyword": "看海"})).await;
    assert_eq!((seen.route.as_str(), seen.query["order"].as_str()), ("api/bilibili/search-video/v2", "totalrank"));
    assert_eq!(
        data,
        json!({"items": [{"title": "一起去看海", "likeCount": 812}, {"title": "看海日记", "likeCount": 77}], "total": 2})
    );
}

#[tokio::test]
async fn the_syncs_page_through_just_one_api_and_store_the_works_uncharged() {
    let replay = justoneapi().await;
    let (service, _files) = pack_service("justoneapi", &replay).await;
    let store = &store_of(&service).await;

    // Xiaohongshu: the recorded note list (its replies carry no request parameters, so every page is
    // the first recording, has_more true): page 2 is asked with page 1's last cursor, gives the same
    // next cursor again, and the sync stops there (docs/sync.md).
    let recorded_page = reply(recorded("justoneapi"), "xiaohongshu-user-note-list-v4", 0)["data"].clone();
    let notes = recorded_page["notes"].as_array().unwrap();
    let user = notes[0]["user"]["userid"].as_str().unwrap();
    let (status, envelope) =
        service.post("/api/apis/lifestyle/lifestyle-sync-notes/call", json!({"redId": user})).await;
    assert_eq!(success(status, &envelope)["status"], "syncing");
    let task = service.finished_task(envelope["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "success", "{task}");
    assert_eq!(task["sync"]["pages"], 2, "{task}");
    let asked: Vec<Seen> = replay.seen().into_iter().filter(|s| s.route == NOTE_LIST).collect();
    assert_eq!(asked[0].query.get("lastCursor"), None);
    assert_eq!(asked[0].query["userId"], user);
    assert_eq!(asked[1].query["lastCursor"], notes.last().unwrap()["cursor"].as_str().unwrap());
    assert_token(&asked[1]);
    stored_account(store, "lifestyle", user).await;
    let note = stored_work(store, "lifestyle", notes[0]["id"].as_str().unwrap()).await;
    let latest = note.latest.unwrap();
    assert_eq!((latest.likes, latest.collects), (notes[0]["likes"].as_i64(), notes[0]["collected_count"].as_i64()));
    assert_eq!(note.work.published_at.unwrap().timestamp(), notes[0]["create_time"].as_i64().unwrap());

    // Douyin: two fixture pages, the second asked with the first's max_cursor.
    let (status, envelope) =
        service.post("/api/apis/shortvideo/shortvideo-sync-notes/call", json!({"accountId": SEC_UID})).await;
    assert_eq!(success(status, &envelope)["status"], "syncing");
    let task = service.finished_task(envelope["taskId"].as_str().unwrap()).await;
    assert_eq!(
        (&task["status"], &task["sync"]["pages"], &task["sync"]["works"]),
        (&json!("success"), &json!(2), &json!(3)),
        "{task}"
    );
    let asked: Vec<Seen> = replay.seen().into_iter().filter(|s| s.route == VIDEO_LIST).collect();
    assert_eq!(asked[1].query["maxCursor"], "1764000000000");
    let work = stored_work(store, "shortvideo", "7430000000000000003").await;
    assert_eq!(work.work.author_id.as_deref(), Some(SEC_UID));

    assert_eq!(points(&service).await, BOOTSTRAP_POINTS, "syncs are never charged");
}
