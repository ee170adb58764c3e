//! Work that must not run on the async workers (docs/architecture.md
//! "Async rule"): blocking file I/O and CPU-heavy work over inputs that can
//! be large (jieba segmentation, Aho-Corasick scans, syntect highlighting).
//!
//! Both helpers run their closure on tokio's blocking pool
//! (`spawn_blocking`), so a slow disk or a 100,000-character text holds one
//! blocking thread instead of an async worker that other calls share.
//! [`cpu`] keeps small inputs inline: below [`INLINE_BYTES`] the hop to the
//! pool (a thread wake-up and two context switches) costs more than the
//! work itself.
//!
//! A panic in the closure is re-raised in the caller, as if the closure had
//! run inline, so behaviour does not depend on where it ran.

use std::panic::resume_unwind;

/// Inputs up to this many bytes (UTF-8) are worked on inline by [`cpu`]:
/// segmenting or scanning 4 KiB of text takes well under 100 µs, about the
/// scheduling slice of an async worker.
pub const INLINE_BYTES: usize = 4 * 1024;

/// Runs the CPU-heavy `work` over an input of `input_bytes` bytes: inline
/// when the input is at most [`INLINE_BYTES`], else on the blocking pool.
pub async fn cpu<R, F>(input_bytes: usize, work: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if input_bytes <= INLINE_BYTES {
        return work();
    }
    blocking(work).await
}

/// Runs blocking file I/O on the blocking pool, whatever its size (a small
/// write still waits for the disk when it syncs).
pub async fn file<R, F>(io: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    blocking(io).await
}

/// `spawn_blocking`, with a panic of `work` re-raised here.
async fn blocking<R, F>(work: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(e) if e.is_panic() => resume_unwind(e.into_panic()),
        // Only a runtime that is shutting down cancels a blocking task, and
        // it drops the task awaiting here first: nobody is left to answer.
        Err(e) => resume_unwind(Box::new(format!("the blocking pool is shut down: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn small_inputs_run_inline_and_large_ones_on_the_pool() {
        let caller = std::thread::current().id();
        let small = cpu(INLINE_BYTES, move || std::thread::current().id()).await;
        assert_eq!(small, caller);
        let large = cpu(INLINE_BYTES + 1, move || std::thread::current().id()).await;
        assert_ne!(large, caller);
        let io = file(move || std::thread::current().id()).await;
        assert_ne!(io, caller);
    }

    #[tokio::test]
    #[should_panic(expected = "boom")]
    async fn a_panic_reaches_the_caller() {
        cpu(INLINE_BYTES + 1, || panic!("boom")).await
    }
}
