//! The first phase of a graceful stop (docs/state.md): once SIGINT or
//! SIGTERM arrives the process says "not ready" (gRPC health NOT_SERVING,
//! the gateway's `GET /readyz` 503) while its ports still accept, for
//! `shutdown_notice_secs`, so that load balancers stop routing new calls to
//! it before it stops accepting and drains the calls in flight.

use std::sync::Arc;

use tokio::sync::watch;

/// Whether this process has begun to stop; cheap to clone, every clone sees
/// the same state.
#[derive(Debug, Clone)]
pub struct Draining(Arc<watch::Sender<bool>>);

impl Default for Draining {
    fn default() -> Self {
        Draining(Arc::new(watch::Sender::new(false)))
    }
}

impl Draining {
    /// A process that is serving.
    pub fn new() -> Draining {
        Draining::default()
    }

    /// Marks the process as stopping; idempotent.
    pub fn begin(&self) {
        self.0.send_replace(true);
    }

    /// Whether [`Draining::begin`] was called.
    pub fn is_draining(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once [`Draining::begin`] was called.
    pub async fn started(&self) {
        let mut watching = self.0.subscribe();
        // The sender lives in `self`, so waiting cannot fail.
        let _ = watching.wait_for(|draining| *draining).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_clone_sees_the_start() {
        let draining = Draining::new();
        let other = draining.clone();
        assert!(!other.is_draining());
        let waiting = tokio::spawn(async move { other.started().await });
        draining.begin();
        waiting.await.unwrap();
        assert!(draining.is_draining());
    }
}
