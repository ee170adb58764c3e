//! The embedded store's point reads without a thread hand-off
//! (docs/performance.md "Point reads"): the works and accounts that
//! [`ContentStore::get_work`](super::ContentStore::get_work) and
//! [`ContentStore::get_account`](super::ContentStore::get_account) returned
//! are kept in memory, keyed by `(platform, the id asked for)`, and served
//! from there while the database file is unchanged.
//!
//! "Unchanged" is the header of SQLite's WAL index ([`crate::wal_index`]),
//! read before every lookup from the shared memory SQLite mapped for a
//! read-only connection of this cache: every commit of any connection
//! rewrites it before a reader can see the commit, the store's own pool
//! (every write of this process) and any other process (an import by
//! another `mediaops`) alike. Each thread remembers the header it saw last;
//! the thread that sees it move drops every entry, and a thread's first
//! look drops them too (it has nothing to compare with). A
//! read that missed is stored only if no entry was dropped since the lookup
//! that missed ([`Missed`]), so a row read before a commit is never kept
//! past it: the thread that stores it has either seen the commit already
//! (and dropped the entries then, after the lookup) or sees it now. A hit
//! therefore answers what a read of the database at that moment would.
//!
//! The check is a comparison of 48 bytes, no lock and no system call
//! (`PRAGMA data_version` on a connection per thread, as before, began a
//! read transaction with two `fcntl` locks: ~9 % of a data call's CPU), and
//! the entries are behind a reader-writer lock that a hit only reads: the
//! workers of a busy server look up side by side. A read through sqlx's
//! SQLite driver crosses to the connection's worker thread and back (tens
//! of µs on a loaded 2-core machine), which was most of a charged data call.
//!
//! On PostgreSQL ([`PointCache::notified`]) "unchanged" is a count of the
//! notices of [`crate::change_notices`]: every commit that changes a work,
//! an account or their snapshots, by any process, notifies the store's
//! listening connection, and this process's own writes count at once. The
//! entries are dropped when the count moves, as above; a notice reaches the
//! listener a little after its commit (well under a millisecond on one
//! host), so another process's commit can be missed for that long; an entry
//! is never served older than [`MAX_AGE`] (a listening connection
//! that died without a word), and nothing is served while the listener is
//! not listening (docs/store.md "Point reads on PostgreSQL").

use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use thread_local::ThreadLocal;

use super::change_notices::{Listening, MAX_AGE, Notices, Seen};
use super::model::{AccountRecord, WorkRecord};
use super::wal_index::{Header, WalIndex};

/// Entries kept per kind before the map is emptied (a bound on memory, not
/// an eviction policy: hot records come back on the next read).
const MAX_ENTRIES: usize = 4096;

/// `(platform, id)` as the caller asked it (any id form of the record).
type Key = (String, String);

/// The cache of one store; see the module documentation.
pub(crate) struct PointCache {
    changes: Changes,
    entries: RwLock<Entries>,
}

/// What tells the cache that the database changed.
#[allow(clippy::large_enum_variant)] // one per store, built once and never moved afterwards
enum Changes {
    /// SQLite's WAL index.
    Wal {
        /// The header read before every lookup, mapped for `_connection`
        /// (the pointer is valid while it is open; fields drop in order).
        index: WalIndex,
        /// The header each thread saw last (`None`: none yet, or it was
        /// being rewritten).
        seen: ThreadLocal<Cell<Option<Header>>>,
        /// A read-only connection that has read the file, held open for
        /// its WAL index's sake and never used again.
        _connection: Mutex<Connection>,
    },
    /// PostgreSQL's notices, counted by the store's listener.
    Notices {
        notices: Arc<Notices>,
        /// The content count when the entries were last dropped.
        seen: Seen,
        /// The listener's task, stopped with the cache.
        _listening: Listening,
    },
}

struct Entries {
    /// Bumped whenever the entries are dropped.
    epoch: u64,
    works: HashMap<Key, (WorkRecord, Instant)>,
    accounts: HashMap<Key, (AccountRecord, Instant)>,
}

