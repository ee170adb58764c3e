//! The three catalogs over real HTTP: every operation of spec 4.3-4.14 with
//! the spec's price and path, descriptors generated from the protos, skill
//! search with scores.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::BTreeSet;

use common::spec_tables::{DATA_APIS, MAINTENANCE, SKILLS};
use common::{Service, success};
use serde_json::Value;

#[tokio::test]
async fn data_api_catalog_lists_every_operation_with_spec_price_and_path() {
    let service = Service::start().await;
    let (status, body) = service.get("/api/apis").await;
    let data = success(status, &body);
    let items = data["items"].as_array().unwrap();
    assert_eq!(data["total"], items.len());

    let listed: BTreeSet<(String, String, i64, String)> = items
        .iter()
        .map(|e| {
            let platform = e["platform"].as_str().unwrap().to_owned();
            let slug = e["slug"].as_str().unwrap().to_owned();
            assert_eq!(e["path"], format!("/api/apis/{platform}/{slug}/call"), "{e}");
            assert_eq!(e["method"], "POST");
            assert_eq!(e["operationKey"], format!("{platform}.{slug}"));
            (platform, slug, e["unitPrice"].as_i64().unwrap(), e["priceClass"].as_str().unwrap().to_owned())
        })
        .collect();
    let expected: BTreeSet<_> = DATA_APIS
        .iter()
        .map(|(p, s, price, class)| (p.to_string(), s.to_string(), *price, class.to_string()))
        .collect();
    let missing: Vec<_> = expected.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&expected).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, extra {extra:?}");
    assert_eq!(items.len(), DATA_APIS.len(), "no operation is listed twice");
}

#[tokio::test]
async fn catalog_entries_carry_the_spec_2_2_fields_and_descriptors() {
    let service = Service::start().await;
    let (status, body) = service.get("/api/apis").await;
    let data = success(status, &body);
    for entry in data["items"].as_array().unwrap() {
        for key in [
            "platform",
            "slug",
            "operationKey",
            "title",
            "method",
            "path",
            "summary",
            "unitPrice",
            "tags",
            "requestSchema",
            "responseExample",
            "priceClass",
            "inputUiSchema",
            "outputUiSchema",
            "execution",
            "taskUi",
        ] {
            assert!(entry.get(key).is_some(), "{key} missing in {}", entry["operationKey"]);
        }
        assert_eq!(entry["requestSchema"]["type"], "object");
        assert_eq!(entry["outputUiSchema"]["version"], 1, "whole numbers stay whole in free-form objects");
        let fields = entry["inputUiSchema"]["fields"].as_array().unwrap();
        let schema_props = entry["requestSchema"]["properties"].as_object().unwrap();
        for field in fields {
            let path = field["path"].as_str().unwrap();
            assert!(schema_props.contains_key(path.split('.').next().unwrap()), "{path}");
        }
        let maintenance = MAINTENANCE.contains(&entry["operationKey"].as_str().unwrap());
        if maintenance {
            assert_eq!(entry["availability"]["status"], "maintenance");
            assert_eq!(entry["execution"]["mode"], "unavailable");
            // spec 2.4: `execution.target` is absent (not null) when unavailable
            assert!(entry["execution"].get("target").is_none(), "{}", entry["execution"]);
        } else {
            assert!(entry.get("availability").is_none(), "{}", entry["operationKey"]);
            assert_eq!(entry["execution"]["target"]["path"], entry["path"]);
        }
    }
    let (_, one) = service.get("/api/apis?platform=lifestyle").await;
    let top =
        one["data"]["items"].as_array().unwrap().iter().find(|e| e["slug"] == "lifestyle-top-account").unwrap().clone();
    let type_field =
        top["inputUiSchema"]["fields"].as_array().unwrap().iter().find(|f| f["path"] == "type").unwrap().clone();
    assert_eq!(type_field["control"], "select");
    assert_eq!(type_field["options"].as_array().unwrap().len(), 25, "LIST_LIFESTYLE has 25 values (spec 4.2)");
    assert_eq!(one["data"]["total"], 15);
}

