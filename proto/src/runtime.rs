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
//!
//! With [`RUNTIME_VARIABLE`]` = shards`, two or more workers are instead one
//! current-thread runtime per worker, each on a thread of its own (its
//! "shard"): the listeners deal their accepted connections to the shards in
//! turn ([`spawn_connection`]), so a connection's calls run on one thread
//! from request to answer, and a part that keeps a connection of its own per
//! shard (the Redis ledger, `mediaops_platform::billing::sharded`) picks it
//! by [`current_shard`]. On two CPUs that served 6–16 % more calls than the
//! multi-thread runtime (docs/performance.md "Shards: a current-thread
//! runtime per worker").

use std::cell::Cell;
use std::future::Future;
use std::num::NonZeroUsize;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// The variable setting a process's async workers, 1 to
/// [`MAX_WORKER_THREADS`]; unset: one per CPU the process may use.
pub const WORKER_THREADS_VARIABLE: &str = "MEDIAOPS_WORKER_THREADS";

/// The most workers [`WORKER_THREADS_VARIABLE`] may ask for.
pub const MAX_WORKER_THREADS: usize = 1024;

/// The variable choosing how two or more workers share the calls:
/// `multi-thread` (the default: tokio's work-stealing scheduler) or
/// `shards` (a current-thread runtime per worker). Read from the
/// environment only, like [`WORKER_THREADS_VARIABLE`].
pub const RUNTIME_VARIABLE: &str = "MEDIAOPS_RUNTIME";

/// How the workers of a process share its tasks ([`RUNTIME_VARIABLE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// tokio's multi-thread runtime (one current-thread runtime for one
    /// worker).
    MultiThread,
    /// One current-thread runtime per worker, connections dealt in turn.
    Shards,
}

/// The runtimes of a mediaops process: the one `main` runs on, and with
/// [`Flavor::Shards`] the other shards' threads.
pub struct Runtimes {
    main: tokio::runtime::Runtime,
    /// The other shards ([`start_shard`]).
    others: Vec<ShardThread>,
}

/// A shard's thread, which runs its runtime until the sender is sent to or
/// dropped.
type ShardThread = (std::thread::JoinHandle<()>, tokio::sync::oneshot::Sender<()>);

/// Starts the thread `shard-<shard>` that runs `runtime` as shard `shard`
/// ([`current_shard`] answers `shard` on it) until told to stop, then drops
/// it and writes the thread's waiting log lines.
fn start_shard(shard: usize, runtime: tokio::runtime::Runtime) -> std::io::Result<ShardThread> {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new().name(format!("shard-{shard}")).spawn(move || {
        SHARD.with(|s| s.set(shard));
        let _ = runtime.block_on(stopped);
        drop(runtime);
        crate::log_buffer::flush();
    })?;
    Ok((thread, stop))
}

impl Runtimes {
    /// Runs `future` on the main runtime (shard 0) to its end.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.main.block_on(future)
    }

    /// Stops the other shards' runtimes (their tasks are dropped, as a
    /// runtime's are when it is dropped), waits for their threads, which
    /// write their waiting log lines as they stop, then drops the main one.
    pub fn shutdown(self) {
        for (thread, stop) in self.others {
            let _ = stop.send(());
            let _ = thread.join();
        }
        drop(self.main);
    }
}

/// The shards of this process, once [`build`] made them: shard 0 is the
/// main runtime's.
static SHARDS: OnceLock<Shards> = OnceLock::new();

thread_local! {
    /// The shard this thread runs, 0 for any thread that is not a shard's.
    static SHARD: Cell<usize> = const { Cell::new(0) };
}

/// The handles of a process's shards and whose turn it is.
#[derive(Debug)]
struct Shards {
    handles: Vec<Handle>,
    next: AtomicUsize,
}

impl Shards {
    /// The next shard in turn.
    fn next(&self) -> &Handle {
        &self.handles[self.next.fetch_add(1, Ordering::Relaxed) % self.handles.len()]
    }
}

/// The shard (an index into [`shard_handles`]) the calling thread runs; 0
/// on a thread that runs none (the blocking pool, a test).
pub fn current_shard() -> usize {
    SHARD.with(Cell::get)
}

