//! Images of an article body: which `<img src>` need copying to WeChat,
//! what an image file is (by its bytes, not its name), and rewriting `src`
//! after the copy (spec 4.15: "the server copies only external image links").

use std::collections::HashMap;

use lol_html::{RewriteStrSettings, element, rewrite_str};

use super::urls::{self, UrlKind};

/// Largest article image WeChat's `uploadimg` takes: "大小必须在1MB以下".
pub const MAX_BODY_IMAGE_BYTES: usize = 1024 * 1024 - 1;

/// Largest permanent image material (`add_material`, the cover): 10 MB.
pub const MAX_MATERIAL_BYTES: usize = 10 * 1024 * 1024;

/// Most external images copied for one article.
pub const MAX_COPIED_IMAGES: usize = 50;

/// Hosts of images already on WeChat: left as they are.
const WECHAT_IMAGE_HOSTS: &[&str] = &["mmbiz.qpic.cn", "mmbiz.qlogo.cn", "mmecoa.qpic.cn"];

/// The image formats `uploadimg` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// JPEG (`FF D8 FF`).
    Jpeg,
    /// PNG (`89 50 4E 47 0D 0A 1A 0A`).
    Png,
}

impl ImageKind {
    /// Recognizes JPEG and PNG by their signatures.
    pub fn sniff(bytes: &[u8]) -> Option<ImageKind> {
        if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageKind::Jpeg)
        } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageKind::Png)
        } else {
            None
        }
    }

    /// `image/jpeg` or `image/png`.
    pub fn mime(self) -> &'static str {
        match self {
            ImageKind::Jpeg => "image/jpeg",
            ImageKind::Png => "image/png",
        }
    }

    /// `jpg` or `png`, for the uploaded file's name.
    pub fn extension(self) -> &'static str {
        match self {
            ImageKind::Jpeg => "jpg",
            ImageKind::Png => "png",
        }
    }

    /// The kind a declared Content-Type names (`image/jpg` included).
    pub fn from_mime(mime: &str) -> Option<ImageKind> {
        match mime.split(';').next().unwrap_or_default().trim().to_ascii_lowercase().as_str() {
            "image/jpeg" | "image/jpg" | "image/pjpeg" => Some(ImageKind::Jpeg),
            "image/png" => Some(ImageKind::Png),
            _ => None,
        }
    }
}

/// What to do with one `src`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSrc {
    /// Already on WeChat's image hosts.
    Wechat,
    /// An http(s) link to copy.
    External(String),
    /// Anything else (relative path, `file:`, `data:`, …): the caller must
    /// upload it first through `/api/articles/media/upload`.
    Local(String),
}

/// Classifies a `src` value, reading its scheme as the renderer does
/// ([`urls::classify`]).
pub fn classify(src: &str) -> ImageSrc {
    let trimmed = src.trim();
    match urls::classify(trimmed) {
        UrlKind::Web | UrlKind::Weixin => {
            let absolute = if trimmed.starts_with("//") { format!("https:{trimmed}") } else { trimmed.to_owned() };
            let host = reqwest::Url::parse(&absolute).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase));
            if host.is_some_and(|h| WECHAT_IMAGE_HOSTS.contains(&h.as_str())) {
                ImageSrc::Wechat
            } else {
                ImageSrc::External(absolute)
            }
        }
        _ => ImageSrc::Local(trimmed.to_owned()),
    }
}

/// Every `<img src>` of `html`, in document order, as written (character
/// references not decoded: `&amp;` stays; [`decoded`] reads them).
pub fn image_sources(html: &str) -> Result<Vec<String>, String> {
    let mut sources = Vec::new();
    rewrite_str(
        html,
        RewriteStrSettings {
            element_content_handlers: vec![element!("img[src]", |el| {
                if let Some(src) = el.get_attribute("src") {
                    sources.push(src);
                }
                Ok(())
            })],
            ..RewriteStrSettings::new()
        },
    )
    .map_err(|e| e.to_string())?;
    Ok(sources)
}

