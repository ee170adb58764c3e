//! channels operations (spec 4.9) over REST and gRPC, answered from a store
//! holding a few video-channel accounts and works written here.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, FixedOffset, TimeZone, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::channels::v1::{QueryWorkRequest, channels_service_client::ChannelsServiceClient};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountIds, Record, Work, WorkIds, WorkSnapshot};
use serde_json::{Value, json};

const CAMPER: &str = "v2_060000231003b20faec8c4e48d1bc3d4c803ea30b077e5f3d2d2d8d2a5c3b5e9b8a6d3c@finder";
const NEWS: &str = "v2_060000231003b20faec8c5e08a1ac5d1c903e833b0777cd2a1b3d1c7e5f8a2b4c6d8e0f@finder";
const NEWS_APP: &str = "v2_060000231003b20faec8c7e58b1dc2d4ca02e932b077a1b2c3d4e5f6a7b8c9d0e1f2a3b@finder";
/// The camping video with a description (95 s).
const FIRST: &str = "export/UzFfAgtgekIEAQAAAAAAfjQ2Ok9iQwAAAAstQy6ubaLX4KHWvLEZgBPE0aNUOVwCc8WDzNPgMIvOmVxjKQ";
/// The camping video with only a title (1 h 2 min 5 s).
const STARS: &str = "export/UzFfAgtgekIEAQAAAAAAc7gkFbQ1PAAAAAstQy6ubaLX4KHWvLEZgBPE8aJwbx4xZ8KCzNPgMIvOmVxjKQ";

/// 2024-06-`day` `hour`:00 in Asia/Shanghai (UTC+8).
fn at(day: u32, hour: u32) -> DateTime<Utc> {
    FixedOffset::east_opt(8 * 3600).unwrap().with_ymd_and_hms(2024, 6, day, hour, 0, 0).unwrap().with_timezone(&Utc)
}

fn account(uid: &str, nickname: &str, signature: &str, fans: i64) -> Record {
    Record::Account(Account {
        platform: "channels".into(),
        platform_id: uid.into(),
        ids: AccountIds { uid: Some(uid.into()), ..AccountIds::default() },
        nickname: nickname.into(),
        signature: Some(signature.into()),
        fans: Some(fans),
        avatar: Some(format!("https://wx.qlogo.cn/finderhead/ver_1/{}/0", &uid[3..15])),
        ..Account::default()
    })
}

/// A work and its snapshot: `(likes, collects, comments, shares)`.
fn work(
    video_id: &str,
    author: &str,
    title: &str,
    description: Option<&str>,
    published: DateTime<Utc>,
    counts: [Option<i64>; 4],
) -> [Record; 2] {
    let work = Work {
        platform: "channels".into(),
        platform_id: video_id.into(),
        ids: WorkIds { video_id: Some(video_id.into()), ..WorkIds::default() },
        title: title.into(),
        description: description.map(str::to_owned),
        author_id: Some(author.into()),
        published_at: Some(published),
        cover: Some(format!("https://finder.video.qq.com/cover/{}.jpg", &video_id[7..20])),
        video_url: Some(format!("https://finder.video.qq.com/stodownload?encfilekey={}", &video_id[7..20])),
        work_type: Some("video".into()),
        ..Work::default()
    };
    let [likes, collects, comments, shares] = counts;
    let snapshot =
        WorkSnapshot { captured_at: at(20, 9), likes, collects, comments, shares, ..WorkSnapshot::default() };
    [Record::Work(work), Record::WorkSnapshot { platform: "channels".into(), platform_id: video_id.into(), snapshot }]
}

