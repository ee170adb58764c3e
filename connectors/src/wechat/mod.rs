//! WeChat official accounts (spec 4.15; docs/wechat.md): draft
//! publish, the authorized-account status, media upload and the
//! authorization link, over two ways of having authorized accounts:
//!
//! - **direct**: the operator configures an account's appid + secret and
//!   the mediaops account it belongs to (`[[wechat.accounts]]`);
//! - **component** (third-party platform): accounts authorize our platform
//!   through the link of `GET /api/articles/authorize-link`; WeChat pushes
//!   tickets and authorization events to the callback listener
//!   ([`callback`]).
//!
//! Modules: [`client`] (the WeChat endpoints), [`tokens`] (token cache),
//! [`accounts`] (who may publish where, tokens per account), [`component`]
//! (third-party flows and events), [`crypto`] (event signature and AES),
//! [`mediaops_store::wechat`] (durable component state), [`images`] and [`cover`] (article
//! images), [`publish`] (the draft flow), [`callback`] (WeChat-facing HTTP).

pub mod accounts;
pub mod callback;
pub mod client;
pub mod component;
pub mod config;
pub mod cover;
pub mod crypto;
pub mod errors;
pub mod images;
pub mod publish;
pub mod tokens;
pub mod urls;

use std::sync::Arc;

use mediaops_proto::mediaops::studio::v1::{MediaUploadRequest, MediaUploadResponse};

use crate::outbound::{GuardedFetcher, OutboundSettings};
use client::{ImageFile, WechatApi};
use config::WechatSettings;
use images::{ImageKind, MAX_BODY_IMAGE_BYTES};
use mediaops_proto::error::ServiceError;
use mediaops_store::wechat::WechatStore;
use tokens::TokenCache;

/// The WeChat side of the service, shared by the operations and the
/// callback listener.
pub struct Wechat {
    settings: WechatSettings,
    api: WechatApi,
    store: Arc<dyn WechatStore>,
    tokens: TokenCache,
    fetcher: GuardedFetcher,
    /// RFC 3339 UTC of start-up: the `authorizedAt` of direct-mode accounts
    /// (they are authorized by the configuration this server loaded).
    started_at: String,
}

impl Wechat {
    /// `store` keeps the third-party state, `tokens` the access tokens
    /// (in Redis when several cores share them).
    ///
    /// # Errors
    /// Settings that do not check out, or an HTTP client that cannot be built.
    pub fn new(
        settings: WechatSettings,
        outbound: &OutboundSettings,
        store: Arc<dyn WechatStore>,
        tokens: TokenCache,
        fetcher: GuardedFetcher,
    ) -> anyhow::Result<Wechat> {
        settings.check()?;
        Ok(Wechat {
            api: WechatApi::new(&settings, outbound)?,
            settings,
            store,
            tokens,
            fetcher,
            started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        })
    }

    /// The settings (the callback listener reads its address and keys).
    pub fn settings(&self) -> &WechatSettings {
        &self.settings
    }

    /// `POST /api/articles/media/upload`: one jpg/png under 1 MB, checked by
    /// its bytes, sent to WeChat's in-body image upload; `{url}` for `src`.
    pub async fn media_upload(
        &self,
        account_id: &str,
        request: MediaUploadRequest,
    ) -> Result<MediaUploadResponse, ServiceError> {
        let target = self.resolve(account_id, request.authorizer_appid.trim()).await?;
        if request.data.len() > MAX_BODY_IMAGE_BYTES {
            return Err(ServiceError::invalid_field(
                "data",
                format!(
                    "the image is {} bytes; WeChat takes article images under 1 MB ({} bytes at most)",
                    request.data.len(),
                    MAX_BODY_IMAGE_BYTES
                ),
            ));
        }
        let Some(kind) = ImageKind::sniff(&request.data) else {
            return Err(ServiceError::invalid_field(
                "data",
                "the file is not a JPEG or PNG image (WeChat takes jpg/png)",
            ));
        };
        if ImageKind::from_mime(&request.content_type) != Some(kind) {
            return Err(ServiceError::invalid_field(
                "contentType",
                format!("contentType {:?} does not match the file, which is {}", request.content_type, kind.mime()),
            ));
        }
        let image = ImageFile {
            filename: file_name(&request.filename, kind),
            content_type: kind.mime().to_owned(),
            bytes: request.data.into(),
        };
        let url = self
            .with_token(&target, |token| {
                let image = &image;
                async move { self.api.upload_image(&token, image).await }
            })
            .await
            .map_err(|e| e.to_service_error("uploading the image"))?;
        Ok(MediaUploadResponse { url })
    }
}

/// An upload's file name: the given stem (ASCII letters, digits, `-_`;
/// else `image`) with the extension of what the bytes are.
fn file_name(given: &str, kind: ImageKind) -> String {
    let stem = given.rsplit(['/', '\\']).next().unwrap_or_default();
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    let stem: String = stem.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')).take(60).collect();
    let stem = if stem.is_empty() { "image" } else { stem.as_str() };
    format!("{stem}.{}", kind.extension())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_match_the_bytes() {
        assert_eq!(file_name("photo.PNG", ImageKind::Jpeg), "photo.jpg");
        assert_eq!(file_name("../../etc/passwd", ImageKind::Png), "passwd.png");
        assert_eq!(file_name("封面.jpg", ImageKind::Jpeg), "image.jpg");
        assert_eq!(file_name("", ImageKind::Png), "image.png");
    }
}
