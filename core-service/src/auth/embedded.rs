//! File-backed key store: `<data_dir>/keys.json`, rewritten atomically on
//! every change, so a restart keeps keys and accounts.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tokio::sync::RwLock;

use super::keys::{display_prefix, hash_key};
use super::{KeyStore, Principal};
use crate::error::ServiceError;
use crate::persist;

#[derive(Debug, Default, Serialize, Deserialize)]
struct KeysFile {
    /// Account id → account.
    accounts: BTreeMap<String, AccountRecord>,
    /// SHA-256 hex of the key → key record.
    keys: BTreeMap<String, KeyRecord>,
}

#[derive(Debug, Serialize, Deserialize)]
struct AccountRecord {
    /// Points granted at creation; the billing issue turns this into a ledger.
    points: i64,
    created_at: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct KeyRecord {
    account_id: String,
    prefix: String,
    disabled: bool,
    created_at: String,
}

/// The embedded [`KeyStore`].
pub struct EmbeddedKeyStore {
    path: PathBuf,
    state: RwLock<KeysFile>,
}

impl EmbeddedKeyStore {
    /// Opens (or starts) the store in `data_dir`.
    pub fn open(data_dir: &std::path::Path) -> anyhow::Result<Self> {
        let path = data_dir.join("keys.json");
        let state = match persist::read_if_exists(&path)? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| anyhow::anyhow!("{} is not a valid key file: {e}", path.display()))?,
            None => KeysFile::default(),
        };
        Ok(EmbeddedKeyStore { path, state: RwLock::new(state) })
    }

    fn save(&self, state: &KeysFile) -> Result<(), ServiceError> {
        let bytes = serde_json::to_vec_pretty(state).map_err(|e| ServiceError::internal(e.to_string()))?;
        persist::write_atomic(&self.path, &bytes)
            .map_err(|e| ServiceError::internal(format!("cannot write {}: {e}", self.path.display())))
    }
}

#[async_trait::async_trait]
impl KeyStore for EmbeddedKeyStore {
    async fn authenticate(&self, key: &str) -> Result<Principal, ServiceError> {
        let state = self.state.read().await;
        match state.keys.get(&hash_key(key)) {
            Some(record) if !record.disabled => {
                Ok(Principal { account_id: record.account_id.clone(), key_prefix: record.prefix.clone() })
            }
            Some(_) => Err(ServiceError::unauthenticated("this API key is disabled")),
            None => Err(ServiceError::unauthenticated("unknown API key")),
        }
    }

    async fn insert_key(&self, key: &str, account_id: &str, grant_points: i64) -> Result<bool, ServiceError> {
        let mut state = self.state.write().await;
        let hash = hash_key(key);
        if state.keys.contains_key(&hash) {
            return Ok(false);
        }
        let now = chrono::Utc::now().to_rfc3339();
        state
            .accounts
            .entry(account_id.to_owned())
            .or_insert_with(|| AccountRecord { points: grant_points, created_at: now.clone() });
        state.keys.insert(
            hash,
            KeyRecord {
                account_id: account_id.to_owned(),
                prefix: display_prefix(key),
                disabled: false,
                created_at: now,
            },
        );
        self.save(&state)?;
        Ok(true)
    }

    async fn key_count(&self) -> Result<usize, ServiceError> {
        Ok(self.state.read().await.keys.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn keys_survive_a_restart_and_only_hashes_are_stored() {
        let dir = tempfile::tempdir().unwrap();
        let key = "mk_testtesttesttesttest";
        {
            let store = EmbeddedKeyStore::open(dir.path()).unwrap();
            assert!(store.insert_key(key, "acct_1", 100).await.unwrap());
            assert!(!store.insert_key(key, "acct_1", 100).await.unwrap());
        }
        let raw = std::fs::read_to_string(dir.path().join("keys.json")).unwrap();
        assert!(!raw.contains(key), "the plaintext key is never written");
        let store = EmbeddedKeyStore::open(dir.path()).unwrap();
        let principal = store.authenticate(key).await.unwrap();
        assert_eq!(principal.account_id, "acct_1");
        assert_eq!(store.key_count().await.unwrap(), 1);
        let err = store.authenticate("mk_unknownunknownunknown").await.unwrap_err();
        assert_eq!(err.code, mediaops_proto::error_code::ErrorCode::Unauthenticated);
    }
}
