//! One conformance suite, run against both content stores: SQLite in a temp
//! file, and PostgreSQL on the real server at postgres://root@127.0.0.1:5432/test
//! (MEDIAOPS_TEST_DATABASE_URL overrides), each test in a fresh schema of its
//! own that is dropped afterwards. Never a mock.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use mediaops_store::change_notices;
use mediaops_store::model::{
    Account, AccountIds, AccountOrder, AccountQuery, AccountRecord, AccountSnapshot, AuthorBrief, Comment,
    HotListEntry, HotListQuery, Record, SearchPage, Work, WorkIds, WorkOrder, WorkQuery, WorkRecord, WorkSnapshot,
};
use mediaops_store::postgres::PostgresStore;
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::topic::Topic;
use mediaops_store::{ContentStore, PoolSettings, StoreError};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use support::database_url;

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
    batch_write_keeps_the_good_records_around_a_bad_one,
    batch_write_survives_a_database_error_in_the_middle,
    comments_upsert_idempotently_and_list_most_liked_first,
    hot_list_entries_filter_by_window_and_source,
    hot_list_latest_only_picks_each_sources_newest_capture_in_the_window,
    find_works_applies_each_filter,
    published_totals_add_up_each_authors_works_of_the_window,
    find_works_orders_by_each_order_with_unknown_last,
    find_works_pages_stably_with_the_total,
    find_works_filters_by_topic,
    works_carry_their_stored_authors_brief,
    find_accounts_matches_text_with_the_nickname_weighted,
    find_accounts_filters_by_exact_nickname_and_category_and_orders_by_fans,
    listings_reject_bad_paging,
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

/// Ends every server process of the connections named `application`, once
/// the pool has taken back the connections of the calls before (the driver
/// pings each on its way back, in a task of its own).
async fn terminate_connections(application: &str) -> i64 {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut conn = PgConnection::connect(&database_url()).await.unwrap();
    let ended: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t",
    )
    .bind(application)
    .fetch_one(&mut conn)
    .await
    .unwrap();
    ended
}

#[tokio::test]
async fn postgres_pool_keeps_its_connections_and_replaces_one_the_server_dropped() {
    let schema = Schema::create().await;
    let application = format!("pool_test_{}", uuid::Uuid::new_v4().simple());
    let options = PgConnectOptions::from_str(&database_url())
        .unwrap()
        .options([("search_path", &schema.name)])
        .application_name(&application);
    let pinged = PoolSettings { ping_after_idle: Duration::ZERO, ..PoolSettings::default() };
    let store = PostgresStore::connect(options.clone(), pinged).await.unwrap();
    store.upsert_work(&work("BV3", "标题", "")).await.unwrap();
    assert!(terminate_connections(&application).await >= 1, "the pool kept a connection after its call");
    // Pinged on its next use: the dropped connection is replaced unseen.
    assert_eq!(store.counts().await.unwrap().works, 1);
    drop(store);

    // Not pinged (in use again within the default 30 s): a call that meets
    // a dropped connection fails as unavailable (503, uncharged), and the
    // driver closes that connection: at most one failed call per connection.
    let store = PostgresStore::connect(options, PoolSettings::default()).await.unwrap();
    assert_eq!(store.counts().await.unwrap().works, 1);
    let dropped = terminate_connections(&application).await;
    assert!(dropped >= 1);
    let mut failed = 0;
    loop {
        match store.counts().await {
            Ok(counts) => break assert_eq!(counts.works, 1),
            Err(e) => assert!(e.is_unavailable(), "{e:?}"),
        }
        failed += 1;
        assert!(failed <= dropped, "{failed} calls failed on {dropped} dropped connections");
    }
    assert!(failed >= 1, "a connection in use within 30 s is not pinged first");
    drop(store);
    schema.drop().await;
}

