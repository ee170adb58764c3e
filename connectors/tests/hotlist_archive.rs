//! `import hotlists`: the whole real archive (`shared/data/hotlists/`) into
//! both stores (SQLite in a temp file; PostgreSQL in a schema of its own),
//! every record an entry, dated and ranked as docs/hotlists.md says, and a
//! re-import that changes nothing.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use mediaops_connectors::hotlists::archive::import_archive;
use mediaops_store::ContentStore;
use mediaops_store::model::{HotListEntry, HotListQuery};
use mediaops_store::sqlite::SqliteStore;

fn hotlists() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/hotlists")
}

/// Records per source in the shared data README's tables (Baidu: 1,050
/// ranked + 21 pinned).
const README_RECORDS: [(&str, usize); 7] = [
    ("baidu", 1_071),
    ("bilibili", 2_713),
    ("douyin", 3_876),
    ("kuaishou", 7_307),
    ("toutiao", 5_031),
    ("weibo", 5_360),
    ("zhihu", 1_050),
];

async fn all_entries(store: &dyn ContentStore, source: &str) -> Vec<HotListEntry> {
    store.hot_list_entries(&HotListQuery { sources: vec![source.into()], ..Default::default() }).await.unwrap()
}

/// Imports the archive and checks it; then re-imports `again` (the whole
/// archive, or a part where a full second pass is slow) and checks nothing
/// changed.
async fn check(store: &dyn ContentStore, again: &Path) {
    let total: usize = README_RECORDS.iter().map(|(_, n)| n).sum();
    let mut rows = 0;
    let report = import_archive(store, &hotlists(), &mut || rows += 1).await;
    assert_eq!(report.files, 229, "103 weibo + 21 × 6 other files");
    assert!(report.rejected.is_empty(), "{:?}", &report.rejected[..report.rejected.len().min(5)]);
    assert_eq!((report.read, report.written, rows), (total as u64, total as u64, total));
    assert_eq!(store.counts().await.unwrap().hot_list_entries, total as u64);

    let mut per_source = BTreeMap::new();
    for (source, want) in README_RECORDS {
        let entries = all_entries(store, source).await;
        assert_eq!(entries.len(), want, "{source}");
        per_source.insert(source, entries);
    }

    // Weibo: the hour's crawl, ranked by band_rank, pinned and ads after.
    let noon = Utc.with_ymd_and_hms(2024, 6, 10, 4, 0, 0).unwrap();
    let hour: Vec<&HotListEntry> = per_source["weibo"].iter().filter(|e| e.captured_at == noon).collect();
    assert_eq!(hour.len(), 51);
    assert_eq!((hour[0].rank, hour[0].title.as_str(), hour[0].hot_value), (1, "为什么床上总是有沙子", Some(1_428_835)));
    let extra = hour[0].extra.as_ref().unwrap();
    assert_eq!((extra["readCount"].as_i64(), extra["category"].as_str()), (Some(8_569_000), Some("暂无")));
    let last = hour.last().unwrap();
    assert_eq!((last.rank, last.title.as_str(), last.hot_value), (51, "立足中国大地讲好中华文明故事", None));
    assert_eq!(last.extra.as_ref().unwrap()["pinned"], true);
    let weibo_hours: std::collections::BTreeSet<_> = per_source["weibo"].iter().map(|e| e.captured_at).collect();
    assert_eq!(weibo_hours.len(), 103, "one capture per file");

    // Zhihu and Baidu: one capture per day at the reply's own time.
    let zhihu_day: Vec<&HotListEntry> = per_source["zhihu"]
        .iter()
        .filter(|e| e.captured_at == Utc.with_ymd_and_hms(2024, 6, 10, 15, 10, 3).unwrap())
        .collect();
    assert_eq!(zhihu_day.len(), 50);
    assert_eq!((zhihu_day[0].rank, zhihu_day[0].hot_value), (1, Some(9_240_000)));
    let baidu_top = per_source["baidu"]
        .iter()
        .find(|e| e.captured_at == Utc.with_ymd_and_hms(2024, 6, 1, 15, 13, 0).unwrap() && e.rank == 51)
        .unwrap();
    assert_eq!(baidu_top.title, "总书记心中最温柔的牵挂");

    // Daily unions: one capture at 23:59:59, rank = position in the file.
    let day_end = Utc.with_ymd_and_hms(2024, 6, 1, 15, 59, 59).unwrap();
    let bili = per_source["bilibili"].iter().find(|e| e.captured_at == day_end && e.rank == 1).unwrap();
    assert_eq!(bili.title, "《坦克模拟器2》");
    assert_eq!(bili.url.as_deref(), Some("https://www.bilibili.com/video/BV1Qw4m1U7q3"));
    assert_eq!(bili.extra.as_ref().unwrap()["dailyUnion"], true);
    let douyin = per_source["douyin"].iter().find(|e| e.captured_at == day_end && e.rank == 1).unwrap();
    assert_eq!(
        (douyin.title.as_str(), douyin.url.as_deref()),
        ("张志磊vs维尔德", Some("https://www.douyin.com/hot/1710724"))
    );
    let kuaishou_days: std::collections::BTreeSet<_> = per_source["kuaishou"].iter().map(|e| e.captured_at).collect();
    assert_eq!(kuaishou_days.len(), 21);

    // Toutiao: the first item of 2022-06-19 at its first sighting (its Url
    // says `rank=18` and `hot_board_impr_id` 20220619173536…).
    let seen = Utc.with_ymd_and_hms(2022, 6, 19, 9, 35, 36).unwrap();
    let fujian = per_source["toutiao"].iter().find(|e| e.title == "评论员详解福建舰多久能形成战斗力").unwrap();
    assert_eq!((fujian.captured_at, fujian.rank), (seen, 18));
    assert_eq!(fujian.url.as_deref(), Some("https://www.toutiao.com/trending/7110213463787929615/"));
    let unranked =
        per_source["toutiao"].iter().filter(|e| e.extra.as_ref().is_some_and(|x| x.get("unranked").is_some())).count();
    assert_eq!(unranked, 50, "the live-room links carry no rank");

    // Latest batch per source, as the trend operations ask for it.
    let latest = store.hot_list_entries(&HotListQuery { latest_only: true, ..Default::default() }).await.unwrap();
    let latest_weibo: Vec<_> = latest.iter().filter(|e| e.source == "weibo").collect();
    assert_eq!(latest_weibo[0].captured_at, Utc.with_ymd_and_hms(2024, 6, 21, 15, 0, 0).unwrap(), "23:00 on 06-21");

    // Importing again rewrites the same rows.
    let before = all_entries(store, "weibo").await;
    let again = import_archive(store, again, &mut || {}).await;
    assert!(again.written > 0 && again.rejected.is_empty(), "{again:?}");
    assert_eq!(store.counts().await.unwrap().hot_list_entries, total as u64);
    assert_eq!(all_entries(store, "weibo").await, before);
}

