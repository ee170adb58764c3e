//! The cross-platform operations `cn30-multi-search` and
//! `multi-content-export-top` over REST and gRPC, answered from a store
//! holding works of several platforms at known times (recent ones relative
//! to the wall clock for the 30-day search, March 2024 for the export).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, Duration, TimeZone, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::multi::v1::{
    Cn30MultiSearchRequest, MultiContentExportTopRequest, multi_service_client::MultiServiceClient,
};
use mediaops_store::ContentStore;
use mediaops_store::model::{Record, Work, WorkSnapshot};
use serde_json::{Value, json};

/// A work and its newest snapshot.
fn work(platform: &str, id: &str, title: &str, published: DateTime<Utc>, likes: i64) -> [Record; 2] {
    let work = Work {
        platform: platform.into(),
        platform_id: id.into(),
        title: title.into(),
        published_at: Some(published),
        ..Work::default()
    };
    let snapshot = WorkSnapshot { captured_at: Utc::now(), likes: Some(likes), ..WorkSnapshot::default() };
    [Record::Work(work), Record::WorkSnapshot { platform: platform.into(), platform_id: id.into(), snapshot }]
}

/// Shanghai wall time in March 2024 as UTC.
fn march(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 3, day, hour, 0, 0).unwrap() - Duration::hours(8)
}

/// Today in Asia/Shanghai, shifted by `days`, as `YYYY-MM-DD`.
fn shanghai_day(days: i64) -> String {
    (Utc::now() + Duration::hours(8) + Duration::days(days)).format("%Y-%m-%d").to_string()
}

async fn service() -> Service {
    let ago = |days: i64| Utc::now() - Duration::days(days);
    let records: Vec<Record> = [
        // cn30-multi-search: 露营 on the three searched platforms and one that is not.
        work("lifestyle", "L1", "露营装备清单：新手必看", ago(3), 10),
        work("lifestyle", "L2", "露营地推荐：江浙沪十处", ago(40), 20),
        work("shortvideo", "S1", "周末露营vlog", ago(1), 30),
        work("articles", "A1", "露营经济观察", ago(10), 40),
        work("videosite", "V1", "露营装备开箱", ago(2), 50),
        // multi-content-export-top: 春季 in March 2024.
        work("lifestyle", "E1", "春季穿搭指南", march(10, 9), 500),
        work("lifestyle", "E2", "春季护肤要点", march(12, 9), 800),
        work("lifestyle", "E3", "春季穿搭合集", Utc.with_ymd_and_hms(2024, 5, 1, 0, 0, 0).unwrap(), 9999),
        work("lifestyle", "E4", "早春露营攻略", march(31, 23), 5),
        work("shortvideo", "E5", "春季踏青好去处", march(15, 9), 50),
        work("articles", "E6", "春季养生：喝对一杯茶", march(20, 9), 70),
        work("videosite", "E7", "春季新番导视", march(5, 9), 60),
    ]
    .into_iter()
    .flatten()
    .collect();
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let outcomes = store.write(&records).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    Service::start_in(dir).await
}

async fn call(service: &Service, slug: &str, body: Value) -> (u16, Value) {
    service.post(&format!("/api/apis/multi/{slug}/call"), body).await
}

async fn bad_field(service: &Service, slug: &str, body: Value) -> Value {
    let (status, answer) = call(service, slug, body).await;
    failure(status, &answer, 400, "invalid_input")["field"].clone()
}

#[tokio::test]
async fn cn30_search_covers_the_last_30_days_of_three_platforms() {
    let service = service().await;
    let expected = json!({
        "keyword": "露营",
        "lifestyleResult": [{"title": "露营装备清单：新手必看"}],
        "shortvideoResult": [{"title": "周末露营vlog"}],
        "articlesResult": [{"title": "露营经济观察"}],
    });
    let (status, body) = call(&service, "cn30-multi-search", json!({"keyword": " 露营 "})).await;
    assert_eq!(success(status, &body), expected, "40-day-old and videosite works are left out");
    // A start older than the coverage is clamped to it, an end after today to today.
    let wide = json!({"keyword": "露营", "startDate": shanghai_day(-90), "endDate": shanghai_day(5)});
    let (status, body) = call(&service, "cn30-multi-search", wide).await;
    assert_eq!(success(status, &body), expected);
    let narrow = json!({"keyword": "露营", "startDate": shanghai_day(-5), "endDate": shanghai_day(-2)});
    let (status, body) = call(&service, "cn30-multi-search", narrow).await;
    let data = success(status, &body);
    assert_eq!(data["lifestyleResult"], json!([{"title": "露营装备清单：新手必看"}]));
    assert_eq!((data["shortvideoResult"].clone(), data["articlesResult"].clone()), (json!([]), json!([])));
    let before = json!({"keyword": "露营", "startDate": shanghai_day(-90), "endDate": shanghai_day(-35)});
    let (status, body) = call(&service, "cn30-multi-search", before).await;
    let data = success(status, &body);
    assert_eq!(data, json!({"keyword": "露营", "lifestyleResult": [], "shortvideoResult": [], "articlesResult": []}));

    let reversed = json!({"keyword": "露营", "startDate": shanghai_day(-2), "endDate": shanghai_day(-5)});
    assert_eq!(bad_field(&service, "cn30-multi-search", reversed).await, "endDate");
    let datetime = json!({"keyword": "露营", "startDate": "2024-06-01 00:00:00"});
    assert_eq!(bad_field(&service, "cn30-multi-search", datetime).await, "startDate");
    assert_eq!(bad_field(&service, "cn30-multi-search", json!({"keyword": "  "})).await, "keyword");
    assert_eq!(bad_field(&service, "cn30-multi-search", json!({})).await, "keyword");

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 48, "four searches at 12 points; 400s are free");
}

