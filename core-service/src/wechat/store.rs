//! Durable WeChat state of the third-party platform mode: the latest
//! `component_verify_ticket`, the authorized accounts with their refresh
//! tokens and owning mediaops account, and the pending authorizations
//! (pre-auth code → account). Direct-mode accounts are not stored: they come
//! from the configuration.
//!
//! [`FileWechatStore`] keeps it in `<data_dir>/wechat/state.json` (mode 0600
//! on Unix: it holds refresh tokens), replaced atomically on every change
//! (docs/wechat.md "State").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::error::ServiceError;
use crate::persist;

/// One authorized official account of the third-party platform mode.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredAuthorizer {
    pub authorizer_appid: String,
    /// The mediaops account that authorized it (and alone may publish to it).
    pub account_id: String,
    pub nickname: String,
    pub avatar: String,
    /// `subscription` or `service`.
    pub service_type: String,
    pub verified: bool,
    /// RFC 3339 UTC.
    pub authorized_at: String,
    /// authorizer_refresh_token; never logged.
    pub refresh_token: String,
}

impl std::fmt::Debug for StoredAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredAuthorizer")
            .field("authorizer_appid", &self.authorizer_appid)
            .field("account_id", &self.account_id)
            .finish_non_exhaustive()
    }
}

/// A pre-auth code handed out to an account, waiting for WeChat's
/// `authorized` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingAuthorization {
    pub pre_auth_code: String,
    pub account_id: String,
    /// Unix seconds after which the code is dropped.
    pub expires_at: i64,
}

/// The whole state file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct State {
    verify_ticket: Option<String>,
    /// RFC 3339 UTC of the last ticket push.
    verify_ticket_at: Option<String>,
    authorizers: BTreeMap<String, StoredAuthorizer>,
    pending: Vec<PendingAuthorization>,
}

/// Where the component state lives.
#[async_trait::async_trait]
pub trait WechatStore: Send + Sync + 'static {
    /// The latest `component_verify_ticket`, if WeChat pushed one.
    async fn verify_ticket(&self) -> Result<Option<String>, ServiceError>;
    async fn set_verify_ticket(&self, ticket: &str) -> Result<(), ServiceError>;
    /// Every authorizer of `account_id`, by appid.
    async fn authorizers_of(&self, account_id: &str) -> Result<Vec<StoredAuthorizer>, ServiceError>;
    async fn authorizer(&self, appid: &str) -> Result<Option<StoredAuthorizer>, ServiceError>;
    /// Inserts or replaces (a new authorization rebinds the appid).
    async fn put_authorizer(&self, authorizer: StoredAuthorizer) -> Result<(), ServiceError>;
    /// Removes an authorizer (the `unauthorized` event); true if it was there.
    async fn remove_authorizer(&self, appid: &str) -> Result<bool, ServiceError>;
    /// Keeps a rotated refresh token.
    async fn set_refresh_token(&self, appid: &str, refresh_token: &str) -> Result<(), ServiceError>;
    /// Remembers which account asked for `pre_auth_code`; drops expired ones.
    async fn add_pending(&self, pending: PendingAuthorization, now: i64) -> Result<(), ServiceError>;
    /// The pending authorization of `pre_auth_code`, if it has not
    /// expired; it is consumed.
    async fn take_pending(&self, pre_auth_code: &str, now: i64) -> Result<Option<PendingAuthorization>, ServiceError>;
}

/// The embedded [`WechatStore`]: one JSON file.
pub struct FileWechatStore {
    path: PathBuf,
    state: Mutex<Option<State>>,
}

impl FileWechatStore {
    pub fn new(data_dir: &Path) -> FileWechatStore {
        FileWechatStore { path: data_dir.join("wechat").join("state.json"), state: Mutex::new(None) }
    }

    fn error(&self, e: impl std::fmt::Display) -> ServiceError {
        ServiceError::internal(format!("WeChat state file {}: {e}", self.path.display()))
    }

    /// Runs `f` on the state (read from disk on first use) and writes it
    /// back when `f` says it changed.
    async fn with<R>(&self, f: impl FnOnce(&mut State) -> (bool, R)) -> Result<R, ServiceError> {
        let mut guard = self.state.lock().await;
        if guard.is_none() {
            let state = match persist::read_if_exists(&self.path).map_err(|e| self.error(e))? {
                Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.error(e))?,
                None => State::default(),
            };
            *guard = Some(state);
        }
        let state = guard.as_mut().expect("loaded above");
        let (changed, result) = f(state);
        if changed {
            let bytes = serde_json::to_vec_pretty(state).map_err(|e| self.error(e))?;
            persist::write_atomic(&self.path, &bytes).map_err(|e| self.error(e))?;
            restrict(&self.path);
        }
        Ok(result)
    }
}

