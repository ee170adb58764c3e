//! One way to open a Redis connection for the shared state that lives in
//! the ledger's Redis (`MEDIAOPS_REDIS_URL`): maintenance switches, the
//! vendor answer cache, the sync queue; and [`connect_bounded`] for what a
//! call waits on (the ledger, the rate limiter), which fails closed fast.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// How long one command of a [`connect_bounded`] connection may take before
/// the call fails closed (503 `billing_unavailable`).
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// A reconnecting connection to `url`.
///
/// # Errors
/// `url` is not a Redis URL (naming `MEDIAOPS_REDIS_URL`), or Redis cannot
/// be reached.
pub async fn connect(url: &str) -> anyhow::Result<ConnectionManager> {
    let client = redis::Client::open(url).map_err(|e| anyhow::anyhow!("MEDIAOPS_REDIS_URL {url:?}: {e}"))?;
    ConnectionManager::new(client).await.map_err(|e| anyhow::anyhow!("cannot reach Redis at {url}: {e}"))
}

/// A reconnecting connection to `url` whose connects and commands give up
/// after [`RESPONSE_TIMEOUT`] (one retry), checked with a `PING`. While Redis
/// is down its commands fail at once; it reconnects by itself.
///
/// # Errors
/// `url` is not a Redis URL (naming `MEDIAOPS_REDIS_URL`), or Redis cannot
/// be reached.
pub async fn connect_bounded(url: &str) -> anyhow::Result<ConnectionManager> {
    let client = redis::Client::open(url).map_err(|e| anyhow::anyhow!("MEDIAOPS_REDIS_URL {url:?}: {e}"))?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(RESPONSE_TIMEOUT))
        .set_response_timeout(Some(RESPONSE_TIMEOUT))
        .set_number_of_retries(1)
        .set_max_delay(Duration::from_millis(500));
    let mut redis = ConnectionManager::new_with_config(client, config)
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach Redis at {url}: {e}"))?;
    let _: String = redis::cmd("PING").query_async(&mut redis).await?;
    Ok(redis)
}
