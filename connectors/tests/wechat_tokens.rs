//! WeChat access tokens shared across cores (docs/wechat.md "Tokens"): with the real Redis (`MEDIAOPS_TEST_REDIS_URL`
//! overrides 127.0.0.1:6379, a key prefix per test) and a local fake
//! WeChat whose `POST /cgi-bin/stable_token` counts its calls and answers
//! slowly, two `TokenCache`s standing for two cores fetch once between them,
//! share the token with its TTL, drop only a refused token, and outlive a
//! lock holder that died. The in-process cache, by contrast, is per core.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post;
use mediaops_connectors::outbound::OutboundSettings;
use mediaops_connectors::wechat::client::WechatApi;
use mediaops_connectors::wechat::config::WechatSettings;
use mediaops_connectors::wechat::tokens::{LOCK_LEASE, TokenCache};
use redis::AsyncCommands;
use serde_json::json;

/// How long the fake takes to hand out a token: long enough for both cores
/// to be asking at once.
const TOKEN_DELAY: Duration = Duration::from_millis(300);

fn redis_url() -> String {
    std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A fake WeChat answering `stable_token` as WeChat documents it, counting
/// the calls; the base URL and the count.
async fn fake_wechat() -> (String, Arc<AtomicU32>) {
    let calls = Arc::new(AtomicU32::new(0));
    let counted = calls.clone();
    let app = Router::new().route(
        "/cgi-bin/stable_token",
        post(move || {
            let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
            async move {
                tokio::time::sleep(TOKEN_DELAY).await;
                axum::Json(json!({"access_token": format!("ACCESS_TOKEN_{n}"), "expires_in": 7200}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, calls)
}

struct Setup {
    api: WechatApi,
    calls: Arc<AtomicU32>,
    prefix: String,
    redis: redis::aio::ConnectionManager,
}

impl Setup {
    async fn new(test: &str) -> Setup {
        let (base, calls) = fake_wechat().await;
        let settings = WechatSettings { api_base: base, ..WechatSettings::default() };
        let api = WechatApi::new(&settings, &OutboundSettings::default()).unwrap();
        let prefix = format!("test_{test}_{}", uuid::Uuid::new_v4().simple());
        let redis = mediaops_platform::redis_connection::connect(&redis_url()).await.unwrap();
        Setup { api, calls, prefix, redis }
    }

    /// One core's token cache.
    async fn core(&self) -> TokenCache {
        TokenCache::redis(&redis_url(), &self.prefix).await.unwrap()
    }

    async fn token(&self, cache: &TokenCache) -> String {
        cache.get("direct:wxdirect0001", || self.api.stable_token("wxdirect0001", "secret")).await.unwrap()
    }

    fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }

    async fn clean(mut self) {
        let keys: Vec<String> = self.redis.keys(format!("{}:*", self.prefix)).await.unwrap();
        if !keys.is_empty() {
            let _: i64 = self.redis.del(keys).await.unwrap();
        }
    }
}

#[tokio::test]
async fn two_cores_asking_at_once_fetch_one_token() {
    let setup = Setup::new("tokens_once").await;
    let (one, two) = (setup.core().await, setup.core().await);
    let (a, b) = tokio::join!(setup.token(&one), setup.token(&two));
    assert_eq!(a, b, "both cores use the one token");
    assert_eq!(setup.calls(), 1, "one upstream fetch across the two cores");

    // Shared with its TTL: until it is due for a refresh (7200 s less 5 minutes).
    let key = format!("{}:wechat:token:direct:wxdirect0001", setup.prefix);
    let mut redis = setup.redis.clone();
    let stored: Option<String> = redis.get(&key).await.unwrap();
    assert_eq!(stored.as_deref(), Some(a.as_str()));
    let ttl: i64 = redis.pttl(&key).await.unwrap();
    assert!((6_800_000..=6_900_000).contains(&ttl), "TTL {ttl} ms");
    assert!(!redis.exists::<_, bool>(format!("{}:wechat:token-lock:direct:wxdirect0001", setup.prefix)).await.unwrap());

    // A third core started later reads it without fetching.
    assert_eq!(setup.token(&setup.core().await).await, a);
    assert_eq!(setup.calls(), 1);

    // Many callers on both cores at once: still no second fetch.
    let many = (0..10).map(|i| setup.token(if i % 2 == 0 { &one } else { &two }));
    assert!(futures::future::join_all(many).await.iter().all(|t| *t == a));
    assert_eq!(setup.calls(), 1);
    setup.clean().await;
}

#[tokio::test]
async fn a_refused_token_is_dropped_once_for_every_core() {
    let setup = Setup::new("tokens_refused").await;
    let (one, two) = (setup.core().await, setup.core().await);
    let first = setup.token(&one).await;
    // A token no longer in use is not dropped: the current one stays.
    one.invalidate("direct:wxdirect0001", Some("ACCESS_TOKEN_0")).await;
    assert_eq!(setup.token(&two).await, first);
    assert_eq!(setup.calls(), 1);
    // WeChat refused the current one (40001): both cores refresh, one fetch.
    one.invalidate("direct:wxdirect0001", Some(&first)).await;
    two.invalidate("direct:wxdirect0001", Some(&first)).await;
    let (a, b) = tokio::join!(setup.token(&one), setup.token(&two));
    assert_eq!((a.as_str(), b.as_str()), ("ACCESS_TOKEN_2", "ACCESS_TOKEN_2"));
    assert_eq!(setup.calls(), 2);
    // Withdrawn account: dropped whatever it is.
    two.invalidate("direct:wxdirect0001", None).await;
    assert_eq!(setup.token(&one).await, "ACCESS_TOKEN_3");
    setup.clean().await;
}

#[tokio::test]
async fn a_lock_left_by_a_dead_core_passes_with_its_lease() {
    let setup = Setup::new("tokens_dead").await;
    let lock = format!("{}:wechat:token-lock:direct:wxdirect0001", setup.prefix);
    // A core took the lock and died: its lease (here 400 ms) runs out.
    let mut redis = setup.redis.clone();
    let _: () = redis::cmd("SET").arg(&lock).arg("dead-core").arg("PX").arg(400).query_async(&mut redis).await.unwrap();
    let start = Instant::now();
    let token = setup.token(&setup.core().await).await;
    let waited = start.elapsed();
    assert_eq!(token, "ACCESS_TOKEN_1");
    assert!(waited >= Duration::from_millis(350) && waited < LOCK_LEASE, "waited {waited:?}");
    assert_eq!(setup.calls(), 1);
    setup.clean().await;
}

#[tokio::test]
async fn in_process_caches_are_per_core() {
    let setup = Setup::new("tokens_local").await;
    let (one, two) = (TokenCache::in_process(), TokenCache::in_process());
    let (a, b) = tokio::join!(setup.token(&one), setup.token(&one));
    assert_eq!((a.as_str(), setup.calls()), (b.as_str(), 1), "one fetch per key in a process");
    assert_ne!(setup.token(&two).await, a, "another process fetches its own");
    assert_eq!(setup.calls(), 2);
    setup.clean().await;
}
