//! Switches in `<data dir>/maintenance.json` (one process: the embedded
//! ledger already keeps a data dir to one core), written atomically. The
//! file is read and written on the blocking pool ([`mediaops_store::offload::file`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mediaops_proto::error_code::ErrorCode;

use super::{Switch, SwitchStore};
use crate::persist::{read_if_exists, write_atomic};
use mediaops_proto::error::ServiceError;

/// The file [`SwitchStore`].
pub struct FileSwitchStore {
    path: PathBuf,
    /// Serializes read-modify-write of the file.
    write: tokio::sync::Mutex<()>,
}

impl FileSwitchStore {
    /// The store of `data_dir`; the file appears with the first switch.
    pub fn new(data_dir: &Path) -> FileSwitchStore {
        FileSwitchStore { path: data_dir.join("maintenance.json"), write: tokio::sync::Mutex::new(()) }
    }

    async fn read(&self) -> Result<HashMap<String, Switch>, ServiceError> {
        let path = self.path.clone();
        let bytes = mediaops_store::offload::file(move || read_if_exists(&path)).await.map_err(|e| self.failed(&e))?;
        match bytes {
            None => Ok(HashMap::new()),
            Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.failed(&e)),
        }
    }

    fn failed(&self, e: &dyn std::fmt::Display) -> ServiceError {
        ServiceError::new(ErrorCode::Internal, format!("maintenance switches in {}: {e}", self.path.display()))
    }
}

#[async_trait::async_trait]
impl SwitchStore for FileSwitchStore {
    async fn load(&self) -> Result<HashMap<String, Switch>, ServiceError> {
        self.read().await
    }

    async fn put(&self, operation_key: &str, switch: &Switch) -> Result<(), ServiceError> {
        let _guard = self.write.lock().await;
        let mut switches = self.read().await?;
        switches.insert(operation_key.to_owned(), switch.clone());
        let bytes =
            serde_json::to_vec_pretty(&switches).map_err(|e| ServiceError::new(ErrorCode::Internal, e.to_string()))?;
        let path = self.path.clone();
        mediaops_store::offload::file(move || write_atomic(&path, &bytes)).await.map_err(|e| self.failed(&e))
    }
}
