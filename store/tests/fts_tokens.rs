//! The embedded store keeps each work's and account's FTS5 token count
//! beside the row (`fts_tokens`, migration 0023, store/src/fts5_tokens.rs)
//! and its searches score with it (docs/rankings.md "Searches: what each
//! match's length costs"): the count is FTS5's own after every write, a
//! store from before the migration is filled in when it is opened, and the
//! relevance order reads the column.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::ContentStore;
use mediaops_store::fts5_tokens::total_tokens;
use mediaops_store::model::{Account, AccountOrder, AccountQuery, Record, Work, WorkOrder, WorkQuery};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::test_support as support;
use sqlx::{Connection, Row};

fn work(id: &str, title: &str, description: &str) -> Record {
    Record::Work(Work {
        platform: "lifestyle".into(),
        platform_id: id.into(),
        title: title.into(),
        description: Some(description.into()),
        ..Work::default()
    })
}

fn account(id: &str, nickname: &str) -> Record {
    Record::Account(Account {
        platform: "lifestyle".into(),
        platform_id: id.into(),
        nickname: nickname.into(),
        ..Account::default()
    })
}

fn records() -> Vec<Record> {
    vec![
        work("w1", "露营装备清单", "周末去露营，带上帐篷和睡袋"),
        work("w2", "露营", "一次很长的旅行：从北京出发，经过河北、山西，最后到内蒙古的草原上露营看星星"),
        work("w3", "火锅探店", "成都最好吃的火锅"),
        work("w4", "露营地推荐", ""),
        account("a1", "露营达人"),
        account("a2", "露营小站的露营日记和露营攻略"),
    ]
}

/// Each row of `table` (`works` or `accounts`): its platform id, its
/// `fts_tokens`, and FTS5's own count from the docsize blob.
async fn counts(path: &std::path::Path, table: &str) -> Vec<(String, Option<i64>, Option<i64>)> {
    let mut conn = support::sqlite_connection(path).await;
    let statement = format!(
        "SELECT t.platform_id, t.fts_tokens, d.sz FROM {table} t LEFT JOIN {table}_fts_docsize d ON d.id = t.id \
         ORDER BY t.id"
    );
    let rows = sqlx::query(&statement).fetch_all(&mut conn).await.unwrap();
    conn.close().await.unwrap();
    rows.iter()
        .map(|row| {
            let sz: Option<Vec<u8>> = row.get(2);
            (row.get(0), row.get(1), sz.and_then(|sz| total_tokens(&sz)))
        })
        .collect()
}

/// Every row's `fts_tokens` is FTS5's count, and a positive one.
async fn assert_counts_are_fts5s(path: &std::path::Path) {
    for table in ["works", "accounts"] {
        let rows = counts(path, table).await;
        assert!(!rows.is_empty(), "no {table}");
        for (id, kept, fts5) in rows {
            assert!(kept.is_some_and(|n| n > 0), "{table} {id}: {kept:?}");
            assert_eq!(kept, fts5, "{table} {id}");
        }
    }
}

async fn search(store: &SqliteStore, keyword: &str) -> Vec<String> {
    let query = WorkQuery {
        platform: "lifestyle".into(),
        text: Some(keyword.into()),
        order: WorkOrder::Relevance,
        page: 1,
        page_size: 20,
        ..WorkQuery::default()
    };
    store.find_works(&query).await.unwrap().items.into_iter().map(|r| r.work.platform_id).collect()
}

async fn search_accounts(store: &SqliteStore, keyword: &str) -> Vec<String> {
    let query = AccountQuery {
        platform: "lifestyle".into(),
        text: Some(keyword.into()),
        order: AccountOrder::Relevance,
        page: 1,
        page_size: 20,
        ..AccountQuery::default()
    };
    store.find_accounts(&query).await.unwrap().items.into_iter().map(|r| r.account.platform_id).collect()
}

#[tokio::test]
async fn every_write_keeps_fts5s_count_and_an_old_store_is_filled_in() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let store = SqliteStore::open(&path).await.unwrap();
    support::write_all(&store, &records()).await;
    assert_counts_are_fts5s(&path).await;
    let (works, accounts) = (search(&store, "露营").await, search_accounts(&store, "露营").await);
    assert_eq!(works.len(), 3, "{works:?}");
    assert_eq!(accounts.len(), 2, "{accounts:?}");

    // A rewritten work is counted again.
    let before = counts(&path, "works").await[2].1.unwrap();
    support::write_all(&store, &[work("w3", "火锅探店：成都 重庆 两地 十家 火锅店", "成都最好吃的火锅")]).await;
    assert!(counts(&path, "works").await[2].1.unwrap() > before);
    assert_counts_are_fts5s(&path).await;
    drop(store);

    // The store as it was before migration 0023: no column, so none of
    // the later index of the search's keys (0026) either.
    support::sqlite_before_migration(&path, &["DROP INDEX works_score_keys"], 26).await;
    let undo = ["ALTER TABLE works DROP COLUMN fts_tokens", "ALTER TABLE accounts DROP COLUMN fts_tokens"];
    support::sqlite_before_migration(&path, &undo, 23).await;
    let store = SqliteStore::open(&path).await.unwrap();
    assert_counts_are_fts5s(&path).await;
    assert_eq!(search(&store, "露营").await, works, "the same order after the migration");
    assert_eq!(search_accounts(&store, "露营").await, accounts);
}

/// The score reads the kept count: told that the best match is very long,
/// the search ranks it last; given its count back, first again; without
/// one (NULL), FTS5's lookup gives the same order as the count.
#[tokio::test]
async fn the_relevance_order_reads_the_kept_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let store = SqliteStore::open(&path).await.unwrap();
    support::write_all(&store, &records()).await;
    let order = search(&store, "露营").await;
    let best = order[0].clone();
    let mut conn = support::sqlite_connection(&path).await;
    let kept: i64 = sqlx::query_scalar("SELECT fts_tokens FROM works WHERE platform_id = ?1")
        .bind(&best)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let set = |tokens: Option<i64>| {
        sqlx::query("UPDATE works SET fts_tokens = ?1 WHERE platform_id = ?2").bind(tokens).bind(best.clone())
    };
    set(Some(100_000)).execute(&mut conn).await.unwrap();
    let told_long = search(&store, "露营").await;
    assert_eq!(told_long.last(), Some(&best), "{told_long:?}");
    set(None).execute(&mut conn).await.unwrap();
    assert_eq!(search(&store, "露营").await, order, "FTS5's own lookup");
    set(Some(kept)).execute(&mut conn).await.unwrap();
    assert_eq!(search(&store, "露营").await, order);
    conn.close().await.unwrap();
}