#[tokio::test]
async fn rise_fans_rank_answers_on_both_paths() {
    let service = Service::start().await;
    for path in ["douyin-rise-fans-rank", "shortvideo-rise-fans-rank"] {
        let (status, body) = service.post(&format!("/api/apis/shortvideo/{path}/call"), serde_json::json!({})).await;
        // an empty store: an empty ranking that says why (docs/rankings.md)
        assert_eq!(success(status, &body)["items"], serde_json::json!([]));
        assert!(body["warnings"][0].as_str().unwrap().contains("the store has no shortvideo accounts"), "{body}");
    }
}

fn skill<'a>(items: &'a [Value], slug: &str) -> &'a Value {
    items.iter().find(|e| e["slug"] == slug).unwrap_or_else(|| panic!("skill {slug} missing"))
}

#[tokio::test]
async fn skill_catalog_lists_all_14_skills_with_categories() {
    let service = Service::start().await;
    let (status, body) = service.get("/api/skills").await;
    let data = success(status, &body);
    let items = data["items"].as_array().unwrap();
    assert_eq!(data["total"], items.len());
    let categories = ["数据查询", "效率工具", "作品分析", "内容安全", "公众号创作技能包"];
    for (slug, price, class) in SKILLS {
        let entry = skill(items, slug);
        assert_eq!(entry["unitPrice"], *price, "{slug}");
        assert_eq!(entry["priceClass"], *class, "{slug}");
        assert!(categories.contains(&entry["category"].as_str().unwrap()), "{slug}");
        assert_eq!(entry["execution"]["mode"], "generic");
        assert_eq!(entry["execution"]["target"]["path"], format!("/api/skills/{slug}/invoke"));
        assert_eq!(entry["usageCount"], 0);
        for key in [
            "heroDescription",
            "featured",
            "tags",
            "inputSchema",
            "outputExample",
            "inputUiSchema",
            "outputUiSchema",
            "taskUi",
        ] {
            assert!(entry.get(key).is_some(), "{key} missing in {slug}");
        }
    }
    for dedicated in ["articles-publish", "articles-render", "ip-profile-charter"] {
        assert_eq!(skill(items, dedicated)["execution"]["mode"], "dedicated");
    }
    let image = skill(items, "image-gen");
    assert_eq!(image["execution"]["sideEffect"], "generate");
    let (_, safety) = service.get("/api/skills?category=%E5%86%85%E5%AE%B9%E5%AE%89%E5%85%A8").await;
    let slugs: BTreeSet<_> =
        safety["data"]["items"].as_array().unwrap().iter().map(|e| e["slug"].as_str().unwrap().to_owned()).collect();
    assert!(slugs.contains("content-safety-check") && slugs.contains("articles-prohibited-word"));
}

#[tokio::test]
async fn skill_search_ranks_with_scores_and_reasons() {
    let service = Service::start().await;
    let (status, body) = service.get("/api/skills/search?q=%E8%B6%8B%E5%8A%BF%E9%9B%B7%E8%BE%BE").await;
    let data = success(status, &body);
    assert_eq!(data["query"], "趋势雷达");
    assert_eq!(data["category"], "全部");
    assert_eq!(
        data["categories"],
        serde_json::json!(["数据查询", "效率工具", "作品分析", "内容安全", "公众号创作技能包"])
    );
    let items = data["items"].as_array().unwrap();
    assert_eq!(items[0]["slug"], "trend-radar", "{data}");
    let scores: Vec<f64> = items.iter().map(|e| e["matchScore"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]) && scores[0] > 0.0);
    assert!(!items[0]["matchReasons"].as_array().unwrap().is_empty());

    let (status, body) = service.get("/api/skills/search?q=xyzzy-nothing").await;
    assert_eq!(success(status, &body)["total"], 0);
    let (status, body) = service.get("/api/skills/search?q=a&category=nope").await;
    let error = common::failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "category");
    let (status, body) = service.get("/api/skills/search?qq=a").await;
    let error = common::failure(status, &body, 400, "invalid_input");
    assert!(error["message"].as_str().unwrap().contains("`q`"), "{error}");
}

