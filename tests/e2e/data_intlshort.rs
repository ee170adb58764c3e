//! intlshort `search-user` over REST and gRPC, answered from a store
//! holding four accounts.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{TimeZone, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::intlshort::v1::{SearchUserRequest, intlshort_service_client::IntlshortServiceClient};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountIds, AccountSnapshot, Record};
use serde_json::json;

fn account(id: &str, handle: Option<&str>, nickname: &str, signature: &str, fans: Option<i64>) -> Record {
    Record::Account(Account {
        platform: "intlshort".into(),
        platform_id: id.into(),
        ids: AccountIds { unique_id: handle.map(Into::into), ..AccountIds::default() },
        nickname: nickname.into(),
        signature: Some(signature.into()),
        fans,
        ..Account::default()
    })
}

async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let records = vec![
        account(
            "6727327145951183878",
            Some("khaby.lame"),
            "Khaby Lame",
            "If u wanna laugh u r in the right place",
            Some(162_300_000),
        ),
        account("6784563164518827014", Some("khabyfanclub"), "Khaby Lame Fan Club", "Best of Khaby every day", None),
        account("6811123063420159494", Some("bellapoarch"), "Bella Poarch", "Build a Bitch out now", None),
        Record::AccountSnapshot {
            platform: "intlshort".into(),
            platform_id: "6811123063420159494".into(),
            snapshot: AccountSnapshot {
                captured_at: Utc.with_ymd_and_hms(2024, 7, 1, 4, 0, 0).unwrap(),
                fans: Some(93_400_000),
                ..AccountSnapshot::default()
            },
        },
        account("6900000000000000001", None, "Bella Travel Diaries", "Travel vlogs by Bella", Some(12_000)),
    ];
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Service::start_in(dir).await
}

#[tokio::test]
async fn search_user_answers_handles_fans_and_total() {
    let service = service().await;
    let path = "/api/apis/intlshort/search-user/call";
    let (status, body) = service.post(path, json!({"keyword": "Khaby"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 2);
    let mut items = data["items"].as_array().unwrap().clone();
    items.sort_by_key(|i| i["uniqueId"].as_str().unwrap().to_owned());
    assert_eq!(
        items,
        [json!({"uniqueId": "khaby.lame", "fans": 162_300_000}), json!({"uniqueId": "khabyfanclub", "fans": 0})],
        "unknown fans are 0"
    );

    // Fans from the newest snapshot; no handle stored: the platform id.
    let (status, body) = service.post(path, json!({"keyword": "bella"})).await;
    let mut items = success(status, &body)["items"].as_array().unwrap().clone();
    items.sort_by_key(|i| i["uniqueId"].as_str().unwrap().to_owned());
    assert_eq!(
        items,
        [
            json!({"uniqueId": "6900000000000000001", "fans": 12_000}),
            json!({"uniqueId": "bellapoarch", "fans": 93_400_000})
        ]
    );

    let (status, body) = service.post(path, json!({"keyword": "Khaby", "page": 2})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 2}));
    let (status, body) = service.post(path, json!({"keyword": "Khaby", "page": -1})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "page");
    let (status, body) = service.post(path, json!({"keyword": " "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "keyword");

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 18, "three answers at 6; 400s free");
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let service = service().await;
    let mut client = IntlshortServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(SearchUserRequest { keyword: "Khaby Lame".into(), page: 0 });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let found = client.search_user(request).await.unwrap().into_inner();
    assert_eq!(found.total, 2);
    let khaby = found.items.iter().find(|i| i.unique_id == "khaby.lame").unwrap();
    assert_eq!(khaby.fans, 162_300_000);
}
