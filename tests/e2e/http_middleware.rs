//! The gateway's HTTP layers (docs/http.md) over real HTTP
//! against the one-process service: CORS, gzip/br compression, ETag and
//! 304, the whole-request timeout, W3C `traceparent`.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::io::Read;

use common::{KEY, Service, success};
use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ORIGIN: &str = "https://app.example.com";

async fn start(gateway: impl FnOnce(&mut rest_gateway::GatewaySettings)) -> Service {
    Service::start_with_gateway(tempfile::tempdir().unwrap(), |_| {}, gateway).await
}

/// `GET path` with the bootstrap key and `headers`: status, headers, raw body.
async fn get(service: &Service, path: &str, headers: &[(&str, &str)]) -> (u16, HeaderMap, Vec<u8>) {
    let mut request = service.http.get(format!("{}{path}", service.base)).bearer_auth(KEY);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    (status, headers, response.bytes().await.unwrap().to_vec())
}

/// A CORS preflight for `PUT /api/articles/themes/default` from `origin`.
async fn preflight(service: &Service, origin: &str) -> reqwest::Response {
    service
        .http
        .request(Method::OPTIONS, format!("{}/api/articles/themes/default", service.base))
        .header("origin", origin)
        .header("access-control-request-method", "PUT")
        .header("access-control-request-headers", "authorization, content-type, idempotency-key")
        .send()
        .await
        .unwrap()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn cors_is_off_by_default() {
    let service = start(|_| {}).await;
    let answer = preflight(&service, ORIGIN).await;
    assert_eq!(answer.status(), 405, "no CORS: OPTIONS is an unknown method");
    assert!(answer.headers().get("access-control-allow-origin").is_none());
    let (status, headers, _) = get(&service, "/api/apis", &[("origin", ORIGIN)]).await;
    assert_eq!(status, 200);
    assert!(headers.keys().all(|name| !name.as_str().starts_with("access-control-")), "{headers:?}");
}

#[tokio::test]
async fn cors_answers_the_configured_origins_only() {
    let service = start(|g| g.cors_origins = format!("{ORIGIN}, http://localhost:5173")).await;
    let answer = preflight(&service, ORIGIN).await;
    assert_eq!(answer.status(), 200);
    let headers = answer.headers();
    assert_eq!(header(headers, "access-control-allow-origin"), Some(ORIGIN));
    let methods = header(headers, "access-control-allow-methods").unwrap();
    for method in ["GET", "POST", "PUT", "DELETE"] {
        assert!(methods.contains(method), "{methods}");
    }
    let allowed = header(headers, "access-control-allow-headers").unwrap();
    for name in ["authorization", "content-type", "idempotency-key", "x-request-id", "mcp-protocol-version"] {
        assert!(allowed.contains(name), "{allowed}");
    }

    let denied = preflight(&service, "https://evil.example.com").await;
    assert!(denied.headers().get("access-control-allow-origin").is_none(), "{:?}", denied.headers());

    let (status, headers, _) = get(&service, "/api/apis", &[("origin", "http://localhost:5173")]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("http://localhost:5173"));
    let exposed = header(&headers, "access-control-expose-headers").unwrap();
    for name in ["x-request-id", "retry-after", "ratelimit", "ratelimit-policy", "idempotent-replayed", "etag"] {
        assert!(exposed.contains(name), "{exposed}");
    }
}

#[tokio::test]
async fn a_bad_origin_is_a_start_error_naming_the_setting() {
    let core = core_service::CoreSettings {
        grpc_addr: "127.0.0.1:0".into(),
        data_dir: tempfile::tempdir().unwrap().keep(),
        ..core_service::CoreSettings::default()
    };
    let gateway = rest_gateway::GatewaySettings {
        rest_addr: "127.0.0.1:0".into(),
        cors_origins: "https://app.example.com/".into(),
        ..rest_gateway::GatewaySettings::default()
    };
    let error = mediaops::start(&core, &gateway).await.err().expect("a path in an origin is refused").to_string();
    assert!(error.contains("MEDIAOPS_CORS_ORIGINS"), "{error}");
    std::fs::remove_dir_all(&core.data_dir).ok();
}

#[tokio::test]
async fn gzip_and_br_bodies_decode_to_the_same_json() {
    let service = start(|_| {}).await;
    let (status, headers, plain) = get(&service, "/api/apis", &[]).await;
    assert_eq!(status, 200);
    assert!(headers.get("content-encoding").is_none(), "no Accept-Encoding, no coding");
    let plain: Value = serde_json::from_slice(&plain).unwrap();
    assert!(serde_json::to_vec(&plain).unwrap().len() > 1024, "the catalog is above the compression floor");

    let (status, headers, gzipped) = get(&service, "/api/apis", &[("accept-encoding", "gzip")]).await;
    assert_eq!((status, header(&headers, "content-encoding")), (200, Some("gzip")));
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(gzipped.as_slice()).read_to_end(&mut text).unwrap();
    let gzip_json: Value = serde_json::from_slice(&text).unwrap();
    assert!(gzipped.len() < text.len());

    let (status, headers, brotli) = get(&service, "/api/apis", &[("accept-encoding", "br;q=1, gzip;q=0.5")]).await;
    assert_eq!((status, header(&headers, "content-encoding")), (200, Some("br")));
    let br_etag = header(&headers, "etag").unwrap().to_owned();
    assert!(br_etag.ends_with("-br\""), "a compressed answer has its own strong tag: {br_etag}");
    let mut text = Vec::new();
    brotli::Decompressor::new(brotli.as_slice(), 4096).read_to_end(&mut text).unwrap();
    let br_json: Value = serde_json::from_slice(&text).unwrap();

    for decoded in [&gzip_json, &br_json] {
        assert_eq!(decoded["data"], plain["data"]);
        assert_eq!(decoded["success"], true);
    }
    // The compressed answer's tag revalidates.
    let (status, _, body) =
        get(&service, "/api/apis", &[("accept-encoding", "br"), ("if-none-match", br_etag.as_str())]).await;
    assert_eq!((status, body.len()), (304, 0));

    // A small answer is sent as it is.
    let (status, headers, _) = get(&service, "/healthz", &[("accept-encoding", "gzip, br")]).await;
    assert_eq!((status, headers.get("content-encoding")), (200, None));
}

#[tokio::test]
async fn catalogs_and_themes_carry_an_etag_and_revalidate() {
    let service = start(|_| {}).await;
    for path in ["/api/apis", "/api/skills", "/api/articles/themes"] {
        let (status, headers, _) = get(&service, path, &[("x-request-id", "first")]).await;
        assert_eq!(status, 200, "{path}");
        let tag = header(&headers, "etag").expect(path).to_owned();
        assert!(tag.starts_with('"') && tag.ends_with('"') && tag.len() == 34, "a strong tag: {tag}");
        assert_eq!(header(&headers, "cache-control"), Some("private, max-age=0, must-revalidate"));
        // Another request id, the same tag.
        let (_, again, _) = get(&service, path, &[("x-request-id", "second")]).await;
        assert_eq!(header(&again, "etag"), Some(tag.as_str()), "{path}");
        let weak = format!("W/{tag}");
        let list = format!("\"other\", {tag}");
        for if_none_match in [tag.as_str(), weak.as_str(), list.as_str(), "*"] {
            let (status, headers, body) = get(&service, path, &[("if-none-match", if_none_match)]).await;
            assert_eq!((status, body.len()), (304, 0), "{path} If-None-Match: {if_none_match}");
            assert_eq!(header(&headers, "etag"), Some(tag.as_str()));
            assert_eq!(header(&headers, "cache-control"), Some("private, max-age=0, must-revalidate"));
            assert!(headers.get("x-request-id").is_some());
        }
        let (status, _, body) = get(&service, path, &[("if-none-match", "\"other\"")]).await;
        assert_eq!(status, 200);
        assert!(!body.is_empty());
    }

    // A changed resource gets a new tag; the old one no longer matches.
    let (_, headers, _) = get(&service, "/api/articles/themes", &[]).await;
    let old = header(&headers, "etag").unwrap().to_owned();
    let (status, body) =
        service.call(Method::PUT, "/api/articles/themes/default", Some(json!({"themeId": "ink"}))).await;
    success(status, &body);
    let (status, headers, body) = get(&service, "/api/articles/themes", &[("if-none-match", old.as_str())]).await;
    assert_eq!(status, 200);
    let new = header(&headers, "etag").unwrap();
    assert_ne!(new, old);
    let themes: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(themes["data"]["default"], "ink");

    // Failures and other methods are not tagged.
    let (status, headers, _) = get(&service, "/api/tasks/none", &[]).await;
    assert_ne!(status, 200);
    assert!(headers.get("etag").is_none());
    let answer = service.http.get(format!("{}/api/apis", service.base)).send().await.unwrap();
    assert_eq!(answer.status(), 401);
    assert!(answer.headers().get("etag").is_none());
}

#[tokio::test]
async fn a_request_not_answered_in_time_gets_the_timeout_envelope() {
    let service = start(|g| g.request_timeout_secs = 1).await;
    // A body that never ends: the whole-request timeout (1 s) comes
    // before the body timeout (30 s).
    let mut stream = tokio::net::TcpStream::connect(service.running.rest_addr).await.unwrap();
    let head = format!(
        "PUT /api/articles/themes/default HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\n\
         content-type: application/json\r\ncontent-length: 100\r\nx-request-id: slow-1\r\n\r\n{{\"themeId\""
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = std::time::Instant::now();
    let mut answer = vec![0; 4096];
    let read =
        tokio::time::timeout(std::time::Duration::from_secs(10), stream.read(&mut answer)).await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&answer[..read]).into_owned();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    let body: Value = serde_json::from_str(text.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "request_timeout");
    assert_eq!(body["requestId"], "slow-1");
    assert!(body["error"]["message"].as_str().unwrap().contains("MEDIAOPS_REQUEST_TIMEOUT_SECS"), "{body}");
}

#[tokio::test]
async fn a_traceparent_is_accepted_and_a_malformed_one_ignored() {
    let service = start(|_| {}).await;
    for traceparent in [
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "garbage",
    ] {
        let mut headers = HeaderMap::new();
        headers.insert("traceparent", HeaderValue::from_static(traceparent));
        let response = service
            .http
            .put(format!("{}/api/articles/themes/default", service.base))
            .bearer_auth(KEY)
            .headers(headers)
            .json(&json!({"themeId": "ink"}))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        assert_eq!(success(status, &body)["default"], "ink", "{traceparent}");
    }
}

/// The digits after the decimal point of `elapsed_ms=<n>` in a text line.
fn elapsed_decimals(line: &str) -> usize {
    let value = line.split("elapsed_ms=").nth(1).unwrap_or_else(|| panic!("no elapsed_ms: {line}"));
    let value = value.split_whitespace().next().unwrap();
    value.split_once('.').map_or(0, |(_, decimals)| decimals.len())
}

#[tokio::test]
async fn every_call_line_names_its_trace_and_a_rounded_duration() {
    use common::process::{Process, Spawn};
    const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    let traceparent = format!("00-{TRACE}-00f067aa0ba902b7-01");
    for format in ["text", "json"] {
        let dir = tempfile::tempdir().unwrap();
        let process =
            Process::spawn(dir.path(), Spawn { args: vec![], env: vec![("MEDIAOPS_LOG_FORMAT", format.into())] });
        let http = reqwest::Client::new();
        let call = |path: &str, body: Value, request_id: &'static str| {
            http.post(format!("{}{path}", process.rest()))
                .bearer_auth(KEY)
                .header("traceparent", &traceparent)
                .header("x-request-id", request_id)
                .json(&body)
                .send()
        };
        let ok = call("/api/articles/render", json!({"markdown": "# 标题"}), "req-trace-ok").await.unwrap();
        assert_eq!(ok.status(), 200);
        ok.bytes().await.unwrap();
        let bad = call("/api/apis/lifestyle/comments/call", json!({"noteId": "n1"}), "req-trace-bad").await.unwrap();
        assert_eq!(bad.status(), 503, "under maintenance");
        let line_of = |request_id: &str| {
            process.log().into_iter().find(|l| l.contains(request_id) && l.contains("mediaops_platform::dispatch"))
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while (line_of("req-trace-ok").is_none() || line_of("req-trace-bad").is_none())
            && std::time::Instant::now() < deadline
        {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        for request_id in ["req-trace-ok", "req-trace-bad"] {
            let line = line_of(request_id)
                .unwrap_or_else(|| panic!("{format}: no line of {request_id}: {:#?}", process.log()));
            if format == "json" {
                let line: Value = serde_json::from_str(&line).unwrap();
                assert_eq!(line["trace_id"], TRACE, "{line}");
                assert_eq!(line["span"]["trace_id"], TRACE, "the request's span: {line}");
                let elapsed = line["elapsed_ms"].as_f64().unwrap();
                assert!(((elapsed * 100.0).round() - elapsed * 100.0).abs() < 1e-6, "{line}");
            } else {
                // The request's span (`http{… trace_id="…"}`) and the call's own field.
                assert!(line.contains(&format!("trace_id=\"{TRACE}\"")), "{line}");
                assert_eq!(line.matches(TRACE).count(), 2, "span and field: {line}");
                assert!(elapsed_decimals(&line) <= 2, "{line}");
            }
        }
    }
}
