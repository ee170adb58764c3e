//! The embedded store's point reads without a thread hand-off
//! (docs/performance.md "Point reads"): the works and accounts that
//! [`ContentStore::get_work`](super::ContentStore::get_work) and
//! [`ContentStore::get_account`](super::ContentStore::get_account) returned
//! are kept in memory, keyed by `(platform, the id asked for)`, and served
//! from there while the database file is unchanged.
//!
//! "Unchanged" is SQLite's own counter: a connection of this cache, opened
//! read-only on the same file and used in place on the caller's thread,
//! asks `PRAGMA data_version` before every lookup. Its value moves when any
//! other connection commits, the store's own pool (every write of this
//! process) and any other process (an import by another `mediaops`) alike;
//! then every entry is dropped. A read that missed is stored only if no
//! change was seen since the lookup that missed ([`Missed`]), so a row read
//! before a commit is never kept past it. A hit therefore answers what a
//! read of the database at that moment would.
//!
//! The check is one step of a prepared statement on a connection that
//! never leaves the caller's thread (~1 µs); a read through sqlx's SQLite
//! driver crosses to the connection's worker thread and back (tens of µs on
//! a loaded 2-core machine), which was most of a charged data call.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags};

use super::model::{AccountRecord, WorkRecord};

/// Entries kept per kind before the map is emptied (a bound on memory, not
/// an eviction policy: hot records come back on the next read).
const MAX_ENTRIES: usize = 4096;

/// `(platform, id)` as the caller asked it (any id form of the record).
type Key = (String, String);

/// The cache of one embedded store; see the module documentation.
pub(crate) struct PointCache {
    inner: Mutex<Inner>,
}

struct Inner {
    /// Read-only connection to the store's file, only asked its data version.
    watch: Connection,
    /// The last `PRAGMA data_version` seen (`None`: none yet, or it failed).
    version: Option<i64>,
    /// Bumped whenever the entries are dropped.
    epoch: u64,
    works: HashMap<Key, WorkRecord>,
    accounts: HashMap<Key, AccountRecord>,
}

/// A lookup that missed: the epoch its read may be stored under
/// ([`PointCache::keep_work`], [`PointCache::keep_account`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Missed(u64);

/// A lookup's answer.
pub(crate) enum Lookup<T> {
    Hit(T),
    Miss(Missed),
}

/// The record `lookup` found in `cache` (`Ok`), or what a read through the
/// pool is kept under (`Err(None)`: the store has no cache).
pub(crate) fn look<T>(
    cache: Option<&PointCache>,
    lookup: impl FnOnce(&PointCache) -> Lookup<T>,
) -> Result<T, Option<Missed>> {
    match cache.map(lookup) {
        Some(Lookup::Hit(record)) => Ok(record),
        Some(Lookup::Miss(missed)) => Err(Some(missed)),
        None => Err(None),
    }
}

impl PointCache {
    /// A cache over the SQLite file `path` (already created and migrated by
    /// the store). `None` when the file cannot be opened a second time, and
    /// then the store reads through its pool as before.
    pub(crate) fn open(path: &Path) -> Option<PointCache> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        match Connection::open_with_flags(path, flags) {
            Ok(watch) => Some(PointCache {
                inner: Mutex::new(Inner {
                    watch,
                    version: None,
                    epoch: 0,
                    works: HashMap::new(),
                    accounts: HashMap::new(),
                }),
            }),
            Err(e) => {
                tracing::warn!(error = %e, path = %path.display(), "store point reads: no cache");
                None
            }
        }
    }

    /// The work stored for `(platform, id)`, if kept and still current.
    pub(crate) fn work(&self, platform: &str, id: &str) -> Lookup<WorkRecord> {
        self.lookup(platform, id, |inner| &inner.works)
    }

    /// The account stored for `(platform, id)`, if kept and still current.
    pub(crate) fn account(&self, platform: &str, id: &str) -> Lookup<AccountRecord> {
        self.lookup(platform, id, |inner| &inner.accounts)
    }

    /// Keeps a work read after the lookup that `missed`.
    pub(crate) fn keep_work(&self, missed: Missed, platform: &str, id: &str, record: &WorkRecord) {
        self.keep(missed, platform, id, record, |inner| &mut inner.works);
    }

    /// Keeps an account read after the lookup that `missed`.
    pub(crate) fn keep_account(&self, missed: Missed, platform: &str, id: &str, record: &AccountRecord) {
        self.keep(missed, platform, id, record, |inner| &mut inner.accounts);
    }

    fn lookup<T: Clone>(&self, platform: &str, id: &str, map: impl Fn(&Inner) -> &HashMap<Key, T>) -> Lookup<T> {
        let mut inner = self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        inner.refresh();
        // The key is owned; a lookup by borrowed pair would need a wrapper
        // type, and two short strings cost less than the read they save.
        match map(&inner).get(&(platform.to_owned(), id.to_owned())) {
            Some(record) => Lookup::Hit(record.clone()),
            None => Lookup::Miss(Missed(inner.epoch)),
        }
    }

    fn keep<T: Clone>(
        &self,
        missed: Missed,
        platform: &str,
        id: &str,
        record: &T,
        map: impl Fn(&mut Inner) -> &mut HashMap<Key, T>,
    ) {
        let mut inner = self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        inner.refresh();
        if inner.epoch != missed.0 {
            return;
        }
        let entries = map(&mut inner);
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        entries.insert((platform.to_owned(), id.to_owned()), record.clone());
    }
}

impl Inner {
    /// Drops every entry when the file's data version moved (or cannot be
    /// read) since the last look.
    fn refresh(&mut self) {
        let now = self
            .watch
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut statement| statement.query_row([], |row| row.get::<_, i64>(0)))
            .ok();
        if now.is_none() || now != self.version {
            self.works.clear();
            self.accounts.clear();
            self.epoch += 1;
            self.version = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_by_another_connection_drops_what_was_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let writer = Connection::open(&path).unwrap();
        writer.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER);").unwrap();
        let cache = PointCache::open(&path).unwrap();
        let record = AccountRecord { account: crate::model::Account::default(), latest: None };

        let Lookup::Miss(missed) = cache.account("p", "1") else { panic!("empty cache hit") };
        cache.keep_account(missed, "p", "1", &record);
        assert!(matches!(cache.account("p", "1"), Lookup::Hit(_)));

        writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let Lookup::Miss(missed) = cache.account("p", "1") else { panic!("kept past a commit") };

        // A read that missed before a commit is not kept after it.
        writer.execute("INSERT INTO t VALUES (2)", []).unwrap();
        assert!(matches!(cache.account("p", "2"), Lookup::Miss(_)));
        cache.keep_account(missed, "p", "1", &record);
        assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)));
    }
}
