//! The history operations (docs/history.md) on both content stores, SQLite
//! in a temp file and PostgreSQL in a fresh schema: an account's and a
//! work's counters and a hot-list title's rank in Asia/Shanghai day
//! buckets over a window, from snapshots written through the store API
//! with a fixed clock (the counters are this test's own, not real data).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use mediaops_ops::data_api::DataApi;
use mediaops_ops::history;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::history::v1 as pb;
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;
use mediaops_store::model::{Account, AccountIds, AccountSnapshot, HotListEntry, Record, Work, WorkIds, WorkSnapshot};
use mediaops_store::postgres::PostgresStore;
use mediaops_store::sqlite::SqliteStore;

/// Asia/Shanghai `2026-11-<day> <hour>:<minute>`.
fn at(day: u32, hour: u32, minute: u32) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(&format!("2026-11-{day:02}T{hour:02}:{minute:02}:00+08:00"))
        .unwrap()
        .with_timezone(&Utc)
}

/// "Today" is 2026-11-28 (Asia/Shanghai), noon.
fn api(store: Arc<dyn ContentStore>) -> Arc<DataApi> {
    Arc::new(DataApi { store, clock: Clock::Fixed(at(28, 12, 0)) })
}

async fn seed(store: &dyn ContentStore) {
    let account = Account {
        platform: "lifestyle".into(),
        platform_id: "u-100".into(),
        ids: AccountIds { red_id: Some("red100".into()), ..Default::default() },
        nickname: "测试账号".into(),
        ..Default::default()
    };
    let work = Work {
        platform: "articles".into(),
        platform_id: "art-1".into(),
        ids: WorkIds { work_id: Some("mp-1".into()), ..Default::default() },
        title: "一篇文章".into(),
        ..Default::default()
    };
    let mut records = vec![Record::Account(account), Record::Work(work)];
    // Days 20..=28, one day (24) without a snapshot; on day 27 two
    // snapshots, the later one counts; 00:30 of day 21 is day 21 (it is day
    // 20 in UTC).
    for day in (20..=28).filter(|d| *d != 24) {
        let n = i64::from(day);
        let minute = if day == 21 { 30 } else { 0 };
        let hour = if day == 21 { 0 } else { 9 };
        records.push(Record::AccountSnapshot {
            platform: "lifestyle".into(),
            platform_id: "u-100".into(),
            snapshot: AccountSnapshot {
                captured_at: at(day, hour, minute),
                fans: Some(1000 * n),
                likes: Some(10 * n),
                works: Some(n),
                reads: None,
            },
        });
        records.push(Record::WorkSnapshot {
            platform: "articles".into(),
            platform_id: "art-1".into(),
            snapshot: WorkSnapshot {
                captured_at: at(day, 10, 0),
                likes: Some(n),
                comments: Some(n / 2),
                shares: Some(1),
                views: Some(100 * n),
                ..Default::default()
            },
        });
    }
    records.push(Record::AccountSnapshot {
        platform: "lifestyle".into(),
        platform_id: "u-100".into(),
        snapshot: AccountSnapshot { captured_at: at(27, 22, 0), fans: Some(99_999), ..Default::default() },
    });
    let entry = |source: &str, day, hour, rank, title: &str| {
        Record::HotListEntry(HotListEntry {
            source: source.into(),
            captured_at: at(day, hour, 0),
            rank,
            title: title.into(),
            hot_value: Some(rank * 100),
            url: None,
            extra: None,
        })
    };
    records.extend([
        entry("weibo", 26, 8, 9, "某个热点"),
        entry("weibo", 26, 8, 1, "别的标题"),
        entry("weibo", 26, 20, 4, "某个热点"),
        entry("zhihu", 26, 20, 3, "某个热点"),
        entry("weibo", 27, 8, 12, "某个热点"),
        entry("weibo", 1, 8, 2, "某个热点"),
    ]);
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
}