/// Waits up to 10 s for `done`, polling.
async fn eventually<F: std::future::Future<Output = bool>>(what: &str, mut done: impl FnMut() -> F) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !done().await {
        assert!(std::time::Instant::now() < deadline, "not within 10 s: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn postgres_point_reads_see_another_stores_commit() {
    // A database of its own: the other tests' notices would drop the kept
    // record that the silent write below expects served.
    support::with_postgres_database("point_reads", async |options| {
        let reader = PostgresStore::open_with(options.clone()).await.unwrap();
        let writer = PostgresStore::open_with(options.clone()).await.unwrap();
        writer.upsert_work(&work("BV4", "标题", "")).await.unwrap();
        writer.add_work_snapshot("videosite", "BV4", &likes(1, at(2023, 6, 1, 0))).await.unwrap();
        let likes_now = || async { reader.get_work("videosite", "BV4").await.unwrap().unwrap().latest.unwrap().likes };
        assert_eq!(likes_now().await, Some(1));
        assert_eq!(likes_now().await, Some(1), "kept");

        // Another store's (another process's) commit: heard through its notice.
        writer.add_work_snapshot("videosite", "BV4", &likes(2, at(2023, 6, 2, 0))).await.unwrap();
        eventually("the other store's snapshot", || async { likes_now().await == Some(2) }).await;
        // The reader's own write: seen at once.
        reader.add_work_snapshot("videosite", "BV4", &likes(3, at(2023, 6, 3, 0))).await.unwrap();
        assert_eq!(likes_now().await, Some(3));
        // A write outside any store (psql, another tool): its notice too.
        let mut conn = PgConnection::connect_with(&options).await.unwrap();
        sqlx::query("UPDATE works SET title = '新标题' WHERE platform_id = 'BV4'").execute(&mut conn).await.unwrap();
        let title_now = || async { reader.get_work("videosite", "BV4").await.unwrap().unwrap().work.title };
        eventually("a title changed by hand", || async { title_now().await == "新标题" }).await;
        // Every notice so far heard (the reader's own write's could land
        // after the title was read, and drop it below).
        support::hear_all_notices(&mut conn, &reader.notices().unwrap(), change_notices::WORD_LISTS).await;
        // A write that notifies nobody (its session fires no triggers): the
        // kept record is served until its age runs out.
        sqlx::query("SET session_replication_role = replica").execute(&mut conn).await.unwrap();
        assert_eq!(title_now().await, "新标题");
        sqlx::query("UPDATE works SET title = '无声' WHERE platform_id = 'BV4'").execute(&mut conn).await.unwrap();
        assert_eq!(title_now().await, "新标题", "served from the cache");
        eventually("the silent write, past the entry's age", || async { title_now().await == "无声" }).await;
    })
    .await;
}

#[tokio::test]
async fn change_notices_are_heard_and_counted() {
    let schema = Schema::create().await;
    let options = PgConnectOptions::from_str(&database_url()).unwrap().options([("search_path", &schema.name)]);
    let store = PostgresStore::open_with(options.clone()).await.unwrap();
    let notices = std::sync::Arc::new(mediaops_store::change_notices::Notices::default());
    let _listening = mediaops_store::change_notices::listen(options, &notices);
    eventually("listening", || async { notices.listening() }).await;
    let before = notices.content();
    store.upsert_work(&work("BV5", "标题", "")).await.unwrap();
    eventually("the notice of a write", || async { notices.content() > before }).await;
    let before = notices.word_lists();
    let list = mediaops_store::word_list::WordList { allow: vec!["私域".into()], ..Default::default() };
    mediaops_store::word_list::CustomWordStore::put(&store, "a", "all", &list).await.unwrap();
    eventually("the notice of a word list", || async { notices.word_lists() > before }).await;
    drop(store);
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

fn comment(id: &str, work_id: &str, likes: Option<i64>, when: DateTime<Utc>) -> Comment {
    Comment {
        platform: "videosite".into(),
        platform_id: id.into(),
        work_id: work_id.into(),
        text: format!("评论 {id}"),
        likes,
        author_id: Some(format!("u{id}")),
        author_name: Some(format!("网友{id}")),
        published_at: Some(when),
        parent_id: None,
    }
}

fn hot(source: &str, captured_at: DateTime<Utc>, rank: i64, title: &str) -> HotListEntry {
    HotListEntry {
        source: source.into(),
        captured_at,
        rank,
        title: title.into(),
        hot_value: Some(1_000_000 / rank),
        url: Some(format!("https://s.weibo.com/weibo?q={title}")),
        extra: None,
    }
}

/// A work listing of `videosite`, page 1 of 20, no filter.
fn works_query() -> WorkQuery {
    WorkQuery { platform: "videosite".into(), page: 1, page_size: 20, ..WorkQuery::default() }
}

/// An account listing of `videosite`, page 1 of 20, no filter.
fn accounts_query() -> AccountQuery {
    AccountQuery { platform: "videosite".into(), page: 1, page_size: 20, ..AccountQuery::default() }
}

fn work_ids(page: &SearchPage<WorkRecord>) -> Vec<&str> {
    page.items.iter().map(|r| r.work.platform_id.as_str()).collect()
}

fn account_ids(page: &SearchPage<AccountRecord>) -> Vec<&str> {
    page.items.iter().map(|r| r.account.platform_id.as_str()).collect()
}

/// (source, captured_at, rank) of each entry.
fn hot_keys(entries: &[HotListEntry]) -> Vec<(&str, DateTime<Utc>, i64)> {
    entries.iter().map(|e| (e.source.as_str(), e.captured_at, e.rank)).collect()
}

/// Counters of a snapshot for the order tests.
fn counters(likes: Option<i64>, views: Option<i64>, comments: Option<i64>, collects: Option<i64>) -> WorkSnapshot {
    WorkSnapshot { captured_at: at(2023, 10, 27, 16), likes, views, comments, collects, ..Default::default() }
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

    pub async fn batch_write_keeps_the_good_records_around_a_bad_one(store: &dyn ContentStore) {
        let day = at(2023, 10, 26, 16);
        let snapshot_of = |id: &str, n| Record::WorkSnapshot {
            platform: "videosite".into(),
            platform_id: id.into(),
            snapshot: likes(n, day),
        };
        let records = vec![
            Record::Account(account("927587", "木鱼水心")),
            Record::Work(work("BV1", "《史记》原文全解读", "")),
            // A snapshot of a work written earlier in the same batch.
            snapshot_of("BV1", 5),
            snapshot_of("BVnone", 1),
            Record::Work(Work { platform_id: String::new(), ..work("BVx", "无键", "") }),
            Record::AccountSnapshot {
                platform: "videosite".into(),
                platform_id: "927587".into(),
                snapshot: AccountSnapshot { captured_at: day, fans: Some(7), ..Default::default() },
            },
            Record::Comment(comment("c1", "BV1", Some(3), day)),
            Record::HotListEntry(hot("microblog-hot", day, 1, "史记")),
            Record::Work(work("BV2", "二十四史导读", "")),
        ];
        let outcomes = store.write(&records).await.unwrap();
        assert_eq!(outcomes.len(), records.len(), "one outcome per record");
        for (i, outcome) in outcomes.iter().enumerate() {
            match i {
                3 => assert!(matches!(outcome, Err(StoreError::NotFound(_))), "{outcome:?}"),
                4 => assert!(matches!(outcome, Err(StoreError::Invalid { field: "platformId", .. })), "{outcome:?}"),
                _ => assert!(outcome.is_ok(), "record {i}: {outcome:?}"),
            }
        }
        let counts = store.counts().await.unwrap();
        assert_eq!(
            (counts.accounts, counts.account_snapshots, counts.works, counts.work_snapshots),
            (1, 1, 2, 1),
            "{counts:?}"
        );
        assert_eq!((counts.comments, counts.hot_list_entries), (1, 1));
        let bv1 = store.get_work("videosite", "BV1").await.unwrap().unwrap();
        assert_eq!(bv1.latest.unwrap().likes, Some(5));
        assert_eq!(bv1.author.unwrap().nickname, "木鱼水心", "the account written earlier in the batch");
        assert_eq!(store.search_works("videosite", "二十四史", 1, 20).await.unwrap().total, 1, "indexed in the batch");
        assert!(store.write(&[]).await.unwrap().is_empty());

        // Writing the same batch again changes nothing.
        let again = store.write(&records).await.unwrap();
        assert_eq!(again.iter().filter(|o| o.is_ok()).count(), 7);
        assert_eq!(store.counts().await.unwrap(), counts);
    }

    pub async fn batch_write_survives_a_database_error_in_the_middle(store: &dyn ContentStore) {
        // PostgreSQL refuses a NUL character in text, which aborts the
        // transaction until its savepoint is rolled back; SQLite stores it.
        let records = vec![
            Record::Work(work("BV1", "第一条", "")),
            Record::Work(work("BV2", "坏\u{0}标题", "")),
            Record::Work(work("BV3", "第三条", "")),
            Record::Comment(comment("c1", "BV3", Some(1), at(2023, 1, 1, 0))),
        ];
        let outcomes = store.write(&records).await.unwrap();
        assert!(outcomes[0].is_ok() && outcomes[2].is_ok() && outcomes[3].is_ok(), "{outcomes:?}");
        let stored_bad = store.get_work("videosite", "BV2").await.unwrap();
        match store.backend() {
            "postgres" => {
                assert!(matches!(outcomes[1], Err(StoreError::Database(_))), "{outcomes:?}");
                assert!(stored_bad.is_none(), "rolled back alone");
                assert_eq!(store.counts().await.unwrap().works, 2);
            }
            _ => {
                assert!(outcomes[1].is_ok(), "{outcomes:?}");
                assert_eq!(stored_bad.unwrap().work.title, "坏\u{0}标题");
                assert_eq!(store.counts().await.unwrap().works, 3);
            }
        }
        assert_eq!(store.search_works("videosite", "第三条", 1, 20).await.unwrap().total, 1);
        assert_eq!(store.counts().await.unwrap().comments, 1);
    }

    pub async fn comments_upsert_idempotently_and_list_most_liked_first(store: &dyn ContentStore) {
        let day = |d| at(2023, 10, d, 12);
        let comments = [
            comment("c1", "BV1", Some(5), day(1)),
            comment("c2", "BV1", Some(50), day(2)),
            comment("c3", "BV1", None, day(3)),
            comment("c4", "BV1", Some(5), day(4)),
            Comment { parent_id: Some("c2".into()), ..comment("c5", "BV1", Some(20), day(5)) },
            comment("d1", "BV2", Some(999), day(1)),
        ];
        for _ in 0..2 {
            for c in &comments {
                store.upsert_comment(c).await.unwrap();
            }
        }
        assert_eq!(store.counts().await.unwrap().comments, 6, "upserts on (platform, platform_id)");

        let all = store.list_comments("videosite", "BV1", 1, 20).await.unwrap();
        let ids: Vec<_> = all.items.iter().map(|c| c.platform_id.as_str()).collect();
        assert_eq!(ids, ["c2", "c5", "c1", "c4", "c3"], "most liked first, ties oldest first, unknown last");
        assert_eq!(all.total, 5);
        assert_eq!(all.items[1], comments[4], "every field round-trips");

        let pages: Vec<Vec<String>> = {
            let mut pages = Vec::new();
            for page in 1..=4 {
                let got = store.list_comments("videosite", "BV1", page, 2).await.unwrap();
                assert_eq!(got.total, 5);
                pages.push(got.items.into_iter().map(|c| c.platform_id).collect());
            }
            pages
        };
        assert_eq!(pages, [vec!["c2", "c5"], vec!["c1", "c4"], vec!["c3"], vec![]]);

        // A partial record keeps what it does not know.
        let partial = Comment {
            text: String::new(),
            author_name: None,
            published_at: None,
            ..comment("c3", "BV1", Some(100), day(3))
        };
        store.upsert_comment(&partial).await.unwrap();
        let first = store.list_comments("videosite", "BV1", 1, 1).await.unwrap().items.remove(0);
        assert_eq!(first.platform_id, "c3");
        assert_eq!((first.likes, first.text.as_str()), (Some(100), "评论 c3"));
        assert_eq!((first.author_name.as_deref(), first.published_at), (Some("网友c3"), Some(day(3))));

        assert_eq!(store.list_comments("videosite", "BV2", 1, 20).await.unwrap().total, 1);
        assert_eq!(store.list_comments("lifestyle", "BV1", 1, 20).await.unwrap().total, 0, "platforms are separate");
        assert_eq!(store.list_comments("videosite", "BVnone", 1, 20).await.unwrap().total, 0);
        let orphan = comment("e1", " ", Some(1), day(1));
        assert!(matches!(store.upsert_comment(&orphan).await, Err(StoreError::Invalid { field: "workId", .. })));
    }

    /// Six captures of three lists: weibo at 8, 9 (two ranks each) and 10;
    /// douyin at 8 and 9; zhihu at 7.
    async fn store_hot_lists(store: &dyn ContentStore) -> impl Fn(u32) -> DateTime<Utc> {
        let t = |h| at(2024, 5, 1, h);
        let entries = [
            hot("weibo", t(8), 1, "话题甲"),
            hot("weibo", t(8), 2, "话题乙"),
            hot("weibo", t(9), 1, "话题丙"),
            hot("weibo", t(9), 2, "话题丁"),
            hot("weibo", t(10), 1, "话题戊"),
            hot("douyin", t(8), 1, "抖音甲"),
            hot("douyin", t(9), 1, "抖音乙"),
            hot("zhihu", t(7), 1, "知乎甲"),
        ];
        let records: Vec<Record> = entries.into_iter().map(Record::HotListEntry).collect();
        assert!(store.write(&records).await.unwrap().iter().all(Result::is_ok));
        t
    }

    pub async fn hot_list_entries_filter_by_window_and_source(store: &dyn ContentStore) {
        let t = store_hot_lists(store).await;
        let all = store.hot_list_entries(&HotListQuery::default()).await.unwrap();
        assert_eq!(
            hot_keys(&all),
            [
                ("zhihu", t(7), 1),
                ("douyin", t(8), 1),
                ("weibo", t(8), 1),
                ("weibo", t(8), 2),
                ("douyin", t(9), 1),
                ("weibo", t(9), 1),
                ("weibo", t(9), 2),
                ("weibo", t(10), 1),
            ],
            "capture time, then source, then rank"
        );
        assert_eq!(all[2], hot("weibo", t(8), 1, "话题甲"), "every field round-trips");

        let weibo = HotListQuery { sources: vec!["weibo".into()], ..HotListQuery::default() };
        assert_eq!(store.hot_list_entries(&weibo).await.unwrap().len(), 5);
        let window = HotListQuery {
            sources: vec!["weibo".into(), "douyin".into()],
            from: Some(t(9)),
            to: Some(t(9)),
            ..HotListQuery::default()
        };
        let got = store.hot_list_entries(&window).await.unwrap();
        assert_eq!(hot_keys(&got), [("douyin", t(9), 1), ("weibo", t(9), 1), ("weibo", t(9), 2)], "bounds included");
        let since = HotListQuery { from: Some(t(9)), ..HotListQuery::default() };
        assert_eq!(store.hot_list_entries(&since).await.unwrap().len(), 4);
        let until = HotListQuery { to: Some(t(8)), ..HotListQuery::default() };
        assert_eq!(store.hot_list_entries(&until).await.unwrap().len(), 4);
        let unknown = HotListQuery { sources: vec!["bilibili".into()], ..HotListQuery::default() };
        assert!(store.hot_list_entries(&unknown).await.unwrap().is_empty());

        // The same (source, captured_at, rank) replaces the entry.
        let extra = serde_json::json!({"label": "热", "category": "社会"});
        let replaced = HotListEntry { extra: Some(extra), hot_value: None, ..hot("weibo", t(8), 1, "新话题") };
        store.write(&[Record::HotListEntry(replaced.clone())]).await.unwrap().pop().unwrap().unwrap();
        assert_eq!(store.counts().await.unwrap().hot_list_entries, 8);
        let first_weibo = store.hot_list_entries(&weibo).await.unwrap().remove(0);
        assert_eq!(first_weibo, replaced);
        let nameless = Record::HotListEntry(hot(" ", t(8), 1, "无源"));
        let outcome = store.write(&[nameless]).await.unwrap().pop().unwrap();
        assert!(matches!(outcome, Err(StoreError::Invalid { field: "source", .. })), "{outcome:?}");
    }

    pub async fn hot_list_latest_only_picks_each_sources_newest_capture_in_the_window(store: &dyn ContentStore) {
        let t = store_hot_lists(store).await;
        let latest = |sources: &[&str], from: Option<u32>, to: Option<u32>| HotListQuery {
            sources: sources.iter().map(|s| s.to_string()).collect(),
            from: from.map(&t),
            to: to.map(&t),
            latest_only: true,
        };
        let got = store.hot_list_entries(&latest(&[], None, None)).await.unwrap();
        assert_eq!(hot_keys(&got), [("zhihu", t(7), 1), ("douyin", t(9), 1), ("weibo", t(10), 1)]);
        let got = store.hot_list_entries(&latest(&[], None, Some(9))).await.unwrap();
        assert_eq!(
            hot_keys(&got),
            [("zhihu", t(7), 1), ("douyin", t(9), 1), ("weibo", t(9), 1), ("weibo", t(9), 2)],
            "the newest capture within the window, all its ranks"
        );
        let got = store.hot_list_entries(&latest(&[], Some(8), Some(8))).await.unwrap();
        assert_eq!(hot_keys(&got), [("douyin", t(8), 1), ("weibo", t(8), 1), ("weibo", t(8), 2)], "zhihu has none");
        let got = store.hot_list_entries(&latest(&["weibo", "zhihu"], None, Some(8))).await.unwrap();
        assert_eq!(hot_keys(&got), [("zhihu", t(7), 1), ("weibo", t(8), 1), ("weibo", t(8), 2)]);
        let got = store.hot_list_entries(&latest(&["douyin"], Some(8), None)).await.unwrap();
        assert_eq!(hot_keys(&got), [("douyin", t(9), 1)]);
        assert!(store.hot_list_entries(&latest(&[], Some(11), None)).await.unwrap().is_empty());
    }

    pub async fn find_works_applies_each_filter(store: &dyn ContentStore) {
        let published = |m| Some(at(2023, m, 10, 4));
        let works = [
            Work {
                author_id: Some("a1".into()),
                published_at: published(1),
                category: Some("美食".into()),
                ..work("BVa", "成都美食探店", "")
            },
            Work {
                author_id: Some("a1".into()),
                published_at: published(3),
                category: Some("旅行".into()),
                ..work("BVb", "大理洱海三日游", "")
            },
            Work {
                author_id: Some("a2".into()),
                published_at: published(2),
                category: Some("美食".into()),
                ..work("BVc", "家常菜美食教程", "")
            },
            Work { author_id: None, published_at: None, category: None, ..work("BVd", "无名之作", "") },
            Work {
                platform: "lifestyle".into(), author_id: Some("a1".into()), ..work("BVa", "成都美食探店", "")
            },
        ];
        for w in &works {
            store.upsert_work(w).await.unwrap();
        }
        let find = |q: WorkQuery| async move { store.find_works(&q).await.unwrap() };
        let all = find(works_query()).await;
        assert_eq!(work_ids(&all), ["BVb", "BVc", "BVa", "BVd"], "one platform, newest first, unknown last");
        assert_eq!(all.total, 4);

        let by_author = find(WorkQuery { author_id: Some("a1".into()), ..works_query() }).await;
        assert_eq!((work_ids(&by_author), by_author.total), (vec!["BVb", "BVa"], 2));
        let from = find(WorkQuery { published_from: published(2), ..works_query() }).await;
        assert_eq!(work_ids(&from), ["BVb", "BVc"], "from is inclusive; unknown publish times never match");
        let to = find(WorkQuery { published_to: published(2), ..works_query() }).await;
        assert_eq!(work_ids(&to), ["BVc", "BVa"], "to is inclusive");
        let exact = find(WorkQuery { published_from: published(2), published_to: published(2), ..works_query() }).await;
        assert_eq!(work_ids(&exact), ["BVc"]);
        let food = find(WorkQuery { category: Some("美食".into()), ..works_query() }).await;
        assert_eq!((work_ids(&food), food.total), (vec!["BVc", "BVa"], 2));

        let both =
            find(WorkQuery { author_id: Some("a1".into()), category: Some("美食".into()), ..works_query() }).await;
        assert_eq!(work_ids(&both), ["BVa"]);
        let text = find(WorkQuery { text: Some("美食".into()), author_id: Some("a2".into()), ..works_query() }).await;
        assert_eq!((work_ids(&text), text.total), (vec!["BVc"], 1));
        let none = find(WorkQuery { text: Some("美食".into()), category: Some("旅行".into()), ..works_query() }).await;
        assert_eq!((none.total, none.items.len()), (0, 0));
        let other = find(WorkQuery { platform: "lifestyle".into(), ..works_query() }).await;
        assert_eq!(work_ids(&other), ["BVa"]);
    }

    pub async fn published_totals_add_up_each_authors_works_of_the_window(store: &dyn ContentStore) {
        // (id, author, published month): March and April are the window.
        let rows = [("T1", "a1", 3), ("T2", "a1", 4), ("T3", "a1", 5), ("T4", "a2", 4), ("T5", "a1", 3)];
        for (id, author, month) in rows {
            let w =
                Work { author_id: Some(author.into()), published_at: Some(at(2023, month, 10, 4)), ..work(id, id, "") };
            store.upsert_work(&w).await.unwrap();
        }
        let elsewhere = Work { platform: "lifestyle".into(), author_id: Some("a1".into()), ..work("T6", "T6", "") };
        store.upsert_work(&elsewhere).await.unwrap();
        // T1's newer snapshot counts, T5 has none (0 reads, still a work).
        store.add_work_snapshot("videosite", "T1", &likes(5, at(2023, 6, 1, 0))).await.unwrap();
        store.add_work_snapshot("videosite", "T1", &likes(7, at(2023, 6, 2, 0))).await.unwrap();
        store.add_work_snapshot("videosite", "T2", &likes(2, at(2023, 6, 2, 0))).await.unwrap();
        store.add_work_snapshot("videosite", "T3", &likes(100, at(2023, 6, 2, 0))).await.unwrap();
        store.add_work_snapshot("videosite", "T4", &likes(1, at(2023, 6, 2, 0))).await.unwrap();
        store.add_work_snapshot("lifestyle", "T6", &likes(100, at(2023, 6, 2, 0))).await.unwrap();

        let authors: Vec<String> = ["a2", "nobody", "a1"].map(String::from).to_vec();
        let (from, to) = (at(2023, 3, 1, 0), at(2023, 4, 30, 23));
        let totals = store.published_totals("videosite", &authors, from, to).await.unwrap();
        let read = |i: usize| (totals[i].works, totals[i].views, totals[i].likes);
        assert_eq!(totals.len(), 3, "one per author asked, in order");
        assert_eq!(read(0), (1, 10, 1));
        assert_eq!(read(1), (0, 0, 0), "an author without works is all zeros");
        assert_eq!(read(2), (3, 90, 9), "T1 (newest: 70), T2 (20), T5 (none); T3 is past the window");
        assert_eq!(store.published_totals("videosite", &[], from, to).await.unwrap(), Vec::new());
        let too_many = vec![String::from("a1"); mediaops_store::MAX_TOTALS_AUTHORS + 1];
        let refused = store.published_totals("videosite", &too_many, from, to).await.unwrap_err();
        assert!(matches!(refused, StoreError::Invalid { .. }), "{refused:?}");
    }

    pub async fn find_works_orders_by_each_order_with_unknown_last(store: &dyn ContentStore) {
        // (id, published day, likes, views, comments, collects); O4 has no snapshot.
        let rows = [
            ("O1", Some(1), Some(10), Some(500), Some(3), None),
            ("O2", Some(2), Some(30), Some(100), Some(9), Some(7)),
            ("O3", Some(3), Some(20), None, Some(1), Some(50)),
            ("O4", None, None, None, None, None),
            ("O5", Some(5), None, Some(900), None, Some(1)),
        ];
        for (id, day, l, v, c, f) in rows {
            let w = Work { published_at: day.map(|d| at(2023, 6, d, 0)), ..work(id, "排序测试", "") };
            store.upsert_work(&w).await.unwrap();
            if id != "O4" {
                store.add_work_snapshot("videosite", id, &counters(l, v, c, f)).await.unwrap();
            }
        }
        // An older capture written later does not change the newest counters.
        let old = WorkSnapshot {
            captured_at: at(2023, 6, 1, 0),
            views: Some(10_000),
            likes: Some(10_000),
            ..Default::default()
        };
        store.add_work_snapshot("videosite", "O1", &old).await.unwrap();

        let newest = ["O5", "O3", "O2", "O1", "O4"];
        let most_liked = ["O2", "O3", "O1", "O5", "O4"];
        // (order, without text, with a text every work matches equally)
        let expected = [
            (WorkOrder::Newest, newest, newest),
            (WorkOrder::Relevance, newest, most_liked),
            (WorkOrder::Oldest, ["O1", "O2", "O3", "O5", "O4"], ["O1", "O2", "O3", "O5", "O4"]),
            (WorkOrder::Likes, most_liked, most_liked),
            (WorkOrder::Views, ["O5", "O1", "O2", "O3", "O4"], ["O5", "O1", "O2", "O3", "O4"]),
            (WorkOrder::Comments, ["O2", "O1", "O3", "O5", "O4"], ["O2", "O1", "O3", "O5", "O4"]),
            (WorkOrder::Collects, ["O3", "O2", "O5", "O1", "O4"], ["O3", "O2", "O5", "O1", "O4"]),
        ];
        for (order, ids, with_text) in expected {
            let page = store.find_works(&WorkQuery { order, ..works_query() }).await.unwrap();
            assert_eq!(work_ids(&page), ids, "{order:?}");
            let text = WorkQuery { order, text: Some("排序".into()), ..works_query() };
            assert_eq!(work_ids(&store.find_works(&text).await.unwrap()), with_text, "{order:?} with text");
        }
        let o2 = store.find_works(&WorkQuery { order: WorkOrder::Likes, page_size: 1, ..works_query() }).await.unwrap();
        let latest = o2.items[0].latest.as_ref().unwrap();
        assert_eq!(
            (latest.likes, latest.views, latest.comments, latest.collects),
            (Some(30), Some(100), Some(9), Some(7))
        );

        // With text, relevance puts a title match above a body match with more likes; Likes does not.
        store.upsert_work(&work("T1", "露营装备清单", "")).await.unwrap();
        store.upsert_work(&work("T2", "周末出游", "第一次露营的装备")).await.unwrap();
        store.add_work_snapshot("videosite", "T2", &likes(1_000, at(2023, 10, 27, 16))).await.unwrap();
        let text = |order| WorkQuery { order, text: Some("露营装备".into()), ..works_query() };
        assert_eq!(work_ids(&store.find_works(&text(WorkOrder::Relevance)).await.unwrap()), ["T1", "T2"]);
        assert_eq!(work_ids(&store.find_works(&text(WorkOrder::Likes)).await.unwrap()), ["T2", "T1"]);
    }

    pub async fn find_works_pages_stably_with_the_total(store: &dyn ContentStore) {
        // Seven works that tie on every order key: only the row id tells them apart.
        for i in 0..7 {
            store.upsert_work(&work(&format!("BV{i}"), "猫咪日常", "")).await.unwrap();
        }
        store.upsert_work(&work("BVdog", "狗狗日常", "")).await.unwrap();
        for (text, order, total) in [
            (Some("猫咪"), WorkOrder::Relevance, 7),
            (None, WorkOrder::Likes, 8),
            (None, WorkOrder::Newest, 8),
            (Some("日常"), WorkOrder::Views, 8),
        ] {
            let query = WorkQuery { text: text.map(Into::into), order, ..works_query() };
            let whole = store.find_works(&query).await.unwrap();
            assert_eq!(whole.total, total);
            let mut paged = Vec::new();
            for page in 1..=4 {
                let got = store.find_works(&WorkQuery { page, page_size: 3, ..query.clone() }).await.unwrap();
                assert_eq!(got.total, total, "every page counts all matches");
                assert!(got.items.len() <= 3);
                paged.extend(got.items.into_iter().map(|r| r.work.platform_id));
            }
            assert_eq!(paged, work_ids(&whole), "{order:?}: pages concatenate to the whole listing");
            // Asking again gives the same order.
            assert_eq!(work_ids(&store.find_works(&query).await.unwrap()), work_ids(&whole));
        }
        let max = store.find_works(&WorkQuery { page_size: 50, ..works_query() }).await.unwrap();
        assert_eq!(max.items.len(), 8);
    }

    pub async fn find_works_filters_by_topic(store: &dyn ContentStore) {
        let day = |d| Some(at(2024, 3, d, 0));
        let works = [
            Work { published_at: day(1), ..work("T1", "AI绘画教程：Midjourney 十分钟出图", "") },
            Work { published_at: day(2), ..work("T2", "大理洱海旅行笔记", "三天两晚的行程安排") },
            Work { published_at: day(3), ..work("T3", "霸总短剧第3集", "") },
            Work { published_at: day(4), ..work("T4", "周末随拍", "顺便聊聊 AI") },
            Work { published_at: day(5), ..work("T5", "用 DeepSeek 写周报", "") },
            Work { published_at: day(6), ..work("T6", "MAIN STREET 探店", "") },
        ];
        for w in &works {
            store.upsert_work(w).await.unwrap();
        }
        let topic =
            |topic, text: Option<&str>| WorkQuery { topic: Some(topic), text: text.map(Into::into), ..works_query() };
        let ai = store.find_works(&topic(Topic::Ai, None)).await.unwrap();
        assert_eq!((work_ids(&ai), ai.total), (vec!["T5", "T1"], 2), "a topic alone lists newest first");
        let playlet = store.find_works(&topic(Topic::Playlet, None)).await.unwrap();
        assert_eq!(work_ids(&playlet), ["T3"]);
        assert_eq!(work_ids(&store.find_works(&topic(Topic::Ai, Some("教程"))).await.unwrap()), ["T1"]);
        assert_eq!(store.find_works(&topic(Topic::Ai, Some("大理"))).await.unwrap().total, 0);
        assert_eq!(store.find_works(&topic(Topic::Ai, Some("，"))).await.unwrap().total, 0, "no terms, no match");
        let other = WorkQuery { platform: "lifestyle".into(), ..topic(Topic::Ai, None) };
        assert_eq!(store.find_works(&other).await.unwrap().total, 0);

        // Rewriting a work re-classifies it.
        store.upsert_work(&Work { title: "AI 规划大理旅行路线".into(), ..works[1].clone() }).await.unwrap();
        store.upsert_work(&Work { title: "周报模板分享".into(), ..works[4].clone() }).await.unwrap();
        let ai = store.find_works(&topic(Topic::Ai, None)).await.unwrap();
        assert_eq!(work_ids(&ai), ["T2", "T1"]);
    }

    pub async fn works_carry_their_stored_authors_brief(store: &dyn ContentStore) {
        store.upsert_work(&work("BV1", "有作者", "")).await.unwrap();
        store.upsert_work(&Work { author_id: Some("nobody".into()), ..work("BV2", "作者未入库", "") }).await.unwrap();
        store.upsert_work(&Work { author_id: None, ..work("BV3", "不知作者", "") }).await.unwrap();
        assert!(store.get_work("videosite", "BV1").await.unwrap().unwrap().author.is_none(), "author not stored yet");

        let author =
            Account { avatar: Some("https://i0.hdslb.com/face.jpg".into()), ..account("927587", "木鱼水心") };
        store.upsert_account(&author).await.unwrap();
        // The same id on another platform is another account.
        store.upsert_account(&Account { platform: "lifestyle".into(), ..account("nobody", "别的平台") }).await.unwrap();
        let brief = AuthorBrief {
            nickname: "木鱼水心".into(),
            fans: Some(100),
            avatar: Some("https://i0.hdslb.com/face.jpg".into()),
        };
        assert_eq!(store.get_work("videosite", "BV1").await.unwrap().unwrap().author, Some(brief.clone()));
        assert_eq!(store.get_work("videosite", "aid-BV1").await.unwrap().unwrap().author, Some(brief.clone()));
        let page = store.find_works(&WorkQuery { order: WorkOrder::Oldest, ..works_query() }).await.unwrap();
        let authors: Vec<_> = page.items.iter().map(|r| (r.work.platform_id.as_str(), r.author.clone())).collect();
        assert_eq!(authors, [("BV1", Some(brief.clone())), ("BV2", None), ("BV3", None)]);
        let found = store.search_works("videosite", "作者", 1, 20).await.unwrap();
        assert_eq!(found.items.iter().filter(|r| r.author.is_some()).count(), 1);

        // The brief follows the stored account.
        store.upsert_account(&Account { fans: Some(5_000), ..account("927587", "") }).await.unwrap();
        let now = store.get_work("videosite", "BV1").await.unwrap().unwrap().author.unwrap();
        assert_eq!(now, AuthorBrief { fans: Some(5_000), ..brief });
    }

    /// Seven `videosite` accounts and one `lifestyle` one.
    async fn store_accounts(store: &dyn ContentStore) {
        let with = |id: &str, nickname: &str, fans: Option<i64>, signature: &str| Account {
            fans,
            signature: Some(signature.into()),
            ..account(id, nickname)
        };
        let accounts = [
            with("a1", "美食家小王", Some(1_000), "记录每一顿好吃的"),
            with("a2", "成都美食日记", Some(5_000), "探店 火锅 串串"),
            with("a3", "美国生活日常", Some(9_000), "在美国的留学生活"),
            with("a4", "AI绘画研究所", Some(300), "Midjourney 教程分享"),
            with("a5", "小李爱画画", Some(8_000), "用AI绘画记录生活"),
            Account { category: Some("数码".into()), ..with("a6", "数码老张", None, "手机 电脑 测评") },
            with("a7", "吃货阿美", Some(20_000), "分享美食日常"),
            Account { platform: "lifestyle".into(), ..with("x1", "美食家小王", Some(1), "") },
        ];
        for a in &accounts {
            store.upsert_account(a).await.unwrap();
        }
    }

    pub async fn find_accounts_matches_text_with_the_nickname_weighted(store: &dyn ContentStore) {
        store_accounts(store).await;
        let text = |t: &str| AccountQuery { text: Some(t.into()), ..accounts_query() };
        let food = store.find_accounts(&text("美食")).await.unwrap();
        let ids = account_ids(&food);
        assert_eq!(food.total, 3, "美国 is not 美食: {ids:?}");
        let mut nickname_matches = ids[..2].to_vec();
        nickname_matches.sort();
        assert_eq!(nickname_matches, ["a1", "a2"], "nickname matches first");
        assert_eq!(ids[2], "a7", "a signature match comes after, whatever its fans");

        let ai = store.find_accounts(&text("AI绘画")).await.unwrap();
        assert_eq!(account_ids(&ai), ["a4", "a5"], "mixed query; nickname above signature");
        assert_eq!(account_ids(&store.find_accounts(&text("老张")).await.unwrap()), ["a6"]);
        assert_eq!(account_ids(&store.find_accounts(&text("美食家")).await.unwrap()), ["a1"]);
        assert_eq!(account_ids(&store.find_accounts(&text("Midjourney教程")).await.unwrap()), ["a4"]);
        assert_eq!(account_ids(&store.find_accounts(&text("数码")).await.unwrap()), ["a6"], "category is searched");
        let filtered = AccountQuery { category: Some("数码".into()), ..text("测评") };
        assert_eq!(account_ids(&store.find_accounts(&filtered).await.unwrap()), ["a6"]);
        assert_eq!(store.find_accounts(&text("，！")).await.unwrap().total, 0);
        assert_eq!(store.find_accounts(&text("滑雪")).await.unwrap().total, 0);
        let by_fans = AccountQuery { order: AccountOrder::Fans, ..text("美食") };
        assert_eq!(account_ids(&store.find_accounts(&by_fans).await.unwrap()), ["a7", "a2", "a1"]);
        let other = AccountQuery { platform: "lifestyle".into(), ..text("美食") };
        assert_eq!(account_ids(&store.find_accounts(&other).await.unwrap()), ["x1"]);

        // Re-indexed on update, keeping the fields the update does not carry.
        store.upsert_account(&account("a3", "美食留学生")).await.unwrap();
        let food = store.find_accounts(&text("美食")).await.unwrap();
        assert!(account_ids(&food).contains(&"a3"));
        assert_eq!(store.find_accounts(&text("留学")).await.unwrap().total, 1, "signature still indexed");
    }

    pub async fn find_accounts_filters_by_exact_nickname_and_category_and_orders_by_fans(store: &dyn ContentStore) {
        store_accounts(store).await;
        let nickname = |n: &str| AccountQuery { nickname: Some(n.into()), ..accounts_query() };
        let exact = store.find_accounts(&nickname("美食家小王")).await.unwrap();
        assert_eq!((account_ids(&exact), exact.total), (vec!["a1"], 1));
        assert_eq!(exact.items[0].account.fans, Some(1_000));
        assert_eq!(store.find_accounts(&nickname("美食家")).await.unwrap().total, 0, "exact, not a prefix");
        assert_eq!(store.find_accounts(&nickname("ai绘画研究所")).await.unwrap().total, 0, "case-sensitive");
        let category = AccountQuery { category: Some("数码".into()), ..accounts_query() };
        assert_eq!(account_ids(&store.find_accounts(&category).await.unwrap()), ["a6"]);

        let fans_order = ["a7", "a3", "a5", "a2", "a1", "a4", "a6"];
        for order in [AccountOrder::Fans, AccountOrder::Relevance] {
            let all = store.find_accounts(&AccountQuery { order, ..accounts_query() }).await.unwrap();
            assert_eq!((account_ids(&all), all.total), (fans_order.to_vec(), 7), "{order:?}: most fans first");
        }
        let page2 = store.find_accounts(&AccountQuery { page: 2, page_size: 3, ..accounts_query() }).await.unwrap();
        assert_eq!((account_ids(&page2), page2.total), (vec!["a2", "a1", "a4"], 7));
        let page3 = store.find_accounts(&AccountQuery { page: 3, page_size: 3, ..accounts_query() }).await.unwrap();
        assert_eq!(account_ids(&page3), ["a6"], "unknown fans last");
        let page4 = store.find_accounts(&AccountQuery { page: 4, page_size: 3, ..accounts_query() }).await.unwrap();
        assert_eq!((page4.items.len(), page4.total), (0, 7));

        // The newest snapshot comes with each account.
        let day = at(2024, 1, 1, 0);
        store
            .add_account_snapshot(
                "videosite",
                "a6",
                &AccountSnapshot { captured_at: day, fans: Some(42), ..Default::default() },
            )
            .await
            .unwrap();
        let got = store.find_accounts(&category).await.unwrap().items.remove(0);
        assert_eq!(got.latest.map(|s| (s.captured_at, s.fans)), Some((day, Some(42))));
    }

    pub async fn listings_reject_bad_paging(store: &dyn ContentStore) {
        store.upsert_work(&work("BV1", "美食", "")).await.unwrap();
        store.upsert_account(&account("1", "美食家")).await.unwrap();
        store.upsert_comment(&comment("c1", "BV1", Some(1), at(2023, 1, 1, 0))).await.unwrap();
        for (page, page_size, field) in [(0, 20, "page"), (1, 0, "pageSize"), (1, 51, "pageSize")] {
            let works = store.find_works(&WorkQuery { page, page_size, ..works_query() }).await;
            assert!(
                matches!(works, Err(StoreError::Invalid { field: f, .. }) if f == field),
                "works {page}/{page_size}"
            );
            let text = WorkQuery { page, page_size, text: Some("美食".into()), ..works_query() };
            assert!(matches!(store.find_works(&text).await, Err(StoreError::Invalid { field: f, .. }) if f == field));
            let accounts = store.find_accounts(&AccountQuery { page, page_size, ..accounts_query() }).await;
            assert!(matches!(accounts, Err(StoreError::Invalid { field: f, .. }) if f == field), "accounts");
            let comments = store.list_comments("videosite", "BV1", page, page_size).await;
            assert!(matches!(comments, Err(StoreError::Invalid { field: f, .. }) if f == field), "comments");
        }
        assert_eq!(store.find_works(&WorkQuery { page_size: 50, ..works_query() }).await.unwrap().total, 1);
        assert_eq!(store.find_accounts(&AccountQuery { page_size: 50, ..accounts_query() }).await.unwrap().total, 1);
        assert_eq!(store.list_comments("videosite", "BV1", 1, 50).await.unwrap().total, 1);
        let far = store.find_works(&WorkQuery { page: u32::MAX, page_size: 50, ..works_query() }).await.unwrap();
        assert_eq!((far.total, far.items.len()), (1, 0), "a page past the end is empty, not an error");
    }
}
