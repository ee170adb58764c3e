//! The `[images]` table of the core's settings: the OpenAI-compatible
//! images API behind `skills.image-gen` and `skills.articles-cover`
//! (docs/images.md).
//!
//! ```toml
//! [images]
//! base_url = "https://api.openai.com/v1"   # unset = both skills answer 503
//! api_key = "sk-…"
//! model = "gpt-image-1"
//! ```
//!
//! As environment variables: `MEDIAOPS_IMAGES__BASE_URL`,
//! `MEDIAOPS_IMAGES__API_KEY`, `MEDIAOPS_IMAGES__MODEL`, …

use serde::{Deserialize, Serialize};

/// Settings of the images API.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImageSettings {
    /// Base URL including the version segment, as OpenAI SDKs take it
    /// (`https://api.openai.com/v1`); requests go to
    /// `{base_url}/images/generations` and `{base_url}/images/edits`.
    /// Unset = not configured: the image skills answer 503.
    pub base_url: Option<String>,
    /// Sent as `Authorization: Bearer <api_key>`; unset = no header (for
    /// self-hosted servers without keys). Never logged.
    pub api_key: Option<String>,
    /// The `model` field of every request.
    pub model: String,
    /// `size` of `image-gen` requests (`WxH`).
    pub size: String,
    /// `size` of `articles-cover` requests: the widest the model offers,
    /// so the 2.35:1 crop loses least.
    pub cover_size: String,
    /// `response_format` sent; empty = not sent (models that always answer
    /// base64 and refuse the field, e.g. `gpt-image-1`). Answers may carry
    /// `b64_json` or `url` either way.
    pub response_format: String,
    /// Seconds one generation may take. Keep it below
    /// `MEDIAOPS_OPERATION_TIMEOUT_SECS`, which bounds the whole call.
    pub timeout_secs: u64,
    /// Largest reference image fetched, in bytes.
    pub reference_max_bytes: usize,
}

impl Default for ImageSettings {
    fn default() -> Self {
        ImageSettings {
            base_url: None,
            api_key: None,
            model: "gpt-image-1".into(),
            size: "1024x1024".into(),
            cover_size: "1536x1024".into(),
            response_format: String::new(),
            timeout_secs: 50,
            reference_max_bytes: 8 * 1024 * 1024,
        }
    }
}

impl std::fmt::Debug for ImageSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("size", &self.size)
            .field("cover_size", &self.cover_size)
            .field("response_format", &self.response_format)
            .field("timeout_secs", &self.timeout_secs)
            .field("reference_max_bytes", &self.reference_max_bytes)
            .finish()
    }
}

impl ImageSettings {
    /// Checks what the types alone do not.
    pub fn check(&self) -> anyhow::Result<()> {
        for (name, size) in [("size", &self.size), ("cover_size", &self.cover_size)] {
            let ok = size.split_once('x').is_some_and(|(w, h)| w.parse::<u32>().is_ok() && h.parse::<u32>().is_ok());
            anyhow::ensure!(
                ok || size == "auto",
                "MEDIAOPS_IMAGES__{}: {size:?} is not WxH or auto",
                name.to_uppercase()
            );
        }
        anyhow::ensure!(self.timeout_secs >= 1, "MEDIAOPS_IMAGES__TIMEOUT_SECS must be at least 1");
        anyhow::ensure!(!self.model.trim().is_empty(), "MEDIAOPS_IMAGES__MODEL must not be empty");
        Ok(())
    }
}
