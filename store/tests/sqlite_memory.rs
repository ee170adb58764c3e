//! SQLite's memory through the process's Rust allocator
//! (`mediaops_store::sqlite_memory`), in a process of its own so that it is
//! set before SQLite's first connection: the store opens, writes and reads
//! through it (large statements, sorts, the full-text index, every size of
//! allocation and reallocation), SQLite's memory statistics are off, and a
//! second call, once SQLite is initialized, is refused without harm.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::ContentStore;
use mediaops_store::model::{Record, Work, WorkOrder, WorkQuery};
use mediaops_store::sqlite::SqliteStore;
use rusqlite::ffi;

#[tokio::test]
async fn sqlite_allocates_through_the_process_allocator() {
    mediaops_store::sqlite_memory::use_process_allocator().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let records: Vec<Record> = (0..3_000)
        .map(|w| {
            Record::Work(Work {
                platform: "lifestyle".into(),
                platform_id: format!("w{w}"),
                title: format!("火锅作品{w} {}", "长标题".repeat(w % 200)),
                ..Work::default()
            })
        })
        .collect();
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    let query = WorkQuery {
        platform: "lifestyle".into(),
        text: Some("火锅".into()),
        order: WorkOrder::Relevance,
        page: 3,
        page_size: 50,
        ..WorkQuery::default()
    };
    let page = store.find_works(&query).await.unwrap();
    assert_eq!(page.items.len(), 50);
    assert_eq!(page.total, 3_000);
    assert_eq!(unsafe { ffi::sqlite3_memory_used() }, 0, "the statistics are off");
    assert_eq!(mediaops_store::sqlite_memory::use_process_allocator(), Err(ffi::SQLITE_MISUSE));
    let again = store.find_works(&WorkQuery { page: 1, ..query }).await.unwrap();
    assert_eq!(again.items.len(), 50);
}
