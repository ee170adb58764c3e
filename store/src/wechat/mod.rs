//! Durable WeChat state of the third-party platform mode: the latest
//! `component_verify_ticket`, the authorized accounts with their refresh
//! tokens and owning mediaops account, and the pending authorizations
//! (pre-auth code → account). Direct-mode accounts are not stored: they come
//! from the configuration.
//!
//! [`WechatStore`] is implemented for both databases of the content store
//! (`crate::wechat`: SQLite in the data dir, or PostgreSQL shared by
//! every core; docs/wechat.md "State", docs/state.md). Access tokens are
//! not kept here but in `mediaops_connectors::wechat::tokens::TokenCache`.

mod sql_store;

use serde::{Deserialize, Serialize};

use mediaops_proto::error::ServiceError;

/// One authorized official account of the third-party platform mode.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredAuthorizer {
    /// The official account's AppID (`wx…`), its key here and the
    /// `authorizerAppid` callers publish to.
    pub authorizer_appid: String,
    /// The mediaops account that authorized it (and alone may publish to it).
    pub account_id: String,
    /// The official account's name, from `api_get_authorizer_info`.
    pub nickname: String,
    /// URL of the official account's head image, from `api_get_authorizer_info`.
    pub avatar: String,
    /// `subscription` or `service`.
    pub service_type: String,
    /// Whether WeChat verified the account (`verify_type_info.id != -1`).
    pub verified: bool,
    /// When the authorization was redeemed: RFC 3339 UTC.
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
    /// The code from `api_create_preauthcode`, carried back by WeChat's
    /// `authorized` event as `PreAuthCode` (and as the landing's `state`).
    pub pre_auth_code: String,
    /// The mediaops account that asked for the authorize link; the official
    /// account authorized with the code is bound to it.
    pub account_id: String,
    /// Unix seconds after which the code is dropped.
    pub expires_at: i64,
}

/// Where the component state lives. A database failure is the
/// [`ServiceError`] [`crate::StoreError::into_service_error`] makes of it
/// (400, 503 `store_unavailable` or 500, by the driver's code).
#[async_trait::async_trait]
pub trait WechatStore: Send + Sync + 'static {
    /// The latest `component_verify_ticket`, if WeChat pushed one.
    async fn verify_ticket(&self) -> Result<Option<String>, ServiceError>;
    /// Keeps `ticket`, the `component_verify_ticket` WeChat pushes every
    /// 10 minutes, replacing the previous one.
    async fn set_verify_ticket(&self, ticket: &str) -> Result<(), ServiceError>;
    /// Every authorizer of `account_id`, by appid.
    async fn authorizers_of(&self, account_id: &str) -> Result<Vec<StoredAuthorizer>, ServiceError>;
    /// The authorizer whose AppID is `appid`, whoever owns it.
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
