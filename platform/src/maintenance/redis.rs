//! Switches in Redis, shared by every core: the hash `P:maintenance`
//! (`P` = `MEDIAOPS_REDIS_PREFIX`), field = operation key, value = the
//! [`Switch`] as JSON.

use std::collections::HashMap;

use mediaops_proto::error_code::ErrorCode;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;

use super::{Switch, SwitchStore};
use mediaops_proto::error::ServiceError;

/// The Redis [`SwitchStore`].
pub struct RedisSwitchStore {
    redis: ConnectionManager,
    key: String,
}

fn failed(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::new(ErrorCode::Internal, format!("maintenance switches in Redis: {e}"))
}

impl RedisSwitchStore {
    /// Connects to `url` (the ledger's Redis).
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<RedisSwitchStore> {
        let redis = crate::redis_connection::connect(url).await?;
        Ok(RedisSwitchStore { redis, key: format!("{prefix}:maintenance") })
    }
}

#[async_trait::async_trait]
impl SwitchStore for RedisSwitchStore {
    async fn load(&self) -> Result<HashMap<String, Switch>, ServiceError> {
        let fields: HashMap<String, String> = self.redis.clone().hgetall(&self.key).await.map_err(failed)?;
        Ok(fields
            .into_iter()
            .filter_map(|(key, json)| match serde_json::from_str(&json) {
                Ok(switch) => Some((key, switch)),
                Err(e) => {
                    tracing::warn!(operation = key, error = %e, "unreadable maintenance switch ignored");
                    None
                }
            })
            .collect())
    }

    async fn put(&self, operation_key: &str, switch: &Switch) -> Result<(), ServiceError> {
        let json = serde_json::to_string(switch).map_err(failed)?;
        self.redis.clone().hset::<_, _, _, ()>(&self.key, operation_key, json).await.map_err(failed)
    }
}
