//! Authorized accounts of a mediaops account, in both modes, and the access
//! token of each: direct mode through the stable token endpoint, component
//! mode through the authorizer refresh token (spec 4.15 status;
//! docs/wechat.md).

use std::future::Future;

use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::studio::v1::AuthorizedAccount;

use super::Wechat;
use super::client::IssuedToken;
use super::config::DirectAccount;
use super::errors::WechatError;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_store::wechat::StoredAuthorizer;

/// An account a publish may write to, resolved for its caller.
#[derive(Debug, Clone)]
pub enum Target {
    /// A direct-mode account from the configuration (its own AppSecret).
    Direct(DirectAccount),
    /// An account authorized in the third-party platform mode.
    Component(StoredAuthorizer),
}

impl Target {
    /// The official account's AppID.
    pub fn appid(&self) -> &str {
        match self {
            Target::Direct(a) => &a.appid,
            Target::Component(a) => &a.authorizer_appid,
        }
    }

    fn cache_key(&self) -> String {
        match self {
            Target::Direct(a) => format!("direct:{}", a.appid),
            Target::Component(a) => format!("authorizer:{}", a.authorizer_appid),
        }
    }
}

impl Wechat {
    /// Every official account `account_id` may publish to: its direct-mode
    /// accounts (configuration order), then its component authorizers.
    pub async fn accounts_of(&self, account_id: &str) -> Result<Vec<AuthorizedAccount>, ServiceError> {
        let mut accounts: Vec<AuthorizedAccount> = self
            .settings
            .accounts
            .iter()
            .filter(|a| a.account_id == account_id)
            .map(|a| AuthorizedAccount {
                authorizer_appid: a.appid.clone(),
                nickname: a.nickname.clone(),
                avatar: a.avatar.clone(),
                service_type: a.service_type.clone(),
                verified: a.verified,
                authorized_at: self.started_at.clone(),
                mode: "direct".into(),
            })
            .collect();
        for a in self.store.authorizers_of(account_id).await? {
            accounts.push(AuthorizedAccount {
                authorizer_appid: a.authorizer_appid,
                nickname: a.nickname,
                avatar: a.avatar,
                service_type: a.service_type,
                verified: a.verified,
                authorized_at: a.authorized_at,
                mode: "component".into(),
            });
        }
        Ok(accounts)
    }

    /// The account `appid` if `account_id` may publish to it: 404 when no
    /// mode knows it, 403 when it belongs to another account.
    pub async fn resolve(&self, account_id: &str, appid: &str) -> Result<Target, ServiceError> {
        let target = match self.settings.accounts.iter().find(|a| a.appid == appid) {
            Some(direct) => Target::Direct(direct.clone()),
            None => match self.store.authorizer(appid).await? {
                Some(stored) => Target::Component(stored),
                None => {
                    return Err(ServiceError {
                        field: Some("authorizerAppid".into()),
                        ..ServiceError::not_found(format!(
                            "no authorized official account {}; GET /api/articles/status lists yours",
                            excerpt(appid)
                        ))
                    });
                }
            },
        };
        let owner = match &target {
            Target::Direct(a) => &a.account_id,
            Target::Component(a) => &a.account_id,
        };
        if owner != account_id {
            return Err(ServiceError {
                field: Some("authorizerAppid".into()),
                ..ServiceError::new(
                    ErrorCode::Forbidden,
                    format!("the official account {} is not authorized for your account", excerpt(appid)),
                )
            });
        }
        Ok(target)
    }

    /// Runs `call` with the target's access token; when WeChat refuses the
    /// token as stale (40001, 40014, 42001) it is dropped and `call` runs
    /// once more with a fresh one (the refused call did nothing).
    pub async fn with_token<T, F, Fut>(&self, target: &Target, call: F) -> Result<T, WechatError>
    where
        F: Fn(String) -> Fut,
        Fut: Future<Output = Result<T, WechatError>>,
    {
        let token = self.access_token(target).await?;
        match call(token.clone()).await {
            Err(e) if e.is_stale_token() => {
                self.tokens.invalidate(&target.cache_key(), Some(&token)).await;
                call(self.access_token(target).await?).await
            }
            other => other,
        }
    }

    async fn access_token(&self, target: &Target) -> Result<String, WechatError> {
        let key = target.cache_key();
        match target {
            Target::Direct(a) => self.tokens.get(&key, || self.api.stable_token(&a.appid, &a.secret)).await,
            Target::Component(a) => {
                self.tokens
                    .get(&key, || async {
                        let component = self.component_credentials()?;
                        let component_token = self.component_token().await?;
                        // The newest refresh token: another core may have rotated it.
                        let current = match self.store.authorizer(&a.authorizer_appid).await {
                            Ok(Some(stored)) => stored.refresh_token,
                            _ => a.refresh_token.clone(),
                        };
                        let (issued, refresh) = self
                            .api
                            .authorizer_token(&component_token, &component.appid, &a.authorizer_appid, &current)
                            .await?;
                        if refresh != current
                            && let Err(e) = self.store.set_refresh_token(&a.authorizer_appid, &refresh).await
                        {
                            tracing::warn!(appid = a.authorizer_appid, error = %e, "rotated refresh token not stored");
                        }
                        Ok::<IssuedToken, WechatError>(issued)
                    })
                    .await
            }
        }
    }
}
