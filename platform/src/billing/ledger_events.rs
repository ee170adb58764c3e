//! The Redis ledger's event channel, `P:ledger-events` (docs/billing.md):
//! a core that disables a key or changes an account's rate limit announces
//! it ([`publish`]) to every core sharing the Redis, and [`subscribe`]
//! keeps each core's [`KeyCache`] and [`LimitCache`] in step: live while
//! subscribed, forgetting each announced entry (docs/billing.md "Key
//! cache"). A message is `key:<sha256 hex>` or `limit:<account id>`.
//!
//! The caches are used only while the subscription is up, so a change on
//! any replica reaches every replica's cache within the channel's delivery
//! time (milliseconds); while it is down every call reads Redis, as before.
//! An entry lives at most [`CACHE_TTL`] either way.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use crate::auth::Principal;
use crate::quota::Limit;
use crate::read_cache::ReadCache;

/// Enabled API keys by SHA-256 hex.
pub type KeyCache = ReadCache<Principal>;

/// Accounts' own rate limits (`None`: the account has none, the default
/// applies) by account id.
pub type LimitCache = ReadCache<Option<Limit>>;

/// How long a cached key or limit is trusted at most, even with the
/// subscription up (a bound for a lost event message).
pub const CACHE_TTL: Duration = Duration::from_secs(10);

/// Keys, and limits, kept at most per core.
pub const CACHE_CAPACITY: usize = 100_000;

/// The channel's name under the ledger's prefix.
pub fn channel(prefix: &str) -> String {
    format!("{prefix}:ledger-events")
}

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// The key with this SHA-256 hex was disabled.
    KeyDisabled(&'a str),
    /// This account's own rate limit was set or dropped.
    LimitChanged(&'a str),
}

impl<'a> Event<'a> {
    fn message(self) -> String {
        match self {
            Event::KeyDisabled(hash) => format!("key:{hash}"),
            Event::LimitChanged(account) => format!("limit:{account}"),
        }
    }

    fn parse(message: &'a str) -> Option<Event<'a>> {
        match message.split_once(':')? {
            ("key", hash) => Some(Event::KeyDisabled(hash)),
            ("limit", account) => Some(Event::LimitChanged(account)),
            _ => None,
        }
    }
}

/// The caches one subscription keeps in step.
#[derive(Debug, Clone)]
pub struct Caches {
    /// Keys by their hash, as authentication reads them.
    pub keys: Arc<KeyCache>,
    /// Accounts' rate limits, as the rate limiter reads them.
    pub limits: Arc<LimitCache>,
}

impl Default for Caches {
    fn default() -> Self {
        Caches {
            keys: Arc::new(ReadCache::subscribed(CACHE_TTL, CACHE_CAPACITY)),
            limits: Arc::new(ReadCache::subscribed(CACHE_TTL, CACHE_CAPACITY)),
        }
    }
}

impl Caches {
    fn set_live(&self, live: bool) {
        self.keys.set_live(live);
        self.limits.set_live(live);
    }

    fn apply(&self, event: Event<'_>) {
        match event {
            Event::KeyDisabled(hash) => self.keys.forget(hash),
            Event::LimitChanged(account) => self.limits.forget(account),
        }
    }
}

/// Announces `event` to every core (this one included).
///
/// # Errors
/// Redis failed.
pub async fn publish(
    redis: &mut (impl redis::aio::ConnectionLike + Send),
    prefix: &str,
    event: Event<'_>,
) -> redis::RedisResult<()> {
    redis::cmd("PUBLISH").arg(channel(prefix)).arg(event.message()).query_async(redis).await
}

/// Subscribes to the channel of `prefix` on `client` for as long as the
/// returned task runs (abort it to stop): the caches are live while
/// subscribed; after a lost subscription they are not used until the next
/// one, tried every second.
pub fn subscribe(client: redis::Client, prefix: &str, caches: Caches) -> tokio::task::JoinHandle<()> {
    let channel = channel(prefix);
    tokio::spawn(async move {
        loop {
            if let Ok(mut pubsub) = client.get_async_pubsub().await
                && pubsub.subscribe(&channel).await.is_ok()
            {
                caches.set_live(true);
                let mut messages = pubsub.on_message();
                while let Some(message) = messages.next().await {
                    if let Some(event) = message.get_payload::<String>().ok().as_deref().and_then(Event::parse) {
                        caches.apply(event);
                    }
                }
            }
            caches.set_live(false);
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_back() {
        for event in [Event::KeyDisabled("ab12"), Event::LimitChanged("acct_1")] {
            assert_eq!(Event::parse(&event.message()), Some(event));
        }
        assert_eq!(Event::parse("other:x"), None);
        assert_eq!(Event::parse("nocolon"), None);
    }
}
