//! The hot-list collectors against local fake servers that answer in the
//! shapes HOTLISTS.md documents (Zhihu and Baidu with real archived
//! replies), writing to a real SQLite store: every source writes its
//! snapshot; broken sources (500, bad JSON, timeout) fail alone, with
//! bounded retries, while the others keep writing; the core's scheduler
//! runs the enabled sources by itself and admins see their state over gRPC.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{TimeZone, Utc};
use mediaops_connectors::hotlists::Source;
use mediaops_connectors::hotlists::collector::{CollectorState, Collectors};
use mediaops_connectors::hotlists::config::HotlistSettings;
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;
use mediaops_store::model::{HotListEntry, HotListQuery};
use mediaops_store::sqlite::SqliteStore;

fn archive(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/hotlists").join(path))
        .unwrap()
}

const WEIBO: &str = r##"{"ok":1,"data":{
  "hotgov":{"word":"#立足中国大地讲好中华文明故事#","icon_desc":"热"},
  "realtime":[
    {"word":"为什么床上总是有沙子","word_scheme":"#为什么床上总是有沙子#","num":1428835,"label_name":"热","rank":0,"realpos":1,"category":"社会"},
    {"word":"哪个臭小子被刘亦菲喜欢过","num":876140,"label_name":"新","rank":1,"realpos":2},
    {"word":"某品牌夏日新品","num":0,"is_ad":1},
    {"word_scheme":"#赛龙舟为什么能火出圈#","num":836341,"rank":2}
  ]}}"##;

const DOUYIN: &str = r#"{"status_code":0,"data":{"word_list":[
  {"word":"张志磊vs维尔德","hot_value":11946360,"sentence_id":"1710724","event_time":1717200000,"position":1},
  {"word":"端午安康","hot_value":10012000,"sentence_id":"1710725","position":2},
  {"hot_value":9000000,"sentence_id":"1710726","position":3}
]}}"#;

const BILIBILI: &str = r#"{"code":0,"message":"0","data":{"note":"根据稿件内容质量等综合评分","list":[
  {"bvid":"BV1Qw4m1U7q3","title":"《坦克模拟器2》","pubdate":1717171717,"owner":{"mid":1,"name":"某UP主"},
   "stat":{"view":2022003,"like":377747,"danmaku":11186},"short_link_v2":"https://b23.tv/BV1Qw4m1U7q3"},
  {"bvid":"BV1cM41197ui","title":"《史记》原文全解读","owner":{"name":"木鱼水心"},"stat":{"view":1500000}}
]}}"#;

const TOUTIAO: &str = r#"{"status":"success","data":[
  {"ClusterIdStr":"7110213463787929615","Title":"评论员详解福建舰多久能形成战斗力","HotValue":"36588751","Image":{"url":"https://p3.toutiaoimg.com/a.jpg"},"Label":"hot"},
  {"ClusterIdStr":"7110213463787929616","Title":"高考作文题公布","HotValue":"21000000"}
],"fixed_top_data":[{"Title":"置顶：习近平回信勉励小学生","Url":"https://www.toutiao.com/article/1/"}]}"#;

fn kuaishou_page() -> String {
    let state = serde_json::json!({"defaultClient": {
        "$ROOT_QUERY.visionHotRank({\"page\":\"home\"})": {"items": [
            {"type": "id", "generated": false, "id": "VisionHotRankItem:0", "typename": "VisionHotRankItem"},
            {"type": "id", "generated": false, "id": "VisionHotRankItem:1", "typename": "VisionHotRankItem"},
            {"type": "id", "generated": false, "id": "VisionHotRankItem:2", "typename": "VisionHotRankItem"}
        ]},
        "VisionHotRankItem:0": {"id": "0", "name": "总书记给“小树苗”的暖心寄语", "hotValue": "1234.5万", "tagType": "置顶",
            "photoIds": {"type": "json", "json": ["3xzjuxmeib3i6bs"]}},
        "VisionHotRankItem:1": {"id": "1", "name": "高考加油", "hotValue": "987.6万", "photoIds": {"type": "json", "json": ["3xb"]}},
        "VisionHotRankItem:2": {"id": "2", "name": "端午节的龙舟", "hotValue": "12.3万", "photoIds": {"type": "json", "json": ["3xc"]}}
    }});
    format!(
        "<!DOCTYPE html><html><body><script>window.__APOLLO_STATE__={state};(function(){{var s;(s=document.currentScript||document.scripts[document.scripts.length-1]).parentNode.removeChild(s);}}());</script></body></html>"
    )
}

