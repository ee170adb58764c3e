//! `mediaops_fts_tokens(sz)`, a row's token count (every column) read from
//! the `sz` blob of an FTS5 table's `%_docsize` row: the number that FTS5's
//! `xColumnSize(-1)` gives `bm25` for the row. The embedded store keeps it
//! in `works.fts_tokens` and `accounts.fts_tokens` (migration 0023, then
//! every write of a row's FTS text), and a search hands it to
//! [`crate::fts5_bm25`], which then scores a match without looking its
//! length up in `%_docsize` (docs/rankings.md "Searches: what each match's
//! length costs").
//!
//! The blob holds one SQLite varint per column (FTS5's
//! `fts5StorageInsertDocsize`). A NULL, empty or malformed blob gives NULL,
//! for which the score looks the length up itself. Registered on every
//! connection of the embedded store's pool ([`register`]).

use std::ffi::c_int;
use std::ptr;

use rusqlite::ffi;

/// The SQL name of the function.
pub const NAME: &str = "mediaops_fts_tokens";

/// Registers [`NAME`] (one argument, deterministic) on the connection `db`.
/// Errors with SQLite's result code when SQLite refuses it.
///
/// # Safety
/// `db` must be a valid, open SQLite connection handle, not used
/// concurrently during the call.
pub unsafe fn register(db: *mut ffi::sqlite3) -> Result<(), c_int> {
    let flags = ffi::SQLITE_UTF8 | ffi::SQLITE_DETERMINISTIC;
    // SAFETY: `db` is valid (the caller's contract); the name is
    // NUL-terminated and copied by SQLite; no user data to free.
    let code = unsafe {
        ffi::sqlite3_create_function_v2(
            db,
            c"mediaops_fts_tokens".as_ptr(),
            1,
            flags,
            ptr::null_mut(),
            Some(tokens_of_blob),
            None,
            None,
            None,
        )
    };
    if code == ffi::SQLITE_OK { Ok(()) } else { Err(code) }
}

/// The function's body: [`total_tokens`] of its blob argument, or NULL.
unsafe extern "C" fn tokens_of_blob(ctx: *mut ffi::sqlite3_context, argc: c_int, argv: *mut *mut ffi::sqlite3_value) {
    if argc != 1 || argv.is_null() {
        // SAFETY: `ctx` is the call's result context.
        unsafe { ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_MISUSE) };
        return;
    }
    // SAFETY: SQLite passes one value; a blob's bytes stay valid until the
    // value is converted or the call returns, and are read before either.
    let total = unsafe {
        let value = *argv;
        let bytes = ffi::sqlite3_value_blob(value).cast::<u8>();
        let length = usize::try_from(ffi::sqlite3_value_bytes(value)).unwrap_or(0);
        if bytes.is_null() || length == 0 { None } else { total_tokens(std::slice::from_raw_parts(bytes, length)) }
    };
    // SAFETY: `ctx` is the call's result context.
    unsafe {
        match total {
            Some(total) => ffi::sqlite3_result_int64(ctx, total),
            None => ffi::sqlite3_result_null(ctx),
        }
    }
}

/// The sum of the varints in `sz`, or `None` when one is cut short.
pub fn total_tokens(mut sz: &[u8]) -> Option<i64> {
    let mut total: i64 = 0;
    while !sz.is_empty() {
        let (value, used) = varint(sz)?;
        total = total.checked_add(i64::try_from(value).ok()?)?;
        sz = &sz[used..];
    }
    Some(total)
}

/// SQLite's varint at the start of `bytes` (big-endian groups of 7 bits,
/// the high bit set on every byte but the last; the ninth byte gives 8
/// bits) and its length in bytes; `None` when `bytes` ends inside it.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    for (i, &byte) in bytes.iter().enumerate().take(8) {
        value = (value << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    let ninth = *bytes.get(8)?;
    Some(((value << 8) | u64::from(ninth), 9))
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn varints_of_one_two_and_nine_bytes() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0xff; 9]), Some((u64::MAX, 9)));
        assert_eq!(varint(&[0x81]), None);
        assert_eq!(total_tokens(&[0x03, 0x81, 0x00, 0x01]), Some(132));
        assert_eq!(total_tokens(&[0x03, 0x81]), None);
    }

    /// The function over FTS5's own docsize rows gives what `bm25` reads:
    /// FTS5's count of every column's tokens, long columns included.
    #[test]
    fn the_docsize_blob_gives_the_rows_token_count() {
        let conn = Connection::open_in_memory().unwrap();
        // SAFETY: an open connection used by this thread alone.
        unsafe { register(conn.handle()) }.unwrap();
        conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5 (a, b, c)").unwrap();
        let long = vec!["词"; 300].join(" ");
        let rows = [("美食 探店", "火锅 好吃 的 火锅", "zzplatformlifestyle", 7), ("", &long[..], "x", 301)];
        for (rowid, (a, b, c, _)) in (1..).zip(rows) {
            conn.execute("INSERT INTO t (rowid, a, b, c) VALUES (?1, ?2, ?3, ?4)", (rowid, a, b, c)).unwrap();
        }
        for (rowid, (.., expected)) in (1..).zip(rows) {
            let tokens: i64 = conn
                .query_row("SELECT mediaops_fts_tokens(sz) FROM t_docsize WHERE id = ?1", [rowid], |r| r.get(0))
                .unwrap();
            assert_eq!(tokens, expected, "row {rowid}");
        }
        let null: Option<i64> = conn.query_row("SELECT mediaops_fts_tokens(NULL)", [], |r| r.get(0)).unwrap();
        assert_eq!(null, None);
    }
}
