//! WeChat settings: the `wechat` table of the core's settings
//! (docs/wechat.md "Configuration"). In the TOML file:
//!
//! ```toml
//! [wechat]
//! callback_addr = "0.0.0.0:8090"      # WeChat-facing listener; unset = not served
//!
//! [[wechat.accounts]]                 # direct mode: one table per official account
//! account_id = "acme"                 # the mediaops account that may publish to it
//! appid = "wx0123456789abcdef"
//! secret = "…"                        # never logged
//! nickname = "Acme 官方号"
//!
//! [wechat.component]                  # third-party platform mode
//! appid = "wxcomponent0000001"
//! secret = "…"
//! token = "…"                         # message-check token
//! encoding_aes_key = "…"              # 43 characters
//! redirect_uri = "https://ops.example.com/wechat/component/authorized"
//! ```
//!
//! As environment variables: `MEDIAOPS_WECHAT__API_BASE=http://127.0.0.1:9000`,
//! `MEDIAOPS_WECHAT__COMPONENT__SECRET=…`. Timeouts and retries of WeChat
//! calls are the `[outbound]` ones.

use serde::{Deserialize, Serialize};

/// The `wechat` settings.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WechatSettings {
    /// Base URL of the WeChat API (`https://api.weixin.qq.com`); tests point
    /// it at a local fake.
    pub api_base: String,
    /// Base URL of the authorization page (`https://mp.weixin.qq.com`).
    pub mp_base: String,
    /// Address of the WeChat-facing listener (component events and the
    /// authorization redirect); unset = not served.
    pub callback_addr: Option<String>,
    /// Direct-mode accounts (the operator's own appid + secret).
    pub accounts: Vec<DirectAccount>,
    /// Third-party platform mode; unset = off.
    pub component: Option<ComponentSettings>,
}

impl Default for WechatSettings {
    fn default() -> Self {
        WechatSettings {
            api_base: "https://api.weixin.qq.com".into(),
            mp_base: "https://mp.weixin.qq.com".into(),
            callback_addr: None,
            accounts: Vec::new(),
            component: None,
        }
    }
}

/// One direct-mode official account, assigned to one mediaops account.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectAccount {
    /// The mediaops account (API-key owner) that may publish to it.
    pub account_id: String,
    /// The official account's AppID (`wx…`).
    pub appid: String,
    /// AppSecret; never logged.
    pub secret: String,
    /// The name shown in the status list (empty by default).
    #[serde(default)]
    pub nickname: String,
    /// URL of the avatar shown in the status list (empty by default).
    #[serde(default)]
    pub avatar: String,
    /// `subscription` or `service`.
    #[serde(default = "subscription")]
    pub service_type: String,
    /// Whether WeChat verified the account, as configured (default false).
    #[serde(default)]
    pub verified: bool,
}

fn subscription() -> String {
    "subscription".into()
}

/// Third-party platform (开放平台第三方平台) credentials.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentSettings {
    /// component_appid.
    pub appid: String,
    /// component_appsecret; never logged.
    pub secret: String,
    /// Message-check token (消息校验 Token) of the event URL.
    pub token: String,
    /// EncodingAESKey: 43 characters of base64 without the trailing `=`.
    pub encoding_aes_key: String,
    /// Where WeChat sends the browser after authorization (our
    /// `/wechat/component/authorized` on the callback listener, as the
    /// public reaches it); WeChat requires one in every link.
    pub redirect_uri: String,
}

impl std::fmt::Debug for WechatSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WechatSettings")
            .field("api_base", &self.api_base)
            .field("mp_base", &self.mp_base)
            .field("callback_addr", &self.callback_addr)
            .field("accounts", &self.accounts.iter().map(|a| (&a.account_id, &a.appid)).collect::<Vec<_>>())
            .field("component", &self.component.as_ref().map(|c| &c.appid))
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for DirectAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectAccount").field("account_id", &self.account_id).field("appid", &self.appid).finish()
    }
}

impl std::fmt::Debug for ComponentSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComponentSettings").field("appid", &self.appid).finish_non_exhaustive()
    }
}

impl WechatSettings {
    /// Checks values the types alone do not.
    pub fn check(&self) -> anyhow::Result<()> {
        for base in [&self.api_base, &self.mp_base] {
            anyhow::ensure!(
                base.starts_with("http://") || base.starts_with("https://"),
                "wechat.api_base and wechat.mp_base must be http(s) URLs, not {base:?}"
            );
        }
        let mut seen = std::collections::HashSet::new();
        for account in &self.accounts {
            mediaops_platform::auth::check_account_id(&account.account_id)
                .map_err(|_| anyhow::anyhow!("wechat.accounts: bad account_id {:?}", account.account_id))?;
            anyhow::ensure!(
                !account.appid.is_empty() && !account.secret.is_empty(),
                "wechat.accounts: appid and secret are required"
            );
            anyhow::ensure!(seen.insert(&account.appid), "wechat.accounts: appid {} is listed twice", account.appid);
        }
        if let Some(component) = &self.component {
            anyhow::ensure!(
                !component.appid.is_empty()
                    && !component.secret.is_empty()
                    && !component.token.is_empty()
                    && component.redirect_uri.starts_with("http"),
                "wechat.component: appid, secret, token and an http(s) redirect_uri are required"
            );
            super::crypto::MessageCrypto::new(&component.token, &component.encoding_aes_key, &component.appid)
                .map_err(|e| anyhow::anyhow!("wechat.component.encoding_aes_key: {e}"))?;
        }
        Ok(())
    }
}
