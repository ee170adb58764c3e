//! Markdown render and themes (spec 4.15, docs/articles.md) over real HTTP:
//! a real article in a named theme, the theme choice order and
//! `themeSource`, account defaults, custom themes with their checks and
//! ownership, persistence across a restart, and the 400s naming the field.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::{Service, add_key, failure, success};
use reqwest::Method;
use serde_json::{Value, json};

fn article(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../shared/data/markdown/{name}", env!("CARGO_MANIFEST_DIR")))
        .expect("the shared Markdown articles are present")
}

async fn render(service: &Service, body: Value) -> (u16, Value) {
    service.post("/api/articles/render", body).await
}

async fn put(service: &Service, path: &str, body: Value) -> (u16, Value) {
    service.call(Method::PUT, path, Some(body)).await
}

/// Every start tag of `html` with its attribute text.
fn start_tags(html: &str) -> Vec<&str> {
    let mut tags = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let mut quoted = false;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                quoted ^= c == '"';
                c == '>' && !quoted
            })
            .map_or(rest.len(), |(i, _)| i);
        if !rest.starts_with('/') {
            tags.push(&rest[..end]);
        }
        rest = &rest[end..];
    }
    tags
}

fn assert_wechat_ready(html: &str) {
    let lower = html.to_ascii_lowercase();
    for forbidden in ["<style", "<script", "<iframe"] {
        assert!(!lower.contains(forbidden), "{forbidden} in output");
    }
    let tags = start_tags(html);
    assert!(tags.len() > 50, "a real article has many elements");
    for tag in tags {
        assert!(tag.contains(" style=\""), "unstyled element <{tag}>");
        assert!(!tag.contains(" class=\"") && !tag.contains(" onclick"), "<{tag}>");
    }
}

#[tokio::test]
async fn renders_a_real_article_in_a_named_theme() {
    let service = Service::start().await;
    let markdown = article("10-gold-miner-hash-map-analysis.md");
    let (status, body) =
        render(&service, json!({"markdown": markdown, "title": "分析哈希表在主流语言中的实现", "themeId": "magazine"}))
            .await;
    let data = success(status, &body);
    assert_eq!(data["themeSource"], "builtin");
    assert_eq!(data["themeId"], "magazine");
    let html = data["html"].as_str().unwrap();
    assert_wechat_ready(html);
    assert!(html.contains(">分析哈希表在主流语言中的实现</h1>"), "title is the H1");
    assert!(html.contains("[1]</sup>") && html.contains("[1]</span>"), "references and their list");
    assert!(html.contains("border-bottom: 3px solid #b8322a"), "the magazine title rule is inlined");
    assert!(data["warnings"].is_array());

    let (status, body) = render(&service, json!({"markdown": markdown, "themeId": "tech"})).await;
    let tech = success(status, &body);
    assert_ne!(tech["html"], data["html"], "themes differ");
    assert!(tech["html"].as_str().unwrap().contains("#1e80ff"));
}

