//! One way to open a Redis connection for the shared state that lives in
//! the ledger's Redis (`MEDIAOPS_REDIS_URL`): maintenance switches, the
//! vendor answer cache, the sync queue.

use redis::aio::ConnectionManager;

/// A reconnecting connection to `url`.
///
/// # Errors
/// `url` is not a Redis URL (naming `MEDIAOPS_REDIS_URL`), or Redis cannot
/// be reached.
pub async fn connect(url: &str) -> anyhow::Result<ConnectionManager> {
    let client = redis::Client::open(url).map_err(|e| anyhow::anyhow!("MEDIAOPS_REDIS_URL {url:?}: {e}"))?;
    ConnectionManager::new(client).await.map_err(|e| anyhow::anyhow!("cannot reach Redis at {url}: {e}"))
}