impl Entries {
    fn new() -> RwLock<Entries> {
        RwLock::new(Entries { epoch: 0, works: HashMap::new(), accounts: HashMap::new() })
    }
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

/// A read-only connection to `path` that has read from it (so that SQLite
/// opened its WAL and mapped the index), and the index.
fn connect(path: &Path) -> Result<(Connection, WalIndex), String> {
    let connection = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|e| e.to_string())?;
    connection.query_row("PRAGMA data_version", [], |row| row.get::<_, i64>(0)).map_err(|e| e.to_string())?;
    let index = WalIndex::of(&connection).ok_or("no WAL index (not in WAL mode, or kept in heap memory)")?;
    Ok((connection, index))
}

impl PointCache {
    /// A cache over the SQLite file `path` (already created and migrated by
    /// the store, in WAL mode). `None` when the file cannot be opened a
    /// second time or has no shared WAL index, and then the store reads
    /// through its pool as before.
    pub(crate) fn open(path: &Path) -> Option<PointCache> {
        match connect(path) {
            Ok((connection, index)) => Some(PointCache {
                changes: Changes::Wal { index, seen: ThreadLocal::new(), _connection: Mutex::new(connection) },
                entries: Entries::new(),
            }),
            Err(e) => {
                tracing::warn!(error = %e, path = %path.display(), "store point reads: no cache");
                None
            }
        }
    }

    /// A cache of a PostgreSQL store whose changes `notices` counts, as
    /// `listening` hears them.
    pub(crate) fn notified(notices: Arc<Notices>, listening: Listening) -> PointCache {
        PointCache {
            changes: Changes::Notices { notices, seen: Seen::default(), _listening: listening },
            entries: Entries::new(),
        }
    }

