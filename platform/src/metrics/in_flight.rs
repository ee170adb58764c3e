//! Calls holding a settlement (docs/state.md): how many are in flight,
//! how many were settled, and a way to wait until none is left, so a
//! stopping core settles or releases every reservation before it exits and
//! can say how many calls it drained. Also served as the gauge
//! `mediaops_calls_in_flight` (docs/metrics.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::metrics::gauge::Gauge;
use tokio::sync::Notify;

/// The count of unsettled calls; shared by the pipeline and the server.
#[derive(Debug, Default)]
pub struct InFlight {
    now: Gauge,
    settled: AtomicU64,
    idle: Notify,
}

/// One unsettled call; dropping it counts the call as settled.
#[derive(Debug)]
pub struct InFlightGuard(Arc<InFlight>);

impl InFlight {
    /// Counts one more call until the guard is dropped.
    pub fn enter(self: &Arc<Self>) -> InFlightGuard {
        self.now.inc();
        InFlightGuard(self.clone())
    }

    /// Calls in flight now.
    pub fn count(&self) -> u64 {
        u64::try_from(self.now.get()).unwrap_or(0)
    }

    /// Calls settled since the start.
    pub fn settled(&self) -> u64 {
        self.settled.load(Ordering::Relaxed)
    }

    /// The gauge, for the metrics registry.
    pub fn gauge(&self) -> Gauge {
        self.now.clone()
    }

    /// Waits until no call is in flight, at most `limit`; returns whether
    /// none is left.
    pub async fn wait_idle(&self, limit: Duration) -> bool {
        let idle = async {
            loop {
                let notified = self.idle.notified();
                if self.count() == 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(limit, idle).await.is_ok()
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.settled.fetch_add(1, Ordering::Relaxed);
        if self.0.now.dec() == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn counts_and_waits_for_the_last_guard() {
        let in_flight = Arc::new(InFlight::default());
        assert!(in_flight.wait_idle(Duration::from_millis(1)).await);
        let first = in_flight.enter();
        let second = in_flight.enter();
        assert_eq!(in_flight.count(), 2);
        assert!(!in_flight.wait_idle(Duration::from_millis(10)).await);
        drop(first);
        let waiting = {
            let in_flight = in_flight.clone();
            tokio::spawn(async move { in_flight.wait_idle(Duration::from_secs(5)).await })
        };
        tokio::time::sleep(Duration::from_millis(10)).await;
        drop(second);
        assert!(waiting.await.unwrap());
        assert_eq!((in_flight.count(), in_flight.settled()), (0, 2));
    }
}
