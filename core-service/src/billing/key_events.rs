//! The Redis ledger's key-event channel, `P:key-events` (issue 22 item 3):
//! [`publish_disabled`] announces a disabled key (its SHA-256 hex) to every
//! core sharing the Redis, and [`subscribe`] keeps a core's
//! [`KeyCache`] in step with it: live while subscribed, forgetting each
//! announced key (docs/billing.md "Key cache").

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use crate::auth::cache::KeyCache;

/// The channel's name under the ledger's prefix.
pub fn channel(prefix: &str) -> String {
    format!("{prefix}:key-events")
}

/// Announces that the key hashed `hash` is disabled.
///
/// # Errors
/// Redis failed.
pub async fn publish_disabled(
    redis: &mut redis::aio::ConnectionManager,
    prefix: &str,
    hash: &str,
) -> redis::RedisResult<()> {
    redis::cmd("PUBLISH").arg(channel(prefix)).arg(hash).query_async(redis).await
}

/// Subscribes to the channel of `prefix` on `client` for as long as the
/// returned task runs (abort it to stop): the cache is live while
/// subscribed; after a lost subscription it is not used until the next one,
/// tried every second.
pub fn subscribe(client: redis::Client, prefix: &str, cache: Arc<KeyCache>) -> tokio::task::JoinHandle<()> {
    let channel = channel(prefix);
    tokio::spawn(async move {
        loop {
            if let Ok(mut pubsub) = client.get_async_pubsub().await {
                if pubsub.subscribe(&channel).await.is_ok() {
                    cache.set_live(true);
                    let mut messages = pubsub.on_message();
                    while let Some(message) = messages.next().await {
                        if let Ok(hash) = message.get_payload::<String>() {
                            cache.forget(&hash);
                        }
                    }
                }
            }
            cache.set_live(false);
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    })
}
