//! Switches in `<data dir>/maintenance.json` (one process: the embedded
//! ledger already keeps a data dir to one core), written atomically.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mediaops_proto::error_code::ErrorCode;

use super::{Switch, SwitchStore};
use crate::error::ServiceError;
use crate::persist::{read_if_exists, write_atomic};

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

    fn read(&self) -> Result<HashMap<String, Switch>, ServiceError> {
        let failed = |e: &dyn std::fmt::Display| {
            ServiceError::new(ErrorCode::Internal, format!("maintenance switches in {}: {e}", self.path.display()))
        };
        match read_if_exists(&self.path).map_err(|e| failed(&e))? {
            None => Ok(HashMap::new()),
            Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| failed(&e)),
        }
    }
}

#[async_trait::async_trait]
impl SwitchStore for FileSwitchStore {
    async fn load(&self) -> Result<HashMap<String, Switch>, ServiceError> {
        self.read()
    }

    async fn put(&self, operation_key: &str, switch: &Switch) -> Result<(), ServiceError> {
        let _guard = self.write.lock().await;
        let mut switches = self.read()?;
        switches.insert(operation_key.to_owned(), switch.clone());
        let bytes =
            serde_json::to_vec_pretty(&switches).map_err(|e| ServiceError::new(ErrorCode::Internal, e.to_string()))?;
        write_atomic(&self.path, &bytes).map_err(|e| {
            ServiceError::new(ErrorCode::Internal, format!("maintenance switches in {}: {e}", self.path.display()))
        })
    }
}
