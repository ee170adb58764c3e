//! The AI and 短剧 feeds (`*-ai-feed`, `*-playlet-feed`, `multi/playlet-feed`)
//! over REST and gRPC, answered from a store holding works the topic
//! classifier sorts: for every keyword there is a work in the topic and a
//! more liked one outside it, and only the first is in the feed.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, TimeZone, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::common::v1::KeywordFeedRequest;
use mediaops::proto::mediaops::lifestyle::v1::lifestyle_service_client::LifestyleServiceClient;
use mediaops::proto::mediaops::multi::v1::{PlayletFeedRequest, multi_service_client::MultiServiceClient};
use mediaops::proto::mediaops::videosite::v1::{
    VideositeAiFeedRequest, videosite_service_client::VideositeServiceClient,
};
use mediaops_store::ContentStore;
use mediaops_store::model::{Record, Work, WorkIds, WorkSnapshot};
use serde_json::{Value, json};

/// Shanghai wall time as UTC.
fn at(y: i32, mo: u32, d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, 0, 0).unwrap() - chrono::Duration::hours(8)
}

/// A work and its newest snapshot.
fn work(platform: &str, id: &str, title: &str, tags: &[&str], published: DateTime<Utc>, likes: i64) -> [Record; 2] {
    let work = Work {
        platform: platform.into(),
        platform_id: id.into(),
        ids: WorkIds { work_id: Some(id.into()), ..WorkIds::default() },
        title: title.into(),
        description: Some(format!("{title}，欢迎关注")),
        published_at: Some(published),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        ..Work::default()
    };
    let snapshot = WorkSnapshot { captured_at: at(2024, 6, 20, 12), likes: Some(likes), ..WorkSnapshot::default() };
    [Record::Work(work), Record::WorkSnapshot { platform: platform.into(), platform_id: id.into(), snapshot }]
}

/// The fixture works: (platform, id, title, tags, published, likes).
fn fixtures() -> Vec<Record> {
    let june = |d, h| at(2024, 6, d, h);
    [
        // lifestyle: AI and not-AI 绘画, 短剧 and not-短剧 拍摄.
        work("lifestyle", "L1", "AI绘画教程：Midjourney 出图技巧", &["AI绘画"], june(5, 10), 500),
        work("lifestyle", "L2", "水彩绘画入门：周末在家画猫", &["水彩"], june(6, 10), 900),
        work("lifestyle", "L3", "用AI绘画做情侣头像", &["头像"], at(2024, 5, 1, 10), 80),
        work("lifestyle", "L4", "霸总短剧拍摄幕后花絮", &["短剧"], june(7, 10), 300),
        work("lifestyle", "L5", "手机拍摄夜景的五个技巧", &["摄影"], june(8, 10), 700),
        // shortvideo: three AI 剪辑 works for paging, one plain 剪辑 work.
        work("shortvideo", "S1", "AI剪辑神器一键成片", &["AI"], june(1, 9), 3000),
        work("shortvideo", "S2", "大模型帮我剪辑vlog", &["剪辑"], june(2, 9), 2000),
        work("shortvideo", "S3", "ChatGPT写脚本再剪辑", &["剪辑"], june(3, 9), 1000),
        work("shortvideo", "S4", "剪辑转场教程零基础", &["剪辑"], june(4, 9), 9000),
        work("shortvideo", "S5", "赘婿短剧全集解说", &["短剧"], june(4, 9), 400),
        work("shortvideo", "S6", "电视剧解说：大结局", &["影视"], june(4, 9), 800),
        // articles
        work("articles", "A1", "AI写作工具横评：大模型谁最会写", &["AI"], june(10, 8), 120),
        work("articles", "A2", "写作的十个好习惯", &["写作"], june(10, 9), 600),
        work("articles", "A3", "微短剧行业观察：付费短剧的生意经", &["短剧"], june(11, 8), 90),
        work("articles", "A4", "行业观察：新能源汽车的生意经", &["汽车"], june(11, 9), 950),
        // videosite: 绘画 and ChatGPT, one work matching both.
        work("videosite", "V1", "AI绘画 Stable Diffusion 入门教程", &["AI绘画"], june(12, 20), 100),
        work("videosite", "V2", "ChatGPT 写代码实战", &["ChatGPT"], june(13, 20), 300),
        work("videosite", "V3", "AI绘画遇上ChatGPT：提示词全攻略", &["AI"], june(14, 20), 200),
        work("videosite", "V4", "手绘绘画过程记录", &["手绘"], june(15, 20), 1000),
        work("videosite", "V5", "霸道总裁短剧合集第一集", &["短剧"], june(15, 21), 50),
        work("videosite", "V6", "合集：经典电影混剪", &["电影"], june(15, 22), 5000),
        // channels and clipapp
        work("channels", "C1", "AI数字人直播带货实测", &["AI"], june(16, 20), 66),
        work("channels", "C2", "直播带货话术大全", &["直播"], june(16, 21), 666),
        work("clipapp", "K1", "AI换脸特效怎么做", &["AI"], june(17, 20), 70),
        work("clipapp", "K2", "特效化妆教程", &["特效"], june(17, 21), 700),
        work("clipapp", "K3", "用 DeepSeek 做的配音", &["配音"], june(17, 22), 7),
    ]
    .into_iter()
    .flatten()
    .collect()
}

