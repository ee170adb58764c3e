//! The maintenance switch (docs/maintenance.md): an admin
//! switches operations at run time; the catalogs and calls follow, nothing is
//! charged while down, switches survive a restart, and with Redis every core
//! sees them.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::sync::Arc;

use common::{ADMIN_TOKEN, BOOTSTRAP_POINTS, Service, admin, failure, success, with_token};
use mediaops::proto::grpc_error::error_object;
use mediaops::proto::mediaops::admin::v1::{ListMaintenanceRequest, SetMaintenanceRequest};
use mediaops_platform::maintenance::redis::RedisSwitchStore;
use mediaops_platform::maintenance::{CACHE_TTL, Maintenance};
use mediaops_platform::registry::Registry;
use serde_json::{Value, json};

const SAFETY: &str = "/api/skills/content-safety-check/invoke";

fn switch(key: &str, maintenance: bool, note: &str) -> tonic::Request<SetMaintenanceRequest> {
    with_token(SetMaintenanceRequest { operation_key: key.into(), maintenance, note: note.into() }, ADMIN_TOKEN)
}

async fn balance(service: &Service) -> i64 {
    service.get("/api/account/balance").await.1["data"]["points"].as_i64().unwrap()
}

async fn safety_check(service: &Service) -> (u16, Value) {
    service.post(SAFETY, json!({"platform": "公众号", "content": "全网最低价"})).await
}

/// The skill's entry in `GET /api/skills`.
async fn skill_entry(service: &Service) -> Value {
    let (status, body) = service.get("/api/skills").await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    items.into_iter().find(|e| e["slug"] == "content-safety-check").unwrap()
}

#[tokio::test]
async fn an_admin_switches_an_operation_and_back_at_run_time() {
    let service = Service::start().await;
    let mut client = admin(&service).await;

    let state = client.set_maintenance(switch("skills.content-safety-check", true, "词库更新中")).await.unwrap();
    let state = state.into_inner();
    assert_eq!(
        (state.status.as_str(), state.note.as_str(), state.origin.as_str()),
        ("maintenance", "词库更新中", "switched")
    );

    let (status, body) = safety_check(&service).await;
    let error = failure(status, &body, 503, "maintenance");
    assert!(error["message"].as_str().unwrap().contains("词库更新中"), "{error}");
    assert_eq!(balance(&service).await, BOOTSTRAP_POINTS, "nothing charged while under maintenance");
    let entry = skill_entry(&service).await;
    assert_eq!(entry["availability"], json!({"status": "maintenance", "note": "词库更新中"}));
    assert_eq!(entry["execution"]["mode"], "unavailable");
    assert!(entry["execution"].get("target").is_none(), "{entry}");

    let listed = client.list_maintenance(with_token(ListMaintenanceRequest {}, ADMIN_TOKEN)).await.unwrap();
    let listed: Vec<_> =
        listed.into_inner().operations.into_iter().map(|o| (o.operation_key, o.status, o.origin)).collect();
    let expected = |key: &str, origin: &str| (key.to_owned(), "maintenance".to_owned(), origin.to_owned());
    assert_eq!(
        listed,
        [
            expected("articles.articles-sync-account", "declared"),
            expected("lifestyle.comments", "declared"),
            expected("skills.content-safety-check", "switched"),
        ]
    );

    client.set_maintenance(switch("skills.content-safety-check", false, "")).await.unwrap();
    let (status, body) = safety_check(&service).await;
    success(status, &body);
    assert_eq!(balance(&service).await, BOOTSTRAP_POINTS - 1, "charged again once available");
    let entry = skill_entry(&service).await;
    assert!(entry.get("availability").is_none(), "{entry}");
    assert_eq!(entry["execution"]["target"]["path"], SAFETY);
}

