//! The embedded store's point reads without a thread hand-off
//! (docs/performance.md "Point reads"): the works and accounts that
//! [`ContentStore::get_work`](super::ContentStore::get_work) and
//! [`ContentStore::get_account`](super::ContentStore::get_account) returned
//! are kept in memory, keyed by `(platform, the id asked for)`, and served
//! from there while the database file is unchanged.
//!
//! "Unchanged" is SQLite's own counter: every thread that looks has its own
//! connection of this cache, opened read-only on the same file and used in
//! place, and asks it `PRAGMA data_version` before every lookup. Its value
//! moves when any other connection commits, the store's own pool (every
//! write of this process) and any other process (an import by another
//! `mediaops`) alike; the thread that sees it move drops every entry. A
//! read that missed is stored only if no entry was dropped since the lookup
//! that missed ([`Missed`]), so a row read before a commit is never kept
//! past it: the thread that stores it has either seen the commit already
//! (and dropped the entries then, after the lookup) or sees it now. A hit
//! therefore answers what a read of the database at that moment would.
//!
//! The check is one step of a prepared statement on a connection that
//! never leaves its thread (~1 µs), and the entries are behind a
//! reader-writer lock that a hit only reads: the workers of a busy server
//! look up side by side. A read through sqlx's SQLite driver crosses to the
//! connection's worker thread and back (tens of µs on a loaded 2-core
//! machine), which was most of a charged data call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use rusqlite::{Connection, OpenFlags};
use thread_local::ThreadLocal;

use super::model::{AccountRecord, WorkRecord};

/// Entries kept per kind before the map is emptied (a bound on memory, not
/// an eviction policy: hot records come back on the next read).
const MAX_ENTRIES: usize = 4096;

/// `(platform, id)` as the caller asked it (any id form of the record).
type Key = (String, String);

/// The cache of one embedded store; see the module documentation.
pub(crate) struct PointCache {
    path: PathBuf,
    /// Each thread's own read-only connection to the store's file, only
    /// asked its data version.
    watches: ThreadLocal<RefCell<Watch>>,
    entries: RwLock<Entries>,
}

/// One thread's view of the file's data version.
struct Watch {
    /// `None` when the file could not be opened on this thread.
    connection: Option<Connection>,
    /// The last `PRAGMA data_version` seen (`None`: none yet, or it failed).
    version: Option<i64>,
}

struct Entries {
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

/// A read-only connection to `path` that stays on the thread using it.
fn connect(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
}

impl PointCache {
    /// A cache over the SQLite file `path` (already created and migrated by
    /// the store). `None` when the file cannot be opened a second time, and
    /// then the store reads through its pool as before.
    pub(crate) fn open(path: &Path) -> Option<PointCache> {
        match connect(path) {
            Ok(connection) => {
                let watches = ThreadLocal::new();
                watches.get_or(|| RefCell::new(Watch { connection: Some(connection), version: None }));
                Some(PointCache {
                    path: path.to_owned(),
                    watches,
                    entries: RwLock::new(Entries { epoch: 0, works: HashMap::new(), accounts: HashMap::new() }),
                })
            }
            Err(e) => {
                tracing::warn!(error = %e, path = %path.display(), "store point reads: no cache");
                None
            }
        }
    }

    /// The work stored for `(platform, id)`, if kept and still current.
    pub(crate) fn work(&self, platform: &str, id: &str) -> Lookup<WorkRecord> {
        self.lookup(platform, id, |entries| &entries.works)
    }

    /// The account stored for `(platform, id)`, if kept and still current.
    pub(crate) fn account(&self, platform: &str, id: &str) -> Lookup<AccountRecord> {
        self.lookup(platform, id, |entries| &entries.accounts)
    }

    /// Keeps a work read after the lookup that `missed`.
    pub(crate) fn keep_work(&self, missed: Missed, platform: &str, id: &str, record: &WorkRecord) {
        self.keep(missed, platform, id, record, |entries| &mut entries.works);
    }

    /// Keeps an account read after the lookup that `missed`.
    pub(crate) fn keep_account(&self, missed: Missed, platform: &str, id: &str, record: &AccountRecord) {
        self.keep(missed, platform, id, record, |entries| &mut entries.accounts);
    }

