//! The durable state the core opens before any service: the points ledger
//! (Redis or embedded, docs/billing.md), the maintenance switches' store
//! (docs/maintenance.md), and the sweeper that releases expired
//! reservations.

use std::sync::Arc;

use crate::settings::CoreSettings;
use mediaops_platform::billing::Ledger;
use mediaops_platform::billing::embedded::EmbeddedLedger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::maintenance::SwitchStore;

/// How often every core releases expired reservations.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The ledger the settings name: Redis when `MEDIAOPS_REDIS_URL` is set
/// (shared by every core), else the embedded one in the data dir.
///
/// # Errors
/// Redis cannot be reached, or the embedded ledger's file cannot be opened.
pub async fn open_ledger(settings: &CoreSettings) -> anyhow::Result<Arc<dyn Ledger>> {
    Ok(match &settings.redis_url {
        Some(url) => Arc::new(RedisLedger::connect(url, &settings.redis_prefix).await?),
        None => Arc::new(EmbeddedLedger::open(&settings.data_dir)?),
    })
}

/// Where run-time maintenance switches live: the ledger's Redis when
/// `MEDIAOPS_REDIS_URL` is set (shared by every core), else the data dir.
pub(super) async fn open_switch_store(settings: &CoreSettings) -> anyhow::Result<Arc<dyn SwitchStore>> {
    Ok(match &settings.redis_url {
        Some(url) => Arc::new(
            mediaops_platform::maintenance::redis::RedisSwitchStore::connect(url, &settings.redis_prefix).await?,
        ),
        None => Arc::new(mediaops_platform::maintenance::file::FileSwitchStore::new(&settings.data_dir)),
    })
}

/// Releases expired reservations every [`SWEEP_EVERY`] while the ledger
/// lives (the task holds only a weak reference, so it ends with the core).
pub(super) fn spawn_sweeper(ledger: std::sync::Weak<dyn Ledger>) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(SWEEP_EVERY).await;
            let Some(ledger) = ledger.upgrade() else { break };
            match ledger.release_expired().await {
                Ok(0) => {}
                Ok(released) => tracing::warn!(released, "released expired reservations"),
                Err(e) => tracing::warn!(error = %e, "reservation sweep failed"),
            }
        }
    });
}
