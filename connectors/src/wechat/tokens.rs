//! Access tokens cached per account (and the component token), refreshed
//! before they expire (docs/wechat.md "Tokens").
//! WeChat rate-limits its token calls (and an authorizer token refresh may
//! rotate the refresh token), so a token is fetched once and shared:
//!
//! - **in process** (the embedded default, [`TokenCache::in_process`]): one
//!   fetch per key at a time; concurrent callers wait for it;
//! - **in Redis** (`MEDIAOPS_REDIS_URL`, [`TokenCache::redis`]): the token
//!   is the string `<prefix>:wechat:token:<key>`, expiring (`PX`) when it is
//!   due for a refresh, and shared by every core. A core that finds none
//!   takes the lock `<prefix>:wechat:token-lock:<key>` (`SET NX PX`, a
//!   [`LOCK_LEASE`] lease) and fetches; the others wait, re-reading the
//!   token every [`POLL_EVERY`], so one refresh happens across replicas. A
//!   lock whose holder died passes when its lease does. Redis failing is
//!   never a failed call: the core then fetches by itself (logged).
//!
//! Keys: `direct:<appid>`, `authorizer:<appid>`, `component`. Tokens are
//! never logged.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;

use super::client::IssuedToken;
use super::errors::WechatError;

/// Refresh this long before expiry at most (WeChat's own advice is 5 minutes).
const MAX_MARGIN: Duration = Duration::from_secs(300);

/// How long the core holding the refresh lock may take before another may
/// fetch instead.
pub const LOCK_LEASE: Duration = Duration::from_secs(10);

/// How often a core waiting for another's refresh re-reads the token.
pub const POLL_EVERY: Duration = Duration::from_millis(50);

/// Longest wait for other cores' refreshes before fetching regardless.
const WAIT_LIMIT: Duration = Duration::from_secs(20);

/// Longest wait for one Redis answer; past it Redis counts as failing.
const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// Deletes `KEYS[1]` only while it holds `ARGV[1]` (a lock we own, or a
/// token that WeChat refused: not a newer one another core stored).
static DELETE_IF: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0")
});

struct Cached {
    token: String,
    refresh_at: Instant,
}

type Slot = Arc<tokio::sync::Mutex<Option<Cached>>>;

/// Tokens by key (`direct:<appid>`, `authorizer:<appid>`, `component`).
pub struct TokenCache {
    /// One fetch per key at a time in this process; the in-process tokens.
    slots: Mutex<HashMap<String, Slot>>,
    /// The tokens shared by every core, when Redis is configured.
    shared: Option<Shared>,
}

struct Shared {
    redis: ConnectionManager,
    /// `<prefix>:wechat`.
    prefix: String,
}

impl Default for TokenCache {
    fn default() -> Self {
        TokenCache::in_process()
    }
}

/// How long a token is used: its lifetime less a fifth of it, at most
/// [`MAX_MARGIN`] less.
fn usable_for(issued: &IssuedToken) -> Duration {
    let lifetime = Duration::from_secs(issued.expires_in);
    lifetime - (lifetime / 5).min(MAX_MARGIN)
}

impl TokenCache {
    /// Tokens kept in this process (one core).
    pub fn in_process() -> TokenCache {
        TokenCache { slots: Mutex::default(), shared: None }
    }

    /// Tokens shared in the Redis at `url` under `<prefix>:wechat:`.
    ///
    /// # Errors
    /// `url` is not a Redis URL, or Redis cannot be reached.
    pub async fn redis(url: &str, prefix: &str) -> anyhow::Result<TokenCache> {
        let redis = mediaops_platform::redis_connection::connect(url).await?;
        Ok(TokenCache { slots: Mutex::default(), shared: Some(Shared { redis, prefix: format!("{prefix}:wechat") }) })
    }

    fn slot(&self, key: &str) -> Slot {
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).entry(key.to_owned()).or_default().clone()
    }

    /// The cached token of `key`, or a fresh one from `fetch` when there is
    /// none or it is within its refresh margin (a fifth of its lifetime, at
    /// most 5 minutes) of expiring. A failed fetch is not cached.
    pub async fn get<F, Fut>(&self, key: &str, fetch: F) -> Result<String, WechatError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<IssuedToken, WechatError>>,
    {
        let slot = self.slot(key);
        let mut cached = slot.lock().await;
        if let Some(shared) = &self.shared {
            return shared.get(key, fetch).await;
        }
        if let Some(c) = cached.as_ref().filter(|c| Instant::now() < c.refresh_at) {
            return Ok(c.token.clone());
        }
        let issued = fetch().await?;
        *cached = Some(Cached { token: issued.token.clone(), refresh_at: Instant::now() + usable_for(&issued) });
        Ok(issued.token)
    }

    /// Drops the token of `key`, so the next use fetches: only while it is
    /// still `stale` (the token WeChat refused; a newer one stays), or
    /// whatever it is when `stale` is `None` (the account is gone).
    pub async fn invalidate(&self, key: &str, stale: Option<&str>) {
        let slot = self.slot(key);
        let mut cached = slot.lock().await;
        if let Some(shared) = &self.shared {
            return shared.invalidate(key, stale).await;
        }
        if stale.is_none_or(|stale| cached.as_ref().is_some_and(|c| c.token == stale)) {
            *cached = None;
        }
    }

    /// Puts a token WeChat handed over by other means (`api_query_auth`).
    pub async fn put(&self, key: &str, issued: IssuedToken) {
        let slot = self.slot(key);
        let mut cached = slot.lock().await;
        if let Some(shared) = &self.shared {
            return shared.put(key, &issued).await;
        }
        *cached = Some(Cached { refresh_at: Instant::now() + usable_for(&issued), token: issued.token });
    }
}

