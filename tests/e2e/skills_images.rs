//! `skills.image-gen` and `skills.articles-cover` through both servers,
//! against a fake OpenAI-compatible images API that records what we sent
//! (key, model, prompt, size, multipart parts) and answers the documented
//! shapes: `{created, data[{b64_json} | {url}]}` and
//! `{error: {message, type, param, code}}`. Billing is the real embedded
//! ledger: answers cost 10 points, every failure is free.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Multipart, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use common::{BOOTSTRAP_POINTS, KEY, Service, failure, success};
use serde_json::{Value, json};

const API_KEY: &str = "sk-test-images-0123456789";

/// What the fake images API received, one JSON object per request.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<Value>>>);

impl Received {
    fn all(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
    }
    fn push(&self, v: Value) {
        self.0.lock().unwrap().push(v);
    }
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 120]));
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The image every successful generation answers (made once: debug-mode
/// PNG encoding is slow).
static GENERATED: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| png(512, 512));

fn openai_error(status: StatusCode, message: &str, kind: &str, code: Option<&str>) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// How the fake answers, chosen by the prompt's first word.
fn answer(prompt: &str, base: &str) -> Response {
    let ok = |data: Value| {
        let body = json!({"created": 1_713_833_628, "data": data, "usage": {"total_tokens": 100}});
        ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
    };
    match prompt.split_whitespace().next().unwrap_or_default() {
        "!500" => openai_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The server had an error while processing your request.",
            "server_error",
            None,
        ),
        "!429" => openai_error(
            StatusCode::TOO_MANY_REQUESTS,
            "Rate limit reached for images per minute.",
            "requests",
            Some("rate_limit_exceeded"),
        ),
        "!policy" => openai_error(
            StatusCode::BAD_REQUEST,
            "Your request was rejected as a result of our safety system.",
            "invalid_request_error",
            Some("content_policy_violation"),
        ),
        "!empty" => ok(json!([])),
        "!garbage" => ok(json!([{"b64_json": "bm90IGFuIGltYWdl"}])),
        "!url" => ok(json!([{"url": format!("{base}/files/out.png"), "revised_prompt": "x"}])),
        _ => ok(json!([{"b64_json": STANDARD.encode(&*GENERATED), "revised_prompt": prompt}])),
    }
}

#[derive(Clone)]
struct Fake {
    received: Received,
    base: Arc<Mutex<String>>,
}

fn bearer(headers: &HeaderMap) -> String {
    headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
}

