//! SQLite's own memory through the process's Rust allocator
//! (docs/performance.md "SQLite's memory and rows"). The bundled SQLite
//! allocates with the C library's `malloc` and `free`, and keeps statistics
//! of every allocation under one process-wide mutex; the service links mimalloc as
//! its Rust allocator (`src/main.rs`), and SQLite's allocations were about
//! a tenth of the keyword boards' samples, in glibc's allocator.
//! [`use_process_allocator`] hands SQLite `std::alloc`'s functions (so the
//! `#[global_allocator]` of the binary) and turns the statistics off.
//!
//! SQLite asks an allocation's size back (`xSize`), which `std::alloc` does
//! not keep: each allocation carries it in an 8-byte header in front of the
//! bytes SQLite sees, which stay 8-byte aligned as SQLite requires.

use std::alloc::Layout;
use std::ffi::{c_int, c_void};

use rusqlite::ffi;

/// The header in front of every allocation: its size in bytes as SQLite
/// asked it (`c_int`, kept in 8 bytes for alignment).
const HEADER: usize = 8;

/// SQLite's alignment for every allocation.
const ALIGN: usize = 8;

/// The layout of an allocation of `size` bytes for SQLite, header included;
/// `None` for a size SQLite never asks (zero or negative).
fn layout(size: c_int) -> Option<Layout> {
    let size = usize::try_from(size).ok().filter(|&n| n > 0)?;
    Layout::from_size_align(size.checked_add(HEADER)?, ALIGN).ok()
}

/// The start of the allocation whose bytes SQLite sees at `p`.
///
/// # Safety
/// `p` was returned by [`sqlite_malloc`] or [`sqlite_realloc`] and not freed.
unsafe fn base(p: *mut c_void) -> *mut u8 {
    unsafe { p.cast::<u8>().sub(HEADER) }
}

/// The size recorded in the header of the allocation at `p`.
///
/// # Safety
/// As [`base`].
unsafe fn recorded(p: *mut c_void) -> c_int {
    unsafe { base(p).cast::<u64>().read() as c_int }
}

/// Writes `size` into the header at `start` and returns the bytes after it.
///
/// # Safety
/// `start` is an allocation of at least `HEADER` bytes, 8-byte aligned.
unsafe fn record(start: *mut u8, size: c_int) -> *mut c_void {
    if start.is_null() {
        return std::ptr::null_mut();
    }
    unsafe {
        start.cast::<u64>().write(size as u64);
        start.add(HEADER).cast()
    }
}

unsafe extern "C" fn sqlite_malloc(size: c_int) -> *mut c_void {
    let Some(layout) = layout(size) else { return std::ptr::null_mut() };
    unsafe { record(std::alloc::alloc(layout), size) }
}

unsafe extern "C" fn sqlite_free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    unsafe {
        if let Some(layout) = layout(recorded(p)) {
            std::alloc::dealloc(base(p), layout);
        }
    }
}

unsafe extern "C" fn sqlite_realloc(p: *mut c_void, size: c_int) -> *mut c_void {
    if p.is_null() {
        return unsafe { sqlite_malloc(size) };
    }
    let (Some(old), Some(new)) = (layout(unsafe { recorded(p) }), layout(size)) else { return std::ptr::null_mut() };
    unsafe { record(std::alloc::realloc(base(p), old, new.size()), size) }
}

unsafe extern "C" fn sqlite_size(p: *mut c_void) -> c_int {
    if p.is_null() { 0 } else { unsafe { recorded(p) } }
}

unsafe extern "C" fn sqlite_roundup(size: c_int) -> c_int {
    size.checked_add(7).map_or(size, |n| n & !7)
}

unsafe extern "C" fn sqlite_init(_: *mut c_void) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn sqlite_shutdown(_: *mut c_void) {}

/// Makes the bundled SQLite allocate through `std::alloc` (the binary's
/// `#[global_allocator]`) and stop keeping memory statistics
/// (`SQLITE_CONFIG_MALLOC`, `SQLITE_CONFIG_MEMSTATUS` off; so
/// `sqlite3_memory_used` and the heap limits, which the store does not
/// use, read 0). Call it before the first SQLite connection of the
/// process opens.
///
/// # Errors
/// SQLite's result code when it refuses, `SQLITE_MISUSE` (21) once it has
/// been initialized (a connection opened before): SQLite then keeps the C
/// library's allocator, which is correct, only slower.
pub fn use_process_allocator() -> Result<(), c_int> {
    let methods = ffi::sqlite3_mem_methods {
        xMalloc: Some(sqlite_malloc),
        xFree: Some(sqlite_free),
        xRealloc: Some(sqlite_realloc),
        xSize: Some(sqlite_size),
        xRoundup: Some(sqlite_roundup),
        xInit: Some(sqlite_init),
        xShutdown: Some(sqlite_shutdown),
        pAppData: std::ptr::null_mut(),
    };
    // SQLite copies the structure before `sqlite3_config` returns.
    let code = unsafe { ffi::sqlite3_config(ffi::SQLITE_CONFIG_MALLOC, &methods as *const ffi::sqlite3_mem_methods) };
    if code != ffi::SQLITE_OK {
        return Err(code);
    }
    match unsafe { ffi::sqlite3_config(ffi::SQLITE_CONFIG_MEMSTATUS, 0 as c_int) } {
        ffi::SQLITE_OK => Ok(()),
        code => Err(code),
    }
}