impl Shared {
    fn token_key(&self, key: &str) -> String {
        format!("{}:token:{key}", self.prefix)
    }

    fn lock_key(&self, key: &str) -> String {
        format!("{}:token-lock:{key}", self.prefix)
    }

    /// Runs one Redis command with [`REDIS_TIMEOUT`].
    async fn run<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, String> {
        let mut redis = self.redis.clone();
        match tokio::time::timeout(REDIS_TIMEOUT, command.query_async::<T>(&mut redis)).await {
            Ok(answer) => answer.map_err(|e| e.to_string()),
            Err(_) => Err("Redis did not answer in time".into()),
        }
    }

    async fn delete_if(&self, key: &str, value: &str) -> Result<(), String> {
        let mut redis = self.redis.clone();
        let mut invocation = DELETE_IF.prepare_invoke();
        invocation.key(key).arg(value);
        match tokio::time::timeout(REDIS_TIMEOUT, invocation.invoke_async::<i64>(&mut redis)).await {
            Ok(answer) => answer.map(drop).map_err(|e| e.to_string()),
            Err(_) => Err("Redis did not answer in time".into()),
        }
    }

    /// Stores `issued` until it is due for a refresh (not at all when that
    /// is now).
    async fn store(&self, key: &str, issued: &IssuedToken) {
        let millis = u64::try_from(usable_for(issued).as_millis()).unwrap_or(u64::MAX);
        if millis == 0 {
            return;
        }
        let set = redis::cmd("SET").arg(self.token_key(key)).arg(&issued.token).arg("PX").arg(millis).clone();
        if let Err(e) = self.run::<()>(&set).await {
            tracing::warn!(key, error = %e, "WeChat token not shared in Redis");
        }
    }

    async fn get<F, Fut>(&self, key: &str, fetch: F) -> Result<String, WechatError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<IssuedToken, WechatError>>,
    {
        let token_key = self.token_key(key);
        let lock_key = self.lock_key(key);
        let read = redis::cmd("GET").arg(&token_key).clone();
        let owner = uuid::Uuid::new_v4().simple().to_string();
        let lease = u64::try_from(LOCK_LEASE.as_millis()).unwrap_or(10_000);
        let lock = redis::cmd("SET").arg(&lock_key).arg(&owner).arg("NX").arg("PX").arg(lease).clone();
        let until = Instant::now() + WAIT_LIMIT;
        let failure = loop {
            match self.run::<Option<String>>(&read).await {
                Ok(Some(token)) => return Ok(token),
                Ok(None) => {}
                Err(e) => break e,
            }
            match self.run::<Option<String>>(&lock).await {
                Ok(Some(_)) => {
                    // The previous holder may have stored it just before we locked.
                    let result = match self.run::<Option<String>>(&read).await {
                        Ok(Some(token)) => Ok(token),
                        _ => match fetch().await {
                            Ok(issued) => {
                                self.store(key, &issued).await;
                                Ok(issued.token)
                            }
                            Err(e) => Err(e),
                        },
                    };
                    if let Err(e) = self.delete_if(&lock_key, &owner).await {
                        tracing::warn!(key, error = %e, "WeChat token lock not released (it lapses with its lease)");
                    }
                    return result;
                }
                Ok(None) if Instant::now() < until => tokio::time::sleep(POLL_EVERY).await,
                Ok(None) => break "another core held the refresh lock too long".to_owned(),
                Err(e) => break e,
            }
        };
        tracing::warn!(key, error = %failure, "WeChat token fetched without the shared cache");
        let issued = fetch().await?;
        self.store(key, &issued).await;
        Ok(issued.token)
    }

    async fn invalidate(&self, key: &str, stale: Option<&str>) {
        let token_key = self.token_key(key);
        let dropped = match stale {
            Some(stale) => self.delete_if(&token_key, stale).await,
            None => self.run::<()>(redis::cmd("DEL").arg(&token_key)).await,
        };
        if let Err(e) = dropped {
            tracing::warn!(key, error = %e, "WeChat token not dropped from Redis");
        }
    }

    async fn put(&self, key: &str, issued: &IssuedToken) {
        self.store(key, issued).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn fetches_once_until_near_expiry_or_invalidated() {
        let cache = TokenCache::in_process();
        let fetches = AtomicU32::new(0);
        let fetch = |expires_in| {
            let n = fetches.fetch_add(1, Ordering::SeqCst) + 1;
            async move { Ok(IssuedToken { token: format!("t{n}"), expires_in }) }
        };
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t1");
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t1", "cached");
        assert_eq!(cache.get("b", || fetch(7200)).await.unwrap(), "t2", "per key");
        cache.invalidate("a", Some("t0")).await;
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t1", "a refused older token leaves the newer one");
        cache.invalidate("a", Some("t1")).await;
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t3");
        cache.invalidate("a", None).await;
        assert_eq!(cache.get("a", || fetch(7200)).await.unwrap(), "t4");
        // A token that lives 0 s is always within its margin: fetched each time.
        assert_eq!(cache.get("c", || fetch(0)).await.unwrap(), "t5");
        assert_eq!(cache.get("c", || fetch(0)).await.unwrap(), "t6");
        let failed =
            cache.get("d", || async { Err(WechatError::Api { code: 40125, message: "invalid appsecret".into() }) });
        assert!(failed.await.is_err());
        assert_eq!(cache.get("d", || fetch(7200)).await.unwrap(), "t7", "a failure is not cached");
    }
}
