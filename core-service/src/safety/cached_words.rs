//! The word lists of the accounts that checked text lately, kept in memory
//! in front of a [`CustomWordStore`] that only this process writes (the
//! SQLite store of a data directory; issue 22: a banned-word check no
//! longer reads the database each time). A `put` goes through to the store
//! and then drops the account's entry. A shared PostgreSQL store is not
//! wrapped: another replica may change a list (docs/banned-words.md).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::custom::{AccountLists, CustomWordStore, WordList};
use crate::error::ServiceError;

/// See the module docs.
pub struct CachedWordStore {
    inner: Arc<dyn CustomWordStore>,
    lists: Mutex<HashMap<String, Arc<AccountLists>>>,
    /// Bumped by every `put`: a read that started before one is not kept.
    generation: AtomicU64,
}

impl CachedWordStore {
    /// Accounts kept at most; a full cache starts afresh.
    pub const CAPACITY: usize = 10_000;

    /// `inner` with a cache in front; `inner` must have no other writer.
    pub fn new(inner: Arc<dyn CustomWordStore>) -> CachedWordStore {
        CachedWordStore { inner, lists: Mutex::default(), generation: AtomicU64::new(0) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AccountLists>>> {
        self.lists.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait::async_trait]
impl CustomWordStore for CachedWordStore {
    async fn get(&self, account_id: &str) -> Result<Arc<AccountLists>, ServiceError> {
        if let Some(lists) = self.lock().get(account_id) {
            return Ok(lists.clone());
        }
        let generation = self.generation.load(Ordering::Acquire);
        let lists = self.inner.get(account_id).await?;
        let mut cached = self.lock();
        if self.generation.load(Ordering::Acquire) == generation {
            if cached.len() >= Self::CAPACITY {
                cached.clear();
            }
            cached.insert(account_id.to_owned(), lists.clone());
        }
        Ok(lists)
    }

    async fn put(&self, account_id: &str, scope: &str, list: &WordList) -> Result<(), ServiceError> {
        let stored = self.inner.put(account_id, scope, list).await;
        let mut cached = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        cached.remove(account_id);
        stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::safety::custom::AddedWord;

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
        let sqlite = crate::store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
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
