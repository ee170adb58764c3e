//! videosite operations over REST and gRPC, answered from a store holding
//! the real archived Bilibili popular feed (`../shared/data/works/bilibili`,
//! imported as `mediaops import bilibili-popular` does).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::videosite::v1::{QueryWorkRequest, videosite_service_client::VideositeServiceClient};
use serde_json::json;

/// A service whose store holds both archived days of the feed.
async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    common::import_bilibili_feed(dir.path(), &["2023-10-26", "2023-10-27"]).await;
    Service::start_in(dir).await
}

#[tokio::test]
async fn work_lookup_takes_an_id_or_a_link_and_misses_are_404() {
    let service = service().await;
    for bv in ["BV1cM41197ui", "https://www.bilibili.com/video/BV1cM41197ui/?spm_id_from=333"] {
        let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": bv})).await;
        let item = success(status, &body)["item"].clone();
        assert_eq!(item["bvId"], "BV1cM41197ui");
        assert_eq!(item["title"], "《史记》原文全解读！二十四史之首，竟然如此好看？【故事】01");
        assert_eq!(item["authorName"], "木鱼水心");
        // The newest snapshot (2023-10-27) wins.
        assert_eq!(item["playCount"], 2022003);
        assert_eq!(item["likeCount"], 377747);
        assert_eq!(item["favoriteCount"], 164333);
    }
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": "BV1nothere"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": "https://b23.tv/x"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "bvId");
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 8, "two hits charged 4 each; misses free");
}

#[tokio::test]
async fn account_lookup_and_user_works_list_the_uploader() {
    let service = service().await;
    let (status, body) = service
        .post("/api/apis/videosite/query-account/call", json!({"mid": "https://space.bilibili.com/73528331"}))
        .await;
    let account = success(status, &body)["account"].clone();
    assert_eq!(account["name"], "摩斯神探");
    assert_eq!(account["mid"], "73528331");
    assert!(account["follower"].as_i64().unwrap() > 0);
    assert!(account["totalPlayCount"].as_i64().unwrap() > 0, "sum of the stored works' plays");

    let (status, body) =
        service.post("/api/apis/videosite/videosite-user-works/call", json!({"mid": "73528331", "pageSize": 2})).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["title"], "张家辉靠本片一举拿下影帝，超燃动作电影，拳拳到肉，爽到爆！", "newest first");
    assert!(items[0]["url"].as_str().unwrap().starts_with("https://www.bilibili.com/video/BV"));
    assert!(items[0].get("categoryName").is_some());
    let (status, body) =
        service.post("/api/apis/videosite/videosite-user-works/call", json!({"mid": "73528331", "pageSize": 51})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "pageSize");
}

#[tokio::test]
async fn searches_rank_page_and_order() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/videosite/search-work/call", json!({"keyword": "史记"})).await;
    let data = success(status, &body);
    assert!(data["total"].as_i64().unwrap() >= 1);
    assert!(data["items"][0]["title"].as_str().unwrap().contains("史记"));
    assert!(data["items"][0]["likeCount"].as_i64().unwrap() > 0);

    let (status, body) = service
        .post("/api/apis/videosite/search-work/call", json!({"keyword": "电影", "pageSize": 3, "order": "click"}))
        .await;
    let data = success(status, &body);
    assert!(data["total"].as_i64().unwrap() > 3);
    assert_eq!(data["items"].as_array().unwrap().len(), 3);
    let (status, body) =
        service.post("/api/apis/videosite/search-work/call", json!({"keyword": "电影", "order": "views"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "order");

    let (status, body) =
        service.post("/api/apis/videosite/search-user/call", json!({"keyword": "木鱼水心", "order": "follower"})).await;
    let items = success(status, &body)["items"].clone();
    assert_eq!(items[0], json!({"uid": "927587", "fansNum": 11482842}));

    let (status, body) = service.post("/api/apis/videosite/search-work/call", json!({"keyword": "没有这种词语"})).await;
    let data = success(status, &body);
    assert_eq!(data, json!({"items": [], "total": 0}));
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let service = service().await;
    let mut client = VideositeServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(QueryWorkRequest { bv_id: "BV1cM41197ui".into() });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let item = client.query_work(request).await.unwrap().into_inner().item.unwrap();
    assert_eq!((item.title.contains("史记"), item.play_count), (true, 2022003));
}
