//! The client of an OpenAI-compatible images API (docs/images.md):
//! `POST {base}/images/generations` (JSON) and, with a reference image,
//! `POST {base}/images/edits` (multipart). Answers carry `data[]` of
//! `{b64_json}` or `{url}`; URLs are fetched through the SSRF guard.
//! Generations are never retried (each costs money upstream).

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use super::settings::ImageSettings;
use crate::outbound::{ConnectorClient, GuardedFetcher, OutboundError, OutboundSettings, Retry};

/// One image the API made: its bytes and media type (from its content,
/// not from what the API said).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedImage {
    /// The image file as made.
    pub bytes: Bytes,
    /// Its media type, e.g. `image/png`.
    pub mime: &'static str,
}

impl GeneratedImage {
    /// Base64 of the bytes, without a `data:` prefix (spec 2.6).
    pub fn b64(&self) -> String {
        STANDARD.encode(&self.bytes)
    }
}

/// A reference image fetched for an edit.
#[derive(Debug, Clone)]
pub struct ReferenceImage {
    /// The image file as fetched.
    pub bytes: Bytes,
    /// Its media type, from its content.
    pub mime: &'static str,
}

/// The images API of the settings.
#[derive(Clone)]
pub struct ImagesApi {
    client: ConnectorClient,
    api_key: Option<String>,
    model: String,
    response_format: String,
    fetcher: GuardedFetcher,
}

#[derive(Deserialize)]
struct ImagesResponse {
    #[serde(default)]
    data: Vec<ImageDatum>,
}

#[derive(Deserialize)]
struct ImageDatum {
    b64_json: Option<String>,
    url: Option<String>,
}

impl ImagesApi {
    /// The API, or `None` when `base_url` is not set.
    ///
    /// # Errors
    /// A base URL that is not an http(s) URL.
    pub fn from_settings(
        settings: &ImageSettings,
        outbound: &OutboundSettings,
        fetcher: GuardedFetcher,
    ) -> anyhow::Result<Option<ImagesApi>> {
        let Some(base_url) = settings.base_url.as_deref().filter(|u| !u.trim().is_empty()) else { return Ok(None) };
        let client = ConnectorClient::builder("images", base_url, outbound)
            .request_timeout(Duration::from_secs(settings.timeout_secs))
            .build()?;
        Ok(Some(ImagesApi {
            client,
            api_key: settings.api_key.clone().filter(|k| !k.is_empty()),
            model: settings.model.clone(),
            response_format: settings.response_format.clone(),
            fetcher,
        }))
    }

    /// The configured model.
    pub fn model(&self) -> &str {
        &self.model
    }

    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// Images for `prompt` at `size` (`WxH`), one per `n`.
    ///
    /// # Errors
    /// The API's error (status with its `{error: {message, code}}`),
    /// timeout or transport failure; an answer without a decodable image.
    pub async fn generate(&self, prompt: &str, size: &str, n: u32) -> Result<Vec<GeneratedImage>, OutboundError> {
        let mut body = json!({"model": self.model, "prompt": prompt, "n": n, "size": size});
        if !self.response_format.is_empty() {
            body["response_format"] = json!(self.response_format);
        }
        let request = self.authorized(self.client.request(Method::POST, "/images/generations").json(&body));
        self.images_of(self.client.send(request, Retry::Never).await?).await
    }

    /// Images for `prompt` from `reference` (the edits endpoint).
    ///
    /// # Errors
    /// As [`ImagesApi::generate`].
    pub async fn edit(
        &self,
        prompt: &str,
        size: &str,
        n: u32,
        reference: &ReferenceImage,
    ) -> Result<Vec<GeneratedImage>, OutboundError> {
        let extension = reference.mime.rsplit('/').next().unwrap_or("png");
        let image = reqwest::multipart::Part::bytes(reference.bytes.to_vec())
            .file_name(format!("reference.{extension}"))
            .mime_str(reference.mime)
            .expect("a known image type is a valid mime");
        let mut form = reqwest::multipart::Form::new()
            .text("model", self.model.clone())
            .text("prompt", prompt.to_owned())
            .text("n", n.to_string())
            .text("size", size.to_owned())
            .part("image", image);
        if !self.response_format.is_empty() {
            form = form.text("response_format", self.response_format.clone());
        }
        let request = self.authorized(self.client.request(Method::POST, "/images/edits").multipart(form));
        self.images_of(self.client.send(request, Retry::Never).await?).await
    }

    /// Fetches a caller's reference image through the SSRF guard.
    ///
    /// # Errors
    /// Any guarded-fetch error; a body that is not an image
    /// ([`OutboundError::ContentType`]).
    pub async fn fetch_reference(&self, link: &str, max_bytes: usize) -> Result<ReferenceImage, OutboundError> {
        let fetched = self.fetcher.fetch(link, &self.fetcher.limits().with_max_bytes(max_bytes)).await?;
        let mime = image_mime(&fetched.bytes).ok_or_else(|| OutboundError::ContentType {
            url: crate::outbound::error::display_url(&fetched.final_url),
            found: fetched.mime().unwrap_or_else(|| "no content type".into()),
            expected: "a PNG, JPEG, WebP or GIF image".into(),
        })?;
        Ok(ReferenceImage { bytes: fetched.bytes, mime })
    }

    /// The images of an answer: `b64_json` decoded (a `data:` prefix, if a
    /// provider adds one, dropped), `url` fetched through the guard.
    async fn images_of(&self, response: reqwest::Response) -> Result<Vec<GeneratedImage>, OutboundError> {
        let url = crate::outbound::error::display_url(response.url());
        let malformed = |message: String| OutboundError::Malformed { url: url.clone(), message };
        let answer: ImagesResponse = self.client.json(response).await?;
        let mut images = Vec::new();
        for (i, datum) in answer.data.into_iter().enumerate() {
            let bytes = match (datum.b64_json, datum.url) {
                (Some(b64), _) => {
                    let b64 = b64.split_once("base64,").map_or(b64.as_str(), |(_, data)| data).trim();
                    Bytes::from(STANDARD.decode(b64).map_err(|e| malformed(format!("data[{i}].b64_json: {e}")))?)
                }
                (None, Some(link)) => self.fetcher.fetch(&link, &self.fetcher.limits()).await?.bytes,
                (None, None) => return Err(malformed(format!("data[{i}] has neither b64_json nor url"))),
            };
            let mime = image_mime(&bytes)
                .ok_or_else(|| malformed(format!("data[{i}] is not a PNG, JPEG, WebP or GIF image")))?;
            images.push(GeneratedImage { bytes, mime });
        }
        if images.is_empty() {
            return Err(malformed("the answer holds no image".into()));
        }
        Ok(images)
    }
}

/// The media type of image bytes, from their signature; `None` for
/// anything but PNG, JPEG, WebP and GIF.
pub fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    match image::guess_format(bytes).ok()? {
        image::ImageFormat::Png => Some("image/png"),
        image::ImageFormat::Jpeg => Some("image/jpeg"),
        image::ImageFormat::WebP => Some("image/webp"),
        image::ImageFormat::Gif => Some("image/gif"),
        _ => None,
    }
}
