//! Where charters live: the [`CharterStore`] trait and its file-backed
//! implementation (`<data_dir>/charters/<account>/<profile>.json`, each a
//! `StoredCharter` in proto JSON, replaced atomically). The store issue adds
//! PostgreSQL and SQLite implementations behind the same trait.

use std::path::{Path, PathBuf};

use mediaops_proto::mediaops::charter::v1::{Charter, StoredCharter};
use prost_reflect::DynamicMessage;
use tokio::sync::Mutex;

use crate::clock::Clock;
use crate::error::ServiceError;
use crate::persist;

/// Charters by (account, profile). An account only ever reaches its own.
#[async_trait::async_trait]
pub trait CharterStore: Send + Sync + 'static {
    /// The stored charter of `profile`, `None` when it was never stored.
    async fn get(&self, account_id: &str, profile_id: &str) -> Result<Option<StoredCharter>, ServiceError>;

    /// Replaces the whole charter of `profile` (creating the profile) and
    /// returns it with its new `charterUpdatedAt` (RFC 3339 UTC, from the
    /// service clock: [`Clock::stamp`]).
    async fn put(&self, account_id: &str, profile_id: &str, charter: Charter) -> Result<StoredCharter, ServiceError>;
}

/// The embedded [`CharterStore`]: one JSON file per profile.
pub struct FileCharterStore {
    root: PathBuf,
    writes: Mutex<()>,
    /// Stamps `charterUpdatedAt` (the service clock, `MEDIAOPS_NOW`).
    clock: Clock,
}

impl FileCharterStore {
    pub fn new(data_dir: &Path, clock: Clock) -> FileCharterStore {
        FileCharterStore { root: data_dir.join("charters"), writes: Mutex::new(()), clock }
    }

    /// Account directory: the id itself when it is a safe file name (ids
    /// this service creates are), else its hex.
    fn path(&self, account_id: &str, profile_id: &str) -> PathBuf {
        let safe =
            !account_id.is_empty() && account_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        let dir = if safe { account_id.to_owned() } else { format!("x{}", hex::encode(account_id)) };
        self.root.join(dir).join(format!("{profile_id}.json"))
    }
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::internal(format!("charter file {}: {e}", path.display()))
}

#[async_trait::async_trait]
impl CharterStore for FileCharterStore {
    async fn get(&self, account_id: &str, profile_id: &str) -> Result<Option<StoredCharter>, ServiceError> {
        let path = self.path(account_id, profile_id);
        let Some(bytes) = persist::read_if_exists(&path).map_err(|e| io_error(&path, e))? else {
            return Ok(None);
        };
        let desc = mediaops_proto::descriptor_of::<StoredCharter>();
        let mut de = serde_json::Deserializer::from_slice(&bytes);
        let message = DynamicMessage::deserialize(desc, &mut de).map_err(|e| io_error(&path, e))?;
        message.transcode_to::<StoredCharter>().map(Some).map_err(|e| io_error(&path, e))
    }

    async fn put(&self, account_id: &str, profile_id: &str, charter: Charter) -> Result<StoredCharter, ServiceError> {
        let stored = StoredCharter {
            profile_id: profile_id.to_owned(),
            charter: Some(charter),
            charter_updated_at: Some(self.clock.stamp()),
        };
        let json = serde_json::to_vec_pretty(&mediaops_proto::to_dynamic(&stored))
            .map_err(|e| ServiceError::internal(e.to_string()))?;
        let path = self.path(account_id, profile_id);
        let _guard = self.writes.lock().await;
        persist::write_atomic(&path, &json).map_err(|e| io_error(&path, e))?;
        Ok(stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charter::rules::empty_charter;

    #[tokio::test]
    async fn round_trip_survives_reopen_and_accounts_are_separate() {
        let dir = tempfile::tempdir().unwrap();
        let mut charter = empty_charter();
        charter.positioning.as_mut().unwrap().one_liner = Some("帮小团队做增长".into());
        charter.monetization.as_mut().unwrap().practical_paths = vec!["membership".into()];
        let stored =
            FileCharterStore::new(dir.path(), Clock::System).put("acct_a", "brand", charter.clone()).await.unwrap();
        let store = FileCharterStore::new(dir.path(), Clock::System);
        let read = store.get("acct_a", "brand").await.unwrap().unwrap();
        assert_eq!(read, stored);
        assert_eq!(read.charter.unwrap(), charter, "empty strings survive the JSON file");
        assert_eq!(store.get("acct_b", "brand").await.unwrap(), None);
        assert_eq!(store.get("acct_a", "other").await.unwrap(), None);
    }
}
