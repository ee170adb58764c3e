//! The header of a SQLite database's WAL index, read from the `-shm` file's
//! shared memory without a lock or a system call: the "has anything been
//! committed since" question of [`crate::point_cache`].
//!
//! The format is SQLite's, documented in "WAL-mode File Format"
//! (<https://www.sqlite.org/walformat.html>, section "The WAL-Index Header"):
//! the first 136 bytes of the `-shm` file are two copies of a 48-byte header
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
//! One copy is 48 bytes in memory that every connection maps: comparing it
//! with the last one seen costs nanoseconds, where `PRAGMA data_version`
//! begins and ends a read transaction (two `fcntl` locks on the `-shm` file
//! and the mutex of its shared node: ~9 % of a charged data call's CPU under
//! load, docs/performance.md "CPU per call").

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{Ordering, fence};

use memmap2::{Mmap, MmapOptions};

/// Bytes of one copy of the header.
pub(crate) const HEADER_BYTES: usize = 48;

/// Offset of `isInit` in a copy (after `iVersion`, unused and `iChange`).
const IS_INIT: usize = 12;

/// One copy of the header, as bytes: equal copies mean no commit between.
pub(crate) type Header = [u8; HEADER_BYTES];

/// A read-only mapping of the two header copies of one database's WAL index.
pub(crate) struct WalIndex {
    map: Mmap,
}

impl WalIndex {
    /// Maps the header of `<database>-shm`.
    ///
    /// The caller must keep a connection to the database open in WAL mode,
    /// one that has read from it, for as long as the mapping lives: SQLite
    /// truncates a `-shm` file only when a connection opens it while no
    /// other connection anywhere has it open (it holds the file's "DMS"
    /// lock shared otherwise), and the first read of a connection grows the
    /// file to its first 32 KiB region. A file shorter than both copies is
    /// refused (a mapping past the end of a file faults when read).
    ///
    /// # Errors
    /// The file cannot be opened or mapped, or holds less than two copies.
    pub(crate) fn open(database: &Path) -> std::io::Result<WalIndex> {
        let mut name = database.as_os_str().to_owned();
        name.push("-shm");
        let file = File::open(&name)?;
        if file.metadata()?.len() < (2 * HEADER_BYTES) as u64 {
            return Err(std::io::Error::other(format!("{} holds no WAL-index header yet", Path::new(&name).display())));
        }
        // SAFETY: the mapping is read only and of bytes that are at least
        // this long while a connection of the caller keeps the file open
        // (see above); other processes write it concurrently, which is why
        // every read is volatile and the copies are compared.
        let map = unsafe { MmapOptions::new().len(2 * HEADER_BYTES).map(&file)? };
        Ok(WalIndex { map })
    }

    /// The header as it is now, or `None` while a writer is rewriting it
    /// (the copies differ) or before the index is initialised: the caller
    /// then takes the database as changed.
    pub(crate) fn header(&self) -> Option<Header> {
        let base = self.map.as_ptr();
        // SAFETY: both copies lie inside the mapping (its length is
        // 2 × HEADER_BYTES), and `[u8; N]` has no alignment requirement.
        let first: Header = unsafe { std::ptr::read_volatile(base.cast::<Header>()) };
        fence(Ordering::Acquire);
        let second: Header = unsafe { std::ptr::read_volatile(base.add(HEADER_BYTES).cast::<Header>()) };
        (first == second && first[IS_INIT] != 0).then_some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_commit_changes_the_header_and_reads_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let writer = rusqlite::Connection::open(&path).unwrap();
        writer.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER);").unwrap();
        let reader = rusqlite::Connection::open(&path).unwrap();
        let count = |c: &rusqlite::Connection| c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0));
        count(&reader).unwrap();
        let index = WalIndex::open(&path).unwrap();

        let mut seen = vec![index.header().expect("an initialised header")];
        for x in 0..20 {
            writer.execute("INSERT INTO t VALUES (?1)", [x]).unwrap();
            count(&reader).unwrap();
            let now = index.header().unwrap();
            assert!(!seen.contains(&now), "commit {x} left the header as an earlier one");
            seen.push(now);
        }
        // A checkpoint that restarts the WAL, and the commit after it.
        writer.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
        writer.execute("INSERT INTO t VALUES (99)", []).unwrap();
        let now = index.header().unwrap();
        assert!(!seen.contains(&now), "the commit after a WAL restart left the header as an earlier one");
        count(&reader).unwrap();
        assert_eq!(index.header(), Some(now), "a read changed the header");
    }

    #[test]
    fn a_database_without_a_wal_index_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        rusqlite::Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (x INTEGER);").unwrap();
        assert!(WalIndex::open(&path).is_err());
    }
}
