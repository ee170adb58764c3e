//! The word lists of the accounts that checked text lately, kept in memory
//! in front of a [`CustomWordStore`] (a banned-word check no longer reads
//! the database each time). A `put` goes through to the store and then
//! drops the account's entry. On a SQLite store this process is the only
//! writer; on a shared PostgreSQL store another replica may change a list,
//! and its commit's notice drops every kept list (docs/banned-words.md,
//! docs/store.md "Point reads on PostgreSQL").

use std::sync::Arc;

use mediaops_platform::read_cache::ReadCache;
use mediaops_proto::error::ServiceError;
use mediaops_store::change_notices::{MAX_AGE, Notices, Seen};
use mediaops_store::word_list::{AccountLists, CustomWordStore, WordList};

/// See the module docs.
pub struct CachedWordStore {
    inner: Arc<dyn CustomWordStore>,
    lists: ReadCache<Arc<AccountLists>>,
    /// The notices of a shared store, and their word-list count when the
    /// kept lists were last dropped.
    notices: Option<(Arc<Notices>, Seen)>,
}

impl CachedWordStore {
    /// Accounts kept at most; a full cache starts afresh.
    pub const CAPACITY: usize = 10_000;

    /// `inner` with a cache in front; `inner` must have no other writer.
    pub fn new(inner: Arc<dyn CustomWordStore>) -> CachedWordStore {
        CachedWordStore { inner, lists: ReadCache::sole_writer(Self::CAPACITY), notices: None }
    }

    /// `inner`, a shared store whose changes `notices` hears, with a cache
    /// in front: nothing is served while nobody listens, and no list older
    /// than [`mediaops_store::change_notices::MAX_AGE`].
    pub fn notified(inner: Arc<dyn CustomWordStore>, notices: Arc<Notices>) -> CachedWordStore {
        let lists = ReadCache::subscribed(MAX_AGE, Self::CAPACITY);
        // Nothing seen yet: the first look sets the cache's liveness.
        CachedWordStore { inner, lists, notices: Some((notices, Seen::default())) }
    }

    /// Drops the kept lists when a notice came since the last look, and
    /// follows the listener's liveness.
    fn follow_notices(&self) {
        let Some((notices, seen)) = &self.notices else { return };
        seen.follow(notices, notices.word_lists(), || self.lists.set_live(notices.listening()));
    }
}

#[async_trait::async_trait]
impl CustomWordStore for CachedWordStore {
    async fn get(&self, account_id: &str) -> Result<Arc<AccountLists>, ServiceError> {
        self.follow_notices();
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
    use std::time::Duration;

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

    /// Waits up to 10 s for `account`'s list in `store` to be `want`.
    async fn eventually_sees(store: &CachedWordStore, account: &str, want: &WordList) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while store.get(account).await.unwrap().lists.get("all") != Some(want) {
            assert!(std::time::Instant::now() < deadline, "{account} not seen as {want:?} within 10 s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// On two real PostgreSQL stores of one schema (two replicas): each
    /// sees its own `put` at once and the other's through its notice; a
    /// write that notifies nobody is served from memory until its age.
    #[tokio::test]
    async fn a_shared_store_hears_the_other_replicas_put() {
        use mediaops_store::postgres::PostgresStore;
        use sqlx::Connection;
        // A database of its own: the other tests' notices would drop the
        // list that the silent write below expects kept.
        mediaops_store::test_support::with_postgres_database("cached_words", async |options| {
            let open = |o: sqlx::postgres::PgConnectOptions| async move {
                let store = PostgresStore::open_with(o).await.unwrap();
                let notices = store.notices().expect("a PostgreSQL store listens");
                (CachedWordStore::notified(Arc::new(store), notices.clone()), notices)
            };
            let ((one, heard_by_one), (other, _)) = (open(options.clone()).await, open(options.clone()).await);
            one.put("a", "all", &list("私域")).await.unwrap();
            assert_eq!(one.get("a").await.unwrap().lists["all"], list("私域"), "its own put at once");
            eventually_sees(&other, "a", &list("私域")).await;
            other.put("a", "all", &list("保底")).await.unwrap();
            eventually_sees(&one, "a", &list("保底")).await;

            let mut conn = sqlx::PgConnection::connect_with(&options).await.unwrap();
            // Every notice so far heard (its own put's could land after the
            // other's list was read, and drop it below).
            let content = mediaops_store::change_notices::CONTENT;
            mediaops_store::test_support::hear_all_notices(&mut conn, &heard_by_one, content).await;
            sqlx::query("SET session_replication_role = replica").execute(&mut conn).await.unwrap();
            let silent = serde_json::json!({"add": [{"word": "无声", "category": "自定义"}], "allow": []});
            assert_eq!(one.get("a").await.unwrap().lists["all"], list("保底"));
            sqlx::query("UPDATE word_lists SET list = $1 WHERE account_id = 'a'")
                .bind(silent.to_string())
                .execute(&mut conn)
                .await
                .unwrap();
            assert_eq!(one.get("a").await.unwrap().lists["all"], list("保底"), "kept in memory");
            eventually_sees(&one, "a", &list("无声")).await;
        })
        .await;
    }
}
