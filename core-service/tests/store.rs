//! One conformance suite, run against both content stores: SQLite in a temp
//! file, and PostgreSQL on the real server at postgres://root@127.0.0.1:5432/test
//! (MEDIAOPS_TEST_DATABASE_URL overrides), each test in a fresh schema of its
//! own that is dropped afterwards. Never a mock.

use std::str::FromStr;
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use core_service::store::model::{Account, AccountIds, AccountSnapshot, Work, WorkIds, WorkSnapshot};
use core_service::store::postgres::PostgresStore;
use core_service::store::sqlite::SqliteStore;
use core_service::store::{ContentStore, StoreError};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

pub fn database_url() -> String {
    std::env::var("MEDIAOPS_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into())
}

/// A PostgreSQL schema that exists for one test.
struct Schema {
    name: String,
}

impl Schema {
    async fn create() -> Schema {
        let name = format!("store_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect(&database_url()).await.expect("PostgreSQL at 127.0.0.1:5432");
        sqlx::query(&format!("CREATE SCHEMA {name}")).execute(&mut conn).await.unwrap();
        Schema { name }
    }

    async fn drop(self) {
        let mut conn = PgConnection::connect(&database_url()).await.unwrap();
        sqlx::query(&format!("DROP SCHEMA {} CASCADE", self.name)).execute(&mut conn).await.unwrap();
    }
}

macro_rules! conformance {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test]
        async fn $name() {
            let dir = tempfile::tempdir().unwrap();
            let sqlite: Arc<dyn ContentStore> =
                Arc::new(SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap());
            cases::$name(sqlite.as_ref()).await;
            eprintln!("sqlite: ok");

            let schema = Schema::create().await;
            let options = PgConnectOptions::from_str(&database_url()).unwrap().options([("search_path", &schema.name)]);
            let postgres: Arc<dyn ContentStore> = Arc::new(PostgresStore::open_with(options).await.unwrap());
            cases::$name(postgres.as_ref()).await;
            eprintln!("postgres: ok");
            drop(postgres);
            schema.drop().await;
        }
    )*};
}

conformance!(
    accounts_upsert_idempotently_and_keep_known_values,
    works_upsert_idempotently_and_are_found_by_any_id,
    snapshots_are_keyed_by_moment_and_the_newest_is_returned,
    snapshots_of_unknown_entities_are_refused,
    search_finds_two_character_chinese_queries,
    search_finds_mixed_chinese_and_english_queries,
    search_ranks_title_over_body_then_likes_and_pages,
    search_rejects_bad_paging_and_empty_queries,
);

#[tokio::test]
async fn reopening_keeps_data_and_does_not_rerun_migrations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("store.sqlite");
    SqliteStore::open(&path).await.unwrap().upsert_work(&work("BV2", "标题", "")).await.unwrap();
    let reopened = SqliteStore::open(&path).await.unwrap();
    assert_eq!(reopened.counts().await.unwrap().works, 1);
    assert!(path.with_file_name("store.sqlite-wal").exists(), "WAL mode");

    let schema = Schema::create().await;
    let options = PgConnectOptions::from_str(&database_url()).unwrap().options([("search_path", &schema.name)]);
    PostgresStore::open_with(options.clone()).await.unwrap().upsert_work(&work("BV2", "标题", "")).await.unwrap();
    let reopened = PostgresStore::open_with(options).await.unwrap();
    assert_eq!(reopened.counts().await.unwrap().works, 1);
    drop(reopened);
    schema.drop().await;
}

fn at(y: i32, m: u32, d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, h, 0, 0).unwrap()
}

fn account(mid: &str, nickname: &str) -> Account {
    Account {
        platform: "videosite".into(),
        platform_id: mid.into(),
        ids: AccountIds { mid: Some(mid.into()), ..Default::default() },
        nickname: nickname.into(),
        fans: Some(100),
        ..Default::default()
    }
}

fn work(bv: &str, title: &str, description: &str) -> Work {
    Work {
        platform: "videosite".into(),
        platform_id: bv.into(),
        ids: WorkIds { bv_id: Some(bv.into()), work_id: Some(format!("aid-{bv}")), ..Default::default() },
        title: title.into(),
        description: Some(description.into()),
        author_id: Some("927587".into()),
        published_at: Some(at(2023, 10, 26, 11)),
        url: Some(format!("https://www.bilibili.com/video/{bv}")),
        category: Some("影视杂谈".into()),
        tags: vec!["历史".into()],
        duration_secs: Some(1494),
        ..Default::default()
    }
}

fn likes(n: i64, when: DateTime<Utc>) -> WorkSnapshot {
    WorkSnapshot { captured_at: when, likes: Some(n), views: Some(n * 10), ..Default::default() }
}

mod cases {
    use super::*;

