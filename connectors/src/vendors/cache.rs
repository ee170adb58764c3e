//! The answer cache of mapped operations (docs/vendors.md
//! "A call"): found and empty answers reused for the same request for the
//! operation's `cache_ttl_secs`. In process by default (moka); in Redis
//! when the core has one (`MEDIAOPS_REDIS_URL`), so every core shares it.

use std::time::Duration;

use bytes::Bytes;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use sha2::{Digest, Sha256};

use mediaops_proto::service::Answer;

/// Where caches live; one per core, shared by every vendor.
#[derive(Clone, Default)]
pub enum CacheBackend {
    /// Each operation keeps its answers in this process.
    #[default]
    Memory,
    /// Keys `<prefix>:vcache:<vendor>:<operation>:<sha256 of the request>`.
    Redis {
        /// The connection, shared by every cache.
        redis: ConnectionManager,
        /// The deployment's key prefix (the ledger's).
        prefix: String,
    },
}

impl CacheBackend {
    /// The Redis backend on `url` (the ledger's Redis).
    ///
    /// # Errors
    /// Redis cannot be reached.
    pub async fn redis(url: &str, prefix: &str) -> anyhow::Result<CacheBackend> {
        let redis = mediaops_platform::redis_connection::connect(url).await?;
        Ok(CacheBackend::Redis { redis, prefix: prefix.to_owned() })
    }

    /// The cache of one operation of one vendor; `None` when `ttl` is zero.
    pub fn cache(&self, vendor: &str, operation_key: &str, ttl: Duration) -> Option<AnswerCache> {
        if ttl.is_zero() {
            return None;
        }
        Some(match self {
            CacheBackend::Memory => {
                AnswerCache::Memory(moka::future::Cache::builder().max_capacity(10_000).time_to_live(ttl).build())
            }
            CacheBackend::Redis { redis, prefix } => AnswerCache::Redis {
                redis: redis.clone(),
                key_prefix: format!("{prefix}:vcache:{vendor}:{operation_key}"),
                ttl,
            },
        })
    }
}

/// One operation's cache.
pub enum AnswerCache {
    /// In this process: at most 10,000 answers, each kept for the TTL,
    /// keyed by the encoded request.
    Memory(moka::future::Cache<Bytes, Answer<Bytes>>),
    /// In Redis, shared by every core.
    Redis {
        /// The connection, shared by every cache.
        redis: ConnectionManager,
        /// `<prefix>:vcache:<vendor>:<operation>`; a key adds `:<sha256 of
        /// the request>`.
        key_prefix: String,
        /// How long an answer is kept (the key's expiry).
        ttl: Duration,
    },
}

/// Redis values: a kind byte (`F` found, `E` empty), then the message.
fn encode(answer: &Answer<Bytes>) -> Option<Vec<u8>> {
    let (kind, bytes) = match answer {
        Answer::Found(b) => (b'F', b),
        Answer::Empty(b) => (b'E', b),
        Answer::NotFound(_) => return None,
    };
    let mut value = Vec::with_capacity(bytes.len() + 1);
    value.push(kind);
    value.extend_from_slice(bytes);
    Some(value)
}

fn decode(value: &[u8]) -> Option<Answer<Bytes>> {
    let (kind, bytes) = value.split_first()?;
    let bytes = Bytes::copy_from_slice(bytes);
    match kind {
        b'F' => Some(Answer::Found(bytes)),
        b'E' => Some(Answer::Empty(bytes)),
        _ => None,
    }
}

impl AnswerCache {
    fn redis_key(key_prefix: &str, request: &Bytes) -> String {
        format!("{key_prefix}:{}", hex::encode(Sha256::digest(request)))
    }

    /// The cached answer to `request`. A Redis failure is a miss (logged):
    /// the cache never fails a call.
    pub async fn get(&self, request: &Bytes) -> Option<Answer<Bytes>> {
        match self {
            AnswerCache::Memory(cache) => cache.get(request).await,
            AnswerCache::Redis { redis, key_prefix, .. } => {
                let value: redis::RedisResult<Option<Vec<u8>>> =
                    redis.clone().get(Self::redis_key(key_prefix, request)).await;
                match value {
                    Ok(value) => decode(&value?),
                    Err(e) => {
                        tracing::warn!(error = %e, "vendor answer cache not read");
                        None
                    }
                }
            }
        }
    }

    /// Keeps `answer` (found or empty; a miss is not kept).
    pub async fn put(&self, request: Bytes, answer: &Answer<Bytes>) {
        let Some(value) = encode(answer) else { return };
        match self {
            AnswerCache::Memory(cache) => cache.insert(request, answer.clone()).await,
            AnswerCache::Redis { redis, key_prefix, ttl } => {
                let key = Self::redis_key(key_prefix, &request);
                let stored: redis::RedisResult<()> = redis.clone().set_ex(key, value, ttl.as_secs().max(1)).await;
                if let Err(e) = stored {
                    tracing::warn!(error = %e, "vendor answer cache not written");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_values_keep_the_kind() {
        let found = Answer::Found(Bytes::from_static(b"\x0a\x01x"));
        assert_eq!(decode(&encode(&found).unwrap()), Some(found));
        let empty = Answer::Empty(Bytes::new());
        assert_eq!(decode(&encode(&empty).unwrap()), Some(empty));
        assert_eq!(encode(&Answer::NotFound("x".into())), None);
        assert_eq!(decode(b""), None);
    }
}
