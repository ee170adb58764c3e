//! Atom feeds (docs/watchlists.md "Feeds") over REST on
//! the shared 21-day hot-list archive, the clock at 2024-06-07 07:00 in
//! Shanghai: per-feed tokens (made, rotated, revoked, bound to one feed and
//! to nothing else), the documents parsed back with `atom_syndication` and
//! checked against the archive's own files, `ETag` / `Last-Modified` and
//! their 304s, a watch list's feed, and that all of it is free.

#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::{HashMap, HashSet};

use atom_syndication::Feed;
use chrono::{DateTime, FixedOffset};
use common::{KEY, Service, failure, success};
use reqwest::header;
use serde_json::{Value, json};

const NOW: &str = "2024-06-07T07:00:00+08:00";

/// `GET path` (a feed URL with its token) with extra headers: status,
/// headers, body.
async fn fetch(
    service: &Service,
    path: &str,
    headers: &[(header::HeaderName, &str)],
) -> (u16, header::HeaderMap, Vec<u8>) {
    let mut request = service.http.get(format!("{}{path}", service.base));
    for (name, value) in headers {
        request = request.header(name.clone(), *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

/// The error object of a JSON failure envelope.
fn error_of(status: u16, body: &[u8], expected: u16, code: &str) -> Value {
    failure(status, &serde_json::from_slice(body).unwrap(), expected, code)
}

async fn rotate(service: &Service, feed: &str) -> Value {
    let (status, body) = service.post("/api/feeds/tokens", json!({"feed": feed})).await;
    success(status, &body)
}

/// The titles of one weibo archive file (`<day>/<HH>.json`), in rank order.
fn weibo_titles(day: &str, hour: &str) -> Vec<String> {
    let path = format!("{}/../shared/data/hotlists/weibo/{day}/{hour}.json", env!("CARGO_MANIFEST_DIR"));
    let items: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    items.iter().map(|i| i["title"].as_str().unwrap().trim().to_owned()).filter(|t| !t.is_empty()).collect()
}

fn shanghai(text: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(text).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hot_list_and_watch_list_feeds_with_their_tokens() {
    let dir = common::hotlist_archive_copy();
    common::add_key(dir.path(), "mk_test_feeds_other_00001", "other").await;
    let service = Service::start_with(dir, |core| {
        core.now = Some(NOW.into());
        core.outbound.allow = vec!["127.0.0.1".into()];
    })
    .await;
    let (_, body) = service.get("/api/account/balance").await;
    let points = body["data"]["points"].as_i64().unwrap();

    // The list: seven hot lists, no tokens yet.
    let (status, body) = service.get("/api/feeds").await;
    let list = success(status, &body);
    assert_eq!(list["total"], 7);
    assert_eq!(list["items"][0]["feed"], "hotlists/weibo");
    assert_eq!(list["items"][0]["path"], "/api/feeds/hotlists/weibo.atom");
    assert_eq!(list["items"][0]["hasToken"], false);

    // No token, a made-up one, an API key: 401, in the JSON envelope.
    let (status, _, body) = fetch(&service, "/api/feeds/hotlists/weibo.atom", &[]).await;
    assert_eq!(error_of(status, &body, 401, "unauthenticated")["field"], "token");
    let made_up = "/api/feeds/hotlists/weibo.atom?token=mf_00000000000000000000000000000000000000";
    let (status, _, body) = fetch(&service, made_up, &[]).await;
    let error = error_of(status, &body, 401, "unauthenticated");
    assert!(error["message"].as_str().unwrap().contains("rotated or revoked"), "{error}");
    // An API key is told that keys do not open feeds, not that a token was revoked.
    let (status, _, body) = fetch(&service, &format!("/api/feeds/hotlists/weibo.atom?token={KEY}"), &[]).await;
    let error = error_of(status, &body, 401, "unauthenticated");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("an API key does not open a feed") && message.contains("feed token"), "{error}");
    assert!(!message.contains("revoked") && !message.contains(KEY), "{error}");

    // Bad feeds are 400s naming the field.
    for feed in ["hotlists/myspace", "watchlists/bad id", "weibo"] {
        let (status, body) = service.post("/api/feeds/tokens", json!({"feed": feed})).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "feed", "{feed}");
    }
    let (status, body) = service.post("/api/feeds/tokens", json!({"feed": "watchlists/none"})).await;
    failure(status, &body, 404, "not_found");

    // A token: the feed is the archive's 06:00 capture, by rank.
    let link = rotate(&service, "hotlists/weibo").await;
    let token = link["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("mf_"), "{token}");
    let path = link["path"].as_str().unwrap().to_owned();
    assert_eq!(path, format!("/api/feeds/hotlists/weibo.atom?token={token}"));
    let (status, headers, body) = fetch(&service, &path, &[]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers[header::CONTENT_TYPE], "application/atom+xml; charset=utf-8");
    assert_eq!(headers[header::LAST_MODIFIED], "Thu, 06 Jun 2024 22:00:00 GMT", "the 06:00 capture in Shanghai");
    assert!(headers[header::CACHE_CONTROL].to_str().unwrap().starts_with("private"));
    let etag = headers[header::ETAG].to_str().unwrap().to_owned();
    let feed = Feed::read_from(&body[..]).expect("the feed parses as Atom");
    assert_eq!(feed.title.value, "微博热搜");
    assert_eq!(feed.updated, shanghai("2024-06-07T06:00:00+08:00"));
    // The newest capture's titles (the file's order is close to, not
    // exactly, the rank the import reads from each item's URL) …
    let expected: HashSet<String> = weibo_titles("2024-06-07", "06").into_iter().collect();
    let titles: HashSet<String> = feed.entries.iter().map(|e| e.title.value.clone()).collect();
    assert_eq!(titles, expected, "the newest capture's titles");
    // … by rank.
    let ranks: Vec<i64> = feed
        .entries
        .iter()
        .map(|e| {
            let summary = &e.summary.as_ref().unwrap().value;
            summary.strip_prefix("第 ").and_then(|s| s.split(' ').next()).unwrap().parse().unwrap()
        })
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
    let ids: HashSet<&str> = feed.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), feed.entries.len(), "entry ids are unique");
    // An entry is dated when its title first appeared in the 24 hours
    // before the capture (06-06 12:00 and 18:00, 06-07 00:00 here).
    let earlier: HashMap<String, DateTime<FixedOffset>> = [
        ("2024-06-07", "00", "2024-06-07T00:00:00+08:00"),
        ("2024-06-06", "18", "2024-06-06T18:00:00+08:00"),
        ("2024-06-06", "12", "2024-06-06T12:00:00+08:00"),
    ]
    .iter()
    .flat_map(|(day, hour, at)| weibo_titles(day, hour).into_iter().map(|t| (t, shanghai(at))))
    .collect();
    let mut carried = 0;
    for entry in &feed.entries {
        let published = entry.published.unwrap();
        assert_eq!(entry.updated, published);
        match earlier.get(&entry.title.value) {
            // Listed at 06-06 06:00 too (the window's edge), or at the
            // earliest of the captures above.
            Some(at) => {
                assert!(
                    published <= *at && published >= shanghai("2024-06-06T06:00:00+08:00"),
                    "{}",
                    entry.title.value
                );
                carried += 1;
            }
            None => assert_eq!(published, shanghai("2024-06-07T06:00:00+08:00"), "{}", entry.title.value),
        }
    }
    assert!(carried > 10, "items listed before keep their first date ({carried})");

    // Conditional requests.
    let (status, headers, body) = fetch(&service, &path, &[(header::IF_NONE_MATCH, &etag)]).await;
    assert_eq!((status, body.len()), (304, 0));
    assert_eq!(headers[header::ETAG], etag.as_str());
    let (status, ..) = fetch(&service, &path, &[(header::IF_NONE_MATCH, "\"other\"")]).await;
    assert_eq!(status, 200);
    let (status, ..) = fetch(&service, &path, &[(header::IF_MODIFIED_SINCE, "Thu, 06 Jun 2024 22:00:00 GMT")]).await;
    assert_eq!(status, 304);
    let (status, ..) = fetch(&service, &path, &[(header::IF_MODIFIED_SINCE, "Thu, 06 Jun 2024 21:59:59 GMT")]).await;
    assert_eq!(status, 200);
    let (status, headers, _) =
        fetch(&service, &path, &[(header::ACCEPT_ENCODING, "gzip"), (header::IF_NONE_MATCH, &etag)]).await;
    assert_eq!(status, 304, "a compressed representation matches the same tag: {headers:?}");

    // A token opens its own feed only, and nothing else.
    let douyin = format!("/api/feeds/hotlists/douyin.atom?token={token}");
    let (status, _, body) = fetch(&service, &douyin, &[]).await;
    error_of(status, &body, 403, "forbidden");
    let (status, body) =
        service.call_with_key(reqwest::Method::GET, "/api/watchlists", None, Some(token.as_str())).await;
    failure(status, &body, 401, "unauthenticated");
    let (status, _, body) = fetch(&service, "/api/feeds/hotlists/weibo.xml", &[]).await;
    error_of(status, &body, 404, "not_found");

    // Rotation: the old URL stops working, the new one works.
    let rotated = rotate(&service, "hotlists/weibo").await;
    let (status, _, body) = fetch(&service, &path, &[]).await;
    error_of(status, &body, 401, "unauthenticated");
    let new_path = rotated["path"].as_str().unwrap().to_owned();
    let (status, _, body) = fetch(&service, &new_path, &[(header::IF_NONE_MATCH, &etag)]).await;
    assert_eq!(status, 304, "the same document: {}", String::from_utf8_lossy(&body));
    let (status, body) = service.get("/api/feeds").await;
    let weibo = success(status, &body)["items"][0].clone();
    assert_eq!(
        (weibo["hasToken"].clone(), weibo["tokenCreatedAt"].clone()),
        (json!(true), rotated["createdAt"].clone())
    );
    // Another account does not see or reach this account's tokens.
    let (status, body) =
        service.call_with_key(reqwest::Method::GET, "/api/feeds", None, Some("mk_test_feeds_other_00001")).await;
    assert_eq!(success(status, &body)["items"][0]["hasToken"], false);

    // Revocation.
    let (status, body) = service.call(reqwest::Method::DELETE, "/api/feeds/tokens?feed=hotlists/weibo", None).await;
    assert_eq!(success(status, &body), json!({"feed": "hotlists/weibo", "revoked": true}));
    let (status, _, body) = fetch(&service, &new_path, &[]).await;
    error_of(status, &body, 401, "unauthenticated");
    let (status, body) = service.call(reqwest::Method::DELETE, "/api/feeds/tokens?feed=hotlists/weibo", None).await;
    failure(status, &body, 404, "not_found");

    // A watch list's feed: what it matches in the last 24 hours.
    let watchlist = json!({
        "name": "高考",
        "keywords": "高考 !作文",
        "sources": ["weibo", "baidu", "zhihu", "douyin"],
        "schedule": "0 8 * * *",
        "channels": [{"type": "webhook", "url": "http://127.0.0.1:9/hook", "secret": "whsec_ZmVlZHMtdGVzdA=="}]
    });
    let (status, body) = service.call(reqwest::Method::PUT, "/api/watchlists/exams", Some(watchlist)).await;
    success(status, &body);
    let link = rotate(&service, "watchlists/exams").await;
    let path = link["path"].as_str().unwrap().to_owned();
    assert!(path.starts_with("/api/watchlists/exams.atom?token=mf_"), "{path}");
    let (status, headers, body) = fetch(&service, &path, &[]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(headers.contains_key(header::ETAG) && headers.contains_key(header::LAST_MODIFIED));
    let feed = Feed::read_from(&body[..]).expect("the watch-list feed parses as Atom");
    assert_eq!(feed.title.value, "高考");
    assert!(!feed.entries.is_empty(), "2024-06-07 is the first day of the exams");
    let now = shanghai(NOW);
    for entry in &feed.entries {
        let title = &entry.title.value;
        assert!(title.contains("高考") && !title.contains("作文"), "{title}");
        let source = entry.categories[0].term.as_str();
        assert!(["weibo", "baidu", "zhihu", "douyin"].contains(&source), "{source}");
        assert!(entry.updated <= now);
    }
    assert_eq!(feed.updated, feed.entries.iter().map(|e| e.updated).max().unwrap());
    // The JSON operation at the neighbouring path is untouched.
    let (status, body) = service.get("/api/watchlists/exams").await;
    assert_eq!(success(status, &body)["name"], "高考");
    // Deleting the watch list revokes its feed.
    let (status, body) = service.call(reqwest::Method::DELETE, "/api/watchlists/exams", None).await;
    success(status, &body);
    let (status, _, body) = fetch(&service, &path, &[]).await;
    error_of(status, &body, 401, "unauthenticated");

    // Feeds and their tokens are free.
    let (_, body) = service.get("/api/account/balance").await;
    assert_eq!(body["data"]["points"].as_i64().unwrap(), points);
}