    fn lookup<T: Clone>(&self, platform: &str, id: &str, map: impl Fn(&Entries) -> &HashMap<Key, T>) -> Lookup<T> {
        self.refresh();
        let entries = self.entries.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        // The key is owned; a lookup by borrowed pair would need a wrapper
        // type, and two short strings cost less than the read they save.
        match map(&entries).get(&(platform.to_owned(), id.to_owned())) {
            Some(record) => Lookup::Hit(record.clone()),
            None => Lookup::Miss(Missed(entries.epoch)),
        }
    }

    fn keep<T: Clone>(
        &self,
        missed: Missed,
        platform: &str,
        id: &str,
        record: &T,
        map: impl Fn(&mut Entries) -> &mut HashMap<Key, T>,
    ) {
        self.refresh();
        let mut entries = self.entries.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        if entries.epoch != missed.0 {
            return;
        }
        let kept = map(&mut entries);
        if kept.len() >= MAX_ENTRIES {
            kept.clear();
        }
        kept.insert((platform.to_owned(), id.to_owned()), record.clone());
    }

    /// Drops every entry when the file's data version moved (or cannot be
    /// read) since this thread's last look.
    fn refresh(&self) {
        let watch = self.watches.get_or(|| RefCell::new(Watch { connection: connect(&self.path).ok(), version: None }));
        let mut watch = watch.borrow_mut();
        let now = watch.connection.as_ref().and_then(|connection| {
            connection
                .prepare_cached("PRAGMA data_version")
                .and_then(|mut statement| statement.query_row([], |row| row.get::<_, i64>(0)))
                .ok()
        });
        if now.is_none() || now != watch.version {
            watch.version = now;
            let mut entries = self.entries.write().unwrap_or_else(|poisoned| poisoned.into_inner());
            entries.works.clear();
            entries.accounts.clear();
            entries.epoch += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAL file in a temporary directory (kept while the first value
    /// lives), a writing connection to it, the cache over it, and a record
    /// to keep.
    fn file_and_cache() -> (tempfile::TempDir, Connection, PointCache, AccountRecord) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let writer = Connection::open(&path).unwrap();
        writer.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER);").unwrap();
        let cache = PointCache::open(&path).unwrap();
        (dir, writer, cache, AccountRecord { account: crate::model::Account::default(), latest: None })
    }

    #[test]
    fn a_commit_by_another_connection_drops_what_was_kept() {
        let (_dir, writer, cache, record) = file_and_cache();

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

    #[test]
    fn a_commit_seen_by_one_thread_drops_what_every_thread_kept() {
        let (_dir, writer, cache, record) = file_and_cache();
        let step = std::sync::Barrier::new(2);

        std::thread::scope(|scope| {
            // Another worker, with its own connection.
            scope.spawn(|| {
                assert!(matches!(cache.account("p", "0"), Lookup::Miss(_)));
                step.wait();
                step.wait();
                assert!(matches!(cache.account("p", "1"), Lookup::Hit(_)), "kept by the other thread");
                step.wait();
                step.wait();
                assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)), "kept past a commit");
                step.wait();
                step.wait();
                assert!(matches!(cache.account("p", "3"), Lookup::Miss(_)));
                step.wait();
            });
            step.wait();
            let Lookup::Miss(missed) = cache.account("p", "1") else { panic!("empty cache hit") };
            cache.keep_account(missed, "p", "1", &record);
            step.wait();
            step.wait();
            writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
            step.wait();
            step.wait();
            // The other thread saw the commit first: dropped here too.
            assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)));

            // A read that missed before a commit that another thread saw
            // first is not kept.
            let Lookup::Miss(missed) = cache.account("p", "2") else { panic!("empty cache hit") };
            writer.execute("INSERT INTO t VALUES (2)", []).unwrap();
            step.wait();
            step.wait();
            cache.keep_account(missed, "p", "2", &record);
            assert!(matches!(cache.account("p", "2"), Lookup::Miss(_)));
        });
    }
}
