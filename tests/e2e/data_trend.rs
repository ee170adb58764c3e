//! The trend operations and skills over REST and gRPC, answered from a store
//! holding the real hot-list archive (`../shared/data/hotlists`, imported as
//! `mediaops import hotlists` does) with the as-of clock at 2024-06-22 (the
//! day after the archive's last day).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::BTreeSet;

use common::{BOOTSTRAP_POINTS, KEY, Service, failure, success};
use mediaops::proto::mediaops::trend::v1::{HotKeywordsRequest, trend_service_client::TrendServiceClient};
use mediaops_ops::trend::keywords::TitleTerms;
use mediaops_store::ContentStore;
use mediaops_store::model::HotListQuery;
use mediaops_store::sqlite::SqliteStore;
use serde_json::{Value, json};

/// A service over a copy of the imported archive, its clock at 2024-06-22.
async fn service() -> Service {
    let dir = common::hotlist_archive_copy();
    Service::start_with(dir, |settings| settings.now = Some("2024-06-22".into())).await
}

/// The archive's (list, title) pairs captured in a Shanghai window.
async fn titles_in(service: &Service, from: &str, to: &str) -> Vec<(String, String)> {
    let store = SqliteStore::open(&service.data_path().join("store.sqlite")).await.unwrap();
    let at = |s: &str| {
        let local = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap();
        mediaops_store::clock::shanghai_to_utc(local.date(), local.time())
    };
    let query = HotListQuery { sources: vec![], from: Some(at(from)), to: Some(at(to)), latest_only: false };
    store.hot_list_entries(&query).await.unwrap().into_iter().map(|e| (e.source, e.title)).collect()
}

