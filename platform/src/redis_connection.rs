//! One way to open a Redis connection for the shared state that lives in
//! the ledger's Redis (`MEDIAOPS_REDIS_URL`): maintenance switches, the
//! vendor answer cache, the sync queue; and [`connect_bounded`] for what a
//! call waits on (the ledger, the rate limiter), which fails closed fast:
//! every command of a [`Bounded`] connection is answered or failed within
//! [`RESPONSE_TIMEOUT`], reconnecting included.

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

/// A reconnecting connection to `url` whose commands give up after
/// [`RESPONSE_TIMEOUT`] in all ([`Bounded`]), checked with a `PING`. While
/// Redis is down its commands fail at once; it reconnects by itself.
///
/// # Errors
/// `url` is not a Redis URL (naming `MEDIAOPS_REDIS_URL`), or Redis cannot
/// be reached.
pub async fn connect_bounded(url: &str) -> anyhow::Result<Bounded> {
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
    Ok(Bounded(redis))
}

/// A [`ConnectionManager`] whose every command (or pipeline) is answered
/// within [`RESPONSE_TIMEOUT`] or fails with a timeout, however the wait is
/// made up: the response itself, or a reconnect under way after an earlier
/// timeout (which the manager's own timeouts would add on top: a frozen
/// Redis once answered after 4.5 s). Cheap to clone.
#[derive(Clone)]
pub struct Bounded(ConnectionManager);

impl Bounded {
    /// The error of a command that did not finish within [`RESPONSE_TIMEOUT`].
    pub(crate) fn timed_out() -> redis::RedisError {
        redis::RedisError::from(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("Redis did not answer within {} s", RESPONSE_TIMEOUT.as_secs()),
        ))
    }
}

impl redis::aio::ConnectionLike for Bounded {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a redis::Cmd) -> redis::RedisFuture<'a, redis::Value> {
        Box::pin(async move {
            tokio::time::timeout(RESPONSE_TIMEOUT, self.0.req_packed_command(cmd))
                .await
                .unwrap_or_else(|_| Err(Bounded::timed_out()))
        })
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> redis::RedisFuture<'a, Vec<redis::Value>> {
        Box::pin(async move {
            tokio::time::timeout(RESPONSE_TIMEOUT, self.0.req_packed_commands(pipeline, offset, count))
                .await
                .unwrap_or_else(|_| Err(Bounded::timed_out()))
        })
    }

    fn get_db(&self) -> i64 {
        self.0.get_db()
    }
}
