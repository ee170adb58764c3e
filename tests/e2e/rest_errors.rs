//! The gateway's contract over real HTTP: envelope, status codes and error
//! codes (ARCHITECTURE.md "Errors"), Bearer parsing (spec 5), request ids.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use common::{KEY, Service, failure, success};
use serde_json::json;

const SEARCH_USER: &str = "/api/apis/lifestyle/search-user/call";

#[tokio::test]
async fn bad_input_is_a_400_naming_the_field() {
    let service = Service::start().await;
    let (status, body) = service.post(SEARCH_USER, json!({"page": 1})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "keyword");

    let (status, body) = service.post(SEARCH_USER, json!({"keyword": "x", "page": "1"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "page");
    assert!(error["message"].as_str().unwrap().contains("number"), "{error}");

    let (status, body) = service.post(SEARCH_USER, json!({"keyword": "x", "sortTyp": "hot"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "sortTyp");
    assert!(error["message"].as_str().unwrap().contains("`sortType`"), "{error}");

    let (status, body) = service.post(SEARCH_USER, json!({"keyword": "   "})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "keyword", "blank required strings are refused by the core");

    let (status, body) = service.post(SEARCH_USER, json!(["keyword"])).await;
    failure(status, &body, 400, "invalid_input");

    let response = service
        .http
        .post(format!("{}{SEARCH_USER}", service.base))
        .header("authorization", format!("Bearer {KEY}"))
        .header("content-type", "application/json")
        .body("{\"keyword\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("not valid JSON"));
}

#[tokio::test]
async fn authentication_failures_are_401() {
    let service = Service::start().await;
    for key in [None, Some("short"), Some("mk_this_key_was_never_issued_00")] {
        let (status, body) = service.call_with_key(reqwest::Method::GET, "/api/apis", None, key).await;
        failure(status, &body, 401, "unauthenticated");
    }
    // The scheme is case-insensitive and may be followed by several spaces
    // (RFC 9110 §11.1; tests/e2e/contract_ops.rs): those are accepted.
    for header in ["Bearer", format!("Bearer\t{KEY}").as_str(), format!("Token {KEY}").as_str()] {
        let response = service
            .http
            .get(format!("{}/api/apis", service.base))
            .header("authorization", header)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{header}");
    }
}

#[tokio::test]
async fn unknown_paths_methods_and_media_types() {
    let service = Service::start().await;
    let (status, body) = service.post("/api/apis/lifestyle/no-such-slug/call", json!({})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = service.get("/nowhere").await;
    failure(status, &body, 404, "not_found");

    let (status, body) = service.get(SEARCH_USER).await;
    failure(status, &body, 405, "method_not_allowed");

    let response = service
        .http
        .post(format!("{}{SEARCH_USER}", service.base))
        .header("authorization", format!("Bearer {KEY}"))
        .header("content-type", "text/plain")
        .body("{\"keyword\": \"x\"}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unsupported_media_type");

    let big = "x".repeat(70 * 1024);
    let (status, body) = service.post(SEARCH_USER, json!({"keyword": big})).await;
    failure(status, &body, 413, "payload_too_large");
}

#[tokio::test]
async fn envelope_and_request_id() {
    let service = Service::start().await;
    let response = service
        .http
        .get(format!("{}/api/skills", service.base))
        .header("authorization", format!("Bearer {KEY}"))
        .header("x-request-id", "trace-abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "trace-abc-123");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["requestId"], "trace-abc-123");
    let keys: Vec<_> = body.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["success", "requestId", "data", "error"]);
    success(200, &body);

    let (status, body) = service.post("/api/apis/articles/articles-sync-account/call", json!({"wechatId": "w"})).await;
    failure(status, &body, 503, "maintenance");
}

#[tokio::test]
async fn every_unbuilt_operation_answers_not_implemented_never_canned_data() {
    let service = Service::start().await;
    // Every data API without a handler must refuse with 503, never answer.
    let unbuilt: Vec<String> = common::unbuilt_operations().await.into_iter().map(|(key, _)| key).collect();
    let (_, apis) = service.get("/api/apis").await;
    for entry in apis["data"]["items"].as_array().unwrap() {
        let maintenance = entry["availability"]["status"] == "maintenance";
        if !maintenance && !unbuilt.iter().any(|k| k == entry["operationKey"].as_str().unwrap()) {
            continue;
        }
        let example = &entry["requestSchema"];
        let mut body = serde_json::Map::new();
        for required in example["required"].as_array().unwrap() {
            let name = required.as_str().unwrap();
            let value = match example["properties"][name]["type"].as_str() {
                Some("array") => json!(["x"]),
                Some("integer") | Some("number") => json!(1),
                _ => json!("x"),
            };
            body.insert(name.to_owned(), value);
        }
        let (status, response) = service.post(entry["path"].as_str().unwrap(), serde_json::Value::Object(body)).await;
        let code = if maintenance { "maintenance" } else { "not_implemented" };
        let error = failure(status, &response, 503, code);
        if !maintenance {
            assert!(error["message"].as_str().unwrap().contains(entry["operationKey"].as_str().unwrap()));
        }
    }
}

#[tokio::test]
async fn healthz_is_liveness_and_readyz_reports_the_core() {
    let service = Service::start().await;
    for (path, expected) in [("/healthz", json!({"status": "ok"})), ("/readyz", json!({"status": "ready"}))] {
        let response = service.http.get(format!("{}{path}", service.base)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body, expected, "{path}");
    }
}

/// A body sent with a GET or DELETE (whose fields are in the query) is
/// read and ignored, so the connection stays usable: the next request on
/// the same keep-alive connection gets its answer (a left-unread body
/// closed it, and a pooling client's next request failed with no answer).
#[tokio::test]
async fn a_body_on_a_get_or_delete_leaves_the_connection_usable() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let service = Service::start().await;
    let address = service.base.trim_start_matches("http://").to_owned();
    for method in ["GET", "DELETE"] {
        let stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        // Larger than the server's first read (below the test service's
        // 64 KiB limit): it cannot have it all without reading it.
        let body = format!("{{\"unused\": \"{}\"}}", "x".repeat(60_000));
        let first = format!(
            "{method} /api/watchlists/unknown HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {KEY}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let second = format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
        let (mut reader, mut writer) = stream.into_split();
        let sent = tokio::spawn(async move {
            // A server that closed the connection refuses the rest: not a
            // failure of the test itself, which reads what came back.
            let _ = writer.write_all(first.as_bytes()).await;
            let _ = writer.write_all(second.as_bytes()).await;
            writer
        });
        let mut answers = String::new();
        let read = tokio::time::timeout(std::time::Duration::from_secs(10), reader.read_to_string(&mut answers));
        let _ = read.await.expect("answers within 10 s");
        drop(sent.await);
        let statuses: Vec<&str> = answers.match_indices("HTTP/1.1 ").map(|(at, _)| &answers[at..at + 12]).collect();
        assert_eq!(statuses, ["HTTP/1.1 404", "HTTP/1.1 200"], "{method}: both answered on one connection: {answers}");
    }
}