#[tokio::test]
async fn export_top_groups_the_most_liked_by_platform() {
    let service = service().await;
    let export =
        json!({"platforms": [3, 1], "startTime": "2024-03-01", "endTime": "2024-03-31 23:59:59", "keyword": "春季"});
    let (status, body) = call(&service, "multi-content-export-top", export).await;
    assert_eq!(
        success(status, &body),
        json!({"items": [
            {"platform": 3, "list": [{"title": "春季护肤要点", "likeCount": 800}, {"title": "春季穿搭指南", "likeCount": 500}]},
            {"platform": 1, "list": [{"title": "春季踏青好去处", "likeCount": 50}]},
        ]}),
        "May's 春季穿搭合集 is outside the window"
    );
    // No platforms = all four in number order; no keyword = every work of the window.
    let all = json!({"startTime": "2024-03-01 00:00:00", "endTime": "2024-03-31"});
    let (status, body) = call(&service, "multi-content-export-top", all).await;
    let items = success(status, &body)["items"].clone();
    let platforms: Vec<i64> = items.as_array().unwrap().iter().map(|g| g["platform"].as_i64().unwrap()).collect();
    assert_eq!(platforms, [0, 1, 3, 6]);
    assert_eq!(items[0]["list"], json!([{"title": "春季养生：喝对一杯茶", "likeCount": 70}]));
    let lifestyle: Vec<&str> =
        items[2]["list"].as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(lifestyle, ["春季护肤要点", "春季穿搭指南", "早春露营攻略"], "a date end takes the whole day");
    assert_eq!(items[3]["list"], json!([{"title": "春季新番导视", "likeCount": 60}]));
    // A platform without matches keeps its (empty) group.
    let none = json!({"platforms": [6, 6, 0], "keyword": "护肤"});
    let (status, body) = call(&service, "multi-content-export-top", none).await;
    assert_eq!(success(status, &body), json!({"items": [{"platform": 6, "list": []}, {"platform": 0, "list": []}]}));

    assert_eq!(bad_field(&service, "multi-content-export-top", json!({"platforms": [1, 2]})).await, "platforms");
    let reversed = json!({"startTime": "2024-03-31", "endTime": "2024-03-01"});
    assert_eq!(bad_field(&service, "multi-content-export-top", reversed).await, "endTime");
    let bad = json!({"startTime": "2024/03/01"});
    assert_eq!(bad_field(&service, "multi-content-export-top", bad).await, "startTime");
}

#[tokio::test]
async fn grpc_clients_get_the_same_answers() {
    let service = service().await;
    fn authorized<T>(message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
        request
    }
    let mut client = MultiServiceClient::connect(service.grpc.clone()).await.unwrap();
    let request = Cn30MultiSearchRequest { keyword: "露营".into(), ..Default::default() };
    let found = client.cn30_multi_search(authorized(request)).await.unwrap().into_inner();
    assert_eq!(found.keyword, "露营");
    assert_eq!(found.shortvideo_result.iter().map(|h| h.title.as_str()).collect::<Vec<_>>(), ["周末露营vlog"]);

    let request = MultiContentExportTopRequest {
        platforms: vec![0],
        start_time: "2024-03-01 00:00:00".into(),
        end_time: "2024-03-31 23:59:59".into(),
        keyword: "养生".into(),
    };
    let groups = client.multi_content_export_top(authorized(request)).await.unwrap().into_inner().items;
    assert_eq!(groups.len(), 1);
    assert_eq!((groups[0].platform, groups[0].list[0].like_count), (0, 70));
}
