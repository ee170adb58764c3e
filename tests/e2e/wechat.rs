//! WeChat official accounts (spec 4.15, docs/wechat.md) over real
//! HTTP against a local fake WeChat that checks what we send (fields,
//! multipart parts, tokens) and answers WeChat's documented shapes and
//! error codes, plus a local image host:
//! direct mode end to end (Markdown → render → publish with an external
//! image → rewritten HTML and a cover at the fake), ownership 403/404,
//! error codes in `error.upstream` with the point released, stale-token
//! refresh, media upload (multipart and JSON), images that cannot be
//! copied, and the third-party platform flow (encrypted ticket and
//! authorization events, authorization link, redirect, status, publish,
//! withdrawal).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Multipart, Path, Query, State};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use common::{KEY, Service, add_key, failure, success};
use mediaops_connectors::wechat::config::{ComponentSettings, DirectAccount, WechatSettings};
use mediaops_connectors::wechat::crypto::MessageCrypto;
use mediaops_store::wechat::WechatStore;
use serde_json::{Value, json};

/// A part of a multipart request the fake received.
#[derive(Debug, Clone)]
struct Part {
    name: String,
    file_name: Option<String>,
    content_type: Option<String>,
    bytes: Vec<u8>,
}

/// One request the fake received.
#[derive(Debug, Clone)]
struct Hit {
    path: String,
    query: HashMap<String, String>,
    json: Value,
    parts: Vec<Part>,
}

#[derive(Default)]
struct FakeState {
    hits: Vec<Hit>,
    /// Errors to answer, per path, first in first out.
    errors: HashMap<String, VecDeque<(i64, &'static str)>>,
    counter: u32,
    /// `expires_in` of the authorizer token handed out by `api_query_auth`.
    query_auth_expires_in: u64,
}

/// The fake WeChat API.
#[derive(Clone)]
struct FakeWechat {
    state: Arc<Mutex<FakeState>>,
    base: String,
}

impl FakeWechat {
    async fn start() -> FakeWechat {
        let state = Arc::new(Mutex::new(FakeState::default()));
        let app = Router::new().route("/cgi-bin/{*rest}", post(answer)).with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeWechat { state, base }
    }

    fn hits(&self, path: &str) -> Vec<Hit> {
        self.state.lock().unwrap().hits.iter().filter(|h| h.path == path).cloned().collect()
    }