#[tokio::test]
async fn usage_count_follows_successful_calls() {
    let service = Service::start().await;
    let charter_skill = |items: &Value| {
        skill(items["data"]["items"].as_array().unwrap(), "ip-profile-charter")["usageCount"].as_i64().unwrap()
    };
    let (_, before) = service.get("/api/skills").await;
    let (status, _) = service.call(reqwest::Method::PUT, "/api/ip-profile/p1/charter", Some(common_charter())).await;
    assert_eq!(status, 200);
    let (_, after) = service.get("/api/skills").await;
    assert_eq!(charter_skill(&after), charter_skill(&before) + 1);
}

fn common_charter() -> Value {
    serde_json::json!({
        "version": 1,
        "positioning": {"oneLiner": "a", "domain": "b", "niche": "c", "tag": "d"},
        "audience": {"persona": "", "decisionScene": "", "payerNote": ""},
        "monetization": {"path": "", "practicalPaths": [], "stage": "", "gapNote": ""},
        "northStar": {"metric": "", "rationale": ""},
        "review": {"lastReviewedAt": "", "nextTrigger": ""}
    })
}

/// Free-form members of an entry (JSON Schemas and examples, where `null`
/// is a value like any).
const FREE_FORM: [&str; 4] = ["requestSchema", "responseExample", "inputSchema", "outputExample"];

/// The paths of every `null` inside `value` (`$` is the root), free-form
/// members left aside.
fn nulls(value: &Value, at: &str, found: &mut Vec<String>) {
    match value {
        Value::Null => found.push(at.to_owned()),
        Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| nulls(v, &format!("{at}[{i}]"), found)),
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !FREE_FORM.contains(&k.as_str()))
            .for_each(|(k, v)| nulls(v, &format!("{at}.{k}"), found)),
        _ => {}
    }
}

#[tokio::test]
async fn optional_descriptor_fields_are_left_out_never_null() {
    // spec 2.2-2.4: `availability`, `hot`, `taskUi.featuredRank`, input
    // fields' `placeholder`/`help`/`advanced` and the output sections' kind
    // paths (`collectionPath`, `path`, `urlPath`, `titlePath`) are optional,
    // `execution.target` is absent when the mode is `unavailable`.
    let service = Service::start().await;
    for path in ["/api/apis", "/api/skills", "/api/skills/search?q=%E7%83%AD%E7%82%B9"] {
        let (status, body) = service.get(path).await;
        let data = success(status, &body);
        let mut found = Vec::new();
        nulls(&data, "$", &mut found);
        assert!(found.is_empty(), "{path}: null at {found:?}");
    }
    let (_, apis) = service.get("/api/apis").await;
    let items = apis["data"]["items"].as_array().unwrap();
    for key in ["lifestyle.comments", "articles.articles-sync-account"] {
        let entry = items.iter().find(|e| e["operationKey"] == key).unwrap();
        assert_eq!(entry["execution"]["mode"], "unavailable", "{key}");
        assert!(entry["execution"].as_object().unwrap().get("target").is_none(), "{key}: {}", entry["execution"]);
        assert_eq!(entry["availability"]["status"], "maintenance", "{key}");
    }
    let search = items.iter().find(|e| e["operationKey"] == "articles.search-article").unwrap();
    assert!(search.get("availability").is_none(), "{search}");
    let field = &search["inputUiSchema"]["fields"][0];
    assert_eq!(field["placeholder"], "例如：人工智能");
    assert!(field.get("help").is_none() && field.get("advanced").is_none(), "{field}");
    let (_, skills) = service.get("/api/skills").await;
    for entry in skills["data"]["items"].as_array().unwrap() {
        assert!(entry.get("matchScore").is_none(), "matchScore only in the search form: {entry}");
    }
}
