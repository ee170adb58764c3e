//! The outbound module against local fake servers: the SSRF guard (every
//! refused class, redirects to private addresses, DNS rebinding, caps) and
//! the connector client (retries only where idempotent, timeouts, error
//! bodies).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_connectors::test_support as fakes;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use fakes::{FakeResolver, Seen, serve};
use mediaops_connectors::outbound::{
    ConnectorClient, FetchLimits, GuardedFetcher, OutboundError, OutboundSettings, Retry,
};
use mediaops_proto::error_code::ErrorCode;

/// A fake link server: `/page` (HTML), `/image` (PNG bytes), `/big` (2000
/// bytes with a length), `/stream` (2000 bytes, chunked), `/slow` (5 s),
/// `/to?target=…` (302 to target), `/hop/<n>` (302 to `/hop/<n-1>`,
/// `/hop/0` is the page).
async fn link_server(seen: Seen) -> SocketAddr {
    async fn hop(Path(n): Path<u32>, State(seen): State<Seen>) -> Response {
        seen.hit();
        if n == 0 {
            ([(header::CONTENT_TYPE, "text/html")], "<p>end</p>").into_response()
        } else {
            Redirect::temporary(&format!("/hop/{}", n - 1)).into_response()
        }
    }
    let router = Router::new()
        .route(
            "/page",
            get(|State(seen): State<Seen>| async move {
                seen.hit();
                ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], "<p>hello</p>")
            }),
        )
        .route(
            "/image",
            get(|State(seen): State<Seen>| async move {
                seen.hit();
                ([(header::CONTENT_TYPE, "image/png")], vec![0x89u8, b'P', b'N', b'G'])
            }),
        )
        .route(
            "/big",
            get(|State(seen): State<Seen>| async move {
                seen.hit();
                vec![b'x'; 2000]
            }),
        )
        .route(
            "/stream",
            get(|State(seen): State<Seen>| async move {
                seen.hit();
                let chunks = (0..20).map(|_| Ok::<_, std::io::Error>(vec![b'y'; 100]));
                axum::body::Body::from_stream(futures::stream::iter(chunks))
            }),
        )
        .route(
            "/slow",
            get(|State(seen): State<Seen>| async move {
                seen.hit();
                tokio::time::sleep(Duration::from_secs(5)).await;
                "late"
            }),
        )
        .route(
            "/to",
            get(|State(seen): State<Seen>, axum::extract::Query(q): axum::extract::Query<Vec<(String, String)>>| async move {
                seen.hit();
                let target = q.into_iter().find(|(k, _)| k == "target").map(|(_, v)| v).unwrap_or_default();
                Redirect::to(&target)
            }),
        )
        .route("/hop/{n}", get(hop))
        .with_state(seen);
    serve(router).await
}

fn allowing(allow: &[&str]) -> OutboundSettings {
    OutboundSettings { allow: allow.iter().map(|s| s.to_string()).collect(), ..OutboundSettings::default() }
}

