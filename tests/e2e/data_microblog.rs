//! microblog operations over REST and gRPC, answered from a store holding
//! two accounts and three posts with their counters.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, NaiveDateTime, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::microblog::v1::{DetailRequest, microblog_service_client::MicroblogServiceClient};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountIds, Record, Work, WorkIds, WorkSnapshot};
use serde_json::{Value, json};

/// The post whose base62 code is `z0JH2lOMb`.
const MID: &str = "3501756485200075";

/// `YYYY-MM-DD HH:mm:ss` Asia/Shanghai as UTC.
fn at(local: &str) -> DateTime<Utc> {
    (NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M:%S").unwrap() - chrono::Duration::hours(8)).and_utc()
}

fn account(uid: &str, nickname: &str) -> Record {
    Record::Account(Account {
        platform: "microblog".into(),
        platform_id: uid.into(),
        ids: AccountIds { uid: Some(uid.into()), ..AccountIds::default() },
        nickname: nickname.into(),
        ..Account::default()
    })
}

/// A post and its snapshot (likes, shares, comments).
fn post(mid: &str, author: &str, title: &str, text: Option<&str>, published: &str, counts: [i64; 3]) -> [Record; 2] {
    let [likes, shares, comments] = counts;
    [
        Record::Work(Work {
            platform: "microblog".into(),
            platform_id: mid.into(),
            ids: WorkIds { work_id: Some(mid.into()), ..WorkIds::default() },
            title: title.into(),
            description: text.map(Into::into),
            author_id: Some(author.into()),
            published_at: Some(at(published)),
            url: (mid == MID).then(|| "https://weibo.com/2803301701/z0JH2lOMb".to_owned()),
            ..Work::default()
        }),
        Record::WorkSnapshot {
            platform: "microblog".into(),
            platform_id: mid.into(),
            snapshot: WorkSnapshot {
                captured_at: at("2024-07-10 12:00:00"),
                likes: Some(likes),
                shares: Some(shares),
                comments: Some(comments),
                ..WorkSnapshot::default()
            },
        },
    ]
}

async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let mut records = vec![account("2803301701", "人民日报"), account("1618051664", "头条新闻")];
    records.extend(post(
        MID,
        "2803301701",
        "【高温预警】",
        Some("【高温预警】中央气象台继续发布高温橙色预警，华北黄淮等地最高气温可达40℃，请注意防暑降温。"),
        "2024-07-10 08:00:00",
        [5_230, 1_180, 960],
    ));
    records.extend(post(
        "4990000000000002",
        "1618051664",
        "多地迎来入汛以来最强降雨，高温与暴雨交替出现",
        None,
        "2024-07-10 09:30:00",
        [820, 140, 310],
    ));
    records.extend(post(
        "4990000000000003",
        "2803301701",
        "夜读：把日子过成诗",
        Some("夜读：生活不止眼前的忙碌，还有诗和远方。"),
        "2024-07-09 22:00:00",
        [3_100, 400, 210],
    ));
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Service::start_in(dir).await
}

async fn call(service: &Service, slug: &str, body: Value) -> (u16, Value) {
    service.post(&format!("/api/apis/microblog/{slug}/call"), body).await
}

fn the_heat_post() -> Value {
    json!({
        "postId": MID,
        "text": "【高温预警】中央气象台继续发布高温橙色预警，华北黄淮等地最高气温可达40℃，请注意防暑降温。",
        "authorName": "人民日报",
        "authorId": "2803301701",
        "likeCount": 5_230,
        "repostCount": 1_180,
        "commentCount": 960,
        "publishTime": "2024-07-10 08:00:00",
        "url": "https://weibo.com/2803301701/z0JH2lOMb",
    })
}

#[tokio::test]
async fn search_finds_posts_with_author_counters_and_total() {
    let service = service().await;
    let (status, body) = call(&service, "search", json!({"keyword": "高温"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 2);
    let items = data["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items.iter().find(|p| p["postId"] == MID).unwrap(), &the_heat_post());
    let other = items.iter().find(|p| p["postId"] == "4990000000000002").unwrap();
    assert_eq!(other["text"], "多地迎来入汛以来最强降雨，高温与暴雨交替出现", "no description: the title is the text");
    assert_eq!((other["authorName"].clone(), other["url"].clone()), (json!("头条新闻"), json!("")));

    let (status, body) = call(&service, "search", json!({"keyword": "高温", "page": 2})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 2}));
    let (status, body) = call(&service, "search", json!({"keyword": "没有这种词语"})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 0}));
    let (status, body) = call(&service, "search", json!({"keyword": "高温", "page": -2})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "page");
}

#[tokio::test]
async fn detail_takes_an_id_a_post_code_or_a_link() {
    let service = service().await;
    for request in [
        json!({"postId": MID}),
        json!({"postId": "z0JH2lOMb"}),
        json!({"url": "https://weibo.com/2803301701/z0JH2lOMb?refer_flag=1001030103_"}),
        json!({"url": format!("https://m.weibo.cn/detail/{MID}")}),
    ] {
        let (status, body) = call(&service, "detail", request.clone()).await;
        assert_eq!(success(status, &body)["item"], the_heat_post(), "{request}");
    }
    let (status, body) = call(&service, "detail", json!({"postId": "4990000000009999"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = call(&service, "detail", json!({})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "postId");
    let (status, body) = call(&service, "detail", json!({"url": "https://example.com/2803301701/z0JH2lOMb"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "url");

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 16, "four hits at 4; misses and 400s free");
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let service = service().await;
    let mut client = MicroblogServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(DetailRequest {
        post_id: String::new(),
        url: "https://weibo.com/2803301701/z0JH2lOMb".into(),
    });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let item = client.detail(request).await.unwrap().into_inner().item.unwrap();
    assert_eq!((item.post_id.as_str(), item.author_name.as_str(), item.repost_count), (MID, "人民日报", 1_180));
}