async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let outcomes = store.write(&fixtures()).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    Service::start_in(dir).await
}

/// `data.items` of a successful call.
async fn items(service: &Service, platform: &str, slug: &str, body: Value) -> Value {
    let (status, answer) = service.post(&format!("/api/apis/{platform}/{slug}/call"), body).await;
    success(status, &answer)["items"].clone()
}

/// The 400's field of a call.
async fn bad_field(service: &Service, platform: &str, slug: &str, body: Value) -> Value {
    let (status, answer) = service.post(&format!("/api/apis/{platform}/{slug}/call"), body).await;
    failure(status, &answer, 400, "invalid_input")["field"].clone()
}

#[tokio::test]
async fn lifestyle_ai_feed_keeps_ai_works_of_the_window() {
    let service = service().await;
    let window = |start: &str, end: &str| json!({"keyword": "绘画", "startTime": start, "endTime": end});
    let found =
        items(&service, "lifestyle", "lifestyle-ai-feed", window("2024-06-01 00:00:00", "2024-06-30 23:59:59")).await;
    // L2 (水彩绘画, 900 likes) matches the keyword but is not AI; L3 is AI but from May.
    assert_eq!(found, json!([{"title": "AI绘画教程：Midjourney 出图技巧", "likeCount": 500}]));
    let wider =
        items(&service, "lifestyle", "lifestyle-ai-feed", window("2024-04-01 00:00:00", "2024-06-30 23:59:59")).await;
    let titles: Vec<&str> = wider.as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["AI绘画教程：Midjourney 出图技巧", "用AI绘画做情侣头像"], "most liked first");

    let no_start = json!({"keyword": "绘画", "startTime": " ", "endTime": "2024-06-30 23:59:59"});
    assert_eq!(bad_field(&service, "lifestyle", "lifestyle-ai-feed", no_start).await, "startTime");
    let missing = json!({"keyword": "绘画", "startTime": "2024-06-01 00:00:00"});
    assert_eq!(bad_field(&service, "lifestyle", "lifestyle-ai-feed", missing).await, "endTime");
    let date_only = window("2024-06-01", "2024-06-30 23:59:59");
    assert_eq!(bad_field(&service, "lifestyle", "lifestyle-ai-feed", date_only).await, "startTime");
    let reversed = window("2024-06-30 00:00:00", "2024-06-01 00:00:00");
    assert_eq!(bad_field(&service, "lifestyle", "lifestyle-ai-feed", reversed).await, "endTime");

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 8, "two feeds at 4 points; 400s are free");
}

#[tokio::test]
async fn playlet_feeds_keep_short_dramas_only() {
    let service = service().await;
    let cases = [
        ("lifestyle", "拍摄", json!([{"title": "霸总短剧拍摄幕后花絮", "likeCount": 300}])),
        ("shortvideo", "解说", json!([{"title": "赘婿短剧全集解说", "likeCount": 400}])),
        ("articles", "生意经", json!([{"title": "微短剧行业观察：付费短剧的生意经", "likeCount": 90}])),
        ("videosite", "合集", json!([{"title": "霸道总裁短剧合集第一集", "likeCount": 50}])),
    ];
    for (platform, keyword, expected) in cases {
        let slug = format!("{platform}-playlet-feed");
        assert_eq!(items(&service, platform, &slug, json!({"keyword": keyword})).await, expected, "{platform}");
    }
    // Not 短剧, so not in the feed even though the keyword matches.
    assert_eq!(items(&service, "lifestyle", "lifestyle-playlet-feed", json!({"keyword": "夜景"})).await, json!([]));
    assert_eq!(bad_field(&service, "videosite", "videosite-playlet-feed", json!({"keyword": ""})).await, "keyword");
    let too_big = json!({"keyword": "合集", "pageSize": 51});
    assert_eq!(bad_field(&service, "videosite", "videosite-playlet-feed", too_big).await, "pageSize");
}

