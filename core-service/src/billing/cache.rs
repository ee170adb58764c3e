//! What a core read lately from the Redis ledger and may use again without
//! asking (issue 22 item 3; docs/billing.md "Key cache"): the API keys it
//! has seen ([`KeyCache`]) and the accounts' own rate limits
//! ([`LimitCache`]). Each forgets an entry the moment any replica changes
//! it, announced on the ledger's event channel
//! ([`super::ledger_events`]).
//!
//! An entry is used only while the cache is *live*: while the core's
//! subscription to that channel is up, so a change on any replica reaches
//! every replica's cache within the channel's delivery time
//! (milliseconds). While the subscription is down the cache is empty and
//! not used: every call reads Redis, as before. An entry lives at most
//! [`SubscribedCache::TTL`] either way.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::auth::Principal;
use crate::rate_limit::Limit;

/// Enabled API keys by SHA-256 hex.
pub type KeyCache = SubscribedCache<Principal>;

/// Accounts' own rate limits (`None`: the account has none, the default
/// applies) by account id.
pub type LimitCache = SubscribedCache<Option<Limit>>;

/// See the module docs.
#[derive(Debug)]
pub struct SubscribedCache<V> {
    /// Key → value, and when it was read.
    entries: Mutex<HashMap<String, (V, Instant)>>,
    live: AtomicBool,
    /// Bumped by every forget and every change of liveness: a read that
    /// started before one of them is not cached ([`SubscribedCache::put`]).
    generation: AtomicU64,
}

impl<V> Default for SubscribedCache<V> {
    fn default() -> Self {
        SubscribedCache { entries: Mutex::default(), live: AtomicBool::new(false), generation: AtomicU64::new(0) }
    }
}

impl<V: Clone> SubscribedCache<V> {
    /// How long an entry is trusted at most, even with the subscription up
    /// (a bound for a lost event message).
    pub const TTL: Duration = Duration::from_secs(10);

    /// Entries kept at most; a full cache starts afresh.
    pub const CAPACITY: usize = 100_000;

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (V, Instant)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The generation to pass to [`SubscribedCache::put`] after reading.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The cached value of `key`, when the cache is live and the entry
    /// younger than [`SubscribedCache::TTL`].
    pub fn get(&self, key: &str) -> Option<V> {
        if !self.live.load(Ordering::Acquire) {
            return None;
        }
        let entries = self.lock();
        let (value, read_at) = entries.get(key)?;
        (read_at.elapsed() < Self::TTL).then(|| value.clone())
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
        if entries.len() >= Self::CAPACITY {
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

    /// The subscription came up (`true`) or went down (`false`); either way
    /// the cache starts empty, since events may have been missed.
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

    fn principal() -> Principal {
        Principal { account_id: "a".into(), key_id: "k".into(), key_prefix: "mk_…".into() }
    }

    #[test]
    fn used_only_while_live_and_forgets() {
        let cache = KeyCache::default();
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
        let cache = LimitCache::default();
        cache.set_live(true);
        let before_read = cache.generation();
        cache.forget("acct");
        cache.put("acct", &Some(Limit::Off), before_read);
        assert_eq!(cache.get("acct"), None);
    }
}