async fn hot_keywords(service: &Service, start: &str, end: &str) -> Vec<Value> {
    let body = json!({"startDate": start, "endDate": end});
    let (status, body) = service.post("/api/apis/trend/hot-keywords/call", body).await;
    success(status, &body)["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn hot_keywords_come_from_the_windows_titles_with_their_lists() {
    let service = service().await;
    let (start, end) = ("2024-06-10 00:00:00", "2024-06-16 23:59:59");
    let items = hot_keywords(&service, start, end).await;
    assert_eq!(items.len(), 50, "{items:?}");
    let titles = titles_in(&service, start, end).await;
    let all_lists: BTreeSet<&str> = titles.iter().map(|(list, _)| list.as_str()).collect();
    assert_eq!(all_lists.len(), 6, "every June 2024 list (Toutiao is 2022): {all_lists:?}");
    for item in &items {
        let keyword = item["keyword"].as_str().unwrap().to_lowercase();
        let plats: BTreeSet<&str> = item["plats"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert!(!plats.is_empty());
        for list in &all_lists {
            let said = titles
                .iter()
                .filter(|(l, _)| l == list)
                .any(|(_, title)| TitleTerms::of(title).terms.contains(&keyword));
            assert_eq!(plats.contains(list), said, "{keyword} on {list}");
            if plats.contains(list) {
                assert!(
                    titles.iter().any(|(l, t)| l == list && t.to_lowercase().contains(&keyword)),
                    "{keyword} is in a {list} title of those days"
                );
            }
        }
    }
    // 2024-06-10 was the Dragon Boat Festival: 端午 is on several lists.
    let festival = items.iter().find(|i| i["keyword"] == "端午").expect("端午 is a hot keyword that week");
    assert!(festival["plats"].as_array().unwrap().len() >= 3, "{festival}");
    let later = hot_keywords(&service, "2024-06-20 00:00:00", "2024-06-21 23:59:59").await;
    assert_ne!(later[..5], items[..5], "another window, other keywords");
}

#[tokio::test]
async fn date_only_and_out_of_coverage_windows_give_nothing() {
    let service = service().await;
    assert!(hot_keywords(&service, "2024-06-10", "2024-06-16").await.is_empty(), "date-only");
    assert!(hot_keywords(&service, "2024-05-01 00:00:00", "2024-05-31 23:59:59").await.is_empty());
    // The store holds Toutiao's 2022 board, but it is years older than three weeks.
    assert!(hot_keywords(&service, "2022-06-19 00:00:00", "2022-07-09 23:59:59").await.is_empty());
    assert!(!hot_keywords(&service, "2024-05-25 00:00:00", "2024-06-01 23:59:59").await.is_empty(), "partly covered");
    let latest = hot_keywords(&service, "", "").await;
    assert!(!latest.is_empty(), "no range: the latest batch");
    let (status, body) =
        service.post("/api/apis/trend/hot-keywords/call", json!({"startDate": "2024/06/10 00:00:00"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "startDate");
}

#[tokio::test]
async fn the_hub_finds_a_weibo_keyword_in_its_hours() {
    let service = service().await;
    let hub =
        |start: &str, end: &str| json!({"platforms": [2], "keywords": ["董宇辉"], "startDate": start, "endDate": end});
    let call = |body: Value| {
        let service = &service;
        async move {
            let (status, body) = service.post("/api/apis/trend/trending-hub-keyword/call", body).await;
            success(status, &body)["items"].as_array().unwrap().clone()
        }
    };
    let week = call(hub("2024-06-08 00:00:00", "2024-06-14 23:59:59")).await;
    let titles: BTreeSet<&str> = week.iter().map(|e| e["item"]["title"].as_str().unwrap()).collect();
    let expected: BTreeSet<&str> = [
        "董宇辉称爸妈长期被骚扰",
        "董宇辉小时候被抢过好多次钱",
        "董宇辉每天要吃好多片安眠药",
        "董宇辉曾想退出直播",
        "董宇辉称非常反感被叫网红",
        "俞敏洪道歉后董宇辉发声抗拒卖货",
    ]
    .into();
    assert_eq!(titles, expected, "each Weibo title of the week once");
    assert!(week.iter().all(|e| e["platform"] == "微博热搜"));
    assert!(week.iter().all(|e| e["item"]["hotCount"].as_str().unwrap().parse::<i64>().unwrap() > 0));
    assert!(week.iter().all(|e| e["item"]["index"].as_i64().unwrap() >= 1));

    // 董宇辉称非常反感被叫网红 was on the list in the 06:00 capture of 2024-06-10 only.
    let hour = call(hub("2024-06-10 06:00:00", "2024-06-10 06:59:59")).await;
    assert_eq!(hour.len(), 1);
    assert_eq!(hour[0]["item"]["title"], "董宇辉称非常反感被叫网红");
    assert!(call(hub("2024-06-10 00:00:00", "2024-06-10 05:59:59")).await.is_empty());
    assert!(hour.len() < week.len());
    assert!(call(hub("2024-06-08", "2024-06-14")).await.is_empty(), "date-only");

    let every_list =
        json!({"keywords": ["高考"], "startDate": "2024-06-07 00:00:00", "endDate": "2024-06-10 23:59:59"});
    let lists: BTreeSet<String> =
        call(every_list).await.iter().map(|e| e["platform"].as_str().unwrap().to_owned()).collect();
    assert!(lists.len() >= 4, "the gaokao is on most lists: {lists:?}");

    let (status, body) =
        service.post("/api/apis/trend/trending-hub-keyword/call", json!({"platforms": [3], "keywords": ["x"]})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "platforms[0]");

    // every field optional (spec 4.11; docs/data-apis.md "Empty requests"): no keyword = the overall board
    let whole_hour =
        call(json!({"platforms": [2], "startDate": "2024-06-10 06:00:00", "endDate": "2024-06-10 06:59:59"}));
    let whole_hour = whole_hour.await;
    assert!(whole_hour.len() > hour.len(), "the whole board holds more than one keyword's titles");
    assert!(hour.iter().all(|e| whole_hour.contains(e)), "and every entry the keyword found");
    assert!(whole_hour.iter().all(|e| e["platform"] == "微博热搜"));
    let board = call(json!({})).await;
    assert!(!board.is_empty(), "{{}}: the latest batch of every list");
}

#[tokio::test]
async fn short_video_trend_lists_douyin_by_day() {
    let service = service().await;
    let body = json!({"platform": 1, "startDate": "2024-06-10", "endDate": "2024-06-10"});
    let (status, body) = service.post("/api/apis/trend/shortvideo-hot-trend/call", body).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 100, "the day's union holds more than 100 titles");
    assert_eq!(items[0]["title"], "国足主帅：来韩国是为了晋级", "the archive's first Douyin entry of the day");
    assert_eq!(items[0]["index"], 1);
    assert_eq!(items[0]["url"], "https://www.douyin.com/hot/1720566");
    assert_eq!(items[0]["hotCount"], "", "the archive has no Douyin hot values");
    let (status, body) = service.post("/api/apis/trend/shortvideo-hot-trend/call", json!({"platform": 2})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "platform");
}

#[tokio::test]
async fn hot_topics_read_the_douyin_list_and_bill_per_platform() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/trend/hot-topics/call", json!({"limit": 5})).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 5, "no lifestyle or articles works are stored: Douyin alone fills it");
    assert!(items.iter().all(|i| i["platform"] == "shortvideo"));
    assert_eq!(items.iter().map(|i| i["rank"].as_i64().unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert!(items[0]["url"].as_str().unwrap().starts_with("https://www.douyin.com/hot/"));
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], BOOTSTRAP_POINTS - 12, "three platforms by default: 4 each");
}

#[tokio::test]
async fn trend_radar_merges_stories_across_lists_and_bills_per_platform() {
    let service = service().await;
    let (status, body) = service.post("/api/skills/trend-radar/invoke", json!({})).await;
    let topics = success(status, &body)["topics"].as_array().unwrap().clone();
    assert!(!topics.is_empty());
    let merged: Vec<&Value> = topics.iter().filter(|t| t["platforms"].as_array().unwrap().len() >= 2).collect();
    assert!(!merged.is_empty(), "at least one story is on two lists: {topics:?}");
    assert!(
        topics.iter().all(|t| t["platforms"].as_array().unwrap().iter().any(|p| p == "douyin")),
        "shortvideo: Douyin"
    );
    let heats: Vec<i64> = topics.iter().map(|t| t["heat"].as_i64().unwrap()).collect();
    assert!(heats.windows(2).all(|w| w[0] >= w[1]), "{heats:?}");
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], BOOTSTRAP_POINTS - 12);

    let (status, body) =
        service.post("/api/skills/trend-radar/invoke", json!({"keyword": "暴雨", "platforms": ["shortvideo"]})).await;
    let topics = success(status, &body)["topics"].as_array().unwrap().clone();
    assert!(topics.iter().any(|t| t["title"].as_str().unwrap().contains("暴雨")), "the June floods: {topics:?}");
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], BOOTSTRAP_POINTS - 16, "one platform: 4 points");
    let (status, body) = service.post("/api/skills/trend-radar/invoke", json!({"platforms": ["weibo"]})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "platforms[0]");
}

