//! The header of a SQLite database's WAL index, read from the shared memory
//! that SQLite itself mapped for a connection, without a lock or a system
//! call: the "has anything been committed since" question of
//! [`crate::point_cache`].
//!
//! The format is SQLite's, documented in "WAL-mode File Format"
//! (<https://www.sqlite.org/walformat.html>, section "The WAL-Index Header"):
//! the first 136 bytes of the WAL index are two copies of a 48-byte header
//! (`iVersion`, unused, `iChange`, `isInit`, `bigEndCksum`, `szPage`,
//! `mxFrame`, `nPage`, `aFrameCksum`, `aSalt`, `aCksum`) and then the
//! checkpoint information. Every commit of any connection, in any process,
//! rewrites the header (`mxFrame` grows, `iChange` counts the transactions,
//! the salt changes when the WAL restarts) before its frames become visible
//! to a reader: a reader finds a commit only through this header. The writer
//! writes the second copy, then a memory barrier, then the first; a reader
//! reads the first, a barrier, the second, and trusts them only when they
//! are equal (SQLite's own `walIndexTryHdr` does the same).
//!
//! The pointer is the one SQLite's VFS returns for the connection's own
//! database file (`SQLITE_FCNTL_FILE_POINTER`, then the file's `xShmMap`
//! for region 0, which the connection's first read already mapped): no
//! descriptor of the `-shm` file is opened here, so none is closed either
//! (closing any descriptor of a file releases every POSIX lock the process
//! holds on it, SQLite's own included, and a second process would then
//! re-initialise the index under the first: `SQLITE_PROTOCOL`). SQLite
//! unmaps the region only when the connection closes its WAL (it closes, or
//! leaves WAL mode, which a read-only connection cannot do).
//!
//! One copy is 48 bytes that every connection maps: comparing it with the
//! last one seen costs nanoseconds, where `PRAGMA data_version` begins and
//! ends a read transaction (two `fcntl` locks on the `-shm` file and the
//! mutex of its shared node: ~9 % of a charged data call's CPU under load,
//! docs/performance.md "Instructions per call").

use std::ffi::{c_int, c_void};
use std::sync::atomic::{Ordering, fence};

use rusqlite::{Connection, ffi};

/// Bytes of one copy of the header.
pub(crate) const HEADER_BYTES: usize = 48;

/// Offset of `isInit` in a copy (after `iVersion`, unused and `iChange`).
const IS_INIT: usize = 12;

/// Bytes of one region of the WAL index (SQLite's `WALINDEX_PGSZ`), the
/// size every mapping of it is asked with.
const REGION_BYTES: c_int = 32768;

/// One copy of the header, as bytes: equal copies mean no commit between.
pub(crate) type Header = [u8; HEADER_BYTES];

/// The two header copies of one connection's WAL index, as SQLite mapped
/// them. Valid while that connection is open: keep it beside the
/// connection and drop it first (it owns nothing; dropping frees nothing).
pub(crate) struct WalIndex {
    base: *const u8,
}

// SAFETY: the pointer is into memory mapped for the process (not for a
// thread), valid while the connection it came from is open; the owner keeps
// both together (see the type's documentation), and reads are volatile.
unsafe impl Send for WalIndex {}
// SAFETY: as for `Send`; the memory is only read, volatile, never through a
// reference, and concurrent writers are detected by comparing the copies.
unsafe impl Sync for WalIndex {}

impl WalIndex {
    /// The WAL index SQLite mapped for `connection`'s main database, or
    /// `None` when there is none: the database is not in WAL mode, the
    /// connection has not read yet (call it after a first read), the VFS
    /// has no shared memory, or SQLite keeps the index in heap memory
    /// (exclusive locking mode), where another process's commit would not
    /// show.
    pub(crate) fn of(connection: &Connection) -> Option<WalIndex> {
        let wal: String = connection.query_row("PRAGMA journal_mode", [], |row| row.get(0)).ok()?;
        let locking: String = connection.query_row("PRAGMA locking_mode", [], |row| row.get(0)).ok()?;
        if !wal.eq_ignore_ascii_case("wal") || !locking.eq_ignore_ascii_case("normal") {
            return None;
        }
        let mut file: *mut ffi::sqlite3_file = std::ptr::null_mut();
        // SAFETY: the handle is the open connection's; the file control
        // writes one pointer into `file`, which outlives the call.
        let code = unsafe {
            ffi::sqlite3_file_control(
                connection.handle(),
                c"main".as_ptr(),
                ffi::SQLITE_FCNTL_FILE_POINTER,
                (&raw mut file).cast::<c_void>(),
            )
        };
        if code != ffi::SQLITE_OK || file.is_null() {
            return None;
        }
        // SAFETY: `file` is the connection's open database file; its
        // methods are SQLite's VFS's, and `xShmMap` exists from version 2.
        // Region 0 with `bExtend = 0` returns the region the connection's
        // WAL already mapped (or null), and allocates nothing.
        let base = unsafe {
            let methods = (*file).pMethods;
            if methods.is_null() || (*methods).iVersion < 2 {
                return None;
            }
            let map = (*methods).xShmMap?;
            let mut region: *mut c_void = std::ptr::null_mut();
            if map(file, 0, REGION_BYTES, 0, (&raw mut region).cast()) != ffi::SQLITE_OK {
                return None;
            }
            region.cast::<u8>().cast_const()
        };
        (!base.is_null()).then_some(WalIndex { base })
    }

    /// The header as it is now, or `None` while a writer is rewriting it
    /// (the copies differ) or before the index is initialised: the caller
    /// then takes the database as changed.
    pub(crate) fn header(&self) -> Option<Header> {
        // SAFETY: both copies lie in region 0 (32 KiB), mapped while the
        // connection is open; `[u8; N]` has no alignment requirement.
        let first: Header = unsafe { std::ptr::read_volatile(self.base.cast::<Header>()) };
        fence(Ordering::Acquire);
        let second: Header = unsafe { std::ptr::read_volatile(self.base.add(HEADER_BYTES).cast::<Header>()) };
        (first == second && first[IS_INIT] != 0).then_some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(connection: &Connection) -> i64 {
        connection.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn every_commit_changes_the_header_and_reads_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let writer = Connection::open(&path).unwrap();
        writer.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER);").unwrap();
        let reader = Connection::open(&path).unwrap();
        count(&reader);
        let index = WalIndex::of(&reader).expect("the reader's WAL index");

        let mut seen = vec![index.header().expect("an initialised header")];
        for x in 0..20 {
            writer.execute("INSERT INTO t VALUES (?1)", [x]).unwrap();
            let now = index.header().unwrap();
            assert!(!seen.contains(&now), "commit {x} left the header as an earlier one");
            seen.push(now);
            assert_eq!(count(&reader), x + 1);
        }
        // A checkpoint that restarts the WAL, and the commit after it.
        writer.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
        writer.execute("INSERT INTO t VALUES (99)", []).unwrap();
        let now = index.header().unwrap();
        assert!(!seen.contains(&now), "the commit after a WAL restart left the header as an earlier one");
        count(&reader);
        assert_eq!(index.header(), Some(now), "a read changed the header");
    }

    #[test]
    fn a_database_without_a_wal_has_no_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let connection = Connection::open(&path).unwrap();
        connection.execute_batch("CREATE TABLE t (x INTEGER);").unwrap();
        count(&connection);
        assert!(WalIndex::of(&connection).is_none());
    }
}
