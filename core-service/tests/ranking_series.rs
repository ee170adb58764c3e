//! The store queries the rankings read (docs/rankings.md "Store"):
//! `work_series` and `account_series` on both backends, with their filters
//! (capture window, category, text, publish time, author, account).

mod support;

use chrono::{DateTime, TimeZone, Utc};
use core_service::store::ContentStore;
use core_service::store::model::{Account, AccountSnapshot, Record, SeriesQuery, Work, WorkSnapshot};
use core_service::store::sqlite::SqliteStore;

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap()
}

fn records() -> Vec<Record> {
    let mut out = Vec::new();
    for (id, name, category) in [("a1", "火锅达人", "美食"), ("a2", "旅行家", "旅行")] {
        out.push(Record::Account(Account {
            platform: "shortvideo".into(),
            platform_id: id.into(),
            nickname: name.into(),
            category: Some(category.into()),
            fans: Some(10),
            ..Account::default()
        }));
        for day in [10, 11, 12] {
            out.push(Record::AccountSnapshot {
                platform: "shortvideo".into(),
                platform_id: id.into(),
                snapshot: AccountSnapshot { captured_at: at(day, 1), fans: Some(i64::from(day)), ..Default::default() },
            });
        }
    }
    for (id, author, title, category, published) in [
        ("w1", "a1", "成都火锅测评", "美食", 1),
        ("w2", "a2", "川西旅行攻略", "旅行", 5),
        ("w3", "a1", "火锅底料", "美食", 9),
    ] {
        out.push(Record::Work(Work {
            platform: "shortvideo".into(),
            platform_id: id.into(),
            title: title.into(),
            author_id: Some(author.into()),
            category: Some(category.into()),
            published_at: Some(at(published, 0)),
            ..Work::default()
        }));
        for day in [9, 10, 11, 12] {
            out.push(Record::WorkSnapshot {
                platform: "shortvideo".into(),
                platform_id: id.into(),
                snapshot: WorkSnapshot {
                    captured_at: at(day, 1),
                    likes: Some(i64::from(day) * 10),
                    ..Default::default()
                },
            });
        }
    }
    out
}

async fn check(store: &dyn ContentStore) {
    for outcome in store.write(&records()).await.unwrap() {
        outcome.unwrap();
    }
    let base = SeriesQuery {
        platform: "shortvideo".into(),
        captured_from: at(10, 0),
        captured_to: at(11, 23),
        ..SeriesQuery::default()
    };
    let works = store.work_series(&base).await.unwrap();
    let ids: Vec<&str> = works.iter().map(|w| w.work.platform_id.as_str()).collect();
    assert_eq!(ids, ["w1", "w2", "w3"]);
    let likes: Vec<Option<i64>> = works[0].snapshots.iter().map(|s| s.likes).collect();
    assert_eq!(likes, [Some(100), Some(110)], "only the window's snapshots, oldest first");
    assert_eq!(works[0].author.as_ref().unwrap().nickname, "火锅达人");

    let food = SeriesQuery { category: Some("美食".into()), ..base.clone() };
    assert_eq!(store.work_series(&food).await.unwrap().len(), 2);
    let text = SeriesQuery { text: Some("火锅".into()), published_from: Some(at(5, 0)), ..base.clone() };
    let found = store.work_series(&text).await.unwrap();
    assert_eq!(found.iter().map(|w| w.work.platform_id.as_str()).collect::<Vec<_>>(), ["w3"]);
    let by_author = SeriesQuery { author_id: Some("a2".into()), ..base.clone() };
    assert_eq!(store.work_series(&by_author).await.unwrap()[0].work.platform_id, "w2");
    let nothing = SeriesQuery { text: Some("。".into()), ..base.clone() };
    assert!(store.work_series(&nothing).await.unwrap().is_empty());

    let accounts = store.account_series(&base).await.unwrap();
    assert_eq!(accounts.len(), 2);
    assert_eq!(accounts[1].snapshots.iter().map(|s| s.fans).collect::<Vec<_>>(), [Some(10), Some(11)]);
    let travel = SeriesQuery { category: Some("旅行".into()), ..base.clone() };
    assert_eq!(store.account_series(&travel).await.unwrap()[0].account.nickname, "旅行家");
    let one = SeriesQuery { account_id: Some("a1".into()), ..base.clone() };
    assert_eq!(store.account_series(&one).await.unwrap().len(), 1);
    let empty = SeriesQuery { captured_from: at(20, 0), captured_to: at(21, 0), ..base };
    assert!(store.account_series(&empty).await.unwrap().is_empty());
}

#[tokio::test]
async fn sqlite_series_read_windows_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    check(&SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_series_read_windows_and_filters() {
    support::with_postgres("ranking_series_test", async |store| check(store).await).await;
}