#[tokio::test]
async fn warnings_report_local_images_and_sanitized_html() {
    let service = Service::start().await;
    let markdown =
        "![图](./images/a.png)\n\n<p onclick=\"x()\">段落</p><script>alert(1)</script>\n\n[外链](https://example.com)";
    let (status, body) = render(&service, json!({"markdown": markdown})).await;
    let data = success(status, &body);
    let warnings: Vec<&str> = data["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(warnings.iter().any(|w| w.contains("./images/a.png") && w.contains("/api/articles/media/upload")));
    assert!(warnings.contains(&"raw HTML: removed the event handler onclick on <p>"), "{warnings:?}");
    assert!(warnings.contains(&"raw HTML: removed the <script> element and its content"), "{warnings:?}");
    let html = data["html"].as_str().unwrap();
    assert!(!html.contains("alert") && !html.contains("onclick") && html.contains("段落"));
    assert!(html.contains("外链</span><sup") && html.contains("https://example.com</span>"));
}

#[tokio::test]
async fn theme_choice_order_and_account_default() {
    let service = Service::start().await;
    let markdown = json!("## 小标题\n\n正文");
    let (status, body) = render(&service, json!({"markdown": markdown})).await;
    let data = success(status, &body);
    assert_eq!((data["themeSource"].as_str(), data["themeId"].as_str()), (Some("service_default"), Some("neutral")));

    let (status, body) = service.get("/api/articles/themes").await;
    let themes = success(status, &body);
    assert_eq!(themes["builtin"].as_array().unwrap().len(), 14);
    assert_eq!(themes["custom"], json!([]));
    assert_eq!(themes["default"], "neutral");
    for id in ["magazine", "minimal", "neutral"] {
        let entry = themes["builtin"].as_array().unwrap().iter().find(|t| t["id"] == id).expect(id);
        assert!(!entry["name"].as_str().unwrap().is_empty() && !entry["description"].as_str().unwrap().is_empty());
    }

    let (status, body) = put(&service, "/api/articles/themes/default", json!({"themeId": "ink"})).await;
    assert_eq!(success(status, &body)["default"], "ink");
    let (status, body) = render(&service, json!({"markdown": markdown})).await;
    let data = success(status, &body);
    assert_eq!((data["themeSource"].as_str(), data["themeId"].as_str()), (Some("account_default"), Some("ink")));
    let (status, body) = render(&service, json!({"markdown": markdown, "themeId": "warm"})).await;
    assert_eq!(success(status, &body)["themeSource"], "builtin", "a named theme beats the default");

    let (status, body) = put(&service, "/api/articles/themes/default", json!({"themeId": "nope"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "themeId");
}

#[tokio::test]
async fn unknown_theme_is_a_400_listing_the_valid_ids() {
    let service = Service::start().await;
    let (status, body) = render(&service, json!({"markdown": "正文", "themeId": "magazin"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "themeId");
    let message = error["message"].as_str().unwrap();
    for id in ["neutral", "minimal", "magazine", "retro"] {
        assert!(message.contains(id), "{message}");
    }

    let (status, body) = render(&service, json!({"title": "只有标题"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "markdown");
    let deep = format!("{}x", "> ".repeat(300));
    let (status, body) = render(&service, json!({"markdown": deep})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "markdown");
    let (status, body) = render(&service, json!({"markdown": "x", "title": "长".repeat(201)})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "title");
}

#[tokio::test]
async fn custom_themes_are_checked_owned_and_kept() {
    let data_dir = tempfile::tempdir().unwrap();
    let other = "mk_other_account_key_0002";
    add_key(data_dir.path(), other, "acct_other").await;
    let service = Service::start_in(data_dir).await;

    let css = ".mo-article h2 { color: #123456; border-bottom: 2px solid #123456 } p { color: #222222 }";
    let (status, body) = put(
        &service,
        "/api/articles/themes/custom/brand",
        json!({"name": "品牌主题", "description": "品牌色标题", "css": css}),
    )
    .await;
    let stored = success(status, &body);
    assert_eq!((stored["id"].as_str(), stored["css"].as_str()), (Some("brand"), Some(css)));
    assert!(chrono::DateTime::parse_from_rfc3339(stored["updatedAt"].as_str().unwrap()).is_ok());

    let (status, body) = service.get("/api/articles/themes/custom/brand").await;
    assert_eq!(success(status, &body), stored);
    let (status, body) = service.get("/api/articles/themes").await;
    assert_eq!(
        success(status, &body)["custom"],
        json!([{"id": "brand", "name": "品牌主题", "description": "品牌色标题"}])
    );

    let (status, body) = render(&service, json!({"markdown": "## 标题\n\n正文", "themeId": "brand"})).await;
    let data = success(status, &body);
    assert_eq!(data["themeSource"], "custom");
    let html = data["html"].as_str().unwrap();
    assert!(html.contains("color: #123456") && html.contains("color: #222222"), "{html}");
    assert!(html.contains("PingFang SC"), "the base stylesheet is under a custom theme");

    for (bad, field) in [
        (json!({"name": "x", "css": "@import url(https://evil.example/a.css);"}), "css"),
        (json!({"name": "x", "css": "p { background: url(javascript:alert(1)) }"}), "css"),
        (json!({"name": "x", "css": "p { width: expression(alert(1)) }"}), "css"),
        (json!({"name": "", "css": "p { color: red }"}), "name"),
    ] {
        let (status, body) = put(&service, "/api/articles/themes/custom/bad", bad.clone()).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], field, "{bad}");
    }
    let (status, body) =
        put(&service, "/api/articles/themes/custom/magazine", json!({"name": "x", "css": "p{}"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "id");

    let (status, body) = service
        .call_with_key(
            Method::POST,
            "/api/articles/render",
            Some(json!({"markdown": "x", "themeId": "brand"})),
            Some(other),
        )
        .await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "themeId", "another account's theme is unknown");
    let (status, body) =
        service.call_with_key(Method::GET, "/api/articles/themes/custom/brand", None, Some(other)).await;
    failure(status, &body, 404, "not_found");

    let (status, _) = put(&service, "/api/articles/themes/default", json!({"themeId": "brand"})).await;
    assert_eq!(status, 200);
    let common::Service { running, data_dir, .. } = service;
    running.shutdown().await.unwrap();
    let service = Service::start_in(data_dir).await;
    let (status, body) = render(&service, json!({"markdown": "正文"})).await;
    let data = success(status, &body);
    assert_eq!((data["themeSource"].as_str(), data["themeId"].as_str()), (Some("account_default"), Some("brand")));
}
