//! Banned-word checks (spec 2.6, 4.6, 4.14) and per-account word lists over
//! real HTTP: result shape, offsets in characters, normalization, platform
//! lists, field errors, account additions and allows, persistence.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::{Service, add_key, failure, success};
use reqwest::Method;
use serde_json::{Value, json};

const CHECK: &str = "/api/apis/tool/check-banned-words/call";
const CUSTOM: &str = "/api/tool/banned-words/custom";

async fn check(service: &Service, platform: &str, content: &str) -> Value {
    let (status, body) = service.post(CHECK, json!({"platform": platform, "content": content})).await;
    success(status, &body)
}

/// `(word, start, end)` of every hit.
fn hits(data: &Value) -> Vec<(String, u64, u64)> {
    data["raw"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["word"].as_str().unwrap().to_owned(), h["start"].as_u64().unwrap(), h["end"].as_u64().unwrap()))
        .collect()
}

fn words(data: &Value) -> Vec<String> {
    hits(data).into_iter().map(|h| h.0).collect()
}

#[tokio::test]
async fn check_marks_hits_escapes_text_and_counts_characters() {
    let service = Service::start().await;
    let content = "😀<b>全网最低价</b>，𠮷加 V X领资料&治愈";
    let data = check(&service, "抖音", content).await;
    assert_eq!(data["source"], "mediaops-lexicon");
    assert_eq!(data["originalContent"], content);
    assert_eq!(
        data["content"],
        "😀&lt;b&gt;<span class=\"banned-word\">全网最低价</span>&lt;/b&gt;，𠮷\
         <span class=\"banned-word\">加 V X</span>领资料&amp;<span class=\"banned-word\">治愈</span>"
    );
    assert_eq!(data["prohibitedWordsType"], json!(["极限用语", "站外导流", "医疗用语"]));
    // Offsets count characters: 😀 and 𠮷 are one each (two UTF-16 units).
    assert_eq!(
        hits(&data),
        vec![("全网最低".into(), 4, 8), ("最低价".into(), 6, 9), ("加vx".into(), 15, 20), ("治愈".into(), 24, 26),]
    );
    let chars: Vec<char> = content.chars().collect();
    for hit in data["raw"]["hits"].as_array().unwrap() {
        let (start, end) = (hit["start"].as_u64().unwrap() as usize, hit["end"].as_u64().unwrap() as usize);
        assert_eq!(hit["text"], chars[start..end].iter().collect::<String>(), "{hit}");
    }
    let first = &data["raw"]["hits"][0];
    assert_eq!(first["category"], "极限用语");
    assert_eq!(first["rule"], "广告法第九条第三项");
    assert_eq!(first["list"], "common");
    assert!(first["suggestion"].is_string());
    assert_eq!(data["raw"]["platform"], "shortvideo");
    assert_eq!(data["raw"]["offsetUnit"], "char");
    assert!(data["raw"]["lexiconVersion"].as_str().unwrap().starts_with("builtin."));
}

#[tokio::test]
async fn normalization_sees_through_width_case_script_and_separators() {
    let service = Service::start().await;
    let table = [
        ("微 信号", "微信号"),
        ("微-信-号", "微信号"),
        ("微\u{200B}信號", "微信号"),
        ("ｖｘ：123", "vx"),
        ("國家級", "国家级"),
        ("ＮＯ．１", "NO.1"),
        ("保·本", "保本"),
    ];
    for (content, word) in table {
        let data = check(&service, "lifestyle", content).await;
        assert_eq!(words(&data), vec![word.to_string()], "{content}");
    }
    assert!(hits(&check(&service, "lifestyle", "divx 格式").await).is_empty());
    assert!(hits(&check(&service, "lifestyle", "这是最佳实践，绝对路径").await).is_empty(), "built-in allow phrases");
}