async fn generations(State(fake): State<Fake>, headers: HeaderMap, body: String) -> Response {
    let mut request: Value = serde_json::from_str(&body).unwrap_or(json!({"unparsed": body}));
    request["authorization"] = json!(bearer(&headers));
    request["endpoint"] = json!("generations");
    fake.received.push(request.clone());
    if request["authorization"] != format!("Bearer {API_KEY}") {
        return openai_error(
            StatusCode::UNAUTHORIZED,
            "Incorrect API key provided: sk-wrong.",
            "invalid_request_error",
            Some("invalid_api_key"),
        );
    }
    let prompt = request["prompt"].as_str().unwrap_or_default().to_owned();
    if prompt.starts_with("!slow") {
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    let base = fake.base.lock().unwrap().clone();
    answer(&prompt, &base)
}

async fn edits(State(fake): State<Fake>, headers: HeaderMap, mut form: Multipart) -> Response {
    let mut request = json!({"authorization": bearer(&headers), "endpoint": "edits"});
    while let Some(field) = form.next_field().await.unwrap() {
        let name = field.name().unwrap_or_default().to_owned();
        if name == "image" {
            request["image_type"] = json!(field.content_type().unwrap_or_default());
            request["image_name"] = json!(field.file_name().unwrap_or_default());
            request["image_b64"] = json!(STANDARD.encode(field.bytes().await.unwrap()));
        } else {
            request[name] = json!(field.text().await.unwrap());
        }
    }
    fake.received.push(request.clone());
    let base = fake.base.lock().unwrap().clone();
    answer(request["prompt"].as_str().unwrap_or_default(), &base)
}

/// The fake images API on a loopback port; also serves `/files/ref.png`,
/// `/files/out.png` and `/files/page.html`.
async fn images_api() -> (String, Received) {
    std::sync::LazyLock::force(&GENERATED);
    let fake = Fake { received: Received::default(), base: Arc::default() };
    let router = Router::new()
        .route("/v1/images/generations", post(generations))
        .route("/v1/images/edits", post(edits))
        .route("/files/ref.png", get(|| async { ([(header::CONTENT_TYPE, "image/png")], png(64, 48)) }))
        .route("/files/out.png", get(|| async { ([(header::CONTENT_TYPE, "image/png")], png(32, 32)) }))
        .route("/files/page.html", get(|| async { ([(header::CONTENT_TYPE, "text/html")], "<html></html>") }))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    *fake.base.lock().unwrap() = base.clone();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (base, fake.received)
}

/// Both servers on the fake API at `base` (none = not configured) with
/// `key`; generations time out after `timeout_secs`.
async fn service_on(base: Option<&str>, key: &str, timeout_secs: u64) -> Service {
    let (base, key) = (base.map(|b| format!("{b}/v1")), key.to_owned());
    Service::start_with(tempfile::tempdir().unwrap(), move |core| {
        core.images.base_url = base;
        core.images.api_key = Some(key);
        core.images.timeout_secs = timeout_secs;
        core.outbound.allow = vec!["127.0.0.1".into()];
    })
    .await
}

async fn points(service: &Service) -> i64 {
    service.get("/api/account/balance").await.1["data"]["points"].as_i64().unwrap()
}

fn decoded(image: &Value) -> Vec<u8> {
    let b64 = image["b64"].as_str().unwrap();
    assert!(!b64.starts_with("data:"), "no data: prefix");
    STANDARD.decode(b64).unwrap()
}

#[tokio::test]
async fn image_gen_sends_key_model_and_prompt_and_answers_the_image_result() {
    let (base, received) = images_api().await;
    let service = service_on(Some(&base), API_KEY, 20).await;
    let response = service
        .http
        .post(format!("{}/api/skills/image-gen/invoke", service.base))
        .bearer_auth(KEY)
        .header("x-request-id", "req-image-0001")
        .json(&json!({"prompt": "一只在竹林里喝茶的熊猫，水彩风格"}))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let data = success(status, &response.json().await.unwrap());
    assert_eq!(data["status"], "success");
    assert_eq!(data["taskId"], "req-image-0001", "the task id is the call's request id");
    assert_eq!(data["source"], "images-api:gpt-image-1");
    let images = data["images"].as_array().unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0]["mime"], "image/png");
    assert_eq!(decoded(&images[0]), *GENERATED);

    let sent = received.all();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["authorization"], format!("Bearer {API_KEY}"));
    assert_eq!(sent[0]["model"], "gpt-image-1");
    assert_eq!(sent[0]["prompt"], "一只在竹林里喝茶的熊猫，水彩风格");
    assert_eq!((sent[0]["n"].clone(), sent[0]["size"].clone()), (json!(1), json!("1024x1024")));
    assert!(sent[0].get("response_format").is_none(), "gpt-image-1 is not sent response_format");

    // An answer by URL is fetched (through the guard) and returned as data.
    let (status, body) = service.post("/api/skills/image-gen/invoke", json!({"prompt": "!url 夜景"})).await;
    assert_eq!(decoded(&success(status, &body)["images"][0]), png(32, 32));
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - 20, "two images at 10 points");
}

#[tokio::test]
async fn a_reference_image_is_fetched_through_the_guard_and_sent_to_edits() {
    let (base, received) = images_api().await;
    let service = service_on(Some(&base), API_KEY, 20).await;
    let (status, body) = service
        .post(
            "/api/skills/image-gen/invoke",
            json!({"prompt": "换成赛博朋克风格", "referenceImage": format!("{base}/files/ref.png")}),
        )
        .await;
    assert_eq!(success(status, &body)["images"][0]["mime"], "image/png");
    let sent = received.all();
    assert_eq!(sent[0]["endpoint"], "edits");
    assert_eq!(sent[0]["authorization"], format!("Bearer {API_KEY}"));
    assert_eq!(
        (sent[0]["model"].clone(), sent[0]["prompt"].clone()),
        (json!("gpt-image-1"), json!("换成赛博朋克风格"))
    );
    assert_eq!(sent[0]["image_type"], "image/png");
    assert_eq!(STANDARD.decode(sent[0]["image_b64"].as_str().unwrap()).unwrap(), png(64, 48));

    for (link, words) in [
        ("http://169.254.169.254/latest/meta-data/".to_owned(), "link-local"),
        ("http://10.1.2.3/cat.png".into(), "private"),
        (format!("{base}/files/page.html"), "not a PNG, JPEG, WebP or GIF image"),
        ("file:///etc/passwd".into(), "only http and https"),
    ] {
        let (status, body) =
            service.post("/api/skills/image-gen/invoke", json!({"prompt": "x", "referenceImage": link})).await;
        let error = failure(status, &body, 400, "invalid_input");
        assert_eq!(error["field"], "referenceImage");
        assert!(error["message"].as_str().unwrap().contains(words), "{link}: {error}");
    }
    assert_eq!(received.all().len(), 1, "refused references never reach the images API");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - 10, "only the image is charged");
}

