//! A small in-memory cache in front of a slower read (Redis, the database)
//! whose writers drop entries as they change them (docs/performance.md): the API keys
//! and account limits of the Redis ledger
//! ([`crate::billing::ledger_events`]) and the banned-word lists of the
//! SQLite store (`mediaops_ops::banned_words::cached_words`).
//!
//! A read that missed takes [`ReadCache::generation`] before it asks the
//! store and hands it to [`ReadCache::put`]: if anything was forgotten
//! meanwhile the value is not kept (it may be the one just changed). A
//! cache can be *live* or not: one that is not (its invalidation channel
//! is down) neither answers nor keeps anything. A full cache starts afresh.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// See the module docs.
#[derive(Debug)]
pub struct ReadCache<V> {
    /// Key → value, and when it was read.
    entries: Mutex<HashMap<String, (V, Instant)>>,
    live: AtomicBool,
    /// Bumped by every forget and every change of liveness: a read that
    /// started before one of them is not cached ([`ReadCache::put`]).
    generation: AtomicU64,
    /// How long an entry is trusted at most; `None` = until forgotten.
    ttl: Option<Duration>,
    /// Entries kept at most.
    capacity: usize,
}

impl<V: Clone> ReadCache<V> {
    /// A cache that is not live until [`ReadCache::set_live`] says its
    /// invalidation channel is up; entries live at most `ttl`.
    pub fn subscribed(ttl: Duration, capacity: usize) -> ReadCache<V> {
        ReadCache::new(false, Some(ttl), capacity)
    }

    /// A cache of a store whose only writer drops entries through it:
    /// live from the start, entries kept until forgotten.
    pub fn sole_writer(capacity: usize) -> ReadCache<V> {
        ReadCache::new(true, None, capacity)
    }

    fn new(live: bool, ttl: Option<Duration>, capacity: usize) -> ReadCache<V> {
        ReadCache {
            entries: Mutex::default(),
            live: AtomicBool::new(live),
            generation: AtomicU64::new(0),
            ttl,
            capacity,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (V, Instant)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The generation to pass to [`ReadCache::put`] after reading.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The cached value of `key`, when the cache is live and the entry
    /// younger than its time to live.
    pub fn get(&self, key: &str) -> Option<V> {
        if !self.live.load(Ordering::Acquire) {
            return None;
        }
        let entries = self.lock();
        let (value, read_at) = entries.get(key)?;
        self.ttl.is_none_or(|ttl| read_at.elapsed() < ttl).then(|| value.clone())
    }

    /// Caches a value read at `generation`: dropped when the cache is not
    /// live or anything was forgotten since (the key may be the one changed
    /// meanwhile).
    pub fn put(&self, key: &str, value: &V, generation: u64) {
        if !self.live.load(Ordering::Acquire) {
            return;
        }
        let mut entries = self.lock();
        if self.generation() != generation {
            return;
        }
        if entries.len() >= self.capacity {
            entries.clear();
        }
        entries.insert(key.to_owned(), (value.clone(), Instant::now()));
    }

    /// Forgets `key` (it changed).
    pub fn forget(&self, key: &str) {
        let mut entries = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.remove(key);
    }

    /// The invalidation channel came up (`true`) or went down (`false`);
    /// either way the cache starts empty, since changes may have been
    /// missed.
    pub fn set_live(&self, live: bool) {
        let mut entries = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.live.store(live, Ordering::Release);
        entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Principal;
    use crate::rate_limit::Limit;

    fn principal() -> Principal {
        Principal { account_id: "a".into(), key_id: "k".into(), key_prefix: "mk_…".into() }
    }

    #[test]
    fn used_only_while_live_and_forgets() {
        let cache = ReadCache::subscribed(Duration::from_secs(10), 100);
        cache.put("h", &principal(), cache.generation());
        assert_eq!(cache.get("h"), None, "not live: nothing cached");
        cache.set_live(true);
        cache.put("h", &principal(), cache.generation());
        assert_eq!(cache.get("h"), Some(principal()));
        cache.forget("h");
        assert_eq!(cache.get("h"), None);
        cache.put("h", &principal(), cache.generation());
        cache.set_live(false);
        assert_eq!(cache.get("h"), None, "down: not used");
        cache.set_live(true);
        assert_eq!(cache.get("h"), None, "back up: starts empty");
    }

    #[test]
    fn a_read_overtaken_by_a_forget_is_not_cached() {
        let cache = ReadCache::subscribed(Duration::from_secs(10), 100);
        cache.set_live(true);
        let before_read = cache.generation();
        cache.forget("acct");
        cache.put("acct", &Some(Limit::Off), before_read);
        assert_eq!(cache.get("acct"), None);
    }
}
