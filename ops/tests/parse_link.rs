//! `tool/parse-content-detail` on a real SQLite store, with short links
//! served by a fake short-link server that the injected resolver puts
//! behind the platforms' short-link host names.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_connectors::test_support as fakes;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use fakes::{FakeResolver, Seen, serve};
use mediaops_connectors::outbound::{GuardedFetcher, OutboundSettings};
use mediaops_ops::data_api::parse_link::LinkParser;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::tool::v1::{ParseContentDetailResponse, ParsedContent};
use mediaops_proto::service::Answer;
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountIds, Record, Work, WorkIds, WorkSnapshot};

const NOTE: &str = "64b7a1f2000000001203c4d5";
const AWEME: &str = "7301234567890123456";

/// A work with its author and one snapshot (likes, shares).
fn work(platform: &str, id: &str, ids: WorkIds, title: &str, author: (&str, &str), counts: [i64; 2]) -> Vec<Record> {
    vec![
        Record::Account(Account {
            platform: platform.into(),
            platform_id: author.0.into(),
            ids: AccountIds::default(),
            nickname: author.1.into(),
            ..Account::default()
        }),
        Record::Work(Work {
            platform: platform.into(),
            platform_id: id.into(),
            ids,
            title: title.into(),
            author_id: Some(author.0.into()),
            ..Work::default()
        }),
        Record::WorkSnapshot {
            platform: platform.into(),
            platform_id: id.into(),
            snapshot: WorkSnapshot {
                captured_at: chrono::Utc::now(),
                likes: Some(counts[0]),
                shares: Some(counts[1]),
                ..WorkSnapshot::default()
            },
        },
    ]
}

async fn store(dir: &tempfile::TempDir) -> Arc<dyn ContentStore> {
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let mut records = work("lifestyle", NOTE, WorkIds::default(), "夏日冰粉做法", ("5f00aa", "小厨娘"), [1200, 45]);
    records.extend(work(
        "shortvideo",
        AWEME,
        WorkIds::default(),
        "山里的清晨",
        ("MS4wLjAB", "山野日记"),
        [88_000, 3_100],
    ));
    let aid = WorkIds { work_id: Some("170001".into()), ..WorkIds::default() };
    records.extend(work("videosite", "BV17x411w7KC", aid, "【4K】城市夜景", ("2233", "夜行者"), [5_000, 230]));
    let mid = WorkIds { work_id: Some("3501756485200075".into()), ..WorkIds::default() };
    records.extend(work(
        "microblog",
        "3501756485200075",
        mid,
        "【高温预警】",
        ("2803301701", "人民日报"),
        [5_230, 1_180],
    ));
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Arc::new(store)
}

/// The fake short-link service: `/<code>` redirects per code.
async fn short_links(seen: Seen) -> u16 {
    async fn short(Path(code): Path<String>, State(seen): State<Seen>) -> Response {
        seen.hit();
        let to = match code.as_str() {
            "xhs1" => format!("https://www.xiaohongshu.com/discovery/item/{NOTE}?app_platform=ios&xsec_token=x"),
            "dy1" => "/dy1b".into(),
            "dy1b" => format!("https://www.iesdouyin.com/share/video/{AWEME}/?region=CN&mid=1"),
            "bili" => "https://www.bilibili.com/video/av170001?share_source=copy".into(),
            "ghost" => "https://www.bilibili.com/video/BV1nothere11?p=1".into(),
            "home" => "https://www.douyin.com/user/MS4wLjABAAAA?from=share".into(),
            "private" => "http://10.0.0.7/admin".into(),
            "intranet" => "http://t.cn/abc".into(),
            "loop" => "/loop".into(),
            _ => return (axum::http::StatusCode::NOT_FOUND, "no such short link").into_response(),
        };
        Redirect::temporary(&to).into_response()
    }
    let addr = serve(Router::new().route("/{code}", get(short)).with_state(seen)).await;
    addr.port()
}