#[tokio::test]
async fn shortvideo_and_articles_ai_feeds_page_and_take_optional_times() {
    let service = service().await;
    let page = |n: i32| json!({"keyword": "剪辑", "pageNum": n, "pageSize": 2});
    assert_eq!(
        items(&service, "shortvideo", "shortvideo-ai-feed", page(1)).await,
        json!([{"title": "AI剪辑神器一键成片", "likeCount": 3000}, {"title": "大模型帮我剪辑vlog", "likeCount": 2000}]),
        "剪辑转场教程 (9000 likes) is not AI"
    );
    assert_eq!(
        items(&service, "shortvideo", "shortvideo-ai-feed", page(2)).await,
        json!([{"title": "ChatGPT写脚本再剪辑", "likeCount": 1000}])
    );
    assert_eq!(items(&service, "shortvideo", "shortvideo-ai-feed", page(3)).await, json!([]));
    let windowed = json!({"keyword": "剪辑", "startTime": "2024-06-02 00:00:00", "endTime": "2024-06-02 23:59:59"});
    assert_eq!(
        items(&service, "shortvideo", "shortvideo-ai-feed", windowed).await,
        json!([{"title": "大模型帮我剪辑vlog", "likeCount": 2000}])
    );
    assert_eq!(bad_field(&service, "shortvideo", "shortvideo-ai-feed", page(-1)).await, "pageNum");

    assert_eq!(
        items(&service, "articles", "articles-ai-feed", json!({"keyword": "写作"})).await,
        json!([{"title": "AI写作工具横评：大模型谁最会写", "likeCount": 120}])
    );
    let only_end = json!({"keyword": "写作", "endTime": "2024-06-09 23:59:59"});
    assert_eq!(items(&service, "articles", "articles-ai-feed", only_end).await, json!([]));
    let bad_end = json!({"keyword": "写作", "endTime": "昨天"});
    assert_eq!(bad_field(&service, "articles", "articles-ai-feed", bad_end).await, "endTime");
}

#[tokio::test]
async fn keyword_list_feeds_merge_any_keyword_by_likes() {
    let service = service().await;
    let feed = |body: Value| items(&service, "videosite", "videosite-ai-feed", body);
    // V4 (手绘绘画, 1000 likes) matches 绘画 but is not AI; V3 matches both keywords once.
    let all = json!([
        {"title": "ChatGPT 写代码实战", "likeCount": 300},
        {"title": "AI绘画遇上ChatGPT：提示词全攻略", "likeCount": 200},
        {"title": "AI绘画 Stable Diffusion 入门教程", "likeCount": 100},
    ]);
    assert_eq!(feed(json!({"keywords": ["绘画", "ChatGPT"]})).await, all);
    assert_eq!(feed(json!({"keywords": ["绘画", "ChatGPT"], "pageNum": 2, "pageSize": 2})).await, json!([all[2]]));
    assert_eq!(feed(json!({"keywords": ["绘画"]})).await, json!([all[1], all[2]]));
    assert_eq!(bad_field(&service, "videosite", "videosite-ai-feed", json!({"keywords": []})).await, "keywords");
    assert_eq!(
        bad_field(&service, "videosite", "videosite-ai-feed", json!({"keywords": ["AI", " "]})).await,
        "keywords"
    );
    let deep = json!({"keywords": ["绘画", "ChatGPT"], "pageNum": 21, "pageSize": 50});
    assert_eq!(bad_field(&service, "videosite", "videosite-ai-feed", deep).await, "pageNum");

    // clipapp: 特效 matches K1 (AI) and K2 (not AI); DeepSeek is AI but not 特效.
    assert_eq!(
        items(&service, "clipapp", "clipapp-ai-feed", json!({"keywords": ["特效", "配音"]})).await,
        json!([{"title": "AI换脸特效怎么做", "likeCount": 70}, {"title": "用 DeepSeek 做的配音", "likeCount": 7}])
    );
    // channels: one keyword.
    assert_eq!(
        items(&service, "channels", "channels-ai-feed", json!({"keyword": "带货"})).await,
        json!([{"title": "AI数字人直播带货实测", "likeCount": 66}])
    );
}