    pub async fn accounts_upsert_idempotently_and_keep_known_values(store: &dyn ContentStore) {
        let mut a = account("927587", "木鱼水心");
        a.ids.uid = Some("u-927587".into());
        a.signature = Some("讲历史".into());
        store.upsert_account(&a).await.unwrap();
        store.upsert_account(&a).await.unwrap();
        assert_eq!(store.counts().await.unwrap().accounts, 1);

        // A partial record updates what it knows and keeps the rest.
        let partial = Account { fans: Some(200), signature: None, nickname: String::new(), ..account("927587", "") };
        store.upsert_account(&partial).await.unwrap();
        let got = store.get_account("videosite", "927587").await.unwrap().unwrap().account;
        assert_eq!(got.fans, Some(200));
        assert_eq!(got.nickname, "木鱼水心");
        assert_eq!(got.signature.as_deref(), Some("讲历史"));
        assert_eq!(got.ids.uid.as_deref(), Some("u-927587"));

        assert_eq!(store.get_account("videosite", "u-927587").await.unwrap().unwrap().account.platform_id, "927587");
        assert!(store.get_account("lifestyle", "927587").await.unwrap().is_none(), "platforms are separate");
        assert!(store.get_account("videosite", "nobody").await.unwrap().is_none());
        let empty = Account { platform_id: " ".into(), ..account("x", "y") };
        assert!(matches!(store.upsert_account(&empty).await, Err(StoreError::Invalid { field: "platformId", .. })));
    }

    pub async fn works_upsert_idempotently_and_are_found_by_any_id(store: &dyn ContentStore) {
        let w = work("BV1cM41197ui", "《史记》原文全解读！二十四史之首", "带你走进二十四史");
        store.upsert_work(&w).await.unwrap();
        store.upsert_work(&w).await.unwrap();
        assert_eq!(store.counts().await.unwrap().works, 1);
        let got = store.get_work("videosite", "BV1cM41197ui").await.unwrap().unwrap();
        assert_eq!(got.work, w, "every field round-trips, times in UTC");
        assert!(got.latest.is_none());
        let by_aid = store.get_work("videosite", "aid-BV1cM41197ui").await.unwrap().unwrap();
        assert_eq!(by_aid.work.platform_id, "BV1cM41197ui");

        let renamed = Work { title: "新标题".into(), description: None, tags: vec![], ..w.clone() };
        store.upsert_work(&renamed).await.unwrap();
        let got = store.get_work("videosite", "BV1cM41197ui").await.unwrap().unwrap().work;
        assert_eq!(got.title, "新标题");
        assert_eq!(got.description, w.description, "None keeps the stored description");
        assert_eq!(got.tags, w.tags, "empty tags keep the stored ones");
        assert_eq!(store.search_works("videosite", "新标题", 1, 20).await.unwrap().total, 1, "re-indexed");
        assert_eq!(store.search_works("videosite", "史记", 1, 20).await.unwrap().total, 0, "old title gone");
        assert_eq!(store.search_works("videosite", "二十四史", 1, 20).await.unwrap().total, 1, "kept body");
    }

    pub async fn snapshots_are_keyed_by_moment_and_the_newest_is_returned(store: &dyn ContentStore) {
        store.upsert_account(&account("1", "甲")).await.unwrap();
        store.upsert_work(&work("BV1", "标题", "")).await.unwrap();
        let day1 = at(2023, 10, 25, 16);
        let day2 = at(2023, 10, 26, 16);
        let snap = |fans| AccountSnapshot { captured_at: day1, fans: Some(fans), ..Default::default() };
        store.add_account_snapshot("videosite", "1", &snap(10)).await.unwrap();
        store.add_account_snapshot("videosite", "1", &snap(11)).await.unwrap();
        store
            .add_account_snapshot(
                "videosite",
                "1",
                &AccountSnapshot { captured_at: day2, fans: Some(20), ..Default::default() },
            )
            .await
            .unwrap();
        let counts = store.counts().await.unwrap();
        assert_eq!(counts.account_snapshots, 2, "same moment replaces");
        let latest = store.get_account("videosite", "1").await.unwrap().unwrap().latest.unwrap();
        assert_eq!((latest.captured_at, latest.fans), (day2, Some(20)));

        let extra = serde_json::json!({"coin": 5, "danmaku": 7});
        let with_extra = WorkSnapshot { extra: Some(extra.clone()), ..likes(50, day2) };
        store.add_work_snapshot("videosite", "BV1", &with_extra).await.unwrap();
        store.add_work_snapshot("videosite", "BV1", &likes(30, day1)).await.unwrap();
        store.add_work_snapshot("videosite", "BV1", &likes(31, day1)).await.unwrap();
        assert_eq!(store.counts().await.unwrap().work_snapshots, 2);
        let latest = store.get_work("videosite", "BV1").await.unwrap().unwrap().latest.unwrap();
        assert_eq!(latest, with_extra, "an older snapshot added later does not become the newest");
    }