fn refused_reason(result: Result<impl std::fmt::Debug, OutboundError>) -> String {
    match result {
        Err(OutboundError::Refused { refusal, .. }) => refusal.reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn every_refused_address_class_is_refused_before_connecting() {
    let fetcher = GuardedFetcher::new(&OutboundSettings::default()).unwrap();
    let limits = fetcher.limits();
    let cases = [
        ("http://127.0.0.1/", "loopback"),
        ("http://127.1.2.3:80/", "loopback"),
        ("http://2130706433/", "loopback"),
        ("http://0x7f.1/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://10.0.0.8/", "private"),
        ("http://172.20.1.1/", "private"),
        ("http://192.168.0.1/", "private"),
        ("http://100.100.100.200/latest/meta-data", "private (shared CGNAT)"),
        ("http://[fd12::1]/", "private (unique local)"),
        ("http://169.254.169.254/latest/meta-data/", "link-local (cloud metadata)"),
        ("http://[::ffff:169.254.169.254]/", "link-local (cloud metadata)"),
        ("http://[fe80::1]/", "link-local"),
        ("http://224.0.0.251/", "multicast"),
        ("http://[ff02::1]/", "multicast"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://[::]/", "unspecified"),
        ("http://255.255.255.255/", "broadcast"),
        ("http://192.0.2.1/", "documentation"),
        ("http://[2001:db8::1]/", "documentation"),
    ];
    for (link, class) in cases {
        let reason = refused_reason(fetcher.fetch(link, &limits).await);
        assert!(reason.ends_with(&format!("is a {class} address")), "{link}: {reason}");
    }
    for link in
        ["http://localhost/", "http://LOCALHOST./x", "http://app.localhost/", "http://metadata.google.internal/"]
    {
        let reason = refused_reason(fetcher.fetch(link, &limits).await);
        assert!(reason.contains("cloud-metadata host name"), "{link}: {reason}");
    }
    for link in
        ["ftp://example.com/x", "file:///etc/passwd", "gopher://example.com/", "http://u:p@example.com/", "not a link"]
    {
        let result = fetcher.fetch(link, &limits).await;
        assert!(matches!(result, Err(OutboundError::InvalidUrl { .. })), "{link}: {result:?}");
    }
    let reason = refused_reason(fetcher.fetch("http://8.8.8.8:6379/", &limits).await);
    assert!(reason.contains("port 6379"), "{reason}");
}

#[tokio::test]
async fn a_host_name_resolving_to_a_private_address_is_refused() {
    let resolver = FakeResolver::new(&[("intranet.test", &["10.1.2.3"]), ("mixed.test", &["8.8.8.8", "192.168.1.9"])]);
    let fetcher = GuardedFetcher::with_resolver(&OutboundSettings::default(), resolver).unwrap();
    let reason = refused_reason(fetcher.fetch("http://intranet.test/", &fetcher.limits()).await);
    assert_eq!(reason, "10.1.2.3 is a private address");
    let reason = refused_reason(fetcher.fetch("https://mixed.test/", &fetcher.limits()).await);
    assert_eq!(reason, "192.168.1.9 is a private address", "one refused address refuses the host");
}

#[tokio::test]
async fn an_allow_listed_server_is_fetched_with_its_type_and_final_link() {
    let seen = Seen::default();
    let addr = link_server(seen.clone()).await;
    let fetcher = GuardedFetcher::new(&allowing(&["127.0.0.1/32"])).unwrap();
    let fetched = fetcher.fetch(&format!("http://{addr}/image"), &fetcher.limits()).await.unwrap();
    assert_eq!(fetched.bytes.as_ref(), &[0x89, b'P', b'N', b'G']);
    assert_eq!(fetched.mime().as_deref(), Some("image/png"));
    fetched.require_content_type(&["image/"]).unwrap();
    let page = fetcher.fetch(&format!("http://{addr}/hop/2"), &fetcher.limits()).await.unwrap();
    assert_eq!(page.final_url.path(), "/hop/0");
    let wrong = page.require_content_type(&["image/"]).unwrap_err();
    assert!(matches!(&wrong, OutboundError::ContentType { found, .. } if found == "text/html"), "{wrong:?}");
    assert_eq!(seen.count(), 4);
    // Only the listed address: 127.0.0.2 stays refused.
    let reason =
        refused_reason(fetcher.fetch(&format!("http://127.0.0.2:{}/page", addr.port()), &fetcher.limits()).await);
    assert!(reason.contains("loopback"), "{reason}");
}

#[tokio::test]
async fn a_redirect_to_a_refused_address_is_refused_on_that_hop() {
    let seen = Seen::default();
    let addr = link_server(seen.clone()).await;
    let resolver = FakeResolver::new(&[("internal.test", &["172.16.5.5"])]);
    let fetcher = GuardedFetcher::with_resolver(&allowing(&["127.0.0.1"]), resolver).unwrap();
    let limits = fetcher.limits();
    for (target, expected) in [
        ("http://169.254.169.254/latest/meta-data/iam", "link-local (cloud metadata)"),
        ("http://10.0.0.1/admin", "private"),
        ("http://[::1]:6379/", "loopback"),
        ("http://internal.test/", "private"),
    ] {
        let link = format!("http://{addr}/to?target={target}");
        let reason = refused_reason(fetcher.fetch(&link, &limits).await);
        assert!(reason.ends_with(&format!("is a {expected} address")), "{target}: {reason}");
        let reason = refused_reason(fetcher.final_url(&link, &limits).await);
        assert!(reason.contains(expected), "{target}: {reason}");
    }
    let link = format!("http://{addr}/to?target=http://localhost:{}/page", addr.port());
    assert!(refused_reason(fetcher.fetch(&link, &limits).await).contains("host name"));
    let link = format!("http://{addr}/to?target=file:///etc/passwd");
    assert!(matches!(fetcher.fetch(&link, &limits).await, Err(OutboundError::InvalidUrl { .. })));
    assert_eq!(seen.count(), 10, "only the allowed first hops were requested");
}

#[tokio::test]
async fn dns_rebinding_is_caught_at_connect_time() {
    let seen = Seen::default();
    let addr = link_server(seen.clone()).await;
    // Checked as a public address, then rebound to the loopback fake server.
    let resolver = FakeResolver::new(&[("rebind.test", &["8.8.8.8", "127.0.0.1"])]);
    let settings = OutboundSettings { ports: vec![], ..OutboundSettings::default() };
    let fetcher = GuardedFetcher::with_resolver(&settings, resolver.clone()).unwrap();
    let result = fetcher.fetch(&format!("http://rebind.test:{}/page", addr.port()), &fetcher.limits()).await;
    assert_eq!(refused_reason(result), "127.0.0.1 is a loopback address");
    assert!(resolver.lookups.load(Ordering::SeqCst) >= 2, "the pre-check and the connection each looked up");
    assert_eq!(seen.count(), 0, "nothing reached the rebound address");

    // The same path with the name allow-listed connects through the
    // injected resolver, so the refusal above came from the connect check.
    let resolver = FakeResolver::new(&[("rebind.test", &["8.8.8.8", "127.0.0.1"])]);
    let open = OutboundSettings { ports: vec![], allow: vec!["rebind.test".into()], ..OutboundSettings::default() };
    let fetcher = GuardedFetcher::with_resolver(&open, resolver).unwrap();
    let page = fetcher.fetch(&format!("http://rebind.test:{}/page", addr.port()), &fetcher.limits()).await.unwrap();
    assert_eq!(page.bytes.as_ref(), b"<p>hello</p>");
    assert_eq!(seen.count(), 1);
}

#[tokio::test]
async fn redirects_body_size_and_time_are_capped() {
    let seen = Seen::default();
    let addr = link_server(seen.clone()).await;
    let fetcher = GuardedFetcher::new(&allowing(&["127.0.0.1"])).unwrap();
    let limits = FetchLimits { timeout: Duration::from_secs(20), max_bytes: 1000, max_redirects: 3 };
    let ok = fetcher.final_url(&format!("http://{addr}/hop/3"), &limits).await.unwrap();
    assert_eq!(ok.path(), "/hop/0");
    let too_many = fetcher.fetch(&format!("http://{addr}/hop/4"), &limits).await;
    assert!(matches!(too_many, Err(OutboundError::TooManyRedirects { limit: 3, .. })), "{too_many:?}");
    for path in ["big", "stream"] {
        let large = fetcher.fetch(&format!("http://{addr}/{path}"), &limits).await;
        assert!(matches!(large, Err(OutboundError::TooLarge { limit: 1000, .. })), "{path}: {large:?}");
    }
    let fits = fetcher.fetch(&format!("http://{addr}/stream"), &limits.with_max_bytes(2000)).await.unwrap();
    assert_eq!(fits.bytes.len(), 2000);
    let quick = FetchLimits { timeout: Duration::from_millis(300), ..limits };
    let slow = fetcher.fetch(&format!("http://{addr}/slow"), &quick).await;
    assert!(matches!(slow, Err(OutboundError::Timeout { .. })), "{slow:?}");
    let e = slow.unwrap_err().to_service_error("the link", Some("url"));
    assert_eq!(e.code, ErrorCode::UpstreamUnavailable, "a slow link is the upstream's fault");
    let e = too_many.unwrap_err().to_service_error("the link", Some("url"));
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some("url")));
}

/// A fake upstream: `/flaky` fails with 503 until its third call; `/down`
/// always answers an OpenAI-style 500; `/slow` sleeps 3 s.
async fn upstream(seen: Seen) -> SocketAddr {
    async fn flaky(State(seen): State<Seen>) -> Response {
        if seen.hit() < 3 { StatusCode::SERVICE_UNAVAILABLE.into_response() } else { "{\"ok\":true}".into_response() }
    }
    async fn down(State(seen): State<Seen>, headers: HeaderMap) -> Response {
        seen.hit();
        assert!(headers.get(header::USER_AGENT).is_some());
        let body = r#"{"error":{"message":"The server had an error","type":"server_error","code":"internal_error"}}"#;
        (StatusCode::INTERNAL_SERVER_ERROR, [(header::CONTENT_TYPE, "application/json")], body).into_response()
    }
    let router = Router::new()
        .route("/v1/flaky", get(flaky).post(flaky))
        .route("/v1/down", post(down))
        .route(
            "/v1/slow",
            get(|State(seen): State<Seen>| async move {
                seen.hit();
                tokio::time::sleep(Duration::from_secs(3)).await;
                "late"
            }),
        )
        .with_state(seen);
    serve(router).await
}

fn quick() -> OutboundSettings {
    OutboundSettings { retries: 2, retry_backoff_ms: 10, ..OutboundSettings::default() }
}

#[tokio::test]
async fn idempotent_requests_are_retried_with_backoff_and_posts_are_not() {
    let seen = Seen::default();
    let addr = upstream(seen.clone()).await;
    let settings = quick();
    let client = ConnectorClient::builder("fake", &format!("http://{addr}/v1/"), &settings).build().unwrap();
    assert_eq!(client.url("/flaky"), format!("http://{addr}/v1/flaky"));

    let response = client.send(client.request(reqwest::Method::GET, "flaky"), Retry::ByMethod).await.unwrap();
    let body: serde_json::Value = client.json(response).await.unwrap();
    assert_eq!(body["ok"], true);
    assert_eq!(seen.count(), 3, "two 503s retried, the third call answered");

    let seen = Seen::default();
    let addr = upstream(seen.clone()).await;
    let client = ConnectorClient::builder("fake", &format!("http://{addr}/v1"), &settings).build().unwrap();
    let response = client.send(client.request(reqwest::Method::POST, "/flaky"), Retry::ByMethod).await.unwrap();
    let error = client.json::<serde_json::Value>(response).await.unwrap_err();
    assert!(matches!(error, OutboundError::Status { status: 503, .. }), "{error:?}");
    assert_eq!(seen.count(), 1, "a POST is sent once");
    let response = client.send(client.request(reqwest::Method::POST, "/flaky"), Retry::Idempotent).await.unwrap();
    assert!(response.status().is_success(), "a POST marked idempotent is retried");
    assert_eq!(seen.count(), 3);
}

#[tokio::test]
async fn upstream_errors_and_timeouts_become_502_with_what_the_upstream_said() {
    let seen = Seen::default();
    let addr = upstream(seen.clone()).await;
    let settings = quick();
    let client = ConnectorClient::builder("fake", &format!("http://{addr}/v1"), &settings).build().unwrap();
    let response = client.send(client.request(reqwest::Method::POST, "down"), Retry::ByMethod).await.unwrap();
    let error = client.bytes(response).await.unwrap_err();
    let service = error.to_service_error("the fake API", None);
    assert_eq!(service.code, ErrorCode::UpstreamUnavailable);
    let upstream = service.upstream.expect("the upstream's words are passed on");
    assert_eq!(upstream.code.as_deref(), Some("internal_error"));
    assert_eq!(upstream.message, "The server had an error");

    let slow = ConnectorClient::builder("fake", &format!("http://{addr}/v1"), &settings)
        .request_timeout(Duration::from_millis(200))
        .retries(1)
        .build()
        .unwrap();
    let error = slow.send(slow.request(reqwest::Method::GET, "slow"), Retry::ByMethod).await.unwrap_err();
    assert!(matches!(error, OutboundError::Timeout { .. }), "{error:?}");
    assert_eq!(seen.count(), 1 + 2, "the timed-out GET was tried twice");
    assert_eq!(error.to_service_error("the fake API", None).upstream.unwrap().code.as_deref(), Some("timeout"));

    // Nothing listens on a port just released.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let gone = ConnectorClient::builder("fake", &format!("http://{closed}"), &settings).build().unwrap();
    let error = gone.send(gone.request(reqwest::Method::GET, "/x"), Retry::ByMethod).await.unwrap_err();
    assert!(matches!(error, OutboundError::Transport { .. }), "{error:?}");
    assert!(ConnectorClient::builder("fake", "ftp://x", &settings).build().is_err());
    assert!(ConnectorClient::builder("fake", "not a url", &settings).build().is_err());
}
