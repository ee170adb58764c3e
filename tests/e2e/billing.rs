//! Billing as clients see it over real HTTP and gRPC: the balance endpoint,
//! free operations, the admin service (gRPC only, admin token) and the key
//! lifecycle. Charging itself is covered on both ledgers in
//! core-service/tests/charging.rs.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::{ADMIN_TOKEN, BOOTSTRAP_POINTS, KEY, Service, admin, failure, success, with_token};
use mediaops::proto::grpc_error::error_object;
use mediaops::proto::mediaops::admin::v1::{
    CreateKeyRequest, DisableKeyRequest, GetAccountBalanceRequest, GrantPointsRequest, ListKeysRequest,
    ListUsageRequest,
};
use serde_json::json;

#[tokio::test]
async fn the_caller_sees_its_balance_and_free_calls_cost_nothing() {
    let service = Service::start().await;
    let (status, body) = service.get("/api/account/balance").await;
    assert_eq!(success(status, &body), json!({"accountId": "bootstrap", "points": BOOTSTRAP_POINTS}));
    service.get("/api/apis").await;
    service.get("/api/skills/search?q=x").await;
    service.get("/api/ip-profile/charter").await;
    let (_, body) = service.get("/api/account/balance").await;
    assert_eq!(body["data"]["points"], BOOTSTRAP_POINTS, "catalogs and charter reads are free");
}

/// `GET /api/account/usage`: the caller's own calls, newest first, with
/// their points and outcomes; another account's calls are not shown; a bad
/// `limit` is a 400 naming it.
#[tokio::test]
async fn the_caller_sees_its_own_usage() {
    let dir = tempfile::tempdir().unwrap();
    common::add_key(dir.path(), "mk_test_other_account_0001", "other").await;
    let service = Service::start_in(dir).await;
    let check = json!({"platform": "公众号", "content": "全网第一"});
    success_of(service.post("/api/apis/tool/check-banned-words/call", check).await);
    let (status, body) = service.post("/api/apis/videosite/query-work/call", json!({"bvId": "BV1nothere"})).await;
    failure(status, &body, 404, "not_found");
    let other = service
        .call_with_key(reqwest::Method::GET, "/api/account/balance", None, Some("mk_test_other_account_0001"))
        .await;
    assert_eq!(other.0, 200);

    let usage = success_of(service.get("/api/account/usage?limit=2").await);
    let records = usage["records"].as_array().unwrap();
    assert_eq!(records.len(), 2, "{usage}");
    assert_eq!(records[0]["operationKey"], "videosite.query-work");
    assert_eq!(records[0]["outcome"], "not_found");
    assert_eq!(records[1]["operationKey"], "tool.check-banned-words");
    assert_eq!(records[1]["outcome"], "ok");
    assert_eq!(records[1]["points"], 1);
    assert_eq!(usage["usageCounts"]["tool.check-banned-words"], 1);
    let all = success_of(service.get("/api/account/usage").await);
    assert!(all["records"].as_array().unwrap().iter().all(|r| r["accountId"] == "bootstrap"), "{all}");

    let (status, body) = service.get("/api/account/usage?limit=1001").await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "limit");
}

fn success_of((status, body): (u16, serde_json::Value)) -> serde_json::Value {
    success(status, &body)
}

#[tokio::test]
async fn admin_service_needs_the_admin_token_and_is_not_on_rest() {
    let service = Service::start().await;
    let mut client = admin(&service).await;
    let status = client.list_keys(ListKeysRequest {}).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);
    let status = client.list_keys(with_token(ListKeysRequest {}, KEY)).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated, "an API key is not the admin token");
    assert_eq!(error_object(&status).unwrap().code, "unauthenticated");
    for path in ["/api/admin/keys", "/mediaops.admin.v1.AdminService/ListKeys"] {
        let (status, body) = service.post(path, json!({})).await;
        failure(status, &body, 404, "not_found");
    }
    let (_, apis) = service.get("/api/apis").await;
    assert!(!apis.to_string().contains("admin."), "admin operations are not in the catalog");
}

#[tokio::test]
async fn keys_are_created_granted_listed_and_disabled() {
    let service = Service::start().await;
    let mut client = admin(&service).await;
    let created = client
        .create_key(with_token(
            CreateKeyRequest { account_id: "team-a".into(), points: 5, ..Default::default() },
            ADMIN_TOKEN,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(created.balance, 5);
    let key = created.key.clone();
    let (status, body) = service.call_with_key(reqwest::Method::GET, "/api/account/balance", None, Some(&key)).await;
    assert_eq!(success(status, &body), json!({"accountId": "team-a", "points": 5}));

    let granted = client
        .grant_points(with_token(GrantPointsRequest { account_id: "team-a".into(), points: 20 }, ADMIN_TOKEN))
        .await
        .unwrap();
    assert_eq!(granted.get_ref().points, 25);
    let bad = client
        .grant_points(with_token(GrantPointsRequest { account_id: "team-a".into(), points: 0 }, ADMIN_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    let missing = client
        .get_balance(with_token(GetAccountBalanceRequest { account_id: "nobody".into() }, ADMIN_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);

    let keys = client.list_keys(with_token(ListKeysRequest {}, ADMIN_TOKEN)).await.unwrap().into_inner().keys;
    assert_eq!(keys.len(), 2, "bootstrap and team-a");
    let listed = format!("{keys:?}");
    assert!(!listed.contains(&key) && !listed.contains(KEY), "keys are listed by id and prefix only");
    let team = keys.iter().find(|k| k.account_id == "team-a").unwrap();

    let disabled =
        client.disable_key(with_token(DisableKeyRequest { key: team.key_id.clone() }, ADMIN_TOKEN)).await.unwrap();
    assert!(disabled.get_ref().disabled);
    let (status, body) = service.call_with_key(reqwest::Method::GET, "/api/account/balance", None, Some(&key)).await;
    assert!(failure(status, &body, 401, "unauthenticated")["message"].as_str().unwrap().contains("disabled"));

    for _ in 0..2 {
        service.get("/api/account/balance").await; // the bootstrap account
    }
    let usage = client
        .list_usage(with_token(ListUsageRequest { account_id: "team-a".into(), limit: 10 }, ADMIN_TOKEN))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(usage.records.len(), 1, "the one balance call before the key was disabled");
    assert_eq!((usage.records[0].operation_key.as_str(), usage.records[0].outcome.as_str()), ("account.balance", "ok"));
    let counts = |usage: &mediaops::proto::mediaops::admin::v1::ListUsageResponse| {
        usage.usage_counts.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>()
    };
    assert_eq!(counts(&usage), [("account.balance".to_owned(), 1)], "team-a's own counts, not the service's");
    let bootstrap = client
        .list_usage(with_token(ListUsageRequest { account_id: "bootstrap".into(), limit: 10 }, ADMIN_TOKEN))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(counts(&bootstrap), [("account.balance".to_owned(), 2)]);
}
