//! `tool/parse-content-detail` over REST and gRPC: links and share texts
//! answered from a seeded store, bad links as 400s naming `url`, misses as
//! 404s, and only answers charged (4 points). Short links are tested
//! against a fake short-link server in ops/tests/parse_link.rs.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::tool::v1::{ParseContentDetailRequest, tool_service_client::ToolServiceClient};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, Record, Work, WorkSnapshot};
use serde_json::json;

const AWEME: &str = "7301234567890123456";

async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let records = vec![
        Record::Account(Account {
            platform: "shortvideo".into(),
            platform_id: "MS4wLjAB".into(),
            nickname: "山野日记".into(),
            ..Account::default()
        }),
        Record::Work(Work {
            platform: "shortvideo".into(),
            platform_id: AWEME.into(),
            title: "山里的清晨".into(),
            author_id: Some("MS4wLjAB".into()),
            ..Work::default()
        }),
        Record::WorkSnapshot {
            platform: "shortvideo".into(),
            platform_id: AWEME.into(),
            snapshot: WorkSnapshot {
                captured_at: chrono::Utc::now(),
                likes: Some(88_000),
                shares: Some(3_100),
                ..WorkSnapshot::default()
            },
        },
    ];
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Service::start_in(dir).await
}

const PATH: &str = "/api/apis/tool/parse-content-detail/call";

#[tokio::test]
async fn links_and_share_texts_are_answered_and_only_answers_are_charged() {
    let service = service().await;
    let expected = json!({
        "platform": "shortvideo",
        "source": "store",
        "item": {"title": "山里的清晨", "authorName": "山野日记", "likeCount": 88_000, "shareCount": 3_100},
    });
    for url in [
        format!("https://www.douyin.com/video/{AWEME}?previous_page=app_code_link"),
        format!("7.99 复制打开抖音，看看【山野日记的作品】山里的清晨 https://www.douyin.com/video/{AWEME} 07/12 abc:/"),
    ] {
        let (status, body) = service.post(PATH, json!({"url": url})).await;
        assert_eq!(success(status, &body), expected);
    }

    let (status, body) = service.post(PATH, json!({"url": "https://www.zhihu.com/question/1"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "url");
    assert!(error["message"].as_str().unwrap().contains("www.zhihu.com"), "{error}");
    let (status, body) = service.post(PATH, json!({"url": "https://www.douyin.com/user/MS4wLjAB"})).await;
    let message = failure(status, &body, 400, "invalid_input")["message"].as_str().unwrap().to_owned();
    assert!(message.contains("shortvideo link without a work id") && message.contains("/video/<id>"), "{message}");
    let (status, body) = service.post(PATH, json!({"url": "http://127.0.0.1:9/x"})).await;
    failure(status, &body, 400, "invalid_input");
    let (status, body) = service.post(PATH, json!({"url": "https://www.douyin.com/video/7000000000000000001"})).await;
    failure(status, &body, 404, "not_found");

    let mut grpc = ToolServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(ParseContentDetailRequest {
        url: format!("https://www.iesdouyin.com/share/video/{AWEME}/"),
    });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let answer = grpc.parse_content_detail(request).await.unwrap().into_inner();
    assert_eq!((answer.platform.as_str(), answer.item.unwrap().like_count), ("shortvideo", 88_000));

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(
        balance["data"]["points"],
        common::BOOTSTRAP_POINTS - 12,
        "three answers at 4; 400s and the 404 are free"
    );
}