    /// The oldest an entry is served: unbounded on SQLite, where the WAL
    /// index shows every commit before it can be read.
    fn max_age(&self) -> Option<Duration> {
        match self.changes {
            Changes::Wal { .. } => None,
            Changes::Notices { .. } => Some(MAX_AGE),
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

    fn lookup<T: Clone>(
        &self,
        platform: &str,
        id: &str,
        map: impl Fn(&Entries) -> &HashMap<Key, (T, Instant)>,
    ) -> Lookup<T> {
        self.refresh();
        let entries = self.entries.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        // The key is owned; a lookup by borrowed pair would need a wrapper
        // type, and two short strings cost less than the read they save.
        match map(&entries).get(&(platform.to_owned(), id.to_owned())) {
            Some((record, kept)) if self.max_age().is_none_or(|age| kept.elapsed() < age) => {
                Lookup::Hit(record.clone())
            }
            _ => Lookup::Miss(Missed(entries.epoch)),
        }
    }

    fn keep<T: Clone>(
        &self,
        missed: Missed,
        platform: &str,
        id: &str,
        record: &T,
        map: impl Fn(&mut Entries) -> &mut HashMap<Key, (T, Instant)>,
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
        kept.insert((platform.to_owned(), id.to_owned()), (record.clone(), Instant::now()));
    }

    /// The notices this cache follows (PostgreSQL).
    pub(crate) fn notices(&self) -> Option<Arc<Notices>> {
        match &self.changes {
            Changes::Wal { .. } => None,
            Changes::Notices { notices, .. } => Some(notices.clone()),
        }
    }

    /// Counts a write of this process (PostgreSQL; on SQLite the WAL index
    /// shows it already): what was kept before it is not served after it.
    pub(crate) fn wrote(&self) {
        if let Changes::Notices { notices, .. } = &self.changes {
            notices.content_changed();
        }
    }

    /// Drops every entry when the WAL index's header moved (or is being
    /// rewritten) since this thread's last look, or when the notices' count
    /// moved since the last drop (or nobody is listening).
    fn refresh(&self) {
        match &self.changes {
            Changes::Wal { index, seen, .. } => {
                let seen = seen.get_or(|| Cell::new(None));
                let now = index.header();
                if now.is_none() || now != seen.get() {
                    seen.set(now);
                    self.drop_entries();
                }
            }
            Changes::Notices { notices, seen, .. } => seen.follow(notices, notices.content(), || self.drop_entries()),
        }
    }

    /// Drops every entry.
    fn drop_entries(&self) {
        let mut entries = self.entries.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        entries.works.clear();
        entries.accounts.clear();
        entries.epoch += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PostgreSQL store's cache whose listener is up, its notices, and a
    /// record to keep.
    fn notified() -> (PointCache, Arc<Notices>, AccountRecord) {
        let notices = Arc::new(Notices::default());
        notices.set_listening(true);
        let cache = PointCache::notified(notices.clone(), Listening::deaf());
        (cache, notices, AccountRecord { account: crate::model::Account::default(), latest: None })
    }

    fn keep(cache: &PointCache, id: &str, record: &AccountRecord) {
        let Lookup::Miss(missed) = cache.account("p", id) else { panic!("{id}: already kept") };
        cache.keep_account(missed, "p", id, record);
    }

    #[tokio::test]
    async fn a_notice_or_a_write_here_drops_what_was_kept() {
        let (cache, notices, record) = notified();
        keep(&cache, "1", &record);
        assert!(matches!(cache.account("p", "1"), Lookup::Hit(_)));

        notices.content_changed();
        assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)), "kept past a notice");
        keep(&cache, "1", &record);
        cache.wrote();
        assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)), "kept past this process's write");

        // A read that missed before a change is not kept after it.
        let Lookup::Miss(missed) = cache.account("p", "1") else { panic!("kept") };
        notices.content_changed();
        assert!(matches!(cache.account("p", "2"), Lookup::Miss(_)));
        cache.keep_account(missed, "p", "1", &record);
        assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)));
    }

    #[tokio::test]
    async fn nothing_is_served_while_nobody_listens_nor_past_its_age() {
        let (cache, notices, record) = notified();
        notices.set_listening(false);
        let Lookup::Miss(missed) = cache.account("p", "1") else { panic!("empty cache hit") };
        cache.keep_account(missed, "p", "1", &record);
        assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)), "served while not listening");

        notices.set_listening(true);
        keep(&cache, "1", &record);
        assert!(matches!(cache.account("p", "1"), Lookup::Hit(_)));
        std::thread::sleep(MAX_AGE);
        assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)), "served past its age");
    }

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
            // Another worker, with its own last-seen header.
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

    /// Set in a copy of this test binary started by
    /// [`another_process_opening_the_file_meanwhile_breaks_nothing`]: the
    /// database it writes to.
    const CHILD_DATABASE: &str = "MEDIAOPS_POINT_CACHE_TEST_CHILD_DATABASE";

    /// Rows the other process and this one each insert.
    const ROWS: i64 = 200;

    /// The cache maps the WAL index through SQLite's own descriptor: with a
    /// descriptor of its own, closing it would release every POSIX lock
    /// this process holds on the `-shm` file, and another process opening
    /// the database would then take itself for the first and re-initialise
    /// the index under this one (`SQLITE_PROTOCOL`, or lost rows). Another
    /// process (this test binary again) opens, writes and closes the file
    /// over and over while this one writes and looks up.
    #[test]
    fn another_process_opening_the_file_meanwhile_breaks_nothing() {
        if let Some(path) = std::env::var_os(CHILD_DATABASE) {
            for x in 0..ROWS {
                let connection = Connection::open(&path).unwrap();
                connection.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
                connection.execute("INSERT INTO t VALUES (?1)", [x]).unwrap();
                connection.query_row("SELECT count(*) FROM t", [], |row| row.get::<_, i64>(0)).unwrap();
            }
            return;
        }
        let (dir, writer, cache, record) = file_and_cache();
        writer.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        let path = dir.path().join("s.sqlite");
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "point_cache::tests::another_process_opening_the_file_meanwhile_breaks_nothing"])
            .env(CHILD_DATABASE, &path)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let count = || writer.query_row("SELECT count(*) FROM t", [], |row| row.get::<_, i64>(0)).unwrap();
        for x in 0..ROWS {
            let before = count();
            if let Lookup::Miss(missed) = cache.account("p", "1") {
                cache.keep_account(missed, "p", "1", &record);
            }
            writer.execute("INSERT INTO t VALUES (?1)", [x]).unwrap();
            assert!(count() > before);
            assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)), "kept past this process's commit {x}");
        }
        let status = child.wait_with_output().unwrap().status;
        assert!(status.success(), "the other process failed: {status}");
        assert_eq!(count(), 2 * ROWS, "rows lost");
        // The cache still sees the other process's commits.
        let Lookup::Miss(missed) = cache.account("p", "1") else { panic!("empty cache hit") };
        cache.keep_account(missed, "p", "1", &record);
        let other = Connection::open(&path).unwrap();
        other.execute("INSERT INTO t VALUES (0)", []).unwrap();
        drop(other);
        assert!(matches!(cache.account("p", "1"), Lookup::Miss(_)), "kept past another connection's commit");
    }
}
