//! Positioning charter storage (spec 2.5, 4.15) over real HTTP: PUT/GET round
//! trip, every validation rule, profile ownership, persistence across restart.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::{Service, add_key, failure, success};
use reqwest::Method;
use serde_json::{Value, json};

fn charter() -> Value {
    json!({
        "version": 1,
        "positioning": {"oneLiner": "帮三人小团队做内容增长", "domain": "新媒体运营", "niche": "B2B 内容", "tag": "增长笔记"},
        "audience": {"persona": "小团队负责人", "decisionScene": "季度规划", "payerNote": "老板付费"},
        "monetization": {"path": "membership", "practicalPaths": ["consulting", "membership", "consulting", "paid_knowledge"], "stage": "accumulation", "gapNote": "缺案例"},
        "northStar": {"metric": "private_leads", "rationale": "线索决定收入"},
        "review": {"lastReviewedAt": "2026-11-01T10:00:00+08:00", "nextTrigger": "粉丝过万"}
    })
}

async fn put(service: &Service, id: &str, body: Value) -> (u16, Value) {
    service.call(Method::PUT, &format!("/api/ip-profile/{id}/charter"), Some(body)).await
}

#[tokio::test]
async fn put_then_get_round_trips_with_dedup() {
    let service = Service::start().await;
    let (status, body) = put(&service, "brand", charter()).await;
    let stored = success(status, &body);
    assert_eq!(
        stored["charter"]["monetization"]["practicalPaths"],
        json!(["consulting", "membership", "paid_knowledge"])
    );
    let updated_at = stored["charterUpdatedAt"].as_str().unwrap();
    assert!(chrono::DateTime::parse_from_rfc3339(updated_at).is_ok(), "{updated_at}");
    let mut expected = charter();
    expected["monetization"]["practicalPaths"] = json!(["consulting", "membership", "paid_knowledge"]);
    assert_eq!(stored["charter"], expected);

    let (status, body) = service.get("/api/ip-profile/brand/charter").await;
    assert_eq!(success(status, &body), stored);

    let mut replaced = charter();
    replaced["positioning"]["oneLiner"] = json!("换了定位");
    replaced["monetization"]["practicalPaths"] = json!([]);
    let (status, body) = put(&service, "brand", replaced.clone()).await;
    assert_eq!(success(status, &body)["charter"], replaced, "PUT replaces the whole charter");
}

#[tokio::test]
async fn default_profile_reads_empty_until_stored() {
    let service = Service::start().await;
    let (status, body) = service.get("/api/ip-profile/charter").await;
    let data = success(status, &body);
    assert_eq!(data["profileId"], "default");
    assert!(data["charterUpdatedAt"].is_null());
    assert_eq!(data["charter"]["version"], 1);
    assert_eq!(data["charter"]["positioning"]["oneLiner"], "");

    let (status, _) = put(&service, "default", charter()).await;
    assert_eq!(status, 200);
    let (status, body) = service.get("/api/ip-profile/charter").await;
    assert_eq!(success(status, &body)["charter"], {
        let mut c = charter();
        c["monetization"]["practicalPaths"] = json!(["consulting", "membership", "paid_knowledge"]);
        c
    });
}

#[tokio::test]
async fn every_rule_of_2_5_is_enforced_with_the_field_named() {
    let service = Service::start().await;
    type Break = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Break)> = vec![
        ("version", Box::new(|c| c["version"] = json!(2))),
        ("version", Box::new(|c| c.as_object_mut().unwrap().remove("version").map(|_| ()).unwrap())),
        (
            "positioning.oneLiner",
            Box::new(|c| c["positioning"].as_object_mut().unwrap().remove("oneLiner").map(|_| ()).unwrap()),
        ),
        ("positioning.domain", Box::new(|c| c["positioning"]["domain"] = json!(5))),
        ("audience", Box::new(|c| c.as_object_mut().unwrap().remove("audience").map(|_| ()).unwrap())),
        ("audience.payerNote", Box::new(|c| c["audience"]["payerNote"] = Value::Null)),
        ("monetization.path", Box::new(|c| c["monetization"]["path"] = json!("pyramid"))),
        (
            "monetization.practicalPaths[1]",
            Box::new(|c| c["monetization"]["practicalPaths"] = json!(["membership", "mlm"])),
        ),
        ("monetization.practicalPaths", Box::new(|c| c["monetization"]["practicalPaths"] = json!("membership"))),
        ("monetization.stage", Box::new(|c| c["monetization"]["stage"] = json!("later"))),
        ("northStar.metric", Box::new(|c| c["northStar"]["metric"] = json!("vanity"))),
        ("review.lastReviewedAt", Box::new(|c| c["review"]["lastReviewedAt"] = json!("last week"))),
        (
            "review.nextTrigger",
            Box::new(|c| c["review"].as_object_mut().unwrap().remove("nextTrigger").map(|_| ()).unwrap()),
        ),
        ("positioning.slogan", Box::new(|c| c["positioning"]["slogan"] = json!("x"))),
    ];
    for (field, mutate) in cases {
        let mut body = charter();
        mutate(&mut body);
        let (status, response) = put(&service, "p", body).await;
        let error = failure(status, &response, 400, "invalid_input");
        assert_eq!(error["field"], field, "{response}");
    }
    let (status, body) = service.get("/api/ip-profile/p/charter").await;
    failure(status, &body, 404, "not_found");

    for ok in ["", "2026-11-01T10:00:00Z", "2026-11-01T10:00:00"] {
        let mut body = charter();
        body["review"]["lastReviewedAt"] = json!(ok);
        body["monetization"]["path"] = json!("");
        let (status, response) = put(&service, "p", body).await;
        assert_eq!(status, 200, "{ok}: {response}");
    }
    let (status, body) = put(&service, "bad%20id", charter()).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "id");
}

#[tokio::test]
async fn a_key_only_sees_its_own_accounts_profiles_and_restarts_keep_them() {
    let data_dir = tempfile::tempdir().unwrap();
    let other = "mk_other_account_key_0002";
    add_key(data_dir.path(), other, "acct_other").await;
    let service = Service::start_in(data_dir).await;
    let (status, _) = put(&service, "brand", charter()).await;
    assert_eq!(status, 200);

    let (status, body) = service.call_with_key(Method::GET, "/api/ip-profile/brand/charter", None, Some(other)).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = service.call_with_key(Method::GET, "/api/ip-profile/charter", None, Some(other)).await;
    assert!(success(status, &body)["charterUpdatedAt"].is_null());

    let common::Service { running, data_dir, .. } = service;
    running.shutdown().await.unwrap();
    let service = Service::start_in(data_dir).await;
    let (status, body) = service.get("/api/ip-profile/brand/charter").await;
    assert_eq!(success(status, &body)["charter"]["positioning"]["oneLiner"], "帮三人小团队做内容增长");
}

#[tokio::test]
async fn charter_updated_at_comes_from_the_service_clock() {
    // `MEDIAOPS_NOW` fixes the service clock; every stored time stamp
    // follows it (docs/charter.md), not the wall clock.
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start_with(dir, |core| core.now = Some("2026-05-01T10:00:00+08:00".into())).await;
    let (status, body) = put(&service, "brand", charter()).await;
    assert_eq!(success(status, &body)["charterUpdatedAt"], "2026-05-01T02:00:00.000Z");
    let (status, body) = service.get("/api/ip-profile/brand/charter").await;
    assert_eq!(success(status, &body)["charterUpdatedAt"], "2026-05-01T02:00:00.000Z");
}