#[tokio::test]
async fn multi_playlet_feed_takes_a_platform_number() {
    let service = service().await;
    let feed = |body: Value| items(&service, "multi", "playlet-feed", body);
    assert_eq!(feed(json!({"platform": 6})).await, json!([{"title": "霸道总裁短剧合集第一集", "platform": 6}]));
    assert_eq!(feed(json!({"platform": 1})).await, json!([{"title": "赘婿短剧全集解说", "platform": 1}]));
    // Unset is 0 = articles (the proto3 default and the spec's number).
    let articles = json!([{"title": "微短剧行业观察：付费短剧的生意经", "platform": 0}]);
    assert_eq!(feed(json!({})).await, articles);
    assert_eq!(feed(json!({"platform": 0})).await, articles);
    assert_eq!(feed(json!({"platform": 3, "pageNum": 2})).await, json!([]));
    assert_eq!(bad_field(&service, "multi", "playlet-feed", json!({"platform": 2})).await, "platform");
    assert_eq!(bad_field(&service, "multi", "playlet-feed", json!({"platform": 3, "pageSize": 99})).await, "pageSize");
}

#[tokio::test]
async fn grpc_clients_get_the_same_feeds() {
    let service = service().await;
    fn authorized<T>(message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
        request
    }
    let mut videosite = VideositeServiceClient::connect(service.grpc.clone()).await.unwrap();
    let request = VideositeAiFeedRequest { keywords: vec!["ChatGPT".into()], page_num: 1, page_size: 1 };
    let items = videosite.videosite_ai_feed(authorized(request)).await.unwrap().into_inner().items;
    assert_eq!(
        items.iter().map(|i| (i.title.as_str(), i.like_count)).collect::<Vec<_>>(),
        [("ChatGPT 写代码实战", 300)]
    );

    let mut lifestyle = LifestyleServiceClient::connect(service.grpc.clone()).await.unwrap();
    let request = KeywordFeedRequest { keyword: "拍摄".into(), page_num: 0, page_size: 0 };
    let items = lifestyle.lifestyle_playlet_feed(authorized(request)).await.unwrap().into_inner().items;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].title, "霸总短剧拍摄幕后花絮");

    let mut multi = MultiServiceClient::connect(service.grpc.clone()).await.unwrap();
    let request = PlayletFeedRequest { platform: 6, page_num: 1, page_size: 10 };
    let items = multi.playlet_feed(authorized(request)).await.unwrap().into_inner().items;
    assert_eq!(
        items.iter().map(|i| (i.title.as_str(), i.platform)).collect::<Vec<_>>(),
        [("霸道总裁短剧合集第一集", 6)]
    );
    let status = multi.playlet_feed(authorized(PlayletFeedRequest { platform: 5, ..Default::default() })).await;
    assert_eq!(status.unwrap_err().code(), tonic::Code::InvalidArgument);
}

#[tokio::test]
async fn a_merged_feed_pages_through_every_work_once_despite_ties() {
    // 160 AI works: a third match 绘画 only, a third ChatGPT only, a third
    // both (so each keyword has more than one store page of 50); two like
    // counts and one publish time, so the 10-like tie spans store pages.
    let published = at(2024, 6, 1, 12);
    let likes = |i: usize| if i.is_multiple_of(4) { 20 } else { 10 };
    let title = |i: usize| match i % 3 {
        0 => format!("AI绘画与ChatGPT 第{i}期"),
        1 => format!("AI绘画 第{i}期"),
        _ => format!("ChatGPT 提问 第{i}期"),
    };
    // Stored in reverse, so the store's own tie order (row id) is the
    // opposite of the feed's (id): ties at a page edge must be fetched whole.
    let records: Vec<Record> = (0..160)
        .rev()
        .flat_map(|i| work("videosite", &format!("P{i:03}"), &title(i), &[], published, likes(i)))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    assert!(store.write(&records).await.unwrap().iter().all(Result::is_ok));
    let service = Service::start_in(dir).await;

    // Most liked first; ties in likes and publish time by id (P000 < P001 …).
    let mut expected: Vec<(i64, String)> = (0..160).map(|i| (likes(i), format!("P{i:03}"))).collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let expected: Vec<Value> = expected
        .into_iter()
        .map(|(likes, id)| json!({"title": title(id[1..].parse().unwrap()), "likeCount": likes}))
        .collect();
    let mut paged = Vec::new();
    for page in 1..=9 {
        let body = json!({"keywords": ["绘画", "ChatGPT"], "pageNum": page, "pageSize": 20});
        let found = items(&service, "videosite", "videosite-ai-feed", body).await;
        paged.extend(found.as_array().unwrap().iter().cloned());
    }
    assert_eq!(paged.len(), 160);
    assert_eq!(paged, expected);
}
