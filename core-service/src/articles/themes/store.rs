//! Where an account's theme settings live: the [`ThemeStore`] trait and its
//! file-backed implementation under the data dir:
//!
//! - `<data_dir>/article-themes/<account>/default.json`: `{"themeId": "…"}`;
//! - `<data_dir>/article-themes/<account>/custom/<id>.json`:
//!   `{"id", "name", "description", "css", "updatedAt"}`.
//!
//! Files are replaced atomically. The store issue can add a database
//! implementation behind the same trait.

use std::path::{Path, PathBuf};

use mediaops_proto::mediaops::studio::v1::CustomTheme;
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::error::ServiceError;
use crate::persist;

/// Theme settings by account. An account only ever reaches its own.
#[async_trait::async_trait]
pub trait ThemeStore: Send + Sync + 'static {
    /// The account's saved default theme id, if it set one.
    async fn default_theme(&self, account_id: &str) -> Result<Option<String>, ServiceError>;

    /// Saves the account's default theme id (already checked to exist).
    async fn set_default_theme(&self, account_id: &str, theme_id: &str) -> Result<(), ServiceError>;

    /// The custom theme `id` of the account.
    async fn custom_theme(&self, account_id: &str, id: &str) -> Result<Option<CustomTheme>, ServiceError>;

    /// Every custom theme of the account, by id.
    async fn custom_themes(&self, account_id: &str) -> Result<Vec<CustomTheme>, ServiceError>;

    /// Creates or replaces a custom theme (already validated).
    async fn put_custom_theme(&self, account_id: &str, theme: &CustomTheme) -> Result<(), ServiceError>;
}

/// The embedded [`ThemeStore`]: JSON files.
pub struct FileThemeStore {
    root: PathBuf,
    writes: Mutex<()>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DefaultFile {
    theme_id: String,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CustomFile {
    id: String,
    name: String,
    #[serde(default)]
    description: String,
    css: String,
    updated_at: String,
}

impl FileThemeStore {
    pub fn new(data_dir: &Path) -> FileThemeStore {
        FileThemeStore { root: data_dir.join("article-themes"), writes: Mutex::new(()) }
    }

    /// Account directory: the id itself when it is a safe file name (ids
    /// this service creates are), else its hex.
    fn account_dir(&self, account_id: &str) -> PathBuf {
        let safe =
            !account_id.is_empty() && account_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        let dir = if safe { account_id.to_owned() } else { format!("x{}", hex::encode(account_id)) };
        self.root.join(dir)
    }

    /// Custom theme ids are validated (`[a-z0-9_-]`) before they get here.
    fn custom_path(&self, account_id: &str, id: &str) -> PathBuf {
        self.account_dir(account_id).join("custom").join(format!("{id}.json"))
    }
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::internal(format!("theme file {}: {e}", path.display()))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, ServiceError> {
    let Some(bytes) = persist::read_if_exists(path).map_err(|e| io_error(path, e))? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| io_error(path, e))
}

fn from_file(file: CustomFile) -> CustomTheme {
    CustomTheme {
        id: file.id,
        name: file.name,
        description: file.description,
        css: file.css,
        updated_at: file.updated_at,
    }
}

#[async_trait::async_trait]
impl ThemeStore for FileThemeStore {
    async fn default_theme(&self, account_id: &str) -> Result<Option<String>, ServiceError> {
        let path = self.account_dir(account_id).join("default.json");
        Ok(read_json::<DefaultFile>(&path)?.map(|file| file.theme_id))
    }

    async fn set_default_theme(&self, account_id: &str, theme_id: &str) -> Result<(), ServiceError> {
        let path = self.account_dir(account_id).join("default.json");
        let json = serde_json::to_vec_pretty(&DefaultFile { theme_id: theme_id.to_owned() })
            .map_err(|e| ServiceError::internal(e.to_string()))?;
        let _guard = self.writes.lock().await;
        persist::write_atomic(&path, &json).map_err(|e| io_error(&path, e))
    }

    async fn custom_theme(&self, account_id: &str, id: &str) -> Result<Option<CustomTheme>, ServiceError> {
        Ok(read_json::<CustomFile>(&self.custom_path(account_id, id))?.map(from_file))
    }

    async fn custom_themes(&self, account_id: &str) -> Result<Vec<CustomTheme>, ServiceError> {
        let dir = self.account_dir(account_id).join("custom");
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&dir, e)),
        };
        let mut themes = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| io_error(&dir, e))?.path();
            // Skips the temporary files of a write in progress (`.x.json.….tmp`).
            if path.extension().is_some_and(|ext| ext == "json")
                && !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
                && let Some(file) = read_json::<CustomFile>(&path)?
            {
                themes.push(from_file(file));
            }
        }
        themes.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(themes)
    }

    async fn put_custom_theme(&self, account_id: &str, theme: &CustomTheme) -> Result<(), ServiceError> {
        let path = self.custom_path(account_id, &theme.id);
        let file = CustomFile {
            id: theme.id.clone(),
            name: theme.name.clone(),
            description: theme.description.clone(),
            css: theme.css.clone(),
            updated_at: theme.updated_at.clone(),
        };
        let json = serde_json::to_vec_pretty(&file).map_err(|e| ServiceError::internal(e.to_string()))?;
        let _guard = self.writes.lock().await;
        persist::write_atomic(&path, &json).map_err(|e| io_error(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn theme(id: &str) -> CustomTheme {
        CustomTheme {
            id: id.into(),
            name: "我的主题".into(),
            description: String::new(),
            css: "p { color: #123456 }".into(),
            updated_at: "2026-01-01T00:00:00.000Z".into(),
        }
    }

    #[tokio::test]
    async fn round_trip_survives_reopen_and_accounts_are_separate() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileThemeStore::new(dir.path());
        assert_eq!(store.default_theme("acct_a").await.unwrap(), None);
        assert!(store.custom_themes("acct_a").await.unwrap().is_empty());
        store.set_default_theme("acct_a", "magazine").await.unwrap();
        store.put_custom_theme("acct_a", &theme("zeta")).await.unwrap();
        store.put_custom_theme("acct_a", &theme("alpha")).await.unwrap();

        let store = FileThemeStore::new(dir.path());
        assert_eq!(store.default_theme("acct_a").await.unwrap().as_deref(), Some("magazine"));
        let ids: Vec<_> = store.custom_themes("acct_a").await.unwrap().into_iter().map(|t| t.id).collect();
        assert_eq!(ids, ["alpha", "zeta"]);
        assert_eq!(store.custom_theme("acct_a", "zeta").await.unwrap(), Some(theme("zeta")));
        assert_eq!(store.default_theme("acct_b").await.unwrap(), None);
        assert_eq!(store.custom_theme("acct_b", "zeta").await.unwrap(), None);
    }
}
