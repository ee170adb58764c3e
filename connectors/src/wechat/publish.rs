//! `POST /api/articles/publish` (spec 4.15): save an article as a draft of
//! an authorized account; nothing is mass-sent.
//!
//! 1. check the fields and that the caller may write to `authorizerAppid`
//!    (404 unknown, 403 another account's);
//! 2. copy every external `<img src>` (guarded download with the WeChat
//!    size cap and a JPEG/PNG check by Content-Type and by bytes, then
//!    `uploadimg`) and rewrite its `src`; WeChat-hosted images are left
//!    alone, anything else (relative, `data:`) is a 400;
//! 3. upload a cover as permanent material: the first copied image, else
//!    a generated one ([`super::cover`]);
//! 4. `draft/add`; answer `{mediaId}`.
//!
//! A link the caller gave that cannot be copied is a 400 naming
//! `contentHtml`; a WeChat failure is a 502 with `error.upstream`. Either
//! way the point is released: it is charged only on success.

use std::collections::HashMap;

use mediaops_proto::mediaops::studio::v1::{PublishRequest, PublishResponse};

use super::Wechat;
use super::accounts::Target;
use super::client::{DraftArticle, ImageFile};
use super::cover;
use super::images::{self, ImageKind, ImageSrc, MAX_BODY_IMAGE_BYTES, MAX_COPIED_IMAGES};
use mediaops_proto::error::ServiceError;

/// Longest title WeChat keeps (characters).
pub const MAX_TITLE_CHARS: usize = 64;
/// Longest digest (characters).
pub const MAX_DIGEST_CHARS: usize = 120;
/// Largest body WeChat takes: "小于1M" (bytes of UTF-8).
pub const MAX_CONTENT_BYTES: usize = 1024 * 1024 - 1;

const CONTENT: &str = "contentHtml";

impl Wechat {
    /// The publish flow (module docs).
    pub async fn publish(&self, account_id: &str, request: PublishRequest) -> Result<PublishResponse, ServiceError> {
        let title = request.title.trim();
        if title.is_empty() {
            return Err(ServiceError::invalid_field("title", "title is empty"));
        }
        if title.chars().count() > MAX_TITLE_CHARS {
            return Err(ServiceError::invalid_field(
                "title",
                format!("title has more than {MAX_TITLE_CHARS} characters"),
            ));
        }
        if request.digest.chars().count() > MAX_DIGEST_CHARS {
            return Err(ServiceError::invalid_field(
                "digest",
                format!("digest has more than {MAX_DIGEST_CHARS} characters"),
            ));
        }
        if request.content_html.trim().is_empty() {
            return Err(ServiceError::invalid_field(CONTENT, "contentHtml is empty"));
        }
        if request.content_html.len() > MAX_CONTENT_BYTES {
            return Err(ServiceError::invalid_field(CONTENT, "contentHtml is 1 MB or more; WeChat takes less"));
        }
        let target = self.resolve(account_id, request.authorizer_appid.trim()).await?;

        let sources = images::image_sources(&request.content_html)
            .map_err(|e| ServiceError::invalid_field(CONTENT, format!("contentHtml cannot be read as HTML: {e}")))?;
        let mut external = Vec::new();
        for src in &sources {
            match images::classify(&images::decoded(src)) {
                ImageSrc::Wechat => {}
                ImageSrc::External(url) => {
                    if !external.iter().any(|(s, _)| s == src) {
                        external.push((src.clone(), url));
                    }
                }
                ImageSrc::Local(local) => {
                    let shown: String = local.chars().take(60).collect();
                    return Err(ServiceError::invalid_field(
                        CONTENT,
                        format!(
                            "image {shown:?} is not a link: upload it with POST /api/articles/media/upload and put the url it answers into src"
                        ),
                    ));
                }
            }
        }
        if external.len() > MAX_COPIED_IMAGES {
            return Err(ServiceError::invalid_field(
                CONTENT,
                format!("contentHtml links {} external images; at most {MAX_COPIED_IMAGES} are copied", external.len()),
            ));
        }

        let mut replacements = HashMap::new();
        let mut first_image = None;
        for (src, url) in external {
            let image = self.download(&url).await?;
            let uploaded = self
                .with_token(&target, |token| {
                    let image = &image;
                    async move { self.api.upload_image(&token, image).await }
                })
                .await
                .map_err(|e| e.to_service_error(&format!("uploading the image {url}")))?;
            replacements.insert(src, uploaded);
            first_image.get_or_insert(image);
        }
        let content = images::rewrite_sources(&request.content_html, &replacements)
            .map_err(|e| ServiceError::internal(format!("rewriting image links failed: {e}")))?;

        let thumb_media_id = self.upload_cover(&target, title, first_image).await?;
        let article =
            DraftArticle { title: title.to_owned(), digest: request.digest.trim().to_owned(), content, thumb_media_id };
        let media_id = self
            .with_token(&target, |token| {
                let article = &article;
                async move { self.api.add_draft(&token, article).await }
            })
            .await
            .map_err(|e| e.to_service_error("saving the draft"))?;
        tracing::info!(appid = target.appid(), account = account_id, "draft saved");
        Ok(PublishResponse { media_id })
    }

    /// Downloads one external image through the guarded fetcher, capped at
    /// WeChat's article-image size; JPEG or PNG by Content-Type and bytes.
    async fn download(&self, url: &str) -> Result<ImageFile, ServiceError> {
        let limits = self.fetcher.limits().with_max_bytes(MAX_BODY_IMAGE_BYTES);
        let what = format!("the image {url} in contentHtml");
        let fetched = self.fetcher.fetch(url, &limits).await.map_err(|e| e.to_service_error(&what, Some(CONTENT)))?;
        fetched
            .require_content_type(&["image/jpeg", "image/jpg", "image/png"])
            .map_err(|e| e.to_service_error(&what, Some(CONTENT)))?;
        let declared = fetched.mime().as_deref().and_then(ImageKind::from_mime);
        let kind = ImageKind::sniff(&fetched.bytes).filter(|k| Some(*k) == declared).ok_or_else(|| {
            ServiceError::invalid_field(CONTENT, format!("{what} is not the JPEG or PNG image its Content-Type says"))
        })?;
        Ok(ImageFile {
            filename: format!("image.{}", kind.extension()),
            content_type: kind.mime().to_owned(),
            bytes: fetched.bytes,
        })
    }

    /// Uploads the cover as permanent image material: `thumb_media_id`.
    async fn upload_cover(
        &self,
        target: &Target,
        title: &str,
        first: Option<ImageFile>,
    ) -> Result<String, ServiceError> {
        let cover = first.unwrap_or_else(|| ImageFile {
            filename: "cover.png".into(),
            content_type: "image/png".into(),
            bytes: cover::generate(title).into(),
        });
        let (media_id, _) = self
            .with_token(target, |token| {
                let cover = &cover;
                async move { self.api.add_image_material(&token, cover).await }
            })
            .await
            .map_err(|e| e.to_service_error("uploading the cover"))?;
        Ok(media_id)
    }
}