/// A service whose store holds three accounts (one a near-miss nickname of
/// another) and their works: the camper has 2 camping videos and 21 diary
/// videos published before them.
async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let mut records = vec![
        account(CAMPER, "露营小王子", "周末带你去露营，装备测评与营地推荐", 52_000),
        account(NEWS, "央视新闻", "中央广播电视总台新闻中心官方视频号", 3_200_000),
        account(NEWS_APP, "央视新闻客户端", "央视新闻客户端官方视频号", 800),
    ];
    let mut works = vec![
        work(
            FIRST,
            CAMPER,
            "",
            Some("第一次带娃去露营，装备清单都在这里了 #露营 #亲子"),
            at(1, 10),
            [Some(1200), Some(300), Some(45), Some(88)],
        ),
        work(STARS, CAMPER, "露营地夜晚的星空延时摄影", None, at(3, 10), [Some(500), None, Some(12), None]),
        work(
            "export/UzFfAgtgekIEAQAAAAAAnews0001PAAAAAstQy6ubaLX4KHWvLEZgBPE8aJwbx4xZ8KCzNPgMIvOmVxjKQ",
            NEWS,
            "",
            Some("端午假期露营经济持续升温，多地营地一位难求"),
            at(2, 10),
            [Some(20_000), Some(1500), Some(900), Some(4000)],
        ),
        work(
            "export/UzFfAgtgekIEAQAAAAAAapp00001PAAAAAstQy6ubaLX4KHWvLEZgBPE8aJwbx4xZ8KCzNPgMIvOmVxjKQ",
            NEWS_APP,
            "",
            Some("客户端独家：夏季露营安全提示"),
            at(4, 10),
            [Some(30), Some(2), Some(1), Some(0)],
        ),
    ];
    for n in 1..=21 {
        let id = format!("export/UzFfAgtgekIEAQAAAAAAdiary{n:04}AAAAstQy6ubaLX4KHWvLEZgBPE8aJwbx4xZ8KCzNPgMIvOmVx");
        // Day n of the diary: n hours before 2024-06-01 09:00, older than FIRST.
        let published = at(1, 9) - chrono::Duration::hours(n);
        works.push(work(&id, CAMPER, "", Some(&format!("山野日记 第{n}天")), published, [Some(n), None, None, None]));
    }
    records.extend(works.into_iter().flatten());
    let outcomes = store.write(&records).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    Service::start_in(dir).await
}

fn items(data: &Value) -> Vec<Value> {
    data["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn search_work_lists_every_field_and_pages_by_size() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/channels/search-work/call", json!({"keyword": "露营"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 4, "two camper videos, the news one and the near-miss account's one");
    let first = items(&data).into_iter().find(|i| i["videoId"] == FIRST).unwrap();
    assert_eq!(
        first,
        json!({
            "description": "第一次带娃去露营，装备清单都在这里了 #露营 #亲子",
            "nickname": "露营小王子",
            "likeCount": 1200,
            "favCount": 300,
            "commentCount": 45,
            "forwardCount": 88,
            "publishTime": "2024-06-01 10:00:00",
            "videoId": FIRST,
            "coverUrl": "https://finder.video.qq.com/cover/UzFfAgtgekIEA.jpg",
            "videoUrl": "https://finder.video.qq.com/stodownload?encfilekey=UzFfAgtgekIEA",
        })
    );
    let stars = items(&data).into_iter().find(|i| i["videoId"] == STARS).unwrap();
    assert_eq!(stars["description"], "露营地夜晚的星空延时摄影", "no description: the title");
    assert_eq!((stars["favCount"].clone(), stars["forwardCount"].clone()), (json!(0), json!(0)), "unknown is 0");

    let mut seen = Vec::new();
    for page in 1..=3 {
        let (status, body) = service
            .post("/api/apis/channels/search-work/call", json!({"keyword": "露营", "page": page, "size": 2}))
            .await;
        let data = success(status, &body);
        assert_eq!(data["total"], 4);
        let page_items = items(&data);
        assert_eq!(page_items.len(), if page < 3 { 2 } else { 0 }, "page {page}");
        seen.extend(page_items.into_iter().map(|i| i["videoId"].as_str().unwrap().to_owned()));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 4, "pages do not overlap");

    let (status, body) = service.post("/api/apis/channels/search-work/call", json!({"keyword": "山野日记"})).await;
    assert_eq!(items(&success(status, &body)).len(), 20, "size defaults to 20");
    let (status, body) =
        service.post("/api/apis/channels/search-work/call", json!({"keyword": "山野日记", "size": 50})).await;
    assert_eq!(items(&success(status, &body)).len(), 21);
    for size in [51, -1] {
        let (status, body) =
            service.post("/api/apis/channels/search-work/call", json!({"keyword": "露营", "size": size})).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "size", "size {size}");
    }
    let (status, body) = service.post("/api/apis/channels/search-work/call", json!({"keyword": "火锅"})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 0}));
}

