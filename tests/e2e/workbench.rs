//! The web workbench (docs/workbench.md) in a real browser: `tests/workbench/
//! browser_test.py` drives Debian's Chromium with Playwright for Python
//! against a service holding the archived Bilibili feed. Screenshots go to
//! `target/tmp/workbench/` (kept for a look; `FAILED-*.png` for a failing
//! test).
//!
//! Needs `/usr/bin/chromium` (Debian's `chromium`) and `pip install
//! playwright`; `.ci/run` installs both and sets
//! `MEDIAOPS_TEST_REQUIRE_BROWSER=1`, which makes their absence a failure
//! (elsewhere the test says it is skipped).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;
use mediaops_connectors::test_support::fake_web;

use std::time::Duration;

use common::{KEY, Service};

/// The key with no points, for the 402 test.
const POOR_KEY: &str = "mk_test_poor_key_000000001";

fn browser_ready() -> bool {
    let chromium = std::env::var("MEDIAOPS_TEST_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    std::path::Path::new(&chromium).exists()
        && std::process::Command::new("python3")
            .args(["-c", "import playwright.sync_api"])
            .output()
            .is_ok_and(|out| out.status.success())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workbench_works_in_a_real_browser() {
    if !browser_ready() {
        assert!(
            std::env::var_os("MEDIAOPS_TEST_REQUIRE_BROWSER").is_none(),
            "/usr/bin/chromium or python3's playwright is missing (apt-get install chromium; pip install playwright)"
        );
        eprintln!("skipped: needs /usr/bin/chromium and `pip install playwright`");
        return;
    }
    // A CJK font, or the screenshots show boxes where the Chinese text is.
    let fonts = std::process::Command::new("fc-list").args([":lang=zh", "family"]).output();
    let cjk = fonts.map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned()).unwrap_or_default();
    assert!(
        !cjk.is_empty(),
        "no CJK font (apt-get install fonts-wqy-microhei or fonts-noto-cjk; .ci/run installs one)"
    );
    println!("CJK fonts: {}", cjk.lines().next().unwrap_or_default());
    let dir = tempfile::tempdir().unwrap();
    common::import_bilibili_feed(dir.path(), &["2023-10-26", "2023-10-27"]).await;
    common::add_key_with_points(dir.path(), POOR_KEY, "poor", 0).await;
    // A slow fake web search, so `ai-web-search` first answers `running`
    // and the page polls its task.
    let (searxng, chat) = (fake_web::searxng().await, fake_web::chat().await);
    chat.set(fake_web::ChatMode::Answer { delay: Duration::from_secs(5) });
    // One operation answered by a vendor file as well, for the 数据来源 line
    // (the vendor is never called: the store answers first).
    let vendor = dir.path().join("fakevendor.toml");
    std::fs::write(
        &vendor,
        "name = \"fakevendor\"\nbase_url = \"http://127.0.0.1:9\"\nauth = { kind = \"none\" }\n\
         [operations.\"clipapp.user-works\"]\npath = \"/user/{kwaiId}\"\nresponse = '{items: []}'\n",
    )
    .unwrap();
    let service = Service::start_with(dir, |core| {
        core.vendors.files = vec![vendor];
        core.vendors.sources = [("clipapp.user-works".to_owned(), "store,upstream:fakevendor".to_owned())].into();
        core.web_search.wait_secs = 1;
        core.web_search.chat_api_key = Some(fake_web::CHAT_KEY.into());
        core.web_search.searxng_url = Some(searxng.url.clone());
        core.web_search.chat_url = Some(chat.url.clone());
    })
    .await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let markdown = root.join("../shared/data/markdown/01-doocs-md-sample.md");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("workbench");
    let args =
        [service.base.clone().into(), KEY.into(), POOR_KEY.into(), markdown.into_os_string(), out.clone().into()];
    run_browser_script("browser_test.py", &out, args).await;
}

/// Runs `tests/workbench/<script>` with `args` (its output directory `out`
/// emptied first) and asserts that every one of its tests passed.
async fn run_browser_script<const N: usize>(script: &str, out: &std::path::Path, args: [std::ffi::OsString; N]) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/workbench").join(script);
    let _ = std::fs::remove_dir_all(out);
    let run = move || std::process::Command::new("python3").arg(&script).args(args).output();
    let output = tokio::task::spawn_blocking(run).await.unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

/// The account whose growth the screenshot shows: a sample account of this
/// test (not a real one), its counters written through the store API.
const SAMPLE_ACCOUNT: &str = "sample-growth";

/// Eight days of a sample account and three days of a sample hot-list
/// title, ending 2023-10-28 (Asia/Shanghai), beside the real Bilibili
/// feed of 2023-10-26 and 2023-10-27. The counters are made up for the
/// test (and the screenshot); they say so in the account's name.
async fn write_sample_history(data_dir: &std::path::Path) {
    use mediaops_store::ContentStore;
    use mediaops_store::model::{Account, AccountSnapshot, HotListEntry, Record};
    let store = mediaops_store::sqlite::SqliteStore::open(&data_dir.join("store.sqlite")).await.unwrap();
    let at = |day: u32, hour: u32| {
        chrono::DateTime::parse_from_rfc3339(&format!("2023-10-{day:02}T{hour:02}:00:00+08:00"))
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    let mut records = vec![Record::Account(Account {
        platform: "lifestyle".into(),
        platform_id: SAMPLE_ACCOUNT.into(),
        nickname: "示例账号（测试数据）".into(),
        ..Default::default()
    })];
    // Fans grow faster after a hit on day 24; likes follow; works step up.
    let fans = [12_400, 12_950, 13_300, 18_900, 24_600, 27_100, 28_800, 30_200];
    for (i, fans) in fans.into_iter().enumerate() {
        let day = 21 + i as u32;
        records.push(Record::AccountSnapshot {
            platform: "lifestyle".into(),
            platform_id: SAMPLE_ACCOUNT.into(),
            snapshot: AccountSnapshot {
                captured_at: at(day, 21),
                fans: Some(fans),
                likes: Some(fans * 7 + 3_000 * i as i64),
                works: Some(40 + i as i64 / 2),
                reads: None,
            },
        });
    }
    for (day, rank) in [(26, 14), (27, 3), (28, 8)] {
        records.push(Record::HotListEntry(HotListEntry {
            source: "weibo".into(),
            captured_at: at(day, 20),
            rank,
            title: "示例热点（测试数据）".into(),
            hot_value: Some(1_000_000 / rank),
            url: None,
            extra: None,
        }));
    }
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_charts_work_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    common::import_bilibili_feed(dir.path(), &["2023-10-26", "2023-10-27"]).await;
    write_sample_history(dir.path()).await;
    // Today is 2023-10-28 (MEDIAOPS_NOW), so the default 30 days hold both.
    let service = Service::start_with(dir, |core| core.now = Some("2023-10-28".into())).await;

    // Over REST first: points by day, 400 naming the field, and free.
    let balance = async || service.get("/api/account/balance").await.1["data"]["points"].clone();
    let before = balance().await;
    let call =
        async |slug: &str, body: serde_json::Value| service.post(&format!("/api/apis/history/{slug}/call"), body).await;
    let (status, body) =
        call("account-history", serde_json::json!({"platform": "videosite", "accountId": "927587"})).await;
    assert_eq!(status, 200, "{body}");
    let fans: Vec<_> =
        body["data"]["points"].as_array().unwrap().iter().map(|p| (p["day"].clone(), p["fans"].clone())).collect();
    assert_eq!(fans, [("2023-10-26".into(), 11_386_533.into()), ("2023-10-27".into(), 11_482_842.into())], "{body}");
    let (status, body) =
        call("work-history", serde_json::json!({"platform": "videosite", "workId": "BV1cM41197ui", "days": 7})).await;
    assert_eq!(status, 200, "{body}");
    let likes: Vec<_> = body["data"]["points"].as_array().unwrap().iter().map(|p| p["likes"].clone()).collect();
    assert_eq!(likes, [105_019, 377_747], "{body}");
    let (status, body) = call("hot-title-rank", serde_json::json!({"title": "示例热点（测试数据）", "days": 2})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["points"].as_array().unwrap().len(), 2, "{body}");
    let (status, body) =
        call("account-history", serde_json::json!({"platform": "videosite", "accountId": "927587", "days": 400})).await;
    assert_eq!((status, &body["error"]["field"]), (400, &serde_json::json!("days")), "{body}");
    assert_eq!(balance().await, before, "the history operations are free");

    if !browser_ready() {
        assert!(
            std::env::var_os("MEDIAOPS_TEST_REQUIRE_BROWSER").is_none(),
            "/usr/bin/chromium or playwright is missing"
        );
        eprintln!("skipped the browser part: needs /usr/bin/chromium and `pip install playwright`");
        return;
    }
    let shot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/images/workbench-account-chart.png");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("workbench-charts");
    let args = [service.base.clone().into(), KEY.into(), SAMPLE_ACCOUNT.into(), out.clone().into(), shot.into()];
    run_browser_script("charts_test.py", &out, args).await;
}
