//! Log lines of the runtime's worker threads, written to stderr in batches
//! (docs/performance.md "Log lines in batches and three smaller costs of a call"), as nginx's
//! `access_log … buffer= flush=` does: a charged call's `ok` line was one
//! `write` system call of its own, with stderr's lock taken by two workers
//! at once (about 3 % of the server's CPU per call).
//!
//! A worker thread keeps its lines in a buffer of its own and writes them
//! with one `write` when
//! - the worker has nothing left to run (tokio's `on_thread_park`: an idle
//!   server writes each line as soon as its call is done),
//! - the buffer holds [`BUFFER_BYTES_VARIABLE`] KiB (32 by default),
//! - a line comes and the oldest waiting line is [`MAX_AGE`] old,
//! - a WARN or ERROR line comes (written after the lines before it),
//! - the worker stops (the runtime shuts down: the process exits 0 after
//!   its shutdown, or returns an error from `main`).
//!
//! Within a thread the order of lines is kept; between two workers a batch
//! of one can come before an earlier line of the other (each line has its
//! own timestamp). Lines of any other thread (the main thread, the blocking
//! pool, a thread of a library) are written at once. A process killed with
//! SIGKILL loses the lines its workers had not written yet: at most a
//! buffer each, and none once it was idle. `MEDIAOPS_LOG_BUFFER_KIB=0`
//! writes every line at once.

use std::cell::RefCell;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The variable setting the size of a worker's buffer in KiB (0 = off,
/// at most 1024); the environment only, like [`crate::logging::FORMAT_VARIABLE`].
pub const BUFFER_BYTES_VARIABLE: &str = "MEDIAOPS_LOG_BUFFER_KIB";

/// KiB of lines a worker keeps before writing them, unless set.
pub const DEFAULT_BUFFER_KIB: usize = 32;

/// The longest a line waits in a busy worker's buffer, counted when the
/// worker's next line comes.
pub const MAX_AGE: Duration = Duration::from_millis(100);

/// Bytes of a worker's buffer; 0 until [`configure`] (and when off).
static LIMIT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static BUFFER: RefCell<Lines> = const { RefCell::new(Lines { on: false, bytes: Vec::new(), since: None }) };
}

/// One thread's waiting lines.
struct Lines {
    /// Whether this thread buffers (a worker, from its first idle moment).
    on: bool,
    bytes: Vec<u8>,
    /// When the oldest waiting line came.
    since: Option<Instant>,
}

impl Lines {
    fn write_out(&mut self) {
        if !self.bytes.is_empty() {
            // Nowhere to report a failed log write: the line is dropped, as
            // an unbuffered one would be.
            let _ = io::stderr().lock().write_all(&self.bytes);
            self.bytes.clear();
        }
        self.since = None;
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.write_out();
    }
}

/// Reads [`BUFFER_BYTES_VARIABLE`] (the default when unset; an unusable
/// value is reported on stderr and the default used). Called by
/// [`crate::logging::init`].
pub fn configure() {
    let kib = match std::env::var(BUFFER_BYTES_VARIABLE) {
        Err(_) => DEFAULT_BUFFER_KIB,
        Ok(value) => match value.trim().parse::<usize>() {
            Ok(kib) if kib <= 1024 => kib,
            _ => {
                eprintln!(
                    "{BUFFER_BYTES_VARIABLE}={value:?} is not a number of KiB from 0 to 1024: using {DEFAULT_BUFFER_KIB}"
                );
                DEFAULT_BUFFER_KIB
            }
        },
    };
    LIMIT.store(kib * 1024, Ordering::Relaxed);
}

/// A worker has nothing to run (the runtime's `on_thread_park`,
/// [`crate::runtime::build`]): from now on its lines are buffered, and
/// what waits is written.
pub(crate) fn idle() {
    let _ = BUFFER.try_with(|lines| {
        let mut lines = lines.borrow_mut();
        lines.on = LIMIT.load(Ordering::Relaxed) > 0;
        lines.write_out();
    });
}

/// Writes this thread's waiting lines.
pub fn flush() {
    let _ = BUFFER.try_with(|lines| lines.borrow_mut().write_out());
}

/// Where the subscriber writes one line: this thread's buffer, or stderr
/// when the thread does not buffer. An `urgent` line (WARN, ERROR) is
/// written at once, after the lines waiting before it.
#[derive(Debug, Clone, Copy)]
pub struct BufferedStderr {
    /// Write this line and everything before it now.
    pub urgent: bool,
}

impl Write for BufferedStderr {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        let limit = LIMIT.load(Ordering::Relaxed);
        let buffered = BUFFER.try_with(|lines| {
            let mut lines = lines.borrow_mut();
            if !lines.on {
                return false;
            }
            let now = Instant::now();
            let since = *lines.since.get_or_insert(now);
            lines.bytes.extend_from_slice(line);
            if self.urgent || lines.bytes.len() >= limit || now.duration_since(since) >= MAX_AGE {
                lines.write_out();
            }
            true
        });
        if buffered != Ok(true) {
            io::stderr().lock().write_all(line)?;
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        flush();
        io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting() -> usize {
        BUFFER.with(|lines| lines.borrow().bytes.len())
    }

    /// The rules of the module docs on one thread of a test: nothing is
    /// buffered before the first idle moment; then lines wait until the
    /// size, an urgent line, the age or the next idle moment writes them.
    #[test]
    fn a_worker_buffers_from_its_first_idle_moment_until_a_rule_writes() {
        std::thread::spawn(|| {
            LIMIT.store(1024, Ordering::Relaxed);
            let mut out = BufferedStderr { urgent: false };
            out.write_all(b"before the first idle moment\n").unwrap();
            assert_eq!(waiting(), 0, "a thread that never idled writes at once");
            idle();
            out.write_all(b"buffered\n").unwrap();
            assert_eq!(waiting(), 9);
            BufferedStderr { urgent: true }.write_all(b"a warning\n").unwrap();
            assert_eq!(waiting(), 0, "an urgent line writes what waits, then itself");
            out.write_all(&[b'x'; 1023]).unwrap();
            assert_eq!(waiting(), 1023);
            out.write_all(b"\n").unwrap();
            assert_eq!(waiting(), 0, "a full buffer is written");
            out.write_all(b"old\n").unwrap();
            BUFFER.with(|lines| lines.borrow_mut().since = Some(Instant::now() - MAX_AGE));
            out.write_all(b"new\n").unwrap();
            assert_eq!(waiting(), 0, "a line past the age is written with the next");
            out.write_all(b"until idle\n").unwrap();
            idle();
            assert_eq!(waiting(), 0, "an idle worker writes what waits");
        })
        .join()
        .unwrap();
    }
}