    pub async fn snapshots_of_unknown_entities_are_refused(store: &dyn ContentStore) {
        let err = store.add_work_snapshot("videosite", "BVnone", &likes(1, at(2023, 1, 1, 0))).await.unwrap_err();
        assert!(matches!(err, StoreError::NotFound(_)), "{err}");
        let snap = AccountSnapshot { captured_at: at(2023, 1, 1, 0), ..Default::default() };
        let err = store.add_account_snapshot("videosite", "none", &snap).await.unwrap_err();
        assert!(matches!(err, StoreError::NotFound(_)), "{err}");
        assert_eq!(store.counts().await.unwrap(), Default::default());
    }

    pub async fn search_finds_two_character_chinese_queries(store: &dyn ContentStore) {
        store.upsert_work(&work("BVa", "成都美食探店，这家火锅绝了", "")).await.unwrap();
        store.upsert_work(&work("BVb", "周末vlog", "去吃了很多美食")).await.unwrap();
        store.upsert_work(&work("BVc", "美国大选观察", "时政")).await.unwrap();
        store.upsert_work(&work("BVd", "火锅底料测评", "")).await.unwrap();
        let page = store.search_works("videosite", "美食", 1, 20).await.unwrap();
        let ids: Vec<_> = page.items.iter().map(|r| r.work.platform_id.as_str()).collect();
        assert_eq!(ids, vec!["BVa", "BVb"], "title match first; 美国 is not 美食");
        assert_eq!(page.total, 2);
        assert_eq!(store.search_works("lifestyle", "美食", 1, 20).await.unwrap().total, 0);
        assert_eq!(store.search_works("videosite", "火锅", 1, 20).await.unwrap().total, 2);
    }

    pub async fn search_finds_mixed_chinese_and_english_queries(store: &dyn ContentStore) {
        store.upsert_work(&work("BVx", "AI绘画入门：十分钟学会出图", "")).await.unwrap();
        store.upsert_work(&work("BVy", "用ai绘画做头像", "")).await.unwrap();
        store.upsert_work(&work("BVz", "油画绘画技巧", "不用AI")).await.unwrap();
        store.upsert_work(&work("BVw", "AI写作工具合集", "")).await.unwrap();
        let page = store.search_works("videosite", "AI绘画", 1, 20).await.unwrap();
        let mut ids: Vec<_> = page.items.iter().map(|r| r.work.platform_id.clone()).collect();
        ids.sort();
        assert_eq!(ids, vec!["BVx", "BVy", "BVz"], "every term, any case, title or body");
        assert_eq!(page.items.last().unwrap().work.platform_id, "BVz", "title matches rank above body matches");
    }

    pub async fn search_ranks_title_over_body_then_likes_and_pages(store: &dyn ContentStore) {
        // Same title length and text, so relevance ties and likes decide.
        for (bv, n) in [("BV01", 10), ("BV02", 30), ("BV03", 20)] {
            store.upsert_work(&work(bv, "猫咪日常", "")).await.unwrap();
            store.add_work_snapshot("videosite", bv, &likes(n, at(2023, 10, 26, 16))).await.unwrap();
        }
        store.upsert_work(&work("BV04", "猫咪日常", "")).await.unwrap();
        let all = store.search_works("videosite", "猫咪", 1, 20).await.unwrap();
        let ids: Vec<_> = all.items.iter().map(|r| r.work.platform_id.as_str()).collect();
        assert_eq!(ids, vec!["BV02", "BV03", "BV01", "BV04"], "more likes first, unknown likes last");
        assert_eq!(all.items[0].latest.as_ref().unwrap().likes, Some(30));
        let page2 = store.search_works("videosite", "猫咪", 2, 3).await.unwrap();
        assert_eq!(page2.total, 4);
        assert_eq!(page2.items.len(), 1);
        assert_eq!(page2.items[0].work.platform_id, "BV04");
        assert!(store.search_works("videosite", "猫咪", 3, 3).await.unwrap().items.is_empty());
    }

    pub async fn search_rejects_bad_paging_and_empty_queries(store: &dyn ContentStore) {
        store.upsert_work(&work("BVq", "美食", "")).await.unwrap();
        assert!(matches!(
            store.search_works("videosite", "美食", 0, 20).await,
            Err(StoreError::Invalid { field: "page", .. })
        ));
        assert!(matches!(
            store.search_works("videosite", "美食", 1, 51).await,
            Err(StoreError::Invalid { field: "pageSize", .. })
        ));
        assert!(store.search_works("videosite", "美食", 1, 50).await.is_ok());
        assert_eq!(store.search_works("videosite", "，。！", 1, 20).await.unwrap().total, 0);
        // FTS syntax in a query is text, not syntax.
        assert_eq!(store.search_works("videosite", "美食 OR NOT \"*", 1, 20).await.unwrap().total, 0);
        assert_eq!(store.search_works("videosite", "'美食' & !", 1, 20).await.unwrap().total, 1);
    }
}