async fn history_answers_day_buckets(store: Arc<dyn ContentStore>) {
    seed(store.as_ref()).await;
    let api = api(store);

    // Found by another id form; the window's default is 30 days.
    let request = pb::AccountHistoryRequest { platform: "lifestyle".into(), account_id: "red100".into(), days: 0 };
    let account = history::account_history(api.clone(), request).await.unwrap();
    assert_eq!((account.account_id.as_str(), account.name.as_deref()), ("u-100", Some("测试账号")));
    assert_eq!((account.from.as_str(), account.to.as_str()), ("2026-10-30", "2026-11-28"));
    let days: Vec<_> = account.points.iter().map(|p| p.day.as_str()).collect();
    assert_eq!(
        days,
        [
            "2026-11-20",
            "2026-11-21",
            "2026-11-22",
            "2026-11-23",
            "2026-11-25",
            "2026-11-26",
            "2026-11-27",
            "2026-11-28"
        ]
    );
    let day27 = &account.points[6];
    assert_eq!((day27.fans, day27.likes, day27.captured_at.as_str()), (Some(99_999), None, "2026-11-27 22:00:00"));
    assert_eq!((account.points[1].fans, account.points[1].captured_at.as_str()), (Some(21_000), "2026-11-21 00:30:00"));

    let request = pb::AccountHistoryRequest { platform: "lifestyle".into(), account_id: "u-100".into(), days: 3 };
    let three = history::account_history(api.clone(), request).await.unwrap();
    assert_eq!(three.points.iter().map(|p| p.works).collect::<Vec<_>>(), [Some(26), None, Some(28)]);

    // Articles count reads; the other counters as stored.
    let request = pb::WorkHistoryRequest { platform: "articles".into(), work_id: "mp-1".into(), days: 7 };
    let work = history::work_history(api.clone(), request).await.unwrap();
    assert_eq!((work.work_id.as_str(), work.title.as_deref(), work.points.len()), ("art-1", Some("一篇文章"), 6));
    let first = &work.points[0];
    assert_eq!(
        (first.day.as_str(), first.likes, first.comments, first.reads, first.views),
        ("2026-11-22", Some(22), Some(11), Some(2200), None)
    );

    let request = pb::HotTitleRankRequest { title: "某个热点".into(), source: String::new(), days: 7 };
    let title = history::hot_title_rank(api.clone(), request).await.unwrap();
    assert_eq!(title.sources, ["weibo", "zhihu"]);
    let ranks: Vec<_> = title
        .points
        .iter()
        .map(|p| (p.day.as_str(), p.best_rank, p.best_source.as_str(), p.last_rank, p.captures))
        .collect();
    assert_eq!(ranks, [("2026-11-26", 3, "zhihu", 3, 3), ("2026-11-27", 12, "weibo", 12, 1)]);
    assert_eq!(title.points[0].hot_value, Some(900));
    let request = pb::HotTitleRankRequest { title: "某个热点".into(), source: "weibo".into(), days: 7 };
    let weibo = history::hot_title_rank(api.clone(), request).await.unwrap();
    assert_eq!(weibo.points.iter().map(|p| (p.best_rank, p.last_rank)).collect::<Vec<_>>(), [(4, 4), (12, 12)]);

    // Bad input names its field; an unknown account is a 404.
    let bad = |days| pb::AccountHistoryRequest { platform: "lifestyle".into(), account_id: "u-100".into(), days };
    for days in [-1, 366] {
        let error = history::account_history(api.clone(), bad(days)).await.unwrap_err();
        assert_eq!((error.code, error.field.as_deref()), (ErrorCode::InvalidInput, Some("days")), "{error:?}");
    }
    let request = pb::AccountHistoryRequest { platform: "trend".into(), account_id: "u-100".into(), days: 0 };
    let error = history::account_history(api.clone(), request).await.unwrap_err();
    assert_eq!(error.field.as_deref(), Some("platform"));
    let request = pb::WorkHistoryRequest { platform: "articles".into(), work_id: " ".into(), days: 0 };
    assert_eq!(history::work_history(api.clone(), request).await.unwrap_err().field.as_deref(), Some("workId"));
    let request = pb::AccountHistoryRequest { platform: "lifestyle".into(), account_id: "nobody".into(), days: 0 };
    assert_eq!(history::account_history(api.clone(), request).await.unwrap_err().code, ErrorCode::NotFound);
}

#[tokio::test]
async fn history_answers_day_buckets_on_both_stores() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite: Arc<dyn ContentStore> = Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap());
    history_answers_day_buckets(sqlite).await;
    support::with_postgres_schema("history_test", async |options| {
        let postgres: Arc<dyn ContentStore> = Arc::new(PostgresStore::open_with(options).await.unwrap());
        history_answers_day_buckets(postgres).await;
    })
    .await;
}
