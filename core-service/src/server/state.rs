//! The durable state the core opens before any service: the points ledger
//! (Redis or embedded, docs/billing.md), the maintenance switches' store
//! (docs/maintenance.md), and the sweeper that releases expired
//! reservations.

use std::sync::Arc;

use crate::settings::CoreSettings;
use mediaops_platform::billing::Ledger;
use mediaops_platform::billing::embedded::EmbeddedLedger;
use mediaops_platform::billing::redis::RedisLedger;
use mediaops_platform::billing::sharded::ShardedLedger;
use mediaops_platform::maintenance::SwitchStore;

/// How often every core releases expired reservations.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The ledger the settings name: Redis when `MEDIAOPS_REDIS_URL` is set
/// (shared by every core), else the embedded one in the data dir. When the
/// process runs shards (`MEDIAOPS_RUNTIME=shards`), Redis is reached through
/// a ledger per shard, each connected on its shard's runtime, so that its
/// connection and group commits run beside the calls of that shard
/// ([`ShardedLedger`]); the embedded ledger is one for all.
///
/// # Errors
/// Redis cannot be reached, or the embedded ledger's file cannot be opened.
pub async fn open_ledger(settings: &CoreSettings) -> anyhow::Result<Arc<dyn Ledger>> {
    let Some(url) = &settings.redis_url else { return Ok(Arc::new(EmbeddedLedger::open(&settings.data_dir)?)) };
    let shards = mediaops_proto::runtime::shard_handles();
    if shards.len() < 2 {
        return Ok(Arc::new(RedisLedger::connect(url, &settings.redis_prefix).await?));
    }
    let mut ledgers: Vec<Arc<dyn Ledger>> = Vec::with_capacity(shards.len());
    for shard in shards {
        let (url, prefix) = (url.clone(), settings.redis_prefix.clone());
        let connected = shard.spawn(async move { RedisLedger::connect(&url, &prefix).await }).await?;
        ledgers.push(Arc::new(connected?));
    }
    Ok(Arc::new(ShardedLedger::new(ledgers)))
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
