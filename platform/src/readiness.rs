//! Readiness of a core (docs/errors.md "Liveness and
//! readiness"): every [`interval`](Readiness::new) the ledger is pinged and
//! the content store checked ([`ContentStore::check`], which also re-runs
//! the migrations of a database re-created empty), and the result is
//! published through `grpc.health.v1`:
//!
//! | health service name | SERVING when |
//! |---|---|
//! | `""` and every mediaops service (`mediaops.lifestyle.v1.LifestyleService`, …) | the ledger and the store are both reachable |
//! | [`LEDGER`] | the ledger answers |
//! | [`STORE`] | the store answers with a current schema |
//!
//! Every call needs the ledger (keys, points), and the data operations need
//! the store, so a core missing either is taken out of rotation as a whole.
//! Once the core begins to stop ([`mediaops_listener::Draining`]), `""` and
//! every mediaops service turn NOT_SERVING for good, so gateways and load
//! balancers take it out before it stops accepting (docs/state.md).

use std::sync::Arc;
use std::time::Duration;

use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::billing::Ledger;
use mediaops_store::ContentStore;

use mediaops_proto::readiness::{LEDGER, STORE};

/// Longest one check of a dependency may take before it counts as down.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// Which dependencies answered the last check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// The billing ledger answered.
    pub ledger: bool,
    /// The content store answered.
    pub store: bool,
}

impl State {
    /// Whether the core can serve calls.
    pub fn ready(self) -> bool {
        self.ledger && self.store
    }
}

/// Checks the dependencies and publishes their status.
pub struct Readiness {
    ledger: Arc<dyn Ledger>,
    store: Arc<dyn ContentStore>,
    interval: Duration,
}

impl Readiness {
    /// Checks `ledger` and `store` every `interval`.
    pub fn new(ledger: Arc<dyn Ledger>, store: Arc<dyn ContentStore>, interval: Duration) -> Readiness {
        Readiness { ledger, store, interval }
    }

    /// One check of both dependencies, concurrently, each bounded by
    /// `CHECK_TIMEOUT`; a failure is logged with its cause.
    pub async fn check(&self) -> State {
        let ledger = async {
            match tokio::time::timeout(CHECK_TIMEOUT, self.ledger.ping()).await {
                Ok(Ok(())) => true,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e.message, "readiness: the ledger is unreachable");
                    false
                }
                Err(_) => {
                    tracing::warn!("readiness: the ledger did not answer in time");
                    false
                }
            }
        };
        let store = async {
            match tokio::time::timeout(CHECK_TIMEOUT, self.store.check()).await {
                Ok(Ok(())) => true,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "readiness: the content store is unavailable");
                    false
                }
                Err(_) => {
                    tracing::warn!("readiness: the content store did not answer in time");
                    false
                }
            }
        };
        let (ledger, store) = tokio::join!(ledger, store);
        State { ledger, store }
    }

    /// Checks now, publishes the result for `""`, `services`, [`LEDGER`]
    /// and [`STORE`], then keeps checking every interval in a task that
    /// publishes each change (and logs it), until `draining` begins: then it
    /// reports `""` and `services` NOT_SERVING and ends. Abort the handle to
    /// stop it earlier.
    pub async fn start(
        self,
        reporter: HealthReporter,
        services: Vec<String>,
        draining: mediaops_listener::Draining,
    ) -> tokio::task::JoinHandle<()> {
        let mut state = self.check().await;
        publish(&reporter, &services, state).await;
        tokio::spawn(async move {
            let stopping = draining.started();
            tokio::pin!(stopping);
            loop {
                let next = async {
                    tokio::time::sleep(self.interval).await;
                    self.check().await
                };
                let now = tokio::select! {
                    () = &mut stopping => {
                        set_services(&reporter, &services, ServingStatus::NotServing).await;
                        return;
                    }
                    now = next => now,
                };
                if now != state {
                    if now.ready() {
                        tracing::info!("readiness: the ledger and the store are reachable again; serving");
                    } else {
                        tracing::warn!(ledger = now.ledger, store = now.store, "readiness: not serving");
                    }
                    publish(&reporter, &services, now).await;
                    state = now;
                }
            }
        })
    }
}

/// Sets `""` and every one of `services` to `status`.
async fn set_services(reporter: &HealthReporter, services: &[String], status: ServingStatus) {
    reporter.set_service_status("", status).await;
    for service in services {
        reporter.set_service_status(service, status).await;
    }
}

/// Sets every health status from `state`.
async fn publish(reporter: &HealthReporter, services: &[String], state: State) {
    let status = |up: bool| if up { ServingStatus::Serving } else { ServingStatus::NotServing };
    set_services(reporter, services, status(state.ready())).await;
    reporter.set_service_status(LEDGER, status(state.ledger)).await;
    reporter.set_service_status(STORE, status(state.store)).await;
}
