//! `bilibili-popular` import of the real archived feed
//! (`../shared/data/works/bilibili/`, two days, 582 + 581 videos) into both
//! stores: counts, one known work's fields, and no duplicates on re-import.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use mediaops_store::ContentStore;
use mediaops_store::import::bilibili_popular;
use mediaops_store::model::Counts;
use mediaops_store::sqlite::SqliteStore;

fn day_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/works/bilibili");
    ["2023-10-26", "2023-10-27"].iter().map(|d| root.join(d).join("list.json")).collect()
}

async fn import_all(store: &dyn ContentStore) -> mediaops_store::import::ImportReport {
    let mut report = mediaops_store::import::ImportReport::default();
    let mut rows = 0;
    for file in day_files() {
        report.merge(bilibili_popular::import_file(store, &file, &mut || rows += 1).await);
    }
    assert_eq!(rows, report.read, "progress is reported once per row");
    report
}

/// Figures from the data README: 1,163 videos over two days, 293 on both
/// (870 distinct), 540 + 546 uploaders per day (784 distinct).
const EXPECTED: Counts = Counts {
    accounts: 784,
    account_snapshots: 540 + 546,
    works: 870,
    work_snapshots: 1163,
    comments: 0,
    hot_list_entries: 0,
};

async fn check(store: &dyn ContentStore) {
    let first = import_all(store).await;
    assert_eq!((first.files, first.read, first.written), (2, 1163, 1163), "{:?}", first.rejected);
    assert!(first.rejected.is_empty());
    assert_eq!(store.counts().await.unwrap(), EXPECTED);

    let got = store.get_work("videosite", "BV1cM41197ui").await.unwrap().unwrap();
    let w = &got.work;
    assert_eq!(w.title, "《史记》原文全解读！二十四史之首，竟然如此好看？【故事】01");
    assert_eq!(w.ids.work_id.as_deref(), Some("535243818"));
    assert_eq!(w.author_id.as_deref(), Some("927587"));
    assert_eq!(w.category.as_deref(), Some("影视杂谈"));
    assert_eq!(w.duration_secs, Some(1494));
    assert_eq!(w.published_at, Some(Utc.timestamp_opt(1698319490, 0).unwrap()));
    assert_eq!(w.url.as_deref(), Some("https://www.bilibili.com/video/BV1cM41197ui"));
    let latest = got.latest.unwrap();
    assert_eq!(latest.captured_at, Utc.with_ymd_and_hms(2023, 10, 26, 16, 0, 0).unwrap(), "2023-10-27 Shanghai");
    assert_eq!((latest.likes, latest.views, latest.collects), (Some(377747), Some(2022003), Some(164333)));
    assert_eq!((latest.comments, latest.shares), (Some(7177), Some(23396)));
    assert_eq!(latest.extra.unwrap()["coin"], 431922);
    assert_eq!(store.get_work("videosite", "535243818").await.unwrap().unwrap().work.platform_id, "BV1cM41197ui");

    let author = store.get_account("videosite", "927587").await.unwrap().unwrap();
    assert_eq!(author.account.nickname, "木鱼水心");
    assert_eq!(author.latest.unwrap().fans, Some(11482842));

    let hits = store.search_works("videosite", "史记", 1, 20).await.unwrap();
    assert!(hits.items.iter().any(|r| r.work.platform_id == "BV1cM41197ui"));

    let second = import_all(store).await;
    assert_eq!((second.read, second.written), (1163, 1163));
    assert_eq!(store.counts().await.unwrap(), EXPECTED, "re-import updates, never duplicates");
}

#[tokio::test]
async fn real_feed_imports_into_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    check(&store).await;
}

#[tokio::test]
async fn real_feed_imports_into_postgres() {
    support::with_postgres("import_test", async |store| check(store).await).await;
}

#[tokio::test]
async fn a_bad_row_is_rejected_and_the_rest_of_the_file_imported() {
    let dir = tempfile::tempdir().unwrap();
    let day = dir.path().join("2023-10-28");
    std::fs::create_dir_all(&day).unwrap();
    let file = day.join("list.json");
    let rows = serde_json::json!({"number": 3, "list": [
        {"bvid": "BVgood1", "title": "好", "owner": {"mid": 1, "name": "甲"}, "stat": {"like": 1}},
        {"bvid": "BVbad", "title": "坏", "owner": {"mid": "not a number"}, "stat": {}},
        {"bvid": "BVgood2", "title": "也好", "owner": {"mid": 2}, "stat": {"like": 2}},
    ]});
    std::fs::write(&file, rows.to_string()).unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let report = bilibili_popular::import_file(&store, &file, &mut || {}).await;
    assert_eq!((report.read, report.written), (3, 2));
    assert_eq!(report.rejected.len(), 1);
    assert_eq!(report.rejected[0].row, 2);
    assert!(report.rejected[0].reason.contains("mid"), "{}", report.rejected[0].reason);
    assert_eq!(store.counts().await.unwrap().works, 2);

    std::fs::write(day.join("broken.json"), "{not json").unwrap();
    let report = bilibili_popular::import_file(&store, &day.join("broken.json"), &mut || {}).await;
    assert_eq!((report.read, report.rejected.len(), report.rejected[0].row), (0, 1, 0));
}