#[tokio::test]
async fn the_archive_imports_into_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    check(&store, &hotlists()).await;
}

#[tokio::test]
async fn the_archive_imports_into_postgres() {
    // One savepoint per row makes a second full pass slow here: re-import
    // the layout with the most ranking rules (Weibo hours).
    support::with_postgres("hotlists_test", async |store| check(store, &hotlists().join("weibo")).await).await;
}

#[tokio::test]
async fn unreadable_files_and_untitled_records_are_rejected_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("douyin")).unwrap();
    std::fs::create_dir_all(root.join("misc")).unwrap();
    std::fs::create_dir_all(root.join("weibo/2024-06-01")).unwrap();
    std::fs::write(
        root.join("douyin/2024-06-01.json"),
        r#"[{"url":"https://www.douyin.com/hot/1","title":"a"},{"url":"x"}]"#,
    )
    .unwrap();
    std::fs::write(root.join("douyin/2024-06-02.json"), "{not json").unwrap();
    std::fs::write(root.join("misc/2024-06-01.json"), "[]").unwrap();
    std::fs::write(root.join("weibo/2024-06-01/noon.json"), "[]").unwrap();
    let store = SqliteStore::open(&root.join("store.sqlite")).await.unwrap();
    let report = import_archive(&store, root, &mut || {}).await;
    assert_eq!((report.files, report.read, report.written), (4, 2, 1));
    let reasons: Vec<(String, u64, String)> = report
        .rejected
        .iter()
        .map(|r| (Path::new(&r.file).file_name().unwrap().to_string_lossy().into_owned(), r.row, r.reason.clone()))
        .collect();
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    assert_eq!((reasons[0].0.as_str(), reasons[0].1), ("2024-06-01.json", 2));
    assert!(reasons[0].2.contains("no title"), "{reasons:?}");
    assert_eq!((reasons[1].0.as_str(), reasons[1].1), ("2024-06-02.json", 0));
    assert!(reasons[1].2.contains("not JSON"), "{reasons:?}");
    assert!(reasons[2].2.contains("no source name"), "{reasons:?}");
    assert!(reasons[3].2.contains("<HH>.json"), "{reasons:?}");
    let missing = import_archive(&store, &root.join("nowhere"), &mut || {}).await;
    assert_eq!(missing.rejected.len(), 1);
    assert!(missing.rejected[0].reason.contains("cannot list"));
}
