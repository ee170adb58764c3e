//! Third-party platform mode (开放平台第三方平台): the component access
//! token from the pushed `component_verify_ticket`, the authorization link
//! (pre-auth code bound to the asking account), redeeming an authorization
//! code (`api_query_auth` + `api_get_authorizer_info`), the authorizer list,
//! and the events WeChat pushes to the event URL.

use mediaops_proto::mediaops::studio::v1::AuthorizeLinkResponse;

use super::Wechat;
use super::config::ComponentSettings;
use super::errors::WechatError;
use mediaops_proto::error::ServiceError;
use mediaops_store::wechat::{PendingAuthorization, StoredAuthorizer};

/// Token-cache key of the component access token.
const COMPONENT_KEY: &str = "component";

/// Path of the authorization redirect on the callback listener.
pub const AUTHORIZED_PATH: &str = "/wechat/component/authorized";

/// Path of the event URL (授权事件接收 URL) on the callback listener.
pub const EVENT_PATH: &str = "/wechat/component/event";

/// One event of the event URL, decrypted (`InfoType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComponentEvent {
    /// Every 10 minutes: the ticket the component token is asked with.
    VerifyTicket(String),
    /// An account authorized us (or changed what it granted).
    Authorized {
        /// The official account's AppID (`AuthorizerAppid`).
        authorizer_appid: String,
        /// The code redeemed with `api_query_auth` (`AuthorizationCode`).
        authorization_code: String,
        /// The pre-auth code the authorization was made with
        /// (`PreAuthCode`): it names the owning mediaops account.
        pre_auth_code: String,
        /// `updateauthorized` rather than `authorized`: the account keeps
        /// its owner.
        update: bool,
    },
    /// An account withdrew its authorization.
    Unauthorized {
        /// The official account's AppID (`AuthorizerAppid`).
        authorizer_appid: String,
    },
    /// Any other `InfoType` (acknowledged, ignored).
    Other(String),
}

impl ComponentEvent {
    /// Reads the decrypted event XML.
    ///
    /// # Errors
    /// Not XML, or an event without the fields its type needs.
    pub fn parse(xml: &str) -> Result<ComponentEvent, String> {
        let doc = roxmltree::Document::parse(xml).map_err(|e| format!("not XML: {e}"))?;
        let text = |name: &str| {
            doc.root_element()
                .children()
                .find(|n| n.has_tag_name(name))
                .and_then(|n| n.text())
                .map(|t| t.trim().to_owned())
                .unwrap_or_default()
        };
        let need = |name: &str| {
            let value = text(name);
            if value.is_empty() { Err(format!("the event has no {name}")) } else { Ok(value) }
        };
        let info_type = need("InfoType")?;
        Ok(match info_type.as_str() {
            "component_verify_ticket" => ComponentEvent::VerifyTicket(need("ComponentVerifyTicket")?),
            "authorized" | "updateauthorized" => ComponentEvent::Authorized {
                authorizer_appid: need("AuthorizerAppid")?,
                authorization_code: need("AuthorizationCode")?,
                pre_auth_code: text("PreAuthCode"),
                update: info_type == "updateauthorized",
            },
            "unauthorized" => ComponentEvent::Unauthorized { authorizer_appid: need("AuthorizerAppid")? },
            _ => ComponentEvent::Other(info_type),
        })
    }
}

impl Wechat {
    /// The component settings, or the error every component call gives
    /// when the mode is off.
    pub(super) fn component_credentials(&self) -> Result<&ComponentSettings, WechatError> {
        self.settings
            .component
            .as_ref()
            .ok_or(WechatError::Unconfigured("third-party platform mode is not configured (wechat.component)"))
    }

    /// The component access token (cached), asked with the latest ticket.
    pub(super) async fn component_token(&self) -> Result<String, WechatError> {
        let component = self.component_credentials()?;
        self.tokens
            .get(COMPONENT_KEY, || async {
                let ticket = self
                    .store
                    .verify_ticket()
                    .await
                    .map_err(|e| WechatError::Malformed(e.message))?
                    .ok_or(WechatError::Unconfigured(
                        "WeChat has not pushed a component_verify_ticket to the event URL yet (it does every 10 minutes once the platform is approved)",
                    ))?;
                self.api.component_token(&component.appid, &component.secret, &ticket).await
            })
            .await
    }

