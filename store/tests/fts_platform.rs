//! SQLite's works index names each work's platform (migration 0013), and its
//! accounts index each account's (migration 0019; docs/data-apis.md "Search
//! at scale"): a search of one platform finds only that platform's works or
//! accounts, ranked as before, and a store indexed before the migration (two
//! columns) is rebuilt with the platform column when it is opened.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountOrder, AccountQuery, Record, Work, WorkOrder, WorkQuery};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::test_support as support;

fn work(platform: &str, id: &str, title: &str) -> Record {
    Record::Work(Work { platform: platform.into(), platform_id: id.into(), title: title.into(), ..Work::default() })
}

/// The ids `keyword` finds on `platform`, by relevance, and the total.
async fn search(store: &SqliteStore, platform: &str, keyword: &str) -> (Vec<String>, u64) {
    let query = WorkQuery {
        platform: platform.into(),
        text: Some(keyword.into()),
        order: WorkOrder::Relevance,
        page: 1,
        page_size: 20,
        ..WorkQuery::default()
    };
    let page = store.find_works(&query).await.unwrap();
    (page.items.into_iter().map(|r| r.work.platform_id).collect(), page.total)
}

#[tokio::test]
async fn a_search_reads_its_platform_only_before_and_after_the_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let store = SqliteStore::open(&path).await.unwrap();
    let records = vec![
        work("lifestyle", "l1", "露营装备清单"),
        work("lifestyle", "l2", "周末露营 露营地推荐"),
        work("shortvideo", "s1", "露营装备"),
        work("articles", "a1", "露营"),
        work("lifestyle", "l3", "火锅"),
    ];
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    let expected = search(&store, "lifestyle", "露营").await;
    assert_eq!(expected.1, 2, "two lifestyle works say 露营: {expected:?}");
    assert_eq!(search(&store, "shortvideo", "露营").await, (vec!["s1".to_owned()], 1));
    drop(store);

    // The index as migration 0013 found it: two columns, no platform.
    let undo = [
        "CREATE VIRTUAL TABLE works_fts_old USING fts5 (title_terms, body_terms, tokenize = 'unicode61')",
        "INSERT INTO works_fts_old (rowid, title_terms, body_terms) SELECT rowid, title_terms, body_terms FROM works_fts",
        "DROP TABLE works_fts",
        "ALTER TABLE works_fts_old RENAME TO works_fts",
    ];
    support::sqlite_before_migration(&path, &undo, 13).await;

    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(search(&store, "lifestyle", "露营").await, expected, "the same answer after the rebuild");
    assert_eq!(search(&store, "articles", "露营").await, (vec!["a1".to_owned()], 1));
    // A work written after the migration is indexed with its platform too.
    for outcome in store.write(&[work("articles", "a2", "露营攻略")]).await.unwrap() {
        outcome.unwrap();
    }
    assert_eq!(search(&store, "articles", "露营").await.1, 2);
    assert_eq!(search(&store, "lifestyle", "露营").await, expected);
}

fn account(platform: &str, id: &str, nickname: &str, fans: i64) -> Record {
    Record::Account(Account {
        platform: platform.into(),
        platform_id: id.into(),
        nickname: nickname.into(),
        fans: Some(fans),
        ..Account::default()
    })
}

/// The ids `keyword` finds among `platform`'s accounts, by relevance, and
/// the total.
async fn search_accounts(store: &SqliteStore, platform: &str, keyword: &str) -> (Vec<String>, u64) {
    let query = AccountQuery {
        platform: platform.into(),
        text: Some(keyword.into()),
        order: AccountOrder::Relevance,
        page: 1,
        page_size: 20,
        ..AccountQuery::default()
    };
    let page = store.find_accounts(&query).await.unwrap();
    (page.items.into_iter().map(|r| r.account.platform_id).collect(), page.total)
}

#[tokio::test]
async fn an_account_search_reads_its_platform_only_before_and_after_the_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let store = SqliteStore::open(&path).await.unwrap();
    let records = vec![
        account("lifestyle", "l1", "露营达人", 10),
        account("lifestyle", "l2", "露营 露营装备", 5),
        account("lifestyle", "l3", "露营小站的露营日记和露营攻略", 50),
        account("shortvideo", "s1", "露营", 100),
        account("articles", "a1", "火锅", 1),
    ];
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    let expected = search_accounts(&store, "lifestyle", "露营").await;
    assert_eq!(expected.1, 3, "three lifestyle accounts say 露营: {expected:?}");
    assert_eq!(search_accounts(&store, "shortvideo", "露营").await, (vec!["s1".to_owned()], 1));
    assert_eq!(search_accounts(&store, "articles", "露营").await, (vec![], 0));
    drop(store);

    // The index as migration 0019 found it: two columns, no platform.
    let undo = [
        "CREATE VIRTUAL TABLE accounts_fts_old USING fts5 (nickname_terms, body_terms, tokenize = 'unicode61')",
        "INSERT INTO accounts_fts_old (rowid, nickname_terms, body_terms) \
         SELECT rowid, nickname_terms, body_terms FROM accounts_fts",
        "DROP TABLE accounts_fts",
        "ALTER TABLE accounts_fts_old RENAME TO accounts_fts",
    ];
    support::sqlite_before_migration(&path, &undo, 19).await;

    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(search_accounts(&store, "lifestyle", "露营").await, expected, "the same answer after the rebuild");
    assert_eq!(search_accounts(&store, "shortvideo", "露营").await, (vec!["s1".to_owned()], 1));
    // An account written after the migration is indexed with its platform too.
    for outcome in store.write(&[account("articles", "a2", "露营攻略", 3)]).await.unwrap() {
        outcome.unwrap();
    }
    assert_eq!(search_accounts(&store, "articles", "露营").await, (vec!["a2".to_owned()], 1));
    assert_eq!(search_accounts(&store, "lifestyle", "露营").await, expected);
}
