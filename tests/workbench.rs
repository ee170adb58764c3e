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

mod common;
#[path = "../core-service/tests/support/fake_web.rs"]
mod fake_web;

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
    let script = root.join("tests/workbench/browser_test.py");
    let markdown = root.join("../shared/data/markdown/01-doocs-md-sample.md");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("workbench");
    let _ = std::fs::remove_dir_all(&out);
    let base = service.base.clone();
    let run = move || {
        std::process::Command::new("python3")
            .arg(&script)
            .args([base.as_str(), KEY, POOR_KEY])
            .arg(&markdown)
            .arg(&out)
            .output()
    };
    let output = tokio::task::spawn_blocking(run).await.unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