    /// A fresh authorization link for `account_id`: the pre-auth code is
    /// remembered with the account, so the authorization that comes back
    /// binds the official account to it.
    pub async fn authorize_link(&self, account_id: &str) -> Result<AuthorizeLinkResponse, ServiceError> {
        let during = "creating a pre-auth code";
        let component = self.component_credentials().map_err(|e| e.to_service_error(during))?;
        let token = self.component_token().await.map_err(|e| e.to_service_error(during))?;
        let code =
            self.api.create_preauthcode(&token, &component.appid).await.map_err(|e| e.to_service_error(during))?;
        let now = chrono::Utc::now().timestamp();
        let expires_in = i64::try_from(code.expires_in).unwrap_or(1800);
        let pending = PendingAuthorization {
            pre_auth_code: code.token.clone(),
            account_id: account_id.to_owned(),
            expires_at: now + expires_in,
        };
        self.store.add_pending(pending, now).await?;
        let redirect = url_with_query(&component.redirect_uri, &[("state", &code.token)]);
        let url = url_with_query(
            &format!("{}/cgi-bin/componentloginpage", self.settings.mp_base.trim_end_matches('/')),
            &[
                ("component_appid", &component.appid),
                ("pre_auth_code", &code.token),
                ("redirect_uri", &redirect),
                ("auth_type", "1"),
            ],
        );
        Ok(AuthorizeLinkResponse { url, expires_in: expires_in as i32 })
    }

    /// Redeems an authorization code for `account_id`: tokens, account
    /// info, stored authorizer.
    pub async fn complete_authorization(
        &self,
        account_id: &str,
        authorization_code: &str,
    ) -> Result<StoredAuthorizer, ServiceError> {
        let during = "redeeming an authorization code";
        let component = self.component_credentials().map_err(|e| e.to_service_error(during))?;
        let token = self.component_token().await.map_err(|e| e.to_service_error(during))?;
        let auth = self
            .api
            .query_auth(&token, &component.appid, authorization_code)
            .await
            .map_err(|e| e.to_service_error(during))?;
        let info = self
            .api
            .authorizer_info(&token, &component.appid, &auth.authorizer_appid)
            .await
            .map_err(|e| e.to_service_error("reading the authorizer's account info"))?;
        let previous = self.store.authorizer(&auth.authorizer_appid).await?;
        let refresh_token = match (auth.authorizer_refresh_token.is_empty(), &previous) {
            (true, Some(p)) => p.refresh_token.clone(),
            _ => auth.authorizer_refresh_token.clone(),
        };
        let authorizer = StoredAuthorizer {
            authorizer_appid: auth.authorizer_appid.clone(),
            account_id: account_id.to_owned(),
            nickname: info.nick_name.clone(),
            avatar: info.head_img.clone(),
            service_type: info.service_type().to_owned(),
            verified: info.verified(),
            authorized_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            refresh_token,
        };
        self.store.put_authorizer(authorizer.clone()).await?;
        if !auth.authorizer_access_token.is_empty() {
            let issued =
                super::client::IssuedToken { token: auth.authorizer_access_token, expires_in: auth.expires_in };
            self.tokens.put(&format!("authorizer:{}", auth.authorizer_appid), issued).await;
        }
        tracing::info!(appid = authorizer.authorizer_appid, account = account_id, "official account authorized");
        Ok(authorizer)
    }

    /// Redeems the code of the authorization redirect, for the account
    /// whose pre-auth code `state` carries. `None` when that code is
    /// unknown, expired or already used (the event may have come first).
    pub async fn complete_redirect(
        &self,
        state: &str,
        authorization_code: &str,
    ) -> Result<Option<StoredAuthorizer>, ServiceError> {
        self.redeem_pending(state, authorization_code).await
    }

    /// Redeems `authorization_code` for the account that asked for
    /// `pre_auth_code`, consuming it; on failure the pending authorization
    /// is put back, so WeChat's next push (or the redirect) can finish it.
    async fn redeem_pending(
        &self,
        pre_auth_code: &str,
        authorization_code: &str,
    ) -> Result<Option<StoredAuthorizer>, ServiceError> {
        let now = chrono::Utc::now().timestamp();
        let Some(pending) = self.store.take_pending(pre_auth_code, now).await? else { return Ok(None) };
        match self.complete_authorization(&pending.account_id, authorization_code).await {
            Ok(authorizer) => Ok(Some(authorizer)),
            Err(e) => {
                self.store.add_pending(pending, now).await?;
                Err(e)
            }
        }
    }