#[tokio::test]
async fn cn_last30days_counts_mentions_per_day() {
    let service = service().await;
    let body = json!({"keyword": "高考", "days": 30, "platforms": ["shortvideo"]});
    let (status, body) = service.post("/api/skills/cn-last30days/invoke", body).await;
    let trend = success(status, &body)["trend"].clone();
    assert_eq!(trend["keyword"], "高考");
    let series = trend["series"].as_array().unwrap();
    assert_eq!(series.len(), 30);
    assert_eq!((series[0]["date"].as_str(), series[29]["date"].as_str()), (Some("2024-05-24"), Some("2024-06-22")));
    let sum: i64 = series.iter().map(|d| d["mentions"].as_i64().unwrap()).sum();
    assert_eq!(trend["mentions"].as_i64().unwrap(), sum);
    let day = |date: &str| series.iter().find(|d| d["date"] == date).unwrap()["mentions"].as_i64().unwrap();
    assert!(day("2024-06-07") > day("2024-06-20"), "the exam days peak: {series:?}");
    assert_eq!(day("2024-05-24"), 0, "before the archive");
    let score = trend["sentimentScore"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&score));
    assert!(["positive", "neutral", "negative"].contains(&trend["sentiment"].as_str().unwrap()));
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], BOOTSTRAP_POINTS - 4);

    let (status, body) = service.post("/api/skills/cn-last30days/invoke", json!({"keyword": "高考", "days": 31})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "days");

    // keyword optional (spec 4.14): an empty trend with a warning (docs/trends.md "Last 30 days")
    let (status, body) = service.post("/api/skills/cn-last30days/invoke", json!({})).await;
    let trend = success(status, &body)["trend"].clone();
    assert_eq!((trend["keyword"].as_str(), trend["mentions"].as_i64()), (Some(""), Some(0)));
    assert_eq!(trend["series"].as_array().unwrap().len(), 30);
    assert!(body["warnings"][0].as_str().unwrap().contains("no keyword given"), "{body}");
}

#[tokio::test]
async fn grpc_clients_get_the_same_keywords() {
    let service = service().await;
    let (start, end) = ("2024-06-10 00:00:00", "2024-06-16 23:59:59");
    let rest = hot_keywords(&service, start, end).await;
    let mut client = TrendServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(HotKeywordsRequest { start_date: start.into(), end_date: end.into() });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let items = client.hot_keywords(request).await.unwrap().into_inner().items;
    let grpc: Vec<&str> = items.iter().map(|i| i.keyword.as_str()).collect();
    let rest: Vec<&str> = rest.iter().map(|i| i["keyword"].as_str().unwrap()).collect();
    assert_eq!(grpc, rest);
}