#[tokio::test]
async fn search_user_finds_accounts_with_uid_and_avatar() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/channels/search-user/call", json!({"accountName": "露营"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 1);
    assert_eq!(
        items(&data)[0],
        json!({
            "nickname": "露营小王子",
            "signature": "周末带你去露营，装备测评与营地推荐",
            "uid": CAMPER,
            "headUrl": "https://wx.qlogo.cn/finderhead/ver_1/060000231003/0",
            "coverImgUrl": "",
        })
    );
    let (status, body) =
        service.post("/api/apis/channels/search-user/call", json!({"accountName": "央视新闻", "pageSize": 1})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 2);
    assert_eq!(items(&data).len(), 1);
    let (status, body) = service
        .post("/api/apis/channels/search-user/call", json!({"accountName": "央视新闻", "pageSize": 1, "page": 2}))
        .await;
    let second = items(&success(status, &body));
    assert_eq!(second.len(), 1);
    let (status, body) =
        service.post("/api/apis/channels/search-user/call", json!({"accountName": "央视新闻", "pageSize": 51})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "pageSize");
    let (status, body) = service.post("/api/apis/channels/search-user/call", json!({"accountName": "  "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "accountName");
}

#[tokio::test]
async fn query_work_is_flat_with_a_clock_duration_and_misses_are_free_404s() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/channels/query-work/call", json!({"videoId": FIRST})).await;
    assert_eq!(
        success(status, &body),
        json!({
            "description": "第一次带娃去露营，装备清单都在这里了 #露营 #亲子",
            "nickname": "露营小王子",
            "likeCount": 1200,
            "favCount": 300,
            "commentCount": 45,
            "forwardCount": 88,
            "publishTime": "2024-06-01 10:00:00",
            "videoDuration": "",
            "coverUrl": "https://finder.video.qq.com/cover/UzFfAgtgekIEA.jpg",
            "videoUrl": "https://finder.video.qq.com/stodownload?encfilekey=UzFfAgtgekIEA",
        }),
        "no stored duration: empty"
    );
    let (status, body) = service.post("/api/apis/channels/query-work/call", json!({"videoId": "export/nothere"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = service.post("/api/apis/channels/query-work/call", json!({"videoId": " "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "videoId");
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 4, "one hit charged 4; the miss is free");
}

#[tokio::test]
async fn query_work_renders_stored_durations() {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let mut records = vec![account(CAMPER, "露营小王子", "周末带你去露营", 52_000)];
    for (id, secs) in [(FIRST, 95), (STARS, 3725)] {
        let [Record::Work(mut work), _] = work(id, CAMPER, "露营", None, at(1, 10), [None; 4]) else {
            panic!("work() gives the work first")
        };
        work.duration_secs = Some(secs);
        records.push(Record::Work(work));
    }
    store.write(&records).await.unwrap();
    let service = Service::start_in(dir).await;
    for (id, text) in [(FIRST, "01:35"), (STARS, "1:02:05")] {
        let (status, body) = service.post("/api/apis/channels/query-work/call", json!({"videoId": id})).await;
        let data = success(status, &body);
        assert_eq!(data["videoDuration"], text);
        assert_eq!(data["likeCount"], 0, "no snapshot: 0");
    }
}

#[tokio::test]
async fn user_works_takes_the_exact_nickname_newest_first() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/channels/user-works/call", json!({"nickname": "露营小王子"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 23);
    let page1 = items(&data);
    assert_eq!(page1.len(), 20, "20 per page");
    assert_eq!(page1[0]["videoId"], STARS, "newest first");
    assert_eq!(page1[1]["videoId"], FIRST);
    assert_eq!(page1[2]["description"], "山野日记 第1天");
    assert!(page1.iter().all(|i| i["nickname"] == "露营小王子"));
    let (status, body) =
        service.post("/api/apis/channels/user-works/call", json!({"nickname": "露营小王子", "page": 2})).await;
    let data = success(status, &body);
    assert_eq!((data["total"].clone(), items(&data).len()), (json!(23), 3));
    assert_eq!(items(&data)[2]["description"], "山野日记 第21天");

    // Exact: 央视新闻 is not 央视新闻客户端, and a near miss lists nothing.
    let (status, body) = service.post("/api/apis/channels/user-works/call", json!({"nickname": "央视新闻"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 1);
    assert_eq!(items(&data)[0]["description"], "端午假期露营经济持续升温，多地营地一位难求");
    for near in ["露营小王", "央视", "露营小王子 2"] {
        let (status, body) = service.post("/api/apis/channels/user-works/call", json!({"nickname": near})).await;
        assert_eq!(success(status, &body), json!({"items": [], "total": 0}), "{near}");
    }
    let (status, body) = service.post("/api/apis/channels/user-works/call", json!({"nickname": " "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "nickname");
    let (status, body) =
        service.post("/api/apis/channels/user-works/call", json!({"nickname": "央视新闻", "page": -1})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "page");
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let service = service().await;
    let mut client = ChannelsServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(QueryWorkRequest { video_id: FIRST.into() });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let work = client.query_work(request).await.unwrap().into_inner();
    assert_eq!((work.nickname.as_str(), work.like_count, work.forward_count), ("露营小王子", 1200, 88));
    assert_eq!(work.publish_time, "2024-06-01 10:00:00");
}