    /// Acts on one decrypted event.
    pub async fn on_event(&self, event: ComponentEvent) -> Result<(), ServiceError> {
        match event {
            ComponentEvent::VerifyTicket(ticket) => {
                let changed = self.store.verify_ticket().await?.as_deref() != Some(ticket.as_str());
                self.store.set_verify_ticket(&ticket).await?;
                if changed {
                    // A token asked with an older ticket stays valid; nothing to drop.
                    tracing::debug!("component_verify_ticket stored");
                }
            }
            ComponentEvent::Authorized { authorizer_appid, authorization_code, pre_auth_code, update } => {
                if self.redeem_pending(&pre_auth_code, &authorization_code).await?.is_some() {
                    return Ok(());
                }
                // An update of an account we know keeps its owner.
                match self.store.authorizer(&authorizer_appid).await? {
                    Some(known) => {
                        self.complete_authorization(&known.account_id, &authorization_code).await?;
                    }
                    None => tracing::warn!(
                        appid = authorizer_appid,
                        update,
                        "authorization with an unknown or expired pre-auth code: not bound to any account"
                    ),
                }
            }
            ComponentEvent::Unauthorized { authorizer_appid } => {
                self.store.remove_authorizer(&authorizer_appid).await?;
                self.tokens.invalidate(&format!("authorizer:{authorizer_appid}"), None).await;
                tracing::info!(appid = authorizer_appid, "official account withdrew its authorization");
            }
            ComponentEvent::Other(info_type) => tracing::debug!(info_type, "component event ignored"),
        }
        Ok(())
    }

    /// Every authorizer WeChat lists for the platform (paged by 500), as
    /// `(appid, unix seconds of authorization)`. For reconciling the
    /// stored authorizers with WeChat's view.
    pub async fn authorizer_list(&self) -> Result<Vec<(String, i64)>, ServiceError> {
        let during = "listing authorizers";
        let component = self.component_credentials().map_err(|e| e.to_service_error(during))?;
        let token = self.component_token().await.map_err(|e| e.to_service_error(during))?;
        let mut all = Vec::new();
        loop {
            let offset = u32::try_from(all.len()).unwrap_or(u32::MAX);
            let (total, page) = self
                .api
                .authorizer_list(&token, &component.appid, offset, 500)
                .await
                .map_err(|e| e.to_service_error(during))?;
            let empty = page.is_empty();
            all.extend(page.into_iter().map(|a| (a.authorizer_appid, a.auth_time)));
            if empty || all.len() as u64 >= total {
                return Ok(all);
            }
        }
    }
}

/// `base?k=v&…` with the values percent-encoded.
fn url_with_query(base: &str, pairs: &[(&str, &str)]) -> String {
    let query: String = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
    let separator = if base.contains('?') { '&' } else { '?' };
    format!("{base}{separator}{query}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_as_wechat_documents_them() {
        let ticket = "<xml><AppId>some_appid</AppId><CreateTime>1413192605</CreateTime>\
            <InfoType>component_verify_ticket</InfoType><ComponentVerifyTicket>some_verify_ticket</ComponentVerifyTicket></xml>";
        assert_eq!(ComponentEvent::parse(ticket).unwrap(), ComponentEvent::VerifyTicket("some_verify_ticket".into()));
        let authorized = "<xml><AppId>第三方平台appid</AppId><CreateTime>1413192760</CreateTime><InfoType>authorized</InfoType>\
            <AuthorizerAppid>公众号appid</AuthorizerAppid><AuthorizationCode>授权码</AuthorizationCode>\
            <AuthorizationCodeExpiredTime>过期时间</AuthorizationCodeExpiredTime><PreAuthCode>预授权码</PreAuthCode></xml>";
        assert_eq!(
            ComponentEvent::parse(authorized).unwrap(),
            ComponentEvent::Authorized {
                authorizer_appid: "公众号appid".into(),
                authorization_code: "授权码".into(),
                pre_auth_code: "预授权码".into(),
                update: false
            }
        );
        let cdata = "<xml><InfoType><![CDATA[unauthorized]]></InfoType><AuthorizerAppid><![CDATA[wxa]]></AuthorizerAppid></xml>";
        assert_eq!(
            ComponentEvent::parse(cdata).unwrap(),
            ComponentEvent::Unauthorized { authorizer_appid: "wxa".into() }
        );
        assert!(
            ComponentEvent::parse("<xml><InfoType>authorized</InfoType></xml>")
                .unwrap_err()
                .contains("AuthorizerAppid")
        );
        assert!(ComponentEvent::parse("not xml").is_err());
        assert_eq!(
            ComponentEvent::parse("<xml><InfoType>notify_third_fasteregister</InfoType></xml>").unwrap(),
            ComponentEvent::Other("notify_third_fasteregister".into())
        );
    }

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(
            url_with_query("https://a/b", &[("x", "1 2"), ("u", "https://c/d?e=f")]),
            "https://a/b?x=1+2&u=https%3A%2F%2Fc%2Fd%3Fe%3Df"
        );
        assert_eq!(url_with_query("https://a/b?k=v", &[("x", "1")]), "https://a/b?k=v&x=1");
    }
}
