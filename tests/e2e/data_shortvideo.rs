//! shortvideo operations over REST and gRPC, answered from a store holding
//! a book-and-travel creator, a Chengdu food creator with 25 videos (and a
//! namesake with none), and comments on one video. Publish times are
//! relative to now, the service clock `realtime-search` counts back from.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::shortvideo::v1::{QueryWorkRequest, shortvideo_service_client::ShortvideoServiceClient};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountIds, Comment, Record, Work, WorkIds, WorkSnapshot};
use mediaops_store::rules::times::format_time;
use serde_json::{Value, json};

const READER: &str = "MS4wLjABAAAAv7iSuuXDJGDvJkmH_vz1qkDZYo1apxgzaxdBSeIuPiM";
const FOODIE: &str = "MS4wLjABAAAA3mQ0Yd_chengdu_chihuo_9kLz";
const NAMESAKE: &str = "MS4wLjABAAAA1pQ7Xe_chengdu_namesake_2Bv";
const XIAN: &str = "7361234567890123451";
const HOTPOT: &str = "7361234567890123452";
const SNACKS: &str = "7361234567890123453";
const NIGHT_MARKET: &str = "7361234567890123454";

fn account(sec_uid: &str, uid: &str, handle: Option<&str>, nickname: &str, fans: i64, following: i64) -> Record {
    Record::Account(Account {
        platform: "shortvideo".into(),
        platform_id: sec_uid.into(),
        ids: AccountIds {
            sec_uid: Some(sec_uid.into()),
            uid: Some(uid.into()),
            unique_id: handle.map(str::to_owned),
            ..AccountIds::default()
        },
        nickname: nickname.into(),
        signature: Some(format!("{nickname}的主页")),
        fans: Some(fans),
        following: Some(following),
        ..Account::default()
    })
}

/// A video with its counters `[likes, comments, collects, shares]`.
fn video(id: &str, author: &str, title: &str, published: DateTime<Utc>, counts: [i64; 4]) -> [Record; 2] {
    let work = Work {
        platform: "shortvideo".into(),
        platform_id: id.into(),
        ids: WorkIds { video_id: Some(id.into()), work_id: Some(id.into()), ..WorkIds::default() },
        title: title.into(),
        author_id: Some(author.into()),
        published_at: Some(published),
        url: Some(format!("https://www.douyin.com/video/{id}")),
        cover: Some(format!("https://p3-pc-sign.douyinpic.com/{id}.jpeg")),
        work_type: Some("video".into()),
        ..Work::default()
    };
    let [likes, comments, collects, shares] = counts;
    let snapshot = WorkSnapshot {
        captured_at: Utc::now(),
        likes: Some(likes),
        comments: Some(comments),
        collects: Some(collects),
        shares: Some(shares),
        ..WorkSnapshot::default()
    };
    [Record::Work(work), Record::WorkSnapshot { platform: "shortvideo".into(), platform_id: id.into(), snapshot }]
}

/// The fixture and the publish time of the Xi'an video.
struct Fixture {
    service: Service,
    xian_published: DateTime<Utc>,
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let now = Utc::now();
    let xian_published = now - Duration::days(3);
    let mut records = vec![
        account(READER, "58958068057", Some("dongyuhui_reader"), "与辉同行", 28_560_000, 12),
        account(FOODIE, "102030405", Some("chengdu_chihuo"), "成都吃货日记", 1_250_000, 300),
        account(NAMESAKE, "990011", None, "成都吃货日记", 3000, 40),
    ];
    let videos = [
        video(XIAN, READER, "跟着与辉同行去西安 读懂长安", xian_published, [356_000, 12_800, 45_000, 23_000]),
        video(HOTPOT, FOODIE, "成都火锅 人均60吃到撑", now - Duration::hours(12), [8900, 640, 1200, 300]),
        video(SNACKS, FOODIE, "成都街头小吃合集 冒菜 钵钵鸡", now - Duration::days(30), [23_000, 900, 5000, 800]),
        video(NIGHT_MARKET, FOODIE, "成都美食 夜市烧烤排行", now - Duration::days(400), [150_000, 7000, 30_000, 9000]),
    ];
    records.extend(videos.into_iter().flatten());
    for n in 0..22 {
        let id = format!("73612345678901235{n:02}");
        let title = format!("川菜家常做法 第{}期", n + 1);
        records.extend(video(&id, FOODIE, &title, now - Duration::days(40 + n), [1000 + n, 10, 20, 5]));
    }
    for (i, (text, likes, name)) in [
        ("讲得太好了，想去西安了", 5200, "长安归来"),
        ("大唐不夜城人太多了", 860, "小陈同学"),
        ("求书单", 1300, "读书的猫"),
    ]
    .into_iter()
    .enumerate()
    {
        records.push(Record::Comment(Comment {
            platform: "shortvideo".into(),
            platform_id: format!("7362000000000000{i}"),
            work_id: XIAN.into(),
            text: text.into(),
            likes: Some(likes),
            author_name: Some(name.into()),
            ..Comment::default()
        }));
    }
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Fixture { service: Service::start_in(dir).await, xian_published }
}