#[tokio::test]
async fn upstream_errors_are_502s_with_the_upstream_s_words_and_free() {
    let (base, received) = images_api().await;
    // A short timeout for the `!slow` case; every other answer is immediate.
    let service = service_on(Some(&base), API_KEY, 1).await;
    for (prompt, code, words) in [
        ("!500 x", Some("server_error"), "The server had an error"),
        ("!429 x", Some("rate_limit_exceeded"), "Rate limit reached"),
        ("!policy x", Some("content_policy_violation"), "safety system"),
        ("!slow x", Some("timeout"), "did not answer in time"),
        ("!empty x", None, "holds no image"),
        ("!garbage x", None, "not a PNG, JPEG, WebP or GIF image"),
    ] {
        let (status, body) = service.post("/api/skills/image-gen/invoke", json!({"prompt": prompt})).await;
        let error = failure(status, &body, 502, "upstream_unavailable");
        assert_eq!(error["upstream"]["code"], json!(code), "{prompt}: {error}");
        assert!(error["upstream"]["message"].as_str().unwrap().contains(words), "{prompt}: {error}");
    }
    assert_eq!(received.all().len(), 6, "generations are never retried");

    let (status, body) = service.post("/api/skills/image-gen/invoke", json!({"prompt": "   "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "prompt");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS, "failures are not charged");

    let wrong_key = service_on(Some(&base), "sk-wrong", 20).await;
    let (status, body) = wrong_key.post("/api/skills/articles-cover/invoke", json!({"title": "标题"})).await;
    let error = failure(status, &body, 502, "upstream_unavailable");
    assert_eq!(
        error["upstream"],
        json!({"code": "invalid_api_key", "message": "Incorrect API key provided: sk-wrong."})
    );
    assert_eq!(points(&wrong_key).await, BOOTSTRAP_POINTS);
}

#[tokio::test]
async fn articles_cover_is_a_900x383_jpeg_from_title_and_digest() {
    let (base, received) = images_api().await;
    let service = service_on(Some(&base), API_KEY, 20).await;
    let (status, body) = service
        .post(
            "/api/skills/articles-cover/invoke",
            json!({"title": "夏天喝什么茶", "digest": "绿茶、白茶与花草茶的搭配"}),
        )
        .await;
    let data = success(status, &body);
    assert_eq!((data["status"].clone(), data["source"].clone()), (json!("success"), json!("images-api:gpt-image-1")));
    let cover = &data["images"][0];
    assert_eq!(cover["mime"], "image/jpeg");
    let jpeg = decoded(cover);
    assert_eq!(image::guess_format(&jpeg).unwrap(), image::ImageFormat::Jpeg);
    let img = image::load_from_memory(&jpeg).unwrap();
    assert_eq!((img.width(), img.height()), (900, 383));

    let sent = &received.all()[0];
    let prompt = sent["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("夏天喝什么茶") && prompt.contains("绿茶、白茶与花草茶的搭配") && prompt.contains("2.35:1"),
        "{prompt}"
    );
    assert_eq!(sent["size"], "1536x1024", "covers ask for the wide size");
    let (status, body) = service.post("/api/skills/articles-cover/invoke", json!({"digest": "no title"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "title");
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS - 10);
}

#[tokio::test]
async fn without_an_images_api_both_skills_say_so_and_charge_nothing() {
    let service = service_on(None, API_KEY, 20).await;
    for (slug, body) in [("image-gen", json!({"prompt": "熊猫"})), ("articles-cover", json!({"title": "标题"}))] {
        let (status, answer) = service.post(&format!("/api/skills/{slug}/invoke"), body).await;
        let error = failure(status, &answer, 503, "not_configured");
        assert!(error["message"].as_str().unwrap().contains("MEDIAOPS_IMAGES__BASE_URL"), "{error}");
    }
    assert_eq!(points(&service).await, BOOTSTRAP_POINTS);
}
