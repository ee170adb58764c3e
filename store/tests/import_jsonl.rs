//! `jsonl` import (our own schema, docs/store.md "jsonl") of
//! `tests/fixtures/jsonl/sample.jsonl` into both stores: every record type
//! lands with its values, bad lines (unknown field, mistyped count, bad
//! time, not JSON, a snapshot of a work never stored) are rejected with
//! their line and reason while the rest is written, and a second import
//! changes no counts.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use mediaops_store::ContentStore;
use mediaops_store::import::{Format, ImportReport};
use mediaops_store::model::{Counts, HotListQuery};
use mediaops_store::sqlite::SqliteStore;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jsonl/sample.jsonl")
}

async fn import(store: &dyn ContentStore) -> ImportReport {
    let mut progress = 0;
    let report = Format::Jsonl.import_file(store, &sample(), &mut || progress += 1).await;
    assert_eq!(progress, report.read, "progress is reported once per row");
    report
}

const EXPECTED: Counts =
    Counts { accounts: 1, account_snapshots: 1, works: 2, work_snapshots: 2, comments: 2, hot_list_entries: 2 };

async fn check(store: &dyn ContentStore) {
    let first = import(store).await;
    assert_eq!((first.files, first.read, first.written), (1, 15, 10), "{:#?}", first.rejected);
    let rejected: Vec<(u64, &str)> = first.rejected.iter().map(|r| (r.row, r.reason.as_str())).collect();
    assert_eq!(rejected.len(), 5, "{rejected:?}");
    assert_eq!(rejected[0], (10, "unknown field `fans`"));
    assert_eq!(rejected[1].0, 11);
    assert!(rejected[1].1.starts_with("work snapshot: ") && rejected[1].1.contains("not found"), "{}", rejected[1].1);
    assert_eq!(rejected[2].0, 14);
    assert!(rejected[2].1.starts_with("likes: invalid type: string \"1024\""), "{}", rejected[2].1);
    assert_eq!(rejected[3].0, 15);
    assert!(rejected[3].1.starts_with("publishedAt: \"yesterday\" is not a time"), "{}", rejected[3].1);
    assert_eq!(rejected[4].0, 16);
    assert!(rejected[4].1.starts_with("not JSON"), "{}", rejected[4].1);
    assert_eq!(store.counts().await.unwrap(), EXPECTED);

    let account = store.get_account("lifestyle", "95123456").await.unwrap().unwrap();
    let a = &account.account;
    assert_eq!(a.platform_id, "5ff0e6a1000000000101d2c3", "found by redId");
    assert_eq!(
        (a.nickname.as_str(), a.region.as_deref(), a.category.as_deref()),
        ("阿离的日常", Some("上海"), Some("美食"))
    );
    assert_eq!(
        (a.fans, a.following, a.works, a.likes, a.collects),
        (Some(34_000), Some(156), Some(88), Some(125_000), Some(40_000))
    );
    let snapshot = account.latest.unwrap();
    assert_eq!(snapshot.captured_at, Utc.with_ymd_and_hms(2024, 6, 1, 0, 0, 0).unwrap(), "08:00 Shanghai");
    assert_eq!((snapshot.fans, snapshot.works, snapshot.reads), (Some(34_000), Some(88), None));

    let note = store.get_work("lifestyle", "6650a1b2000000001e0123ab").await.unwrap().unwrap();
    let w = &note.work;
    assert_eq!(w.published_at, Some(Utc.with_ymd_and_hms(2024, 5, 30, 4, 0, 0).unwrap()), "RFC 3339 with offset");
    assert_eq!(w.tags, ["上海咖啡", "探店"]);
    assert_eq!((w.work_type.as_deref(), w.category.as_deref()), (Some("note"), Some("美食")));
    assert_eq!(note.author.unwrap().nickname, "阿离的日常");
    let latest = note.latest.unwrap();
    assert_eq!(
        (latest.likes, latest.collects, latest.comments, latest.shares, latest.views),
        (Some(12_000), Some(3456), Some(892), Some(120), Some(50_000))
    );
    assert_eq!(latest.extra.unwrap()["source"], "manual");

    let video = store.get_work("videosite", "535243818").await.unwrap().unwrap();
    assert_eq!((video.work.platform_id.as_str(), video.work.duration_secs), ("BV1cM41197ui", Some(1494)));
    assert_eq!(video.work.published_at, Some(Utc.timestamp_opt(1698319490, 0).unwrap()));
    assert_eq!(video.latest.unwrap().views, Some(2_022_003));

    let comments = store.list_comments("lifestyle", "6650a1b2000000001e0123ab", 1, 20).await.unwrap();
    assert_eq!(comments.total, 2);
    assert_eq!((comments.items[0].text.as_str(), comments.items[0].likes), ("看起来好好喝", Some(25)));
    assert_eq!(comments.items[1].parent_id.as_deref(), Some("665100aa000000000301a001"));

    let entries = store
        .hot_list_entries(&HotListQuery { sources: vec!["microblog-hot".into()], ..Default::default() })
        .await
        .unwrap();
    let got: Vec<(i64, &str, Option<i64>)> = entries.iter().map(|e| (e.rank, e.title.as_str(), e.hot_value)).collect();
    assert_eq!(got, [(1, "高考", Some(9_240_000)), (2, "端午假期", Some(5_100_000))]);
    assert_eq!(entries[0].extra.as_ref().unwrap()["label"], "热");

    let second = import(store).await;
    assert_eq!((second.read, second.written, second.rejected.len()), (15, 10, 5));
    assert_eq!(store.counts().await.unwrap(), EXPECTED, "re-import updates, never duplicates");
}

#[tokio::test]
async fn sample_imports_into_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    check(&store).await;
}

#[tokio::test]
async fn sample_imports_into_postgres() {
    support::with_postgres("import_jsonl_test", async |store| check(store).await).await;
}

#[tokio::test]
async fn batches_span_many_rows_and_a_missing_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    // 1,201 works over three batches, every 400th line broken.
    let mut text = String::new();
    for i in 1..=1201 {
        if i % 400 == 0 {
            text.push_str("{\"type\": \"work\"}\n");
        } else {
            text.push_str(&format!(
                "{{\"type\":\"work\",\"platform\":\"clipapp\",\"platformId\":\"p{i}\",\"title\":\"t{i}\"}}\n"
            ));
        }
    }
    let path = dir.path().join("many.jsonl");
    std::fs::write(&path, text).unwrap();
    let report = Format::Jsonl.import_file(&store, &path, &mut || {}).await;
    assert_eq!((report.read, report.written), (1201, 1198));
    let rows: Vec<u64> = report.rejected.iter().map(|r| r.row).collect();
    assert_eq!(rows, [400, 800, 1200]);
    assert_eq!(store.counts().await.unwrap().works, 1198);

    let missing = Format::Jsonl.import_file(&store, &dir.path().join("absent.jsonl"), &mut || {}).await;
    assert_eq!((missing.files, missing.read, missing.rejected[0].row), (1, 0, 0));
    assert!(missing.rejected[0].reason.starts_with("cannot read"));
}