#[tokio::test]
async fn a_declared_maintenance_can_be_lifted_and_switches_survive_a_restart() {
    let service = Service::start().await;
    let mut client = admin(&service).await;
    let (status, body) = service.post("/api/apis/lifestyle/comments/call", json!({"noteId": "x"})).await;
    failure(status, &body, 503, "maintenance");

    client.set_maintenance(switch("lifestyle.comments", false, "上游已恢复")).await.unwrap();
    let (status, body) = service.post("/api/apis/lifestyle/comments/call", json!({"noteId": "x"})).await;
    failure(status, &body, 404, "not_found");
    client.set_maintenance(switch("lifestyle.search-note", true, "")).await.unwrap();

    let Service { running, data_dir, .. } = service;
    running.shutdown().await.unwrap();
    let service = Service::start_in(data_dir).await;
    let (status, body) = service.post("/api/apis/lifestyle/comments/call", json!({"noteId": "x"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = service.post("/api/apis/lifestyle/search-note/call", json!({"keyword": "露营"})).await;
    failure(status, &body, 503, "maintenance");
    let (_, apis) = service.get("/api/apis?platform=lifestyle").await;
    let comments = apis["data"]["items"].as_array().unwrap().iter().find(|e| e["slug"] == "comments").unwrap();
    assert!(comments.get("availability").is_none(), "{comments}");
    assert_eq!(comments["execution"]["mode"], "dedicated");
}

#[tokio::test]
async fn unknown_and_admin_operations_are_refused_with_the_field_named() {
    let service = Service::start().await;
    let mut client = admin(&service).await;
    for key in ["", "lifestyle.no-such-thing", "admin.maintenance.set"] {
        let status = client.set_maintenance(switch(key, true, "")).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{key}");
        assert_eq!(error_object(&status).unwrap().field.as_deref(), Some("operationKey"), "{key}");
    }
    let status = client.set_maintenance(switch("lifestyle.search-note", true, "")).await;
    assert!(status.is_ok());
    let anonymous = client.set_maintenance(SetMaintenanceRequest::default()).await.unwrap_err();
    assert_eq!(anonymous.code(), tonic::Code::Unauthenticated);
}

#[tokio::test]
async fn with_redis_every_core_sees_a_switch() {
    let url = std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("mediaops-test-{}", uuid::Uuid::new_v4().simple());
    let registry = Registry::from_pool(mediaops::proto::descriptor_pool()).unwrap();
    let core = |store| Maintenance::new(&registry, Arc::new(store), mediaops_store::clock::Clock::System);
    let a = core(RedisSwitchStore::connect(&url, &prefix).await.unwrap());
    let b = core(RedisSwitchStore::connect(&url, &prefix).await.unwrap());
    let search = registry.operations().find(|op| op.key() == "lifestyle.search-note").unwrap().clone();
    assert_eq!(b.note_if_down(&search).await, None);

    a.set(SetMaintenanceRequest { operation_key: search.key().into(), maintenance: true, note: "限流".into() })
        .await
        .unwrap();
    assert_eq!(a.note_if_down(&search).await.as_deref(), Some("限流"), "at once on the switching core");
    tokio::time::sleep(CACHE_TTL + std::time::Duration::from_millis(200)).await;
    assert_eq!(b.note_if_down(&search).await.as_deref(), Some("限流"), "within the cache time on another");

    let mut redis = redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    redis::cmd("DEL").arg(format!("{prefix}:maintenance")).query_async::<()>(&mut redis).await.unwrap();
}

#[tokio::test]
async fn a_switch_is_stamped_by_the_service_clock() {
    // `MEDIAOPS_NOW` fixes the service clock: `changedAt` follows it (docs/maintenance.md).
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start_with(dir, |core| core.now = Some("2026-05-01T10:00:00+08:00".into())).await;
    let mut client = admin(&service).await;
    let switched = client.set_maintenance(switch("lifestyle.search-note", true, "")).await.unwrap().into_inner();
    assert_eq!(switched.changed_at, "2026-05-01T02:00:00Z");
}