async fn parser(dir: &tempfile::TempDir) -> LinkParser {
    let short_hosts: &[(&'static str, &[&str])] = &[
        ("xhslink.com", &["127.0.0.1"]),
        ("v.douyin.com", &["127.0.0.1"]),
        ("b23.tv", &["127.0.0.1"]),
        ("t.cn", &["10.0.0.7"]),
    ];
    let settings =
        OutboundSettings { allow: vec!["127.0.0.1".into()], max_redirects: 4, ..OutboundSettings::default() };
    let fetcher = GuardedFetcher::with_resolver(&settings, FakeResolver::new(short_hosts)).unwrap();
    LinkParser { store: store(dir).await, fetcher }
}

fn found(platform: &str, title: &str, author: &str, likes: i64, shares: i64) -> Answer<ParseContentDetailResponse> {
    Answer::Found(ParseContentDetailResponse {
        platform: platform.into(),
        source: "store".into(),
        item: Some(ParsedContent {
            title: title.into(),
            author_name: author.into(),
            like_count: likes,
            share_count: shares,
        }),
    })
}

#[tokio::test]
async fn full_links_and_share_texts_are_answered_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let parser = parser(&dir).await;
    let cases = [
        (
            format!("https://www.xiaohongshu.com/explore/{NOTE}?xsec_token=AB"),
            found("lifestyle", "夏日冰粉做法", "小厨娘", 1200, 45),
        ),
        (format!("https://www.douyin.com/video/{AWEME}"), found("shortvideo", "山里的清晨", "山野日记", 88_000, 3_100)),
        (
            format!("https://www.douyin.com/discover?modal_id={AWEME}"),
            found("shortvideo", "山里的清晨", "山野日记", 88_000, 3_100),
        ),
        (
            "https://www.bilibili.com/video/BV17x411w7KC/?p=1".into(),
            found("videosite", "【4K】城市夜景", "夜行者", 5_000, 230),
        ),
        ("https://m.bilibili.com/video/av170001".into(), found("videosite", "【4K】城市夜景", "夜行者", 5_000, 230)),
        (
            "https://weibo.com/2803301701/z0JH2lOMb?from=page".into(),
            found("microblog", "【高温预警】", "人民日报", 5_230, 1_180),
        ),
        (
            format!(
                "7.99 复制打开抖音，看看【山野日记的作品】山里的清晨 https://www.douyin.com/video/{AWEME} 07/12 abc:/"
            ),
            found("shortvideo", "山里的清晨", "山野日记", 88_000, 3_100),
        ),
    ];
    for (link, expected) in cases {
        assert_eq!(parser.parse(&link).await.unwrap(), expected, "{link}");
    }
    let missing = parser.parse("https://www.xiaohongshu.com/explore/000000000000000000000000").await.unwrap();
    assert!(
        matches!(&missing, Answer::NotFound(m) if m.contains("lifestyle") && m.contains("000000000000000000000000")),
        "{missing:?}"
    );
}

#[tokio::test]
async fn short_links_are_followed_to_the_work_without_fetching_the_platform() {
    let dir = tempfile::tempdir().unwrap();
    let parser = parser(&dir).await;
    let seen = Seen::default();
    let port = short_links(seen.clone()).await;
    let xhs = format!(
        "【夏日冰粉做法 - 小红书】 😆 http://xhslink.com:{port}/xhs1，复制本条信息，打开【小红书】App查看精彩内容！"
    );
    assert_eq!(parser.parse(&xhs).await.unwrap(), found("lifestyle", "夏日冰粉做法", "小厨娘", 1200, 45));
    assert_eq!(seen.count(), 1, "only the short link was requested, not xiaohongshu.com");
    let douyin = format!("http://v.douyin.com:{port}/dy1");
    assert_eq!(parser.parse(&douyin).await.unwrap(), found("shortvideo", "山里的清晨", "山野日记", 88_000, 3_100));
    assert_eq!(seen.count(), 3, "two short hops on the same host");
    let bili = format!("http://b23.tv:{port}/bili");
    assert_eq!(parser.parse(&bili).await.unwrap(), found("videosite", "【4K】城市夜景", "夜行者", 5_000, 230));
    let ghost = parser.parse(&format!("http://b23.tv:{port}/ghost")).await.unwrap();
    assert!(matches!(ghost, Answer::NotFound(m) if m.contains("BV1nothere11")));
}

#[tokio::test]
async fn bad_links_are_400s_naming_url_and_what_was_recognized() {
    let dir = tempfile::tempdir().unwrap();
    let parser = parser(&dir).await;
    let port = short_links(Seen::default()).await;
    let cases = [
        ("只有文字，没有链接".to_owned(), "no http(s) link"),
        ("https://www.zhihu.com/question/123".into(), "www.zhihu.com, which is no platform"),
        ("https://www.douyin.com/user/MS4wLjABAAAA".into(), "is a shortvideo link without a work id"),
        ("https://www.douyin.com/video/abc".into(), "shortvideo link without a work id"),
        (format!("http://v.douyin.com:{port}/home"), "is a shortvideo link without a work id"),
        (format!("http://b23.tv:{port}/private"), "is on 10.0.0.7, which is no platform"),
        (format!("http://b23.tv:{port}/intranet"), "10.0.0.7 is a private address"),
        (format!("http://b23.tv:{port}/loop"), "redirects more than 4 times"),
        (format!("http://b23.tv:{port}/unknown"), "leads to"),
        ("https://vm.tiktok.com/ZMabc/".into(), "does not resolve"),
    ];
    for (link, words) in cases {
        let error = parser.parse(&link).await.unwrap_err();
        if words == "does not resolve" {
            // The short-link host itself is unreachable: the upstream's fault.
            assert_eq!(error.code, ErrorCode::UpstreamUnavailable, "{link}: {error:?}");
        } else {
            assert_eq!(
                (error.code, error.field.as_deref()),
                (ErrorCode::InvalidInput, Some("url")),
                "{link}: {error:?}"
            );
        }
        assert!(error.message.contains(words) || format!("{:?}", error.upstream).contains(words), "{link}: {error:?}");
    }
}