#[tokio::test]
async fn platform_names_numbers_and_lists() {
    let service = Service::start().await;
    let content = "扫码加微信，转发到朋友圈";
    for platform in ["articles", "0", "公众号"] {
        let data = check(&service, platform, content).await;
        assert_eq!(words(&data), vec!["转发到朋友圈"], "{platform}");
        assert_eq!(data["raw"]["platform"], "articles");
    }
    for (platform, name) in [("1", "shortvideo"), ("小红书", "lifestyle"), ("6", "videosite"), ("B站", "videosite")]
    {
        let data = check(&service, platform, content).await;
        assert_eq!(words(&data), vec!["扫码", "加微信"], "{platform}");
        assert_eq!(data["raw"]["platform"], name);
    }
    let rule = |data: &Value| data["raw"]["hits"][0]["rule"].as_str().unwrap().to_owned();
    assert!(rule(&check(&service, "lifestyle", content).await).contains("小红书"));

    let (status, body) = service.post(CHECK, json!({"platform": "weibo", "content": "最佳"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "platform");
    assert!(error["message"].as_str().unwrap().contains("articles"), "{error}");
}

#[tokio::test]
async fn content_errors_name_the_field() {
    let service = Service::start().await;
    for body in [json!({"platform": "0", "content": ""}), json!({"platform": "0", "content": "  "})] {
        let (status, body) = service.post(CHECK, body).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "content");
    }
    let (status, body) = service.post(CHECK, json!({"platform": "0"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert!(error.to_string().contains("content"), "{error}");
    let (status, body) = service.post("/api/skills/articles-prohibited-word/invoke", json!({"content": ""})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "content");
}

#[tokio::test]
async fn skills_answer_the_same_result() {
    let service = Service::start().await;
    let content = "本品可根治失眠，稳赚不赔";
    let tool = check(&service, "articles", content).await;
    let (status, body) = service
        .post("/api/skills/content-safety-check/invoke", json!({"platform": "公众号", "content": content}))
        .await;
    let skill = success(status, &body);
    let (status, body) = service.post("/api/skills/articles-prohibited-word/invoke", json!({"content": content})).await;
    let articles = success(status, &body);
    assert_eq!(words(&tool), vec!["根治", "稳赚不赔"]);
    assert_eq!(tool["prohibitedWordsType"], json!(["医疗用语", "金融承诺"]));
    assert_eq!(skill, tool);
    assert_eq!(articles, tool);
}

#[tokio::test]
async fn account_lists_add_and_allow_per_platform_and_survive_restart() {
    let data_dir = tempfile::tempdir().unwrap();
    let other = "mk_other_account_key_0003";
    add_key(data_dir.path(), other, "acct_other").await;
    let service = Service::start_in(data_dir).await;

    let (status, body) = service.get(CUSTOM).await;
    let empty = success(status, &body);
    assert_eq!(empty["lists"], json!([]));
    assert!(empty["categories"].as_array().unwrap().contains(&json!("站外导流")));

    let (status, body) = service
        .call(Method::PUT, CUSTOM, Some(json!({"add": [{"word": "竞品甲", "category": ""}], "allow": ["最佳"]})))
        .await;
    let stored = success(status, &body);
    assert_eq!(stored["platform"], "all");
    assert_eq!(stored["add"], json!([{"word": "竞品甲", "category": "自定义"}]));
    assert!(stored["updatedAt"].is_string());
    let (status, body) = service
        .call(
            Method::PUT,
            CUSTOM,
            Some(json!({"platform": "抖音", "add": [{"word": "私域", "category": "站外导流"}], "allow": []})),
        )
        .await;
    assert_eq!(success(status, &body)["platform"], "shortvideo");

    let content = "竞品甲的最佳私域玩法";
    let on_articles = check(&service, "articles", content).await;
    assert_eq!(hits(&on_articles), vec![("竞品甲".into(), 0, 3)]);
    assert_eq!(on_articles["raw"]["hits"][0]["list"], "account");
    assert!(on_articles["raw"]["lexiconVersion"].as_str().unwrap().contains("+account."));
    let on_shortvideo = check(&service, "shortvideo", content).await;
    assert_eq!(hits(&on_shortvideo), vec![("竞品甲".into(), 0, 3), ("私域".into(), 6, 8)]);

    let (status, body) = service
        .call_with_key(Method::POST, CHECK, Some(json!({"platform": "1", "content": content})), Some(other))
        .await;
    assert_eq!(words(&success(status, &body)), vec!["最佳"], "another account keeps the built-in lexicon");

    let (status, body) = service.get(&format!("{CUSTOM}?platform=0")).await;
    let lists = success(status, &body)["lists"].clone();
    assert_eq!(lists.as_array().unwrap().len(), 1);
    assert_eq!(lists[0]["platform"], "all");

    for (body, field) in [
        (json!({"add": [{"word": "x", "category": "没有这类"}]}), "add[0].category"),
        (json!({"allow": ["ok", " - "]}), "allow[1]"),
        (json!({"platform": "weibo"}), "platform"),
    ] {
        let (status, body) = service.call(Method::PUT, CUSTOM, Some(body)).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], field);
    }

    let common::Service { running, data_dir, .. } = service;
    running.shutdown().await.unwrap();
    let service = Service::start_in(data_dir).await;
    let (status, body) = service.get(CUSTOM).await;
    let scopes: Vec<Value> =
        success(status, &body)["lists"].as_array().unwrap().iter().map(|l| l["platform"].clone()).collect();
    assert_eq!(scopes, vec![json!("all"), json!("shortvideo")]);
    assert_eq!(words(&check(&service, "1", content).await), vec!["竞品甲", "私域"]);

    let (status, body) = service.call(Method::PUT, CUSTOM, Some(json!({"platform": "1"}))).await;
    assert!(success(status, &body)["updatedAt"].is_null(), "an empty list removes the scope");
    assert_eq!(words(&check(&service, "1", content).await), vec!["竞品甲"]);
}
