//! WeChat's error codes (全局返回码) and what we tell the caller about them.
//! Every WeChat failure is a 502 `upstream_unavailable` with the code and a
//! clear message in `error.upstream` (docs/wechat.md); the charge is released.

use mediaops_proto::error_code::ErrorCode;

use crate::outbound::OutboundError;
use mediaops_proto::error::{ServiceError, UpstreamDetail};

/// A failed WeChat call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WechatError {
    /// WeChat answered `{errcode, errmsg}` with a non-zero code.
    #[error("WeChat error {code}: {message}")]
    Api {
        /// WeChat's `errcode` (e.g. 40001 for a stale access token; -1 busy).
        code: i64,
        /// WeChat's `errmsg`.
        message: String,
    },
    /// No answer, a timeout, an HTTP error status (the text never holds
    /// the query string, which carries the access token).
    #[error(transparent)]
    Outbound(#[from] OutboundError),
    /// A 200 answer we could not read.
    #[error("WeChat answered something unexpected: {0}")]
    Malformed(String),
    /// The mode an account needs is not configured (e.g. `wechat.component`
    /// removed while authorizers are still stored).
    #[error("{0}")]
    Unconfigured(&'static str),
}

impl WechatError {
    /// Whether another attempt may succeed (network, 5xx, system busy).
    pub fn is_transient(&self) -> bool {
        match self {
            WechatError::Outbound(e) => e.is_transient(),
            WechatError::Api { code, .. } => *code == -1,
            WechatError::Malformed(_) | WechatError::Unconfigured(_) => false,
        }
    }

    /// Whether the access token was refused (expired or revoked early), so
    /// a fresh one may succeed.
    pub fn is_stale_token(&self) -> bool {
        matches!(self, WechatError::Api { code: 40001 | 40014 | 42001, .. })
    }

    /// The error the caller sees: 502 `upstream_unavailable`, our
    /// explanation of the code first, WeChat's own `errmsg` after it.
    pub fn to_service_error(&self, during: &str) -> ServiceError {
        match self {
            // A missing setting (or a ticket WeChat has not pushed yet):
            // the operation is built, this deployment cannot run it yet.
            WechatError::Unconfigured(what) => {
                return ServiceError::new(ErrorCode::NotConfigured, format!("{what}; nothing was charged"));
            }
            WechatError::Outbound(e) => return e.to_service_error(&format!("WeChat ({during})"), None),
            _ => {}
        }
        let (code, upstream) = match self {
            WechatError::Api { code, message } => {
                let upstream = match explain(*code) {
                    Some(meaning) => format!("{meaning} (errcode {code}: {message})"),
                    None => format!("errcode {code}: {message}"),
                };
                (Some(code.to_string()), upstream)
            }
            other => (None, other.to_string()),
        };
        ServiceError::upstream_unavailable(
            format!("WeChat failed while {during}: {upstream}"),
            Some(UpstreamDetail { code, message: upstream }),
        )
    }
}

/// Plain-language meaning of the codes a publish meets (WeChat 全局返回码).
pub fn explain(code: i64) -> Option<&'static str> {
    Some(match code {
        -1 => "WeChat is busy; try again later",
        40001 | 40014 | 42001 => {
            "the access token was refused (wrong AppSecret, or it expired); check the account's credentials"
        }
        40005 => "the file type is not accepted",
        40007 => "the media_id is invalid",
        40009 => "the image is too large or not a valid image",
        40013 => "the AppID is invalid",
        40125 => "the AppSecret is invalid",
        40164 => {
            "this server's IP address is not on the account's IP whitelist (公众平台 → 开发 → 基本配置 → IP白名单)"
        }
        41001 => "the access token is missing",
        44003 => "the article content is empty",
        45002 => "the content is too long",
        45003 => "the title is too long",
        45004 => "the digest is too long",
        45009 => "the account's daily API quota is used up",
        48001 => {
            "the account has not been granted this API (an unverified account, or the permission is missing from the authorization)"
        }
        50001 => "the account has not authorized this API",
        50002 => "the account is restricted",
        53404 => "the account is frozen",
        61003 => "the account has not authorized this third-party platform",
        61004 => "this server's IP address is not on the third-party platform's whitelist",
        61005 | 61006 => {
            "the component_verify_ticket is expired or invalid; wait for WeChat's next push (every 10 minutes)"
        }
        61023 => "the authorizer refresh token is invalid; the account must authorize again",
        _ => return None,
    })
}