fn baidu_page() -> String {
    format!(
        "<!DOCTYPE html><html><body><!--s-data:{}--><div id=\"sanRoot\"></div></body></html>",
        archive("baidu/2024-06-10/hot-search.json")
    )
}

/// Requests per path.
type Hits = Arc<Mutex<HashMap<String, usize>>>;

/// A fake of every endpoint, plus broken ones: `/status/<code>`,
/// `/bad-json`, `/slow` (answers after 5 s), `/flaky/<source>` (503 first,
/// then the source's reply) and `/douyin-needs-cookie` (403 without the
/// configured cookie and header).
async fn fake_server() -> (String, Hits) {
    let hits: Hits = Arc::default();
    async fn answer(State(hits): State<Hits>, UrlPath(path): UrlPath<String>, headers: HeaderMap) -> Response {
        let count = {
            let mut hits = hits.lock().unwrap();
            let n = hits.entry(path.clone()).or_default();
            *n += 1;
            *n
        };
        let html = |body: String| ([("content-type", "text/html; charset=utf-8")], body).into_response();
        let json = |body: String| ([("content-type", "application/json")], body).into_response();
        let reply = |source: &str| match source {
            "weibo" => json(WEIBO.into()),
            "douyin" => json(DOUYIN.into()),
            "bilibili" => json(BILIBILI.into()),
            "kuaishou" => html(kuaishou_page()),
            "zhihu" => json(archive("zhihu/hot-question-2024-06-10.json")),
            "toutiao" => json(TOUTIAO.into()),
            "baidu" => html(baidu_page()),
            _ => StatusCode::NOT_FOUND.into_response(),
        };
        match path.split('/').collect::<Vec<_>>().as_slice() {
            ["status", code] => StatusCode::from_u16(code.parse().unwrap()).unwrap().into_response(),
            ["bad-json"] => json(r#"{"data":{"word_list":[{"word":"cut off"#.into()),
            ["slow"] => {
                tokio::time::sleep(Duration::from_secs(5)).await;
                json(DOUYIN.into())
            }
            ["flaky", source] if count == 1 => StatusCode::SERVICE_UNAVAILABLE.into_response(),
            ["flaky", source] => reply(source),
            ["douyin-needs-cookie"] => {
                let cookie = headers.get("cookie").and_then(|v| v.to_str().ok());
                let referer = headers.get("referer").and_then(|v| v.to_str().ok());
                let agent = headers.get("user-agent").and_then(|v| v.to_str().ok());
                match (cookie, referer, agent) {
                    (Some("passport_csrf_token=abc"), Some("https://www.douyin.com/"), Some(a))
                        if a.contains("Mozilla") =>
                    {
                        reply("douyin")
                    }
                    _ => StatusCode::FORBIDDEN.into_response(),
                }
            }
            [source] => reply(source),
            _ => StatusCode::NOT_FOUND.into_response(),
        }
    }
    let app = axum::Router::new().route("/{*path}", axum::routing::get(answer)).with_state(hits.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, hits)
}

/// Settings pointing every source at `base/<path>`; quick timeouts and
/// backoff so failures show in a test.
fn settings(base: &str, paths: &[(Source, &str)]) -> HotlistSettings {
    let mut s = HotlistSettings {
        jitter_secs: 0,
        connect_timeout_secs: 1,
        timeout_secs: 1,
        retries: 2,
        retry_backoff_ms: 10,
        ..HotlistSettings::default()
    };
    for source in Source::ALL {
        let path = paths.iter().find(|(s, _)| *s == source).map_or(source.name(), |(_, p)| *p);
        s.source_mut(source).base_url = Some(format!("{base}/{path}"));
    }
    s
}

async fn entries(store: &dyn ContentStore, source: Source) -> Vec<HotListEntry> {
    store.hot_list_entries(&HotListQuery { sources: vec![source.name().into()], ..Default::default() }).await.unwrap()
}

fn state(states: &[CollectorState], source: Source) -> &CollectorState {
    states.iter().find(|s| s.source == source.name()).unwrap()
}

#[tokio::test]
async fn every_source_writes_its_snapshot_at_the_clocks_time() {
    let (base, _) = fake_server().await;
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn ContentStore> = Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap());
    let at = Utc.with_ymd_and_hms(2024, 6, 10, 4, 0, 0).unwrap();
    let collectors = Collectors::new(settings(&base, &[]), store.clone(), Clock::Fixed(at)).unwrap();
    let states = collectors.run_sources_once(&Source::ALL).await;

    let written: Vec<(&str, u64, u64)> =
        states.iter().map(|s| (s.source.as_str(), s.items_last_written, s.items_last_skipped)).collect();
    assert_eq!(
        written,
        [
            ("weibo", 5, 0),
            ("douyin", 2, 1),
            ("bilibili", 2, 0),
            ("kuaishou", 3, 0),
            ("zhihu", 50, 0),
            ("toutiao", 3, 0),
            ("baidu", 51, 0),
        ]
    );
    for s in &states {
        assert_eq!((s.runs, s.failures, s.last_attempts), (1, 0, 1), "{s:?}");
        assert_eq!(s.last_success_at.as_deref(), Some("2024-06-10T04:00:00Z"));
        assert_eq!(s.last_error, None);
    }
    assert!(state(&states, Source::Douyin).last_skipped_reasons[0].contains("item 3: no title (word)"));
    for source in Source::ALL {
        let stored = entries(store.as_ref(), source).await;
        assert_eq!(stored.len() as u64, state(&states, source).items_last_written, "{source}");
        assert!(stored.iter().all(|e| e.captured_at == at && e.source == source.name()));
    }

    let weibo = entries(store.as_ref(), Source::Weibo).await;
    let got: Vec<(i64, &str, Option<i64>)> = weibo.iter().map(|e| (e.rank, e.title.as_str(), e.hot_value)).collect();
    assert_eq!(
        got,
        [
            (1, "为什么床上总是有沙子", Some(1_428_835)),
            (2, "哪个臭小子被刘亦菲喜欢过", Some(876_140)),
            (3, "赛龙舟为什么能火出圈", Some(836_341)),
            (4, "某品牌夏日新品", Some(0)),
            (5, "#立足中国大地讲好中华文明故事#", None),
        ]
    );
    assert_eq!(
        weibo[0].url.as_deref(),
        Some(
            "https://s.weibo.com/weibo?q=%E4%B8%BA%E4%BB%80%E4%B9%88%E5%BA%8A%E4%B8%8A%E6%80%BB%E6%98%AF%E6%9C%89%E6%B2%99%E5%AD%90"
        )
    );
    assert_eq!(weibo[3].extra.as_ref().unwrap()["ad"], true);
    assert_eq!(weibo[4].extra.as_ref().unwrap()["pinned"], true);

    let kuaishou = entries(store.as_ref(), Source::Kuaishou).await;
    assert_eq!((kuaishou[0].rank, kuaishou[0].title.as_str(), kuaishou[0].hot_value), (1, "高考加油", Some(9_876_000)));
    assert_eq!(kuaishou[2].url.as_deref(), Some("https://www.kuaishou.com/short-video/3xzjuxmeib3i6bs"));
    assert_eq!(kuaishou[2].extra.as_ref().unwrap()["pinned"], true);

    let zhihu = entries(store.as_ref(), Source::Zhihu).await;
    assert_eq!(
        (zhihu[0].hot_value, zhihu[0].url.as_deref()),
        (Some(9_240_000), Some("https://www.zhihu.com/question/658537407"))
    );
    let baidu = entries(store.as_ref(), Source::Baidu).await;
    assert_eq!(baidu.iter().filter(|e| e.extra.as_ref().is_some_and(|x| x.get("pinned").is_some())).count(), 1);
    let bilibili = entries(store.as_ref(), Source::Bilibili).await;
    assert_eq!(bilibili[0].extra.as_ref().unwrap()["owner"], "某UP主");
    let toutiao = entries(store.as_ref(), Source::Toutiao).await;
    assert_eq!(toutiao[0].url.as_deref(), Some("https://www.toutiao.com/trending/7110213463787929615/"));

    // The same moment again rewrites the same rows; a later one adds a capture.
    collectors.run_sources_once(&Source::ALL).await;
    assert_eq!(store.counts().await.unwrap().hot_list_entries, 116);
    let later =
        Collectors::new(settings(&base, &[]), store.clone(), Clock::Fixed(at + chrono::Duration::minutes(10))).unwrap();
    later.run_sources_once(&[Source::Zhihu]).await;
    assert_eq!(entries(store.as_ref(), Source::Zhihu).await.len(), 100);
    assert_eq!(collectors.states().iter().map(|s| s.runs).sum::<u64>(), 14);
    assert_eq!(state(&collectors.states(), Source::Zhihu).items_written_total, 100);
}