#[cfg(unix)]
fn restrict(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
}

#[cfg(not(unix))]
fn restrict(_: &Path) {}

#[async_trait::async_trait]
impl WechatStore for FileWechatStore {
    async fn verify_ticket(&self) -> Result<Option<String>, ServiceError> {
        self.with(|s| (false, s.verify_ticket.clone())).await
    }

    async fn set_verify_ticket(&self, ticket: &str) -> Result<(), ServiceError> {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        self.with(|s| {
            s.verify_ticket = Some(ticket.to_owned());
            s.verify_ticket_at = Some(now);
            (true, ())
        })
        .await
    }

    async fn authorizers_of(&self, account_id: &str) -> Result<Vec<StoredAuthorizer>, ServiceError> {
        self.with(|s| (false, s.authorizers.values().filter(|a| a.account_id == account_id).cloned().collect())).await
    }

    async fn authorizer(&self, appid: &str) -> Result<Option<StoredAuthorizer>, ServiceError> {
        self.with(|s| (false, s.authorizers.get(appid).cloned())).await
    }

    async fn put_authorizer(&self, authorizer: StoredAuthorizer) -> Result<(), ServiceError> {
        self.with(|s| {
            s.authorizers.insert(authorizer.authorizer_appid.clone(), authorizer);
            (true, ())
        })
        .await
    }

    async fn remove_authorizer(&self, appid: &str) -> Result<bool, ServiceError> {
        self.with(|s| {
            let removed = s.authorizers.remove(appid).is_some();
            (removed, removed)
        })
        .await
    }

    async fn set_refresh_token(&self, appid: &str, refresh_token: &str) -> Result<(), ServiceError> {
        self.with(|s| match s.authorizers.get_mut(appid) {
            Some(a) if a.refresh_token != refresh_token => {
                a.refresh_token = refresh_token.to_owned();
                (true, ())
            }
            _ => (false, ()),
        })
        .await
    }

    async fn add_pending(&self, pending: PendingAuthorization, now: i64) -> Result<(), ServiceError> {
        self.with(|s| {
            s.pending.retain(|p| p.expires_at > now && p.pre_auth_code != pending.pre_auth_code);
            s.pending.push(pending);
            (true, ())
        })
        .await
    }

    async fn take_pending(&self, pre_auth_code: &str, now: i64) -> Result<Option<PendingAuthorization>, ServiceError> {
        self.with(|s| {
            let found = s.pending.iter().position(|p| p.pre_auth_code == pre_auth_code);
            let pending = found.map(|i| s.pending.remove(i)).filter(|p| p.expires_at > now);
            (found.is_some(), pending)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authorizer(appid: &str, account: &str) -> StoredAuthorizer {
        StoredAuthorizer {
            authorizer_appid: appid.into(),
            account_id: account.into(),
            nickname: "n".into(),
            avatar: String::new(),
            service_type: "service".into(),
            verified: true,
            authorized_at: "2026-01-01T00:00:00Z".into(),
            refresh_token: "refresh@@@1".into(),
        }
    }

    #[tokio::test]
    async fn state_survives_a_reopen_and_pending_codes_are_single_use() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileWechatStore::new(dir.path());
        assert_eq!(store.verify_ticket().await.unwrap(), None);
        store.set_verify_ticket("ticket@@@x").await.unwrap();
        store.put_authorizer(authorizer("wxa", "acme")).await.unwrap();
        store.put_authorizer(authorizer("wxb", "other")).await.unwrap();
        store.set_refresh_token("wxa", "refresh@@@2").await.unwrap();
        store
            .add_pending(
                PendingAuthorization { pre_auth_code: "pre1".into(), account_id: "acme".into(), expires_at: 100 },
                0,
            )
            .await
            .unwrap();
        store
            .add_pending(
                PendingAuthorization { pre_auth_code: "pre2".into(), account_id: "acme".into(), expires_at: 50 },
                0,
            )
            .await
            .unwrap();

        let reopened = FileWechatStore::new(dir.path());
        assert_eq!(reopened.verify_ticket().await.unwrap().as_deref(), Some("ticket@@@x"));
        let acme = reopened.authorizers_of("acme").await.unwrap();
        assert_eq!(acme.len(), 1);
        assert_eq!(acme[0].refresh_token, "refresh@@@2");
        assert_eq!(reopened.take_pending("pre2", 60).await.unwrap(), None, "expired");
        assert_eq!(reopened.take_pending("pre1", 60).await.unwrap().map(|p| p.account_id).as_deref(), Some("acme"));
        assert_eq!(reopened.take_pending("pre1", 60).await.unwrap(), None, "consumed");
        assert!(reopened.remove_authorizer("wxa").await.unwrap());
        assert!(!reopened.remove_authorizer("wxa").await.unwrap());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("wechat/state.json")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