    fn fail_next(&self, path: &str, code: i64, message: &'static str) {
        self.state.lock().unwrap().errors.entry(path.to_owned()).or_default().push_back((code, message));
    }
}

async fn answer(
    State(state): State<Arc<Mutex<FakeState>>>,
    Path(rest): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let path = format!("/cgi-bin/{rest}");
    let is_multipart = request
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let mut hit = Hit { path: path.clone(), query: query.clone(), json: Value::Null, parts: Vec::new() };
    if is_multipart {
        let mut multipart = <Multipart as axum::extract::FromRequest<()>>::from_request(request, &()).await.unwrap();
        while let Some(field) = multipart.next_field().await.unwrap() {
            hit.parts.push(Part {
                name: field.name().unwrap_or_default().to_owned(),
                file_name: field.file_name().map(str::to_owned),
                content_type: field.content_type().map(str::to_owned),
                bytes: field.bytes().await.unwrap().to_vec(),
            });
        }
    } else {
        let bytes = axum::body::to_bytes(request.into_body(), 4 << 20).await.unwrap();
        hit.json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    }
    let mut s = state.lock().unwrap();
    s.hits.push(hit);
    s.counter += 1;
    let n = s.counter;
    if let Some((code, message)) = s.errors.get_mut(&path).and_then(VecDeque::pop_front) {
        return axum::Json(json!({"errcode": code, "errmsg": message})).into_response();
    }
    let body = match path.as_str() {
        "/cgi-bin/stable_token" => json!({"access_token": format!("ACCESS_TOKEN_{n}"), "expires_in": 7200}),
        "/cgi-bin/component/api_component_token" => {
            json!({"component_access_token": format!("COMPONENT_TOKEN_{n}"), "expires_in": 7200})
        }
        "/cgi-bin/component/api_create_preauthcode" => {
            json!({"pre_auth_code": format!("preauthcode@@@{n}"), "expires_in": 1800})
        }
        "/cgi-bin/component/api_query_auth" => json!({"authorization_info": {
            "authorizer_appid": "wxauthorizer0001",
            "authorizer_access_token": format!("AUTHORIZER_TOKEN_{n}"),
            "expires_in": s.query_auth_expires_in,
            "authorizer_refresh_token": "refreshtoken@@@first",
            "func_info": [{"funcscope_category": {"id": 1}}]
        }}),
        "/cgi-bin/component/api_get_authorizer_info" => json!({
            "authorizer_info": {
                "nick_name": "微信SDK Demo Special",
                "head_img": "http://wx.qlogo.cn/mmopen/demo/0",
                "service_type_info": {"id": 2},
                "verify_type_info": {"id": 0},
                "user_name": "gh_eb5e3a772040",
                "principal_name": "腾讯计算机系统有限公司"
            },
            "authorization_info": {"authorizer_appid": "wxauthorizer0001"}
        }),
        "/cgi-bin/component/api_authorizer_token" => json!({
            "authorizer_access_token": format!("AUTHORIZER_TOKEN_{n}"),
            "expires_in": 7200,
            "authorizer_refresh_token": "refreshtoken@@@second"
        }),
        "/cgi-bin/component/api_get_authorizer_list" => json!({
            "total_count": 1,
            "list": [{"authorizer_appid": "wxauthorizer0001", "refresh_token": "refreshtoken@@@first", "auth_time": 1558000607}]
        }),
        "/cgi-bin/media/uploadimg" => json!({"url": format!("http://mmbiz.qpic.cn/mmbiz_png/uploaded{n}/0")}),
        "/cgi-bin/material/add_material" => {
            json!({"media_id": format!("THUMB_MEDIA_{n}"), "url": format!("http://mmbiz.qpic.cn/mmbiz_png/thumb{n}/0")})
        }
        "/cgi-bin/draft/add" => json!({"media_id": format!("DRAFT_MEDIA_{n}")}),
        _ => json!({"errcode": 40066, "errmsg": "invalid url"}),
    };
    axum::Json(body).into_response()
}

/// A PNG the image host serves.
fn png() -> Vec<u8> {
    mediaops_connectors::wechat::cover::generate("an external picture")
}

/// A local image host: `/pic.png` (PNG), `/page.png` (HTML said to be an
/// image), `/missing.png` (404), `/fake.png` (text labelled image/png).
async fn image_host() -> String {
    let app = Router::new()
        .route("/pic.png", get(|| async { ([("content-type", "image/png")], png()) }))
        .route("/page.png", get(|| async { ([("content-type", "text/html")], "<html></html>") }))
        .route("/fake.png", get(|| async { ([("content-type", "image/png")], "not an image") }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

const APPID: &str = "wxdirect00000001";
const OTHER_APPID: &str = "wxdirect00000002";
const SECRET: &str = "direct-secret-0001";
const AES_KEY: &str = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";
const COMPONENT_APPID: &str = "wxcomponent00001";

async fn balance(service: &Service) -> i64 {
    let (status, body) = service.get("/api/account/balance").await;
    success(status, &body)["points"].as_i64().unwrap()
}

fn component() -> ComponentSettings {
    ComponentSettings {
        appid: COMPONENT_APPID.into(),
        secret: "component-secret".into(),
        token: "component-token".into(),
        encoding_aes_key: AES_KEY.into(),
        redirect_uri: "https://ops.example.com/wechat/component/authorized".into(),
    }
}

/// A service whose WeChat settings point at `fake`, with direct accounts
/// for the bootstrap key's account (APPID) and `other` (OTHER_APPID), the
/// component mode, and the callback listener on a free port.
async fn start(fake: &FakeWechat) -> Service {
    let dir = tempfile::tempdir().unwrap();
    add_key(dir.path(), "mk_test_other_account_0001", "other").await;
    let owner = mediaops_platform::bootstrap::BOOTSTRAP_ACCOUNT.to_owned();
    let base = fake.base.clone();
    Service::start_with(dir, move |core| {
        core.outbound.allow = vec!["127.0.0.1/32".into()];
        core.wechat = WechatSettings {
            api_base: base,
            mp_base: "https://mp.weixin.qq.com".into(),
            callback_addr: Some("127.0.0.1:0".into()),
            accounts: vec![
                DirectAccount {
                    account_id: owner,
                    appid: APPID.into(),
                    secret: SECRET.into(),
                    nickname: "直连号".into(),
                    avatar: String::new(),
                    service_type: "service".into(),
                    verified: true,
                },
                DirectAccount {
                    account_id: "other".into(),
                    appid: OTHER_APPID.into(),
                    secret: "other-secret".into(),
                    nickname: "别人的号".into(),
                    avatar: String::new(),
                    service_type: "subscription".into(),
                    verified: false,
                },
            ],
            component: Some(component()),
        };
    })
    .await
}

#[tokio::test]
async fn markdown_renders_and_publishes_as_a_draft_with_copied_images_and_a_cover() {
    let fake = FakeWechat::start().await;
    let images = image_host().await;
    let service = start(&fake).await;

    let external = format!("{images}/pic.png");
    let markdown = format!(
        "# 标题\n\n第一段文字。\n\n![外链图片]({external})\n\n![已上传](https://mmbiz.qpic.cn/mmbiz_png/already/0)\n\n![同一张]({external})\n"
    );
    let (status, body) = service.post("/api/articles/render", json!({"markdown": markdown, "title": "发布测试"})).await;
    let html = success(status, &body)["html"].as_str().unwrap().to_owned();
    assert!(html.contains(&external), "the render keeps the external image link: {html}");

    let before = balance(&service).await;
    let request = json!({"authorizerAppid": APPID, "title": "发布测试", "contentHtml": html, "digest": "摘要"});
    let (status, body) = service.post("/api/articles/publish", request.clone()).await;
    let data = success(status, &body);
    let media_id = data["mediaId"].as_str().unwrap();
    assert!(media_id.starts_with("DRAFT_MEDIA_"), "{data}");
    assert_eq!(balance(&service).await, before - 1, "1 point on success");

    let tokens = fake.hits("/cgi-bin/stable_token");
    assert_eq!(tokens.len(), 1);
    assert_eq!(
        tokens[0].json,
        json!({"grant_type": "client_credential", "appid": APPID, "secret": SECRET, "force_refresh": false})
    );
    let token = "ACCESS_TOKEN_1";

    let uploads = fake.hits("/cgi-bin/media/uploadimg");
    assert_eq!(uploads.len(), 1, "one copy per distinct external image; the WeChat image is left alone");
    assert_eq!(uploads[0].query["access_token"], token);
    assert_eq!(uploads[0].parts.len(), 1);
    let part = &uploads[0].parts[0];
    assert_eq!((part.name.as_str(), part.content_type.as_deref()), ("media", Some("image/png")));
    assert!(part.file_name.as_deref().is_some_and(|f| f.ends_with(".png")));
    assert_eq!(part.bytes, png(), "the downloaded bytes are sent as they are");

    let covers = fake.hits("/cgi-bin/material/add_material");
    assert_eq!(covers.len(), 1);
    assert_eq!((covers[0].query["access_token"].as_str(), covers[0].query["type"].as_str()), (token, "image"));
    assert_eq!(covers[0].parts[0].bytes, png(), "the first image is the cover");

    let drafts = fake.hits("/cgi-bin/draft/add");
    assert_eq!(drafts.len(), 1);
    assert_eq!(drafts[0].query["access_token"], token);
    let article = &drafts[0].json["articles"][0];
    assert_eq!(article["title"], "发布测试");
    assert_eq!(article["digest"], "摘要");
    assert_eq!(article["thumb_media_id"].as_str().unwrap(), "THUMB_MEDIA_3");
    let content = article["content"].as_str().unwrap();
    assert!(!content.contains(&external), "every external link is rewritten: {content}");
    assert_eq!(content.matches("http://mmbiz.qpic.cn/mmbiz_png/uploaded2/0").count(), 2, "{content}");
    assert!(content.contains("https://mmbiz.qpic.cn/mmbiz_png/already/0"));
    assert!(content.contains("第一段文字"));

    // A second publish without images: the token is cached, the cover is generated.
    let request = json!({"authorizerAppid": APPID, "title": "无图", "contentHtml": "<p>只有文字</p>"});
    let (status, body) = service.post("/api/articles/publish", request).await;
    success(status, &body);
    assert_eq!(fake.hits("/cgi-bin/stable_token").len(), 1, "the token is cached");
    let covers = fake.hits("/cgi-bin/material/add_material");
    assert_eq!(covers[1].parts[0].bytes, mediaops_connectors::wechat::cover::generate("无图"), "a generated cover");
    assert_eq!(fake.hits("/cgi-bin/draft/add")[1].json["articles"][0]["content"], "<p>只有文字</p>");
}

#[tokio::test]
async fn status_lists_the_callers_accounts_and_publish_checks_ownership() {
    let fake = FakeWechat::start().await;
    let service = start(&fake).await;

    let (status, body) = service.get("/api/articles/status").await;
    let data = success(status, &body);
    assert_eq!(
        data["accounts"],
        json!([{
            "authorizerAppid": APPID, "nickname": "直连号", "avatar": "", "serviceType": "service",
            "verified": true, "authorizedAt": data["accounts"][0]["authorizedAt"], "mode": "direct"
        }])
    );
    assert!(data["accounts"][0]["authorizedAt"].as_str().unwrap().ends_with('Z'));

    let before = balance(&service).await;
    let publish = |appid: &str| json!({"authorizerAppid": appid, "title": "t", "contentHtml": "<p>x</p>"});
    let (status, body) = service.post("/api/articles/publish", publish(OTHER_APPID)).await;
    assert_eq!(failure(status, &body, 403, "forbidden")["field"], "authorizerAppid");
    let (status, body) = service.post("/api/articles/publish", publish("wxunknown")).await;
    assert_eq!(failure(status, &body, 404, "not_found")["field"], "authorizerAppid");
    let (status, body) = service.post("/api/articles/publish", json!({"authorizerAppid": APPID, "title": "t"})).await;
    failure(status, &body, 400, "invalid_input");
    let (status, body) = service
        .post(
            "/api/articles/publish",
            json!({"authorizerAppid": APPID, "title": "t", "contentHtml": "<img src=\"images/a.png\">"}),
        )
        .await;
    assert!(failure(status, &body, 400, "invalid_input")["message"].as_str().unwrap().contains("media/upload"));
    assert_eq!(balance(&service).await, before, "nothing charged");
    assert!(fake.hits("/cgi-bin/draft/add").is_empty());

    let (status, body) = service
        .call_with_key(reqwest::Method::GET, "/api/articles/status", None, Some("mk_test_other_account_0001"))
        .await;
    let accounts = success(status, &body)["accounts"].clone();
    assert_eq!(accounts.as_array().unwrap().len(), 1);
    assert_eq!(accounts[0]["authorizerAppid"], OTHER_APPID);
}

#[tokio::test]
async fn wechat_error_codes_come_back_in_upstream_and_the_point_is_released() {
    let fake = FakeWechat::start().await;
    let service = start(&fake).await;
    let before = balance(&service).await;
    let request = json!({"authorizerAppid": APPID, "title": "t", "contentHtml": "<p>x</p>"});

    fake.fail_next("/cgi-bin/stable_token", 40164, "invalid ip 1.2.3.4 ipv6 ::ffff:1.2.3.4, not in whitelist");
    let (status, body) = service.post("/api/articles/publish", request.clone()).await;
    let error = failure(status, &body, 502, "upstream_unavailable");
    assert_eq!(error["upstream"]["code"], "40164");
    let message = error["upstream"]["message"].as_str().unwrap();
    assert!(message.contains("whitelist") && message.contains("not in whitelist"), "{message}");

    fake.fail_next("/cgi-bin/draft/add", 44003, "empty news data");
    let (status, body) = service.post("/api/articles/publish", request.clone()).await;
    let error = failure(status, &body, 502, "upstream_unavailable");
    assert_eq!(error["upstream"]["code"], "44003");
    assert!(error["upstream"]["message"].as_str().unwrap().contains("content is empty"));

    fake.fail_next("/cgi-bin/draft/add", 48001, "api unauthorized");
    let (status, body) = service.post("/api/articles/publish", request.clone()).await;
    assert_eq!(failure(status, &body, 502, "upstream_unavailable")["upstream"]["code"], "48001");
    assert_eq!(balance(&service).await, before, "every failure released its point");

    // A token WeChat refuses as expired is fetched again once, and the call succeeds.
    fake.fail_next("/cgi-bin/draft/add", 42001, "access_token expired");
    let tokens_before = fake.hits("/cgi-bin/stable_token").len();
    let (status, body) = service.post("/api/articles/publish", request).await;
    success(status, &body);
    assert_eq!(fake.hits("/cgi-bin/stable_token").len(), tokens_before + 1);
    let drafts = fake.hits("/cgi-bin/draft/add");
    let (refused, retried) = (&drafts[drafts.len() - 2], &drafts[drafts.len() - 1]);
    assert_ne!(refused.query["access_token"], retried.query["access_token"], "the retry uses the fresh token");
    assert_eq!(balance(&service).await, before - 1);
}

#[tokio::test]
async fn external_images_that_cannot_be_copied_are_400_naming_content_html() {
    let fake = FakeWechat::start().await;
    let images = image_host().await;
    let service = start(&fake).await;
    let before = balance(&service).await;
    for path in ["/missing.png", "/page.png", "/fake.png"] {
        let html = format!("<p><img src=\"{images}{path}\"></p>");
        let request = json!({"authorizerAppid": APPID, "title": "t", "contentHtml": html});
        let (status, body) = service.post("/api/articles/publish", request).await;
        let error = failure(status, &body, 400, "invalid_input");
        assert_eq!(error["field"], "contentHtml", "{path}: {error}");
    }
    assert_eq!(balance(&service).await, before);
    assert!(fake.hits("/cgi-bin/media/uploadimg").is_empty());
}

#[tokio::test]
async fn media_upload_takes_multipart_and_json_and_checks_the_image() {
    let fake = FakeWechat::start().await;
    let service = start(&fake).await;
    let url = format!("{}/api/articles/media/upload", service.base);
    let upload = |bytes: Vec<u8>, file: &str, mime: &str| {
        let part = reqwest::multipart::Part::bytes(bytes).file_name(file.to_owned()).mime_str(mime).unwrap();
        let form = reqwest::multipart::Form::new().text("authorizerAppid", APPID).part("file", part);
        service.http.post(&url).bearer_auth(KEY).multipart(form).send()
    };

    let response = upload(png(), "本地 图片.png", "image/png").await.unwrap();
    let (status, body) = (response.status().as_u16(), response.json::<Value>().await.unwrap());
    let data = success(status, &body);
    assert!(data["url"].as_str().unwrap().starts_with("http://mmbiz.qpic.cn/mmbiz_png/uploaded"), "{data}");
    let hits = fake.hits("/cgi-bin/media/uploadimg");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].parts[0].bytes, png());
    assert_eq!(hits[0].parts[0].file_name.as_deref(), Some("image.png"));
    assert_eq!(hits[0].query["access_token"], "ACCESS_TOKEN_1");

    let gif = b"GIF89a\x01\x00\x01\x00".to_vec();
    let response = upload(gif, "a.gif", "image/gif").await.unwrap();
    let (status, body) = (response.status().as_u16(), response.json::<Value>().await.unwrap());
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "data");
    let response = upload(png(), "a.jpg", "image/jpeg").await.unwrap();
    let (status, body) = (response.status().as_u16(), response.json::<Value>().await.unwrap());
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "contentType");
    let form = reqwest::multipart::Form::new().text("authorizerAppid", APPID);
    let response = service.http.post(&url).bearer_auth(KEY).multipart(form).send().await.unwrap();
    let (status, body) = (response.status().as_u16(), response.json::<Value>().await.unwrap());
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "filename", "no file part");
    let part = reqwest::multipart::Part::bytes(png()).file_name("a.png").mime_str("image/png").unwrap();
    let form = reqwest::multipart::Form::new().text("authorizerAppid", OTHER_APPID).part("file", part);
    let response = service.http.post(&url).bearer_auth(KEY).multipart(form).send().await.unwrap();
    let (status, body) = (response.status().as_u16(), response.json::<Value>().await.unwrap());
    failure(status, &body, 403, "forbidden");

    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(png());
    let (status, body) = service
        .post(
            "/api/articles/media/upload",
            json!({"authorizerAppid": APPID, "filename": "b.png", "contentType": "image/png", "data": data}),
        )
        .await;
    success(status, &body);
    assert_eq!(fake.hits("/cgi-bin/media/uploadimg").len(), 2, "only the two valid uploads reached WeChat");
}