#[tokio::test]
async fn broken_sources_fail_alone_after_bounded_retries() {
    let (base, hits) = fake_server().await;
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn ContentStore> = Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap());
    let paths = [
        (Source::Weibo, "status/500"),
        (Source::Douyin, "bad-json"),
        (Source::Bilibili, "slow"),
        (Source::Kuaishou, "flaky/kuaishou"),
        (Source::Toutiao, "status/404"),
    ];
    let collectors = Collectors::new(settings(&base, &paths), store.clone(), Clock::System).unwrap();
    let started = std::time::Instant::now();
    let states = collectors.run_sources_once(&Source::ALL).await;
    assert!(started.elapsed() < Duration::from_secs(8), "sources run side by side: {:?}", started.elapsed());

    let weibo = state(&states, Source::Weibo);
    assert_eq!((weibo.failures, weibo.consecutive_failures, weibo.last_attempts), (1, 1, 3), "500 is retried twice");
    assert_eq!(weibo.last_error.as_deref(), Some("HTTP 500"));
    assert!(weibo.last_success_at.is_none() && weibo.last_error_at.is_some());
    let douyin = state(&states, Source::Douyin);
    assert_eq!((douyin.failures, douyin.last_attempts), (1, 1), "a bad reply is not retried");
    assert!(douyin.last_error.as_deref().unwrap().starts_with("not JSON"), "{douyin:?}");
    let bilibili = state(&states, Source::Bilibili);
    assert_eq!((bilibili.failures, bilibili.last_attempts), (1, 3));
    assert!(bilibili.last_error.as_deref().unwrap().contains("timed out"), "{bilibili:?}");
    let toutiao = state(&states, Source::Toutiao);
    assert_eq!((toutiao.failures, toutiao.last_attempts, toutiao.last_error.as_deref()), (1, 1, Some("HTTP 404")));
    let kuaishou = state(&states, Source::Kuaishou);
    assert_eq!((kuaishou.failures, kuaishou.last_attempts, kuaishou.items_last_written), (0, 2, 3), "503 then a reply");

    let hits = hits.lock().unwrap().clone();
    assert_eq!((hits["status/500"], hits["bad-json"], hits["slow"], hits["flaky/kuaishou"]), (3, 1, 3, 2));

    for (source, want) in [
        (Source::Weibo, 0),
        (Source::Douyin, 0),
        (Source::Bilibili, 0),
        (Source::Toutiao, 0),
        (Source::Kuaishou, 3),
        (Source::Zhihu, 50),
        (Source::Baidu, 51),
    ] {
        assert_eq!(entries(store.as_ref(), source).await.len(), want, "{source}");
    }
}