/// An attribute value as written, with its character references decoded
/// (`?a=1&amp;b=2` → `?a=1&b=2`).
pub fn decoded(raw: &str) -> String {
    html_escape::decode_html_entities(raw).into_owned()
}

/// `html` with every `<img src>` whose written value is a key of
/// `replacements` set to its new (plain, unencoded) URL.
pub fn rewrite_sources(html: &str, replacements: &HashMap<String, String>) -> Result<String, String> {
    rewrite_str(
        html,
        RewriteStrSettings {
            element_content_handlers: vec![element!("img[src]", |el| {
                if let Some(new) = el.get_attribute("src").and_then(|src| replacements.get(&src)) {
                    el.set_attribute("src", &html_escape::encode_double_quoted_attribute(new))?;
                }
                Ok(())
            })],
            ..RewriteStrSettings::new()
        },
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_classified_by_host() {
        assert_eq!(classify("https://mmbiz.qpic.cn/mmbiz_png/abc/0?wx_fmt=png"), ImageSrc::Wechat);
        assert_eq!(classify("http://MMBIZ.QLOGO.CN/x"), ImageSrc::Wechat);
        assert_eq!(classify("https://example.com/a.png"), ImageSrc::External("https://example.com/a.png".into()));
        assert_eq!(classify("//cdn.example.com/a.png"), ImageSrc::External("https://cdn.example.com/a.png".into()));
        assert_eq!(
            classify("https://mmbiz.qpic.cn.evil.com/a.png"),
            ImageSrc::External("https://mmbiz.qpic.cn.evil.com/a.png".into())
        );
        assert_eq!(classify("images/a.png"), ImageSrc::Local("images/a.png".into()));
        assert_eq!(classify("data:image/png;base64,AAAA"), ImageSrc::Local("data:image/png;base64,AAAA".into()));
        assert_eq!(classify("javascript:alert(1)"), ImageSrc::Local("javascript:alert(1)".into()));
    }

    #[test]
    fn sources_are_found_and_rewritten_in_place() {
        let html = r#"<p style="x">a<img src="https://e.com/a.png?x=1&amp;y=2" alt="A" style="width:100%"></p><img src="https://mmbiz.qpic.cn/b"><img alt="no src">"#;
        let sources = image_sources(html).unwrap();
        assert_eq!(sources, ["https://e.com/a.png?x=1&amp;y=2", "https://mmbiz.qpic.cn/b"]);
        assert_eq!(decoded(&sources[0]), "https://e.com/a.png?x=1&y=2");
        let map = HashMap::from([(sources[0].clone(), "https://mmbiz.qpic.cn/new?a=1&b=\"2".to_owned())]);
        let out = rewrite_sources(html, &map).unwrap();
        let rewritten = image_sources(&out).unwrap();
        assert_eq!(rewritten, ["https://mmbiz.qpic.cn/new?a=1&amp;b=&quot;2", "https://mmbiz.qpic.cn/b"]);
        assert_eq!(decoded(&rewritten[0]), "https://mmbiz.qpic.cn/new?a=1&b=\"2");
        assert!(out.contains(r#"alt="A" style="width:100%""#), "{out}");
        assert!(out.starts_with(r#"<p style="x">a<img "#), "{out}");
    }

    #[test]
    fn kinds_come_from_the_bytes() {
        assert_eq!(ImageKind::sniff(b"\x89PNG\r\n\x1a\n...."), Some(ImageKind::Png));
        assert_eq!(ImageKind::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(ImageKind::Jpeg));
        assert_eq!(ImageKind::sniff(b"GIF89a"), None);
        assert_eq!(ImageKind::from_mime("image/JPG; q=1"), Some(ImageKind::Jpeg));
        assert_eq!(ImageKind::from_mime("image/webp"), None);
    }
}
