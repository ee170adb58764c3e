//! The first phase of a graceful stop (docs/state.md): once SIGINT or
//! SIGTERM arrives the process says "not ready" (gRPC health NOT_SERVING,
//! the gateway's `GET /readyz` 503) while its ports still accept, for
//! `shutdown_notice_secs`, so that load balancers stop routing new calls to
//! it before it stops accepting and drains the calls in flight. The
//! listener marks the second step too ([`Draining::stop_accepting`]), which
//! ends the gateways' long-lived call streams (`goaway`).

use std::sync::Arc;

use tokio::sync::watch;

/// Whether this process has begun to stop, and whether its port has stopped
/// accepting; cheap to clone, every clone sees the same state.
#[derive(Debug, Clone)]
pub struct Draining(Arc<watch::Sender<Stage>>);

/// How far the stop has gone; it only moves forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Serving,
    /// Reporting not ready, still accepting (the notice).
    Draining,
    /// No longer accepting; the calls in flight drain.
    NotAccepting,
}

impl Default for Draining {
    fn default() -> Self {
        Draining(Arc::new(watch::Sender::new(Stage::Serving)))
    }
}

impl Draining {
    /// A process that is serving.
    pub fn new() -> Draining {
        Draining::default()
    }

    /// Marks the process as stopping; idempotent.
    pub fn begin(&self) {
        self.reach(Stage::Draining);
    }

    /// Marks the port as no longer accepting (the notice is over; implies
    /// [`Draining::begin`]); idempotent.
    pub fn stop_accepting(&self) {
        self.reach(Stage::NotAccepting);
    }

    /// Whether [`Draining::begin`] was called.
    pub fn is_draining(&self) -> bool {
        *self.0.borrow() >= Stage::Draining
    }

    /// Resolves once [`Draining::begin`] was called.
    pub async fn started(&self) {
        self.reached(Stage::Draining).await;
    }

    /// Resolves once [`Draining::stop_accepting`] was called.
    pub async fn not_accepting(&self) {
        self.reached(Stage::NotAccepting).await;
    }

    fn reach(&self, stage: Stage) {
        self.0.send_if_modified(|now| {
            let forward = stage > *now;
            if forward {
                *now = stage;
            }
            forward
        });
    }

    async fn reached(&self, stage: Stage) {
        let mut watching = self.0.subscribe();
        // The sender lives in `self`, so waiting cannot fail.
        let _ = watching.wait_for(|now| *now >= stage).await;
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

    #[tokio::test]
    async fn not_accepting_comes_after_the_start_and_never_goes_back() {
        let draining = Draining::new();
        let other = draining.clone();
        let waiting = tokio::spawn(async move { other.not_accepting().await });
        draining.begin();
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "the notice is not the end of accepting");
        draining.stop_accepting();
        waiting.await.unwrap();
        draining.begin();
        assert!(draining.is_draining());
        tokio::time::timeout(std::time::Duration::from_secs(1), draining.not_accepting())
            .await
            .expect("a later begin does not undo the stop of accepting");
    }
}
