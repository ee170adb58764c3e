//! Access tokens cached per account (and the component token), refreshed
//! before they expire. One fetch per key at a time: concurrent callers wait
//! for it instead of each asking WeChat (whose token calls are rate-limited).
//! Tokens live only in memory and are never logged.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::client::IssuedToken;
use super::errors::WechatError;

/// Refresh this long before expiry at most (WeChat's own advice is 5 minutes).
const MAX_MARGIN: Duration = Duration::from_secs(300);

struct Cached {
    token: String,
    refresh_at: Instant,
}

type Slot = Arc<tokio::sync::Mutex<Option<Cached>>>;

/// Tokens by key (`direct:<appid>`, `authorizer:<appid>`, `component`).
#[derive(Default)]
pub struct TokenCache {
    slots: Mutex<HashMap<String, Slot>>,
}

impl TokenCache {
    fn slot(&self, key: &str) -> Slot {
        self.slots.lock().expect("token map lock").entry(key.to_owned()).or_default().clone()
    }

    /// The cached token of `key`, or a fresh one from `fetch` when there is
    /// none or it is within its refresh margin (a fifth of its lifetime, at
    /// most 5 minutes) of expiring.
    pub async fn get<F, Fut>(&self, key: &str, fetch: F) -> Result<String, WechatError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<IssuedToken, WechatError>>,
    {
        let slot = self.slot(key);
        let mut cached = slot.lock().await;
        if let Some(c) = cached.as_ref().filter(|c| Instant::now() < c.refresh_at) {
            return Ok(c.token.clone());
        }
        let issued = fetch().await?;
        let lifetime = Duration::from_secs(issued.expires_in);
        let margin = (lifetime / 5).min(MAX_MARGIN);
        *cached = Some(Cached { token: issued.token.clone(), refresh_at: Instant::now() + lifetime - margin });
        Ok(issued.token)
    }

    /// Drops the token of `key` (WeChat refused it), so the next use fetches.
    pub async fn invalidate(&self, key: &str) {
        *self.slot(key).lock().await = None;
    }

    /// Puts a token WeChat handed over by other means (`api_query_auth`).
    pub async fn put(&self, key: &str, issued: IssuedToken) {
        let lifetime = Duration::from_secs(issued.expires_in);
        let margin = (lifetime / 5).min(MAX_MARGIN);
        *self.slot(key).lock().await =
            Some(Cached { token: issued.token, refresh_at: Instant::now() + lifetime - margin });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn fetches_once_until_near_expiry_or_invalidated() {
        let cache = TokenCache::default();
        let fetches = AtomicU32::new(0);
        let fetch = |expires_in| {
            let n = fetches.fetch_add(1, Ordering::SeqCst) + 1;
            async move { Ok(IssuedToken { token: format!("t{n}"), expires_in }) }
        };
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t1");
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t1", "cached");
        assert_eq!(cache.get("b", || fetch(7200)).await.unwrap(), "t2", "per key");
        cache.invalidate("a").await;
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t3");
        // A token that lives 0 s is always within its margin: fetched each time.
        assert_eq!(cache.get("c", || fetch(0)).await.unwrap(), "t4");
        assert_eq!(cache.get("c", || fetch(0)).await.unwrap(), "t5");
        let failed =
            cache.get("d", || async { Err(WechatError::Api { code: 40125, message: "invalid appsecret".into() }) });
        assert!(failed.await.is_err());
        assert_eq!(cache.get("d", || fetch(7200)).await.unwrap(), "t6", "a failure is not cached");
    }
}
