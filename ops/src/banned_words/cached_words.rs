//! The word lists of the accounts that checked text lately, kept in memory
//! in front of a [`CustomWordStore`] that only this process writes (the
//! SQLite store of a data directory; a banned-word check no
//! longer reads the database each time). A `put` goes through to the store
//! and then drops the account's entry. A shared PostgreSQL store is not
//! wrapped: another replica may change a list (docs/banned-words.md).

use std::sync::Arc;

use mediaops_platform::read_cache::ReadCache;
use mediaops_proto::error::ServiceError;
use mediaops_store::word_list::{AccountLists, CustomWordStore, WordList};

/// See the module docs.
pub struct CachedWordStore {
    inner: Arc<dyn CustomWordStore>,
    lists: ReadCache<Arc<AccountLists>>,
}

impl CachedWordStore {
    /// Accounts kept at most; a full cache starts afresh.
    pub const CAPACITY: usize = 10_000;

    /// `inner` with a cache in front; `inner` must have no other writer.
    pub fn new(inner: Arc<dyn CustomWordStore>) -> CachedWordStore {
        CachedWordStore { inner, lists: ReadCache::sole_writer(Self::CAPACITY) }
    }
}

#[async_trait::async_trait]
impl CustomWordStore for CachedWordStore {
    async fn get(&self, account_id: &str) -> Result<Arc<AccountLists>, ServiceError> {
        if let Some(lists) = self.lists.get(account_id) {
            return Ok(lists);
        }
        let generation = self.lists.generation();
        let lists = self.inner.get(account_id).await?;
        self.lists.put(account_id, &lists, generation);
        Ok(lists)
    }

    async fn put(&self, account_id: &str, scope: &str, list: &WordList) -> Result<(), ServiceError> {
        let stored = self.inner.put(account_id, scope, list).await;
        self.lists.forget(account_id);
        stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_store::word_list::AddedWord;

    fn list(word: &str) -> WordList {
        WordList {
            add: vec![AddedWord { word: word.into(), category: "自定义".into() }],
            allow: vec![],
            updated_at: None,
        }
    }

    /// On the real SQLite store: a cached account sees its own `put` at
    /// once, and what is cached is what the store holds.
    #[tokio::test]
    async fn a_put_is_seen_by_the_next_get() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
        let store = CachedWordStore::new(Arc::new(sqlite.clone()));
        assert!(store.get("a").await.unwrap().lists.is_empty());
        store.put("a", "all", &list("私域")).await.unwrap();
        assert_eq!(store.get("a").await.unwrap().lists["all"], list("私域"));
        store.put("a", "all", &list("保底")).await.unwrap();
        let cached = store.get("a").await.unwrap();
        assert_eq!(cached.lists["all"], list("保底"));
        assert_eq!(CustomWordStore::get(&sqlite, "a").await.unwrap(), cached, "the store holds what is cached");
        store.put("a", "all", &WordList::default()).await.unwrap();
        assert!(store.get("a").await.unwrap().lists.is_empty());
    }
}