/// POSTs one encrypted event to the callback listener as WeChat does.
async fn push_event(service: &Service, xml: &str, tamper: bool) -> (u16, String) {
    let crypto = MessageCrypto::new("component-token", AES_KEY, COMPONENT_APPID).unwrap();
    let encrypted = crypto.encrypt(xml);
    let (timestamp, nonce) = ("1700000000", "nonce42");
    let mut signature = crypto.signature(timestamp, nonce, &encrypted);
    if tamper {
        signature = signature.replace(&signature[..1], if signature.starts_with('0') { "1" } else { "0" });
    }
    let addr = service.running.wechat_callback_addr.expect("the callback listener runs");
    let body =
        format!("<xml><AppId><![CDATA[{COMPONENT_APPID}]]></AppId><Encrypt><![CDATA[{encrypted}]]></Encrypt></xml>");
    let response = service
        .http
        .post(format!("http://{addr}/wechat/component/event"))
        .query(&[("timestamp", timestamp), ("nonce", nonce), ("encrypt_type", "aes"), ("msg_signature", &signature)])
        .body(body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

fn authorized_event(pre_auth_code: &str, code: &str) -> String {
    format!(
        "<xml><AppId>{COMPONENT_APPID}</AppId><CreateTime>1700000000</CreateTime><InfoType>authorized</InfoType>\
         <AuthorizerAppid>wxauthorizer0001</AuthorizerAppid><AuthorizationCode>{code}</AuthorizationCode>\
         <AuthorizationCodeExpiredTime>1700003600</AuthorizationCodeExpiredTime><PreAuthCode>{pre_auth_code}</PreAuthCode></xml>"
    )
}

#[tokio::test]
async fn third_party_platform_authorizes_lists_publishes_and_withdraws() {
    let fake = FakeWechat::start().await;
    let service = start(&fake).await;

    // No ticket yet: the link cannot be made, and says why.
    let (status, body) = service.get("/api/articles/authorize-link").await;
    assert!(
        failure(status, &body, 503, "not_configured")["message"].as_str().unwrap().contains("component_verify_ticket")
    );

    let ticket = format!(
        "<xml><AppId>{COMPONENT_APPID}</AppId><CreateTime>1700000000</CreateTime>\
         <InfoType>component_verify_ticket</InfoType><ComponentVerifyTicket>ticket@@@one</ComponentVerifyTicket></xml>"
    );
    assert_eq!(push_event(&service, &ticket, true).await.0, 403, "a bad signature is refused");
    assert_eq!(push_event(&service, &ticket, false).await, (200, "success".to_owned()));

    let (status, body) = service.get("/api/articles/authorize-link").await;
    let link = success(status, &body);
    let component_token = fake.hits("/cgi-bin/component/api_component_token");
    assert_eq!(
        component_token[0].json,
        json!({"component_appid": COMPONENT_APPID, "component_appsecret": "component-secret", "component_verify_ticket": "ticket@@@one"})
    );
    let preauth = fake.hits("/cgi-bin/component/api_create_preauthcode");
    assert_eq!(preauth[0].query["component_access_token"], "COMPONENT_TOKEN_1");
    assert_eq!(preauth[0].json, json!({"component_appid": COMPONENT_APPID}));
    let url = reqwest::Url::parse(link["url"].as_str().unwrap()).unwrap();
    assert_eq!(url.path(), "/cgi-bin/componentloginpage");
    let params: HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert_eq!(params["component_appid"], COMPONENT_APPID);
    assert_eq!(params["pre_auth_code"], "preauthcode@@@2");
    assert_eq!(
        params["redirect_uri"],
        "https://ops.example.com/wechat/component/authorized?state=preauthcode%40%40%402"
    );
    assert_eq!(link["expiresIn"], 1800);

    // WeChat pushes the authorization: it is bound to the account that asked.
    // The first push fails at WeChat: 500, so WeChat pushes again, and the
    // pending authorization is still there for the second push.
    fake.state.lock().unwrap().query_auth_expires_in = 0;
    fake.fail_next("/cgi-bin/component/api_query_auth", -1, "system error");
    let event = authorized_event("preauthcode@@@2", "queryauthcode@@@x");
    assert_eq!(push_event(&service, &event, false).await.0, 500);
    assert_eq!(push_event(&service, &event, false).await, (200, "success".to_owned()));
    let query_auth = fake.hits("/cgi-bin/component/api_query_auth");
    assert_eq!(query_auth.len(), 2, "the single-use code is not retried within one push");
    assert_eq!(
        query_auth[1].json,
        json!({"component_appid": COMPONENT_APPID, "authorization_code": "queryauthcode@@@x"})
    );
    // An event encrypted for another platform, or not XML, is refused.
    let other = MessageCrypto::new("component-token", AES_KEY, "wxsomeoneelse").unwrap();
    let foreign = other.encrypt(&event);
    let signature = other.signature("1", "n", &foreign);
    let addr = service.running.wechat_callback_addr.unwrap();
    let refused = service
        .http
        .post(format!("http://{addr}/wechat/component/event"))
        .query(&[("timestamp", "1"), ("nonce", "n"), ("msg_signature", signature.as_str())])
        .body(format!("<xml><Encrypt>{foreign}</Encrypt></xml>"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let garbage = service.http.post(format!("http://{addr}/wechat/component/event")).body("{}").send().await.unwrap();
    assert_eq!(garbage.status().as_u16(), 400);
    let (status, body) = service.get("/api/articles/status").await;
    let accounts = success(status, &body)["accounts"].clone();
    assert_eq!(accounts.as_array().unwrap().len(), 2, "{accounts}");
    let authorized = &accounts[1];
    assert_eq!(authorized["authorizerAppid"], "wxauthorizer0001");
    assert_eq!(authorized["nickname"], "微信SDK Demo Special");
    assert_eq!(authorized["avatar"], "http://wx.qlogo.cn/mmopen/demo/0");
    assert_eq!((authorized["serviceType"].as_str(), authorized["verified"].as_bool()), (Some("service"), Some(true)));
    assert_eq!(authorized["mode"], "component");
    let (status, body) = service
        .call_with_key(reqwest::Method::GET, "/api/articles/status", None, Some("mk_test_other_account_0001"))
        .await;
    assert_eq!(success(status, &body)["accounts"].as_array().unwrap().len(), 1, "not the other account's");

    // Publish: the token from api_query_auth lived 0 s, so the refresh token is used.
    let request = json!({"authorizerAppid": "wxauthorizer0001", "title": "授权号", "contentHtml": "<p>正文</p>"});
    let (status, body) = service.post("/api/articles/publish", request.clone()).await;
    success(status, &body);
    let refresh = fake.hits("/cgi-bin/component/api_authorizer_token");
    assert_eq!(
        refresh[0].json,
        json!({"component_appid": COMPONENT_APPID, "authorizer_appid": "wxauthorizer0001", "authorizer_refresh_token": "refreshtoken@@@first"})
    );
    let draft = fake.hits("/cgi-bin/draft/add");
    assert!(draft[0].query["access_token"].starts_with("AUTHORIZER_TOKEN_"));
    let state = mediaops_store::sqlite::SqliteStore::open(&service.data_path().join("store.sqlite")).await.unwrap();
    let stored = WechatStore::authorizer(&state, "wxauthorizer0001").await.unwrap().unwrap();
    assert_eq!(stored.refresh_token, "refreshtoken@@@second", "the rotated refresh token is kept");

    // The browser redirect path redeems a second link's code (the event did not come).
    let (status, body) = service.get("/api/articles/authorize-link").await;
    let link = success(status, &body);
    let url = reqwest::Url::parse(link["url"].as_str().unwrap()).unwrap();
    let pre_auth_code = url.query_pairs().find(|(k, _)| k == "pre_auth_code").unwrap().1.into_owned();
    let addr = service.running.wechat_callback_addr.unwrap();
    let landing = service
        .http
        .get(format!("http://{addr}/wechat/component/authorized"))
        .query(&[("auth_code", "queryauthcode@@@y"), ("expires_in", "3600"), ("state", &pre_auth_code)])
        .send()
        .await
        .unwrap();
    assert_eq!(landing.status().as_u16(), 200);
    assert!(landing.text().await.unwrap().contains("微信SDK Demo Special"));
    assert_eq!(fake.hits("/cgi-bin/component/api_query_auth").len(), 3);

    // Withdrawal: gone from the status, publish is 404.
    let withdrawn = format!(
        "<xml><AppId>{COMPONENT_APPID}</AppId><CreateTime>1700000100</CreateTime>\
         <InfoType>unauthorized</InfoType><AuthorizerAppid>wxauthorizer0001</AuthorizerAppid></xml>"
    );
    assert_eq!(push_event(&service, &withdrawn, false).await.0, 200);
    let (status, body) = service.get("/api/articles/status").await;
    assert_eq!(success(status, &body)["accounts"].as_array().unwrap().len(), 1);
    let (status, body) = service.post("/api/articles/publish", request).await;
    failure(status, &body, 404, "not_found");
}

#[tokio::test]
async fn the_authorizer_list_is_read_with_the_component_token() {
    use mediaops_connectors::outbound::{GuardedFetcher, OutboundSettings};
    use mediaops_connectors::wechat::component::ComponentEvent;
    let fake = FakeWechat::start().await;
    let dir = tempfile::tempdir().unwrap();
    let settings =
        WechatSettings { api_base: fake.base.clone(), component: Some(component()), ..WechatSettings::default() };
    let outbound = OutboundSettings::default();
    let store = Arc::new(mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap());
    let tokens = mediaops_connectors::wechat::tokens::TokenCache::in_process();
    let fetcher = GuardedFetcher::new(&outbound).unwrap();
    let wechat = mediaops_connectors::wechat::Wechat::new(settings, &outbound, store, tokens, fetcher).unwrap();
    let error = wechat.authorizer_list().await.unwrap_err();
    assert!(error.message.contains("component_verify_ticket"), "{error:?}");
    wechat.on_event(ComponentEvent::VerifyTicket("ticket@@@list".into())).await.unwrap();
    assert_eq!(wechat.authorizer_list().await.unwrap(), [("wxauthorizer0001".to_owned(), 1558000607)]);
    let hits = fake.hits("/cgi-bin/component/api_get_authorizer_list");
    assert_eq!(hits[0].query["component_access_token"], "COMPONENT_TOKEN_1");
    assert_eq!(hits[0].json, json!({"component_appid": COMPONENT_APPID, "offset": 0, "count": 500}));
}
