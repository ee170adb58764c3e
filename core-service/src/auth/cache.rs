//! The API keys a core has recently seen, so that a call does not read its
//! key from Redis every time (issue 22 item 3), and forgets them the moment
//! they are disabled anywhere (docs/billing.md "Key cache").
//!
//! An entry is used only while the cache is *live*: while the core's
//! subscription to the ledger's key-event channel
//! ([`crate::billing::key_events`]) is up, so a key disabled on any replica
//! reaches every replica's cache within the channel's delivery time
//! (milliseconds). While the subscription is down the cache is empty and
//! not used: every call reads its key from Redis, as before. An entry
//! lives at most [`KeyCache::TTL`] either way.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::Principal;

/// See the module docs.
#[derive(Debug, Default)]
pub struct KeyCache {
    /// SHA-256 hex of the key → its principal, and when it was read.
    entries: Mutex<HashMap<String, (Principal, Instant)>>,
    live: AtomicBool,
    /// Bumped by every forget and every change of liveness: a read that
    /// started before one of them is not cached ([`KeyCache::put`]).
    generation: AtomicU64,
}

impl KeyCache {
    /// How long an entry is trusted at most, even with the subscription up
    /// (a bound for a lost event message).
    pub const TTL: Duration = Duration::from_secs(10);

    /// Entries kept at most; a full cache starts afresh.
    pub const CAPACITY: usize = 100_000;

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Principal, Instant)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The generation to pass to [`KeyCache::put`] after reading a key.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The cached principal of the key hashed `hash`, when the cache is live
    /// and the entry younger than [`KeyCache::TTL`].
    pub fn get(&self, hash: &str) -> Option<Principal> {
        if !self.live.load(Ordering::Acquire) {
            return None;
        }
        let entries = self.lock();
        let (principal, read_at) = entries.get(hash)?;
        (read_at.elapsed() < Self::TTL).then(|| principal.clone())
    }

    /// Caches an enabled key read at `generation`: dropped when the cache is
    /// not live or anything was forgotten since (the key may be the one
    /// disabled meanwhile).
    pub fn put(&self, hash: &str, principal: &Principal, generation: u64) {
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
        entries.insert(hash.to_owned(), (principal.clone(), Instant::now()));
    }

    /// Forgets the key hashed `hash` (it was disabled).
    pub fn forget(&self, hash: &str) {
        let mut entries = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.remove(hash);
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
        let cache = KeyCache::default();
        cache.set_live(true);
        let before_read = cache.generation();
        cache.forget("h");
        cache.put("h", &principal(), before_read);
        assert_eq!(cache.get("h"), None);
    }
}