async fn call(service: &Service, slug: &str, body: Value) -> (u16, Value) {
    service.post(&format!("/api/apis/shortvideo/{slug}/call"), body).await
}

fn column(data: &Value, field: &str) -> Vec<String> {
    data["items"].as_array().unwrap().iter().map(|i| i[field].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn account_profile_and_user_search() {
    let Fixture { service, .. } = fixture().await;
    let link = format!("https://www.douyin.com/user/{READER}?from_tab_name=main&vid={XIAN}");
    for sec_uid in [READER, link.as_str()] {
        let (status, body) = call(&service, "query-account", json!({"secUid": sec_uid})).await;
        assert_eq!(
            success(status, &body)["profile"],
            json!({"nickname": "与辉同行", "followerCount": 28560000, "followingCount": 12})
        );
    }
    let (status, body) = call(&service, "query-account", json!({"secUid": "MS4wLjABAAAAnothere"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = call(&service, "query-account", json!({"secUid": "https://v.douyin.com/iRNBho6/"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "secUid");

    let (status, body) = call(&service, "search-user", json!({"keyword": "成都吃货", "sortType": "1"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([
            {"accountId": "chengdu_chihuo", "uid": "102030405", "followerCount": 1250000},
            {"accountId": NAMESAKE, "uid": "990011", "followerCount": 3000},
        ])
    );
    let (status, body) = call(&service, "search-user", json!({"keyword": "成都吃货", "page": 2})).await;
    assert_eq!(success(status, &body)["items"], json!([]));
    let (status, body) = call(&service, "search-user", json!({"keyword": "成都", "sortType": "fans"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "sortType");

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 4 * 4, "four answers at 4; misses and 400s free");
}

#[tokio::test]
async fn work_list_pages_by_item_offset() {
    let Fixture { service, .. } = fixture().await;
    let (status, body) = call(&service, "query-work-list", json!({"accountId": "chengdu_chihuo"})).await;
    let first = success(status, &body);
    assert_eq!(first["items"].as_array().unwrap().len(), 20);
    assert_eq!(
        first["items"][0],
        json!({"workId": HOTPOT, "title": "成都火锅 人均60吃到撑", "workUrl": format!("https://www.douyin.com/video/{HOTPOT}")}),
        "newest first"
    );
    let (status, body) = call(&service, "query-work-list", json!({"accountId": "chengdu_chihuo", "offset": 20})).await;
    let rest = success(status, &body);
    assert_eq!(rest["items"].as_array().unwrap().len(), 5);
    assert_eq!(rest["items"][4]["workId"], NIGHT_MARKET, "the oldest last");

    let link = format!("https://www.douyin.com/user/{FOODIE}");
    let (status, body) = call(&service, "query-work-list", json!({"accountId": link, "offset": 3})).await;
    let shifted = success(status, &body);
    assert_eq!(shifted["items"].as_array().unwrap()[..17], first["items"].as_array().unwrap()[3..]);

    let (status, body) = call(&service, "query-work-list", json!({"accountId": FOODIE, "sortType": "1"})).await;
    assert_eq!(column(&success(status, &body), "workId")[..3], [NIGHT_MARKET, SNACKS, HOTPOT], "most liked first");
    let (status, body) = call(&service, "query-work-list", json!({"accountId": FOODIE, "offset": -1})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "offset");
    let (status, body) = call(&service, "query-work-list", json!({"accountId": FOODIE, "sortType": "2"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "sortType");
    let (status, body) = call(&service, "query-work-list", json!({"accountId": "nobody_here"})).await;
    failure(status, &body, 404, "not_found");
}

#[tokio::test]
async fn work_search_and_realtime_search_filter_by_publish_time() {
    let Fixture { service, .. } = fixture().await;
    let (status, body) = call(&service, "search-work", json!({"keyword": "成都"})).await;
    let data = success(status, &body);
    let mut found = column(&data, "title");
    found.sort();
    assert_eq!(found, ["成都火锅 人均60吃到撑", "成都美食 夜市烧烤排行", "成都街头小吃合集 冒菜 钵钵鸡"]);
    let night = data["items"].as_array().unwrap().iter().find(|i| i["title"] == "成都美食 夜市烧烤排行").unwrap();
    assert_eq!(night["likeCount"], 150000);
    assert_eq!(night["workUrl"], format!("https://www.douyin.com/video/{NIGHT_MARKET}"));

    let today = format_time(Some(Utc::now()))[..10].to_owned();
    let week_ago = format_time(Some(Utc::now() - Duration::days(7)))[..10].to_owned();
    let (status, body) =
        call(&service, "search-work", json!({"keyword": "成都", "startDate": week_ago, "endDate": today})).await;
    assert_eq!(column(&success(status, &body), "title"), ["成都火锅 人均60吃到撑"]);
    let (status, body) = call(&service, "search-work", json!({"keyword": "成都", "endDate": "2024/01/01"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "endDate");

    let realtime = |publish_time: &str, sort_type: &str| json!({"keyword": "成都", "publishTime": publish_time, "sortType": sort_type});
    let (status, body) = call(&service, "realtime-search", realtime("1", "")).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{
            "description": "成都火锅 人均60吃到撑",
            "likeNum": 8900,
            "url": format!("https://www.douyin.com/video/{HOTPOT}"),
            "fansNum": 1250000,
        }])
    );
    let (status, body) = call(&service, "realtime-search", realtime("180", "1")).await;
    assert_eq!(
        column(&success(status, &body), "description"),
        ["成都街头小吃合集 冒菜 钵钵鸡", "成都火锅 人均60吃到撑"]
    );
    let (status, body) = call(&service, "realtime-search", realtime("", "1")).await;
    assert_eq!(column(&success(status, &body), "description")[0], "成都美食 夜市烧烤排行", "any time, most liked");
    let (status, body) = call(&service, "realtime-search", realtime("0", "2")).await;
    assert_eq!(column(&success(status, &body), "description")[0], "成都火锅 人均60吃到撑", "newest");
    let (status, body) = call(&service, "realtime-search", realtime("30", "")).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "publishTime");
    let (status, body) = call(&service, "realtime-search", realtime("", "hot")).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "sortType");
    let (status, body) = call(&service, "realtime-search", json!({"keyword": "成都", "page": 2})).await;
    assert_eq!(success(status, &body)["items"], json!([]));

    let (_, balance) = service.get("/api/account/balance").await;
    let expected = common::BOOTSTRAP_POINTS - 2 * 6 - 5 * 9;
    assert_eq!(balance["data"]["points"], expected, "search-work 6, realtime-search 9; 400s free");
}

#[tokio::test]
async fn comments_page_and_miss() {
    let Fixture { service, .. } = fixture().await;
    let link = format!("https://www.douyin.com/video/{XIAN}?previous_page=app_code_link");
    for video_id in [XIAN, link.as_str()] {
        let (status, body) = call(&service, "comments", json!({"videoId": video_id})).await;
        assert_eq!(
            success(status, &body),
            json!({
                "items": [
                    {"text": "讲得太好了，想去西安了", "likeCount": 5200, "authorName": "长安归来"},
                    {"text": "求书单", "likeCount": 1300, "authorName": "读书的猫"},
                    {"text": "大唐不夜城人太多了", "likeCount": 860, "authorName": "小陈同学"},
                ],
                "total": 3,
            })
        );
    }
    let (status, body) = call(&service, "comments", json!({"videoId": XIAN, "page": 2})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 3}));
    let (status, body) = call(&service, "comments", json!({"videoId": HOTPOT})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 0}), "a stored video without comments");
    let (status, body) = call(&service, "comments", json!({"videoId": "7000000000000000000"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = call(&service, "comments", json!({"videoId": "abc"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "videoId");
}

#[tokio::test]
async fn user_works_detect_ids_and_names() {
    let Fixture { service, xian_published } = fixture().await;
    // An exact nickname shared by two accounts: the one with most fans.
    let (status, body) = call(&service, "shortvideo-user-works", json!({"account": "成都吃货日记"})).await;
    let data = success(status, &body);
    assert_eq!(data["items"].as_array().unwrap().len(), 20);
    assert_eq!(
        data["items"][0],
        json!({"title": "成都火锅 人均60吃到撑", "likeCount": 8900, "workUrl": format!("https://www.douyin.com/video/{HOTPOT}")})
    );
    for account in ["dongyuhui_reader", "58958068057", READER] {
        let (status, body) = call(&service, "shortvideo-user-works", json!({"account": account})).await;
        assert_eq!(column(&success(status, &body), "title"), ["跟着与辉同行去西安 读懂长安"], "{account}");
    }
    let (status, body) = call(&service, "shortvideo-user-works", json!({"account": NAMESAKE})).await;
    assert_eq!(success(status, &body)["items"], json!([]), "an id wins over names; that account has no works");
    let (status, body) = call(&service, "shortvideo-user-works", json!({"account": "成都吃货"})).await;
    failure(status, &body, 404, "not_found");

    let start = format_time(Some(xian_published - Duration::minutes(1)));
    let end = format_time(Some(xian_published + Duration::minutes(1)));
    let (status, body) = call(
        &service,
        "shortvideo-work-list",
        json!({"accountId": "dongyuhui_reader", "publishTimeStart": start, "publishTimeEnd": end}),
    )
    .await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"title": "跟着与辉同行去西安 读懂长安", "accountName": "与辉同行", "workUrl": format!("https://www.douyin.com/video/{XIAN}")}])
    );
    let (status, body) =
        call(&service, "shortvideo-work-list", json!({"accountId": READER, "publishTimeStart": end})).await;
    assert_eq!(success(status, &body)["items"], json!([]));
    let (status, body) = call(
        &service,
        "shortvideo-work-list",
        json!({"accountId": FOODIE, "publishTimeStart": format_time(Some(Utc::now() - Duration::days(31)))}),
    )
    .await;
    assert_eq!(column(&success(status, &body), "title"), ["成都火锅 人均60吃到撑", "成都街头小吃合集 冒菜 钵钵鸡"]);
    let (status, body) =
        call(&service, "shortvideo-work-list", json!({"accountId": READER, "publishTimeStart": "2024-06-01"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "publishTimeStart");
    let (status, body) = call(
        &service,
        "shortvideo-work-list",
        json!({"accountId": READER, "publishTimeStart": end, "publishTimeEnd": start}),
    )
    .await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "publishTimeEnd");
    let (status, body) = call(&service, "shortvideo-work-list", json!({"accountId": "成都吃货日记"})).await;
    failure(status, &body, 404, "not_found");
}

#[tokio::test]
async fn query_work_is_flat() {
    let Fixture { service, xian_published } = fixture().await;
    let modal = format!("https://www.douyin.com/discover?modal_id={XIAN}");
    for video_id in [XIAN, modal.as_str()] {
        let (status, body) = call(&service, "query-work", json!({"videoId": video_id})).await;
        assert_eq!(
            success(status, &body),
            json!({
                "authorName": "与辉同行",
                "authorFansCount": 28560000,
                "content": "跟着与辉同行去西安 读懂长安",
                "likeCount": 356000,
                "commentCount": 12800,
                "collectCount": 45000,
                "shareCount": 23000,
                "opusUrl": format!("https://www.douyin.com/video/{XIAN}"),
                "coverUrl": format!("https://p3-pc-sign.douyinpic.com/{XIAN}.jpeg"),
                "publishTime": format_time(Some(xian_published)),
                "videoId": XIAN,
            })
        );
    }
    let (status, body) = call(&service, "query-work", json!({"videoId": "7000000000000000000"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = call(&service, "query-work", json!({"videoId": "BV1cM41197ui"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "videoId");
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let Fixture { service, .. } = fixture().await;
    let mut client = ShortvideoServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(QueryWorkRequest { video_id: HOTPOT.into() });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let work = client.query_work(request).await.unwrap().into_inner();
    assert_eq!((work.author_name.as_str(), work.author_fans_count, work.like_count), ("成都吃货日记", 1_250_000, 8900));
    assert_eq!(work.video_id, HOTPOT);
}