#[tokio::test]
async fn configured_headers_and_cookie_are_sent() {
    let (base, hits) = fake_server().await;
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn ContentStore> = Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap());
    let mut s = settings(&base, &[(Source::Douyin, "douyin-needs-cookie")]);
    let without = Collectors::new(s.clone(), store.clone(), Clock::System).unwrap();
    let refused = without.run_once(Source::Douyin).await;
    assert_eq!(refused.last_error.as_deref(), Some("HTTP 403"));
    s.douyin.cookie = Some("passport_csrf_token=abc".into());
    s.douyin.headers.insert("referer".into(), "https://www.douyin.com/".into());
    let with = Collectors::new(s, store.clone(), Clock::System).unwrap();
    let ok = with.run_once(Source::Douyin).await;
    assert_eq!((ok.items_last_written, ok.last_error.as_deref()), (2, None), "{ok:?}");
    assert_eq!(hits.lock().unwrap()["douyin-needs-cookie"], 2);
}

#[tokio::test]
async fn the_core_schedules_enabled_sources_and_admins_see_their_state() {
    use mediaops_platform::billing::embedded::EmbeddedLedger;
    use mediaops_proto::mediaops::admin::v1::ListCollectorsRequest;
    use mediaops_proto::mediaops::admin::v1::admin_service_client::AdminServiceClient;

    const ADMIN_TOKEN: &str = "admin-token-for-collector-tests";
    let (base, _) = fake_server().await;
    let dir = tempfile::tempdir().unwrap();
    let mut hotlists = settings(&base, &[(Source::Weibo, "status/502")]);
    hotlists.enabled = true;
    hotlists.retries = 0;
    hotlists.baidu.enabled = false;
    let settings = core_service::CoreSettings {
        data_dir: dir.path().to_path_buf(),
        admin_token: Some(ADMIN_TOKEN.into()),
        hotlists,
        ..core_service::CoreSettings::default()
    };
    let ledger = Arc::new(EmbeddedLedger::open(dir.path()).unwrap());
    let core = core_service::Core::open_with_ledger(&settings, ledger, |_| Ok(())).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(core.serve(listener, async {
        let _ = stopped.await;
    }));

    // The scheduler writes to the core's own store (SQLite in the data dir).
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let mut counts = Vec::new();
        for source in [Source::Douyin, Source::Bilibili, Source::Kuaishou, Source::Zhihu, Source::Toutiao] {
            counts.push(entries(&store, source).await.len());
        }
        if counts == [2, 2, 3, 50, 3] {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the scheduler wrote {counts:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
    let mut admin = AdminServiceClient::new(channel);
    let reply = loop {
        let mut request = tonic::Request::new(ListCollectorsRequest {});
        request.metadata_mut().insert("authorization", format!("Bearer {ADMIN_TOKEN}").parse().unwrap());
        let reply = admin.list_collectors(request).await.unwrap().into_inner();
        let ran: i64 = reply.collectors.iter().map(|c| c.runs).sum();
        if ran == 6 {
            break reply;
        }
        assert!(std::time::Instant::now() < deadline, "{reply:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(reply.scheduler_running);
    let by_source: HashMap<&str, _> = reply.collectors.iter().map(|c| (c.source.as_str(), c)).collect();
    assert_eq!(by_source.len(), 7);
    let zhihu = by_source["zhihu"];
    assert_eq!(
        (zhihu.display_name.as_str(), zhihu.kind.as_str(), zhihu.runs, zhihu.items_last_written),
        ("知乎热榜", "qa", 1, 50)
    );
    assert!(!zhihu.last_success_at.is_empty() && zhihu.last_error.is_empty());
    let weibo = by_source["weibo"];
    assert_eq!((weibo.failures, weibo.last_error.as_str()), (1, "HTTP 502"));
    let baidu = by_source["baidu"];
    assert_eq!((baidu.enabled, baidu.runs), (false, 0), "a disabled source never runs");
    assert!(entries(&store, Source::Baidu).await.is_empty() && entries(&store, Source::Weibo).await.is_empty());

    // Without the admin token the view is refused.
    let mut anonymous = admin.clone();
    let refused = anonymous.list_collectors(ListCollectorsRequest {}).await.unwrap_err();
    assert!(matches!(refused.code(), tonic::Code::Unauthenticated | tonic::Code::PermissionDenied), "{refused:?}");

    // The same state as Prometheus metrics, over HTTP/1.1 on the gRPC port,
    // and the admin call above counted per operation.
    let scrape = reqwest::get(format!("http://{addr}/metrics")).await.unwrap();
    assert_eq!(scrape.status(), 200);
    assert!(scrape.headers()["content-type"].to_str().unwrap().starts_with("application/openmetrics-text"));
    let text = scrape.text().await.unwrap();
    for line in [
        r#"mediaops_hotlist_collector_runs_total{source="zhihu"} 1"#,
        r#"mediaops_hotlist_collector_items_written_total{source="zhihu"} 50"#,
        r#"mediaops_hotlist_collector_last_items{source="kuaishou"} 3"#,
        r#"mediaops_hotlist_collector_failures_total{source="weibo"} 1"#,
        r#"mediaops_hotlist_collector_consecutive_failures{source="weibo"} 1"#,
        r#"mediaops_hotlist_collector_enabled{source="baidu"} 0"#,
        r#"mediaops_hotlist_collector_runs_total{source="baidu"} 0"#,
        r#"mediaops_operation_calls_total{operation="admin.collectors.list",code="ok"} "#,
        r#"mediaops_operation_calls_total{operation="admin.collectors.list",code="unauthenticated"} 1"#,
    ] {
        assert!(text.contains(line), "{line} missing from\n{text}");
    }
    let success_at = chrono::DateTime::parse_from_rfc3339(&zhihu.last_success_at).unwrap().timestamp();
    assert!(text.contains(&format!(
        r#"mediaops_hotlist_collector_last_success_timestamp_seconds{{source="zhihu"}} {success_at}"#
    )));
    assert!(!text.contains(r#"mediaops_hotlist_collector_last_success_timestamp_seconds{source="weibo"}"#));

    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