/// The runtime of each shard, shard 0 first; empty unless the process runs
/// shards.
pub fn shard_handles() -> &'static [Handle] {
    SHARDS.get().map_or(&[], |shards| &shards.handles)
}

/// Spawns the task serving one accepted connection: on the next shard in
/// turn when the process runs shards, else on the current runtime (as
/// `tokio::spawn`). Must be called inside a runtime.
pub fn spawn_connection<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match SHARDS.get() {
        Some(shards) => shards.next().spawn(future),
        None => tokio::spawn(future),
    }
}

/// Builds the runtimes of a mediaops process ([`WORKER_THREADS_VARIABLE`],
/// [`RUNTIME_VARIABLE`]).
///
/// # Errors
/// A variable is set to something it does not accept (the message names
/// it), or a runtime could not start (tokio's error).
pub fn build() -> Result<Runtimes, String> {
    let workers = worker_threads(std::env::var(WORKER_THREADS_VARIABLE).ok().as_deref())?;
    let flavor = flavor(std::env::var(RUNTIME_VARIABLE).ok().as_deref())?;
    if flavor == Flavor::MultiThread || workers == 1 {
        return Ok(Runtimes { main: builder(workers).build().map_err(|e| e.to_string())?, others: Vec::new() });
    }
    let main = builder(1).build().map_err(|e| e.to_string())?;
    let mut handles = vec![main.handle().clone()];
    let mut others = Vec::new();
    for shard in 1..workers {
        let runtime = builder(1).build().map_err(|e| e.to_string())?;
        handles.push(runtime.handle().clone());
        others.push(start_shard(shard, runtime).map_err(|e| e.to_string())?);
    }
    if SHARDS.set(Shards { handles, next: AtomicUsize::new(0) }).is_err() {
        return Err("the process's shards were built twice".to_owned());
    }
    Ok(Runtimes { main, others })
}

/// The flavor asked for by `value` ([`RUNTIME_VARIABLE`], `None` when
/// unset).
fn flavor(value: Option<&str>) -> Result<Flavor, String> {
    match value.map(str::trim) {
        None | Some("multi-thread") => Ok(Flavor::MultiThread),
        Some("shards") => Ok(Flavor::Shards),
        Some(other) => Err(format!("{RUNTIME_VARIABLE} must be multi-thread or shards, not {other:?}")),
    }
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
    fn the_flavor_is_multi_thread_unless_shards_are_asked_for() {
        assert_eq!(flavor(None), Ok(Flavor::MultiThread));
        assert_eq!(flavor(Some("multi-thread")), Ok(Flavor::MultiThread));
        assert_eq!(flavor(Some(" shards ")), Ok(Flavor::Shards));
        let error = flavor(Some("sharded")).unwrap_err();
        assert!(error.contains(RUNTIME_VARIABLE) && error.contains("\"sharded\""), "{error}");
    }

    #[tokio::test]
    async fn connections_are_dealt_to_the_shards_in_turn() {
        // Three shards, each a current-thread runtime on a thread of its
        // own, as `build` makes them.
        let mut handles = Vec::new();
        let mut stops = Vec::new();
        for shard in 0..3 {
            let runtime = builder(1).build().unwrap();
            handles.push(runtime.handle().clone());
            stops.push(start_shard(shard, runtime).unwrap());
        }
        let shards = Shards { handles, next: AtomicUsize::new(0) };
        let mut ran_on = Vec::new();
        for _ in 0..7 {
            ran_on.push(shards.next().spawn(async { current_shard() }).await.unwrap());
        }
        assert_eq!(ran_on, [0, 1, 2, 0, 1, 2, 0]);
        for (thread, stop) in stops {
            stop.send(()).unwrap();
            thread.join().unwrap();
        }
    }

    #[test]
    fn anything_else_is_an_error_naming_the_variable() {
        for bad in ["0", "1025", "-1", "two", ""] {
            let error = worker_threads(Some(bad)).unwrap_err();
            assert!(error.contains(WORKER_THREADS_VARIABLE) && error.contains(&format!("{bad:?}")), "{error}");
        }
    }
}
