//! Image skills (spec 4.14; docs/images.md): `skills.image-gen` and
//! `skills.articles-cover`, answered by an OpenAI-compatible images API
//! ([`client::ImagesApi`], `[images]` settings).
//!
//! - `image-gen`: `prompt` (+ `referenceImage`, a link fetched through the
//!   SSRF guard and sent to the edits endpoint) → image result (spec 2.6):
//!   `{source, taskId, status: "success", images[{b64, mime}]}`.
//! - `articles-cover`: `title` (+ `digest`) → a generated image cropped to
//!   2.35:1, 900×383 JPEG ([`cover`]).
//!
//! Not configured (no `MEDIAOPS_IMAGES__BASE_URL`): 503 `not_configured`
//! naming the setting, never a placeholder image. Upstream failures: 502
//! `upstream_unavailable` with `error.upstream`; the pipeline releases the
//! charge of every failed call.

pub mod client;
pub mod cover;
pub mod settings;

use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::common::v1 as common;
use mediaops_proto::mediaops::skills::v1 as pb;

use self::client::{GeneratedImage, ImagesApi};
use self::settings::ImageSettings;
use mediaops_platform::fields::text as required;
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;

/// `status` of a result with images.
pub const SUCCESS: &str = "success";

/// What the image skills share.
pub struct ImageSkills {
    /// `None` when `[images]` has no base URL.
    pub api: Option<ImagesApi>,
    /// Sizes, limits and timeouts of the image skills.
    pub settings: ImageSettings,
}

impl ImageSkills {
    fn api(&self, operation: &str) -> Result<&ImagesApi, ServiceError> {
        self.api.as_ref().ok_or_else(|| {
            ServiceError::new(
                ErrorCode::NotConfigured,
                format!(
                    "{operation} needs an images API and none is configured: set MEDIAOPS_IMAGES__BASE_URL \
                     (and MEDIAOPS_IMAGES__API_KEY) (docs/images.md); nothing was charged"
                ),
            )
        })
    }

    /// `source` of results: the API's model.
    fn source(api: &ImagesApi) -> String {
        format!("images-api:{}", api.model())
    }

    /// `image-gen`: `taskId` is the call's request id (the generation is
    /// synchronous; the id finds it in the logs).
    pub async fn image_gen(
        &self,
        ctx: &CallContext,
        req: pb::ImageGenRequest,
    ) -> Result<common::ImageResult, ServiceError> {
        let api = self.api("skills.image-gen")?;
        let prompt = required(&req.prompt, "prompt")?;
        let upstream = |e: crate::outbound::OutboundError| e.to_service_error("the images API", None);
        let images = match req.reference_image.trim() {
            "" => api.generate(prompt, &self.settings.size, 1).await.map_err(upstream)?,
            link => {
                let reference = api
                    .fetch_reference(link, self.settings.reference_max_bytes)
                    .await
                    .map_err(|e| e.to_service_error("the reference image", Some("referenceImage")))?;
                api.edit(prompt, &self.settings.size, 1, &reference).await.map_err(upstream)?
            }
        };
        Ok(common::ImageResult {
            source: Self::source(api),
            task_id: Some(ctx.request_id.clone()),
            status: SUCCESS.into(),
            images: images.iter().map(to_proto).collect(),
        })
    }

    /// `articles-cover`: one 900×383 JPEG cover.
    pub async fn articles_cover(
        &self,
        req: pb::ArticlesCoverRequest,
    ) -> Result<pb::ArticlesCoverResponse, ServiceError> {
        let api = self.api("skills.articles-cover")?;
        let title = required(&req.title, "title")?;
        let prompt = cover::cover_prompt(title, &req.digest);
        let generated = api
            .generate(&prompt, &self.settings.cover_size, 1)
            .await
            .map_err(|e| e.to_service_error("the images API", None))?;
        let first = generated.into_iter().next().expect("images_of answers at least one image");
        let jpeg = cover::to_cover_jpeg(&first.bytes).map_err(|e| {
            ServiceError::upstream_unavailable(
                format!("the images API answered an image that does not decode; nothing was charged: {e}"),
                None,
            )
        })?;
        let cover = GeneratedImage { bytes: jpeg.into(), mime: "image/jpeg" };
        Ok(pb::ArticlesCoverResponse {
            source: Self::source(api),
            status: SUCCESS.into(),
            images: vec![to_proto(&cover)],
        })
    }
}

fn to_proto(image: &GeneratedImage) -> common::Image {
    common::Image { b64: image.b64(), mime: image.mime.to_owned() }
}
