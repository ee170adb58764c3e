//! Hand-made hot lists and works in a real SQLite store, with the clock at
//! 2024-06-22 12:00 Asia/Shanghai, for the operations' unit tests.

use std::sync::Arc;

use chrono::{DateTime, NaiveDateTime, Utc};

use super::Trends;
use crate::data_api::DataApi;
use mediaops_proto::service::Answer;
use mediaops_store::ContentStore;
use mediaops_store::clock::{Clock, shanghai_to_utc};
use mediaops_store::model::{HotListEntry, Record, Work, WorkSnapshot};
use mediaops_store::sqlite::SqliteStore;

/// `YYYY-MM-DD HH:mm:ss` in Asia/Shanghai as UTC.
pub fn local(text: &str) -> DateTime<Utc> {
    let local = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").unwrap();
    shanghai_to_utc(local.date(), local.time())
}

/// An entry of `source` captured at `at` (Shanghai).
pub fn entry(source: &str, at: &str, rank: i64, title: &str, hot: Option<i64>) -> HotListEntry {
    HotListEntry {
        source: source.into(),
        captured_at: local(at),
        rank,
        title: title.into(),
        hot_value: hot,
        url: Some(format!("https://example.com/{source}/{rank}")),
        extra: None,
    }
}

/// A work of `platform` published at `published` (Shanghai) with `likes`
/// at `captured` (Shanghai).
pub fn work(platform: &str, id: &str, title: &str, published: &str, captured: &str, likes: i64) -> Vec<Record> {
    vec![
        Record::Work(Work {
            platform: platform.into(),
            platform_id: id.into(),
            title: title.into(),
            description: Some(format!("{title}，正文")),
            published_at: Some(local(published)),
            url: Some(format!("https://example.com/{platform}/{id}")),
            ..Work::default()
        }),
        Record::WorkSnapshot {
            platform: platform.into(),
            platform_id: id.into(),
            snapshot: WorkSnapshot { captured_at: local(captured), likes: Some(likes), ..WorkSnapshot::default() },
        },
    ]
}

/// The fixture: Weibo captured four times on 2024-06-10 and on 2024-06-21,
/// Douyin once a day, a 2024-05 capture outside the three weeks, and a few
/// lifestyle and articles works.
pub fn records() -> Vec<Record> {
    let mut entries = vec![
        entry("weibo", "2024-06-10 00:00:00", 1, "U19国足胜韩国夺冠", Some(2_000_000)),
        entry("weibo", "2024-06-10 00:00:00", 2, "刘亦菲新剧口碑", Some(900_000)),
        entry("weibo", "2024-06-10 06:00:00", 1, "U19国足胜韩国夺冠", Some(2_500_000)),
        entry("weibo", "2024-06-10 06:00:00", 2, "董宇辉称非常反感被叫网红", Some(800_000)),
        entry("weibo", "2024-06-10 12:00:00", 1, "董宇辉称非常反感被叫网红", Some(1_200_000)),
        entry("weibo", "2024-06-10 18:00:00", 1, "端午假期出游人次创新高", Some(700_000)),
        entry("douyin", "2024-06-10 23:00:00", 1, "国足U19战胜韩国夺冠", None),
        entry("douyin", "2024-06-10 23:00:00", 2, "高考后的小丑时刻", None),
        entry("douyin", "2024-06-10 23:00:00", 3, "刘亦菲新剧开播", None),
        entry("weibo", "2024-06-21 12:00:00", 1, "高温天气持续多地发布预警", Some(3_000_000)),
        entry("weibo", "2024-06-21 12:00:00", 2, "董宇辉新号开播", Some(1_000_000)),
        entry("douyin", "2024-06-21 23:00:00", 1, "多地高温预警持续", None),
        entry("douyin", "2024-06-21 23:00:00", 2, "毕业季拍照大赛", None),
        entry("douyin", "2024-06-21 23:00:00", 3, "董宇辉新号开播", None),
        entry("weibo", "2024-05-20 12:00:00", 1, "五月的旧热搜", Some(500_000)),
    ];
    let mut out: Vec<Record> = entries.drain(..).map(Record::HotListEntry).collect();
    out.extend(work(
        "lifestyle",
        "n1",
        "三小时五千赞的高温防晒笔记",
        "2024-06-22 09:00:00",
        "2024-06-22 12:00:00",
        5_000,
    ));
    out.extend(work(
        "lifestyle",
        "n2",
        "六天两万赞的毕业旅行攻略",
        "2024-06-16 12:00:00",
        "2024-06-22 12:00:00",
        20_000,
    ));
    out.extend(work("articles", "a1", "高温天气下的防暑指南", "2024-06-21 08:00:00", "2024-06-22 08:00:00", 2_400));
    out.extend(work("articles", "a2", "高温导致多起事故", "2024-06-20 08:00:00", "2024-06-22 08:00:00", 100));
    out
}

/// A store holding [`records`] and the trends over it (keep the directory
/// alive while testing).
pub async fn trends() -> (tempfile::TempDir, Arc<Trends>) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let outcomes = store.write(&records()).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let api = Arc::new(DataApi { store: Arc::new(store), clock: Clock::from_setting(Some("2024-06-22")).unwrap() });
    (dir, Trends::new(api))
}

/// The response of an answer, and whether it was found (not empty).
pub fn answered<T: std::fmt::Debug>(answer: Answer<T>) -> (T, bool) {
    match answer {
        Answer::Found(t) => (t, true),
        Answer::Empty(t) => (t, false),
        Answer::NotFound(m) => panic!("not found: {m}"),
    }
}
