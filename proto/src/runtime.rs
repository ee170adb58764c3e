//! The async runtime of a mediaops process: tokio's runtime, its workers
//! writing their log lines in batches ([`crate::log_buffer`]), with
//! [`WORKER_THREADS_VARIABLE`] workers.
//!
//! By default a process runs one worker per CPU it may use (Rust's
//! `available_parallelism`, which counts a cgroup's CPU quota, as a
//! container's limit). Where a core and a gateway share a host, each
//! process's default counts every CPU, so on two CPUs four workers take
//! turns; one worker each served about 1.2× the calls of split mode
//! (docs/performance.md "Split mode on one host"). The variable is read
//! from the environment only, like [`crate::logging::FORMAT_VARIABLE`]:
//! the runtime starts before the settings are read. tokio's own
//! `TOKIO_WORKER_THREADS` is not read.
//!
//! One worker is tokio's current-thread runtime, more are its multi-thread
//! runtime. The multi-thread scheduler runs a task woken by the running one
//! next (its "LIFO slot"), so with one worker each call woke its HTTP/2
//! connection's task, which wrote that call's frames alone: about one
//! `writev` per call each way between a gateway and its core. The
//! current-thread scheduler queues the woken task behind the tasks already
//! ready, so the connection writes the frames of every call made meanwhile
//! in one system call (docs/performance.md "One worker: the current-thread
//! runtime").

use std::num::NonZeroUsize;

/// The variable setting a process's async workers, 1 to
/// [`MAX_WORKER_THREADS`]; unset: one per CPU the process may use.
pub const WORKER_THREADS_VARIABLE: &str = "MEDIAOPS_WORKER_THREADS";

/// The most workers [`WORKER_THREADS_VARIABLE`] may ask for.
pub const MAX_WORKER_THREADS: usize = 1024;

/// Builds the runtime of a mediaops process.
///
/// # Errors
/// [`WORKER_THREADS_VARIABLE`] is set to something other than a number
/// from 1 to [`MAX_WORKER_THREADS`] (the message names it), or the runtime
/// could not start (tokio's error).
pub fn build() -> Result<tokio::runtime::Runtime, String> {
    let workers = worker_threads(std::env::var(WORKER_THREADS_VARIABLE).ok().as_deref())?;
    builder(workers).build().map_err(|e| e.to_string())
}

/// The runtime's builder for `workers` workers: the current-thread
/// scheduler for one (the thread that calls `block_on` is the worker), the
/// multi-thread scheduler for more; a worker's log lines are written when
/// it parks and when its thread stops (the current-thread worker's, by
/// [`crate::logging::run_main`] once the runtime is dropped).
fn builder(workers: usize) -> tokio::runtime::Builder {
    let mut builder = if workers == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(workers);
        builder
    };
    builder.enable_all().on_thread_park(crate::log_buffer::idle).on_thread_stop(crate::log_buffer::flush);
    builder
}

/// The workers asked for by `value` (the variable's value, `None` when
/// unset): one per CPU the process may use when unset.
fn worker_threads(value: Option<&str>) -> Result<usize, String> {
    let Some(value) = value else {
        return Ok(std::thread::available_parallelism().map_or(1, NonZeroUsize::get));
    };
    match value.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_WORKER_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "{WORKER_THREADS_VARIABLE} must be a number of worker threads from 1 to {MAX_WORKER_THREADS}, not {value:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_is_one_worker_per_cpu() {
        let cpus = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        assert_eq!(worker_threads(None), Ok(cpus));
    }

    #[test]
    fn a_count_in_range_is_taken() {
        assert_eq!(worker_threads(Some("1")), Ok(1));
        assert_eq!(worker_threads(Some(" 3 ")), Ok(3));
        assert_eq!(worker_threads(Some("1024")), Ok(1024));
    }

    #[test]
    fn one_worker_is_the_current_thread_scheduler_and_more_the_multi_thread_one() {
        use tokio::runtime::RuntimeFlavor;
        let flavor = |workers| {
            builder(workers).build().unwrap().block_on(async { tokio::runtime::Handle::current().runtime_flavor() })
        };
        assert_eq!(flavor(1), RuntimeFlavor::CurrentThread);
        assert_eq!(flavor(2), RuntimeFlavor::MultiThread);
        let runtime = builder(3).build().unwrap();
        assert_eq!(runtime.metrics().num_workers(), 3);
    }

    #[test]
    fn anything_else_is_an_error_naming_the_variable() {
        for bad in ["0", "1025", "-1", "two", ""] {
            let error = worker_threads(Some(bad)).unwrap_err();
            assert!(error.contains(WORKER_THREADS_VARIABLE) && error.contains(&format!("{bad:?}")), "{error}");
        }
    }
}
