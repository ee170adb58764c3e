//! A future that runs in its caller's task, and is finished in a task of its
//! own only when the caller drops it unfinished (docs/billing.md "When a
//! call is charged": a caller gone mid-reserve leaves no hold).
//!
//! The reserve of a charged call used to be spawned, always, so that a
//! caller going away could not cut it short: a task, its join handle and a
//! second wake-up per call (docs/performance.md "Log lines in batches and three smaller costs of a call"). [`FinishOnDrop`] polls the same future in place, and hands it to
//! `tokio::spawn` from its `Drop` only in the rare case it was not done.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// See the module docs. Polls its future to completion; dropped before
/// that, spawns the rest of it on the current runtime (outside one, the
/// rest is dropped: nothing could run it).
pub(crate) struct FinishOnDrop<T: Send + 'static> {
    future: Option<Pin<Box<dyn Future<Output = T> + Send>>>,
}

impl<T: Send + 'static> FinishOnDrop<T> {
    /// `future`, to be polled in place.
    pub(crate) fn new(future: impl Future<Output = T> + Send + 'static) -> Self {
        FinishOnDrop { future: Some(Box::pin(future)) }
    }
}

impl<T: Send + 'static> Future for FinishOnDrop<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let Some(future) = self.future.as_mut() else {
            panic!("FinishOnDrop polled after it finished");
        };
        let output = std::task::ready!(future.as_mut().poll(cx));
        self.future = None;
        Poll::Ready(output)
    }
}

impl<T: Send + 'static> Drop for FinishOnDrop<T> {
    fn drop(&mut self) {
        if let Some(rest) = self.future.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(rest);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_finished_future_answers_in_place() {
        assert_eq!(FinishOnDrop::new(async { 7 }).await, 7);
    }

    /// Dropped while it waits, the future still runs to its end.
    #[tokio::test]
    async fn a_future_dropped_unfinished_is_finished_in_a_task() {
        let finished = Arc::new(AtomicBool::new(false));
        let (go, wait) = tokio::sync::oneshot::channel::<()>();
        let flag = finished.clone();
        let future = FinishOnDrop::new(async move {
            let _ = wait.await;
            flag.store(true, Ordering::SeqCst);
        });
        let cut = tokio::time::timeout(Duration::from_millis(20), future).await;
        assert!(cut.is_err(), "it waits for `go`");
        assert!(!finished.load(Ordering::SeqCst));
        go.send(()).unwrap();
        for _ in 0..100 {
            if finished.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the rest of the future never ran");
    }
}
