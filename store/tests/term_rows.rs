//! The embedded store keeps how many works hold each index term
//! (`work_term_rows`, migration 0024) for the relevance score's IDF
//! (store/src/fts5_bm25.rs, docs/data-apis.md "The score on SQLite"): the
//! count is FTS5's own (the rows holding the term in the title or the body)
//! after every write and rewrite, and a store from before the migration is
//! counted when it is opened.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::ContentStore;
use mediaops_store::model::{Record, Work, WorkOrder, WorkQuery};
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::test_support as support;
use sqlx::Connection;

fn work(platform: &str, id: &str, title: &str, description: &str) -> Record {
    Record::Work(Work {
        platform: platform.into(),
        platform_id: id.into(),
        title: title.into(),
        description: Some(description.into()),
        tags: vec!["露营".into()],
        ..Work::default()
    })
}

fn records() -> Vec<Record> {
    vec![
        work("lifestyle", "w1", "露营装备清单", "周末去露营，带上帐篷和睡袋，露营装备"),
        work("lifestyle", "w2", "AI绘画作品", "ai 绘画 2026 作品合集"),
        work("lifestyle", "w3", "探店", "成都的火锅"),
        work("shortvideo", "w1", "露营 vlog", "帐篷 露营 星空"),
        work("articles", "w9", "美味佳肴", "美味佳肴的做法"),
    ]
}

/// Every counted term's count is the number of rows FTS5 finds holding it
/// in the title or the body, and every term FTS5 holds there that is made
/// of letters, digits and CJK ideographs is counted. Returns the counts.
async fn assert_rows_are_fts5s(path: &std::path::Path) -> Vec<(String, i64)> {
    let mut conn = support::sqlite_connection(path).await;
    let counted: Vec<(String, i64)> =
        sqlx::query_as("SELECT term, rows FROM work_term_rows ORDER BY term").fetch_all(&mut conn).await.unwrap();
    assert!(counted.len() > 10, "{counted:?}");
    for (term, rows) in &counted {
        let query = format!("{{title_terms body_terms}} : \"{term}\"");
        let fts5: i64 = sqlx::query_scalar("SELECT count(*) FROM works_fts WHERE works_fts MATCH ?1")
            .bind(query)
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(*rows, fts5, "{term}");
    }
    sqlx::query("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, works_fts, col)")
        .execute(&mut conn)
        .await
        .unwrap();
    let held: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT term FROM temp.vocab WHERE col IN ('title_terms', 'body_terms') ORDER BY term",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let exact = |t: &String| t.chars().all(mediaops_store::text::exact_char);
    for term in held.iter().filter(|t| exact(t)) {
        assert!(counted.iter().any(|(c, rows)| c == term && *rows > 0), "{term} is not counted");
    }
    conn.close().await.unwrap();
    counted
}

#[tokio::test]
async fn each_terms_count_of_works_is_fts5s_after_writes_rewrites_and_the_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let store = SqliteStore::open(&path).await.unwrap();
    support::write_all(&store, &records()).await;
    let counted = assert_rows_are_fts5s(&path).await;
    let camping = |counted: &[(String, i64)]| counted.iter().find(|(t, _)| t == "露营").unwrap().1;
    assert_eq!(camping(&counted), 5, "every work's tag is 露营 (one row each, however often)");

    // A rewritten work is counted again: w1's title and text no longer hold
    // 露营, but its tag does; then with another tag, it does not.
    support::write_all(
        &store,
        &[work("lifestyle", "w1", "装备清单", "帐篷和睡袋"), work("lifestyle", "w3", "露营探店", "")],
    )
    .await;
    assert_eq!(camping(&assert_rows_are_fts5s(&path).await), 5);
    let retagged = Record::Work(Work {
        platform: "lifestyle".into(),
        platform_id: "w1".into(),
        title: "装备清单".into(),
        tags: vec!["装备".into()],
        ..Work::default()
    });
    support::write_all(&store, &[retagged]).await;
    assert_eq!(camping(&assert_rows_are_fts5s(&path).await), 4);
    drop(store);

    // The store as it was before migration 0024.
    let undo =
        ["DROP TRIGGER work_term_rows_insert", "DROP TRIGGER work_term_rows_delete", "DROP TABLE work_term_rows"];
    support::sqlite_before_migration(&path, &undo, 24).await;
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(camping(&assert_rows_are_fts5s(&path).await), 4);

    // A search of two terms ranks with the counts: its order is the one
    // FTS5's own counts give (docs/data-apis.md "The score on SQLite").
    let query = WorkQuery {
        platform: "lifestyle".into(),
        text: Some("露营 探店".into()),
        order: WorkOrder::Relevance,
        page: 1,
        page_size: 20,
        ..WorkQuery::default()
    };
    let found = store.find_works(&query).await.unwrap();
    assert_eq!(found.items.iter().map(|r| r.work.platform_id.as_str()).collect::<Vec<_>>(), ["w3"]);
}
