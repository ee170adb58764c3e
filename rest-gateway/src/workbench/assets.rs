//! The workbench's static files (`rest-gateway/assets/workbench/`),
//! embedded in the binary, each served under a name carrying its content
//! hash (`/assets/pages/home.3f9a1c2b7d.js`) with a year-long immutable
//! cache; `index.html` is rendered once at start-up with those names and an
//! import map, and served with `no-cache` and a Content-Security-Policy
//! that allows only this origin's scripts (docs/workbench.md).

use std::collections::HashMap;

use base64::Engine;
use rust_embed::RustEmbed;
use serde_json::json;
use sha2::{Digest, Sha256};

#[derive(RustEmbed)]
#[folder = "assets/workbench/"]
struct Files;

/// Hex digits of the SHA-256 kept in a hashed name.
const HASH_CHARS: usize = 10;

/// The URL prefix of hashed assets.
pub const PREFIX: &str = "/assets/";

/// One servable file.
pub struct Asset {
    pub bytes: &'static [u8],
    pub content_type: &'static str,
}

/// The rendered index page and every asset by its hashed URL path.
pub struct Assets {
    pub index: String,
    /// `Content-Security-Policy` of the index page.
    pub csp: String,
    by_url: HashMap<String, Asset>,
}

impl Assets {
    /// Hashes every embedded file and renders `index.html`.
    ///
    /// # Errors
    /// `index.html` is missing, or names a file that is not embedded.
    pub fn load() -> anyhow::Result<Assets> {
        let mut by_url = HashMap::new();
        let mut url_of = std::collections::BTreeMap::new();
        for name in Files::iter() {
            if name == "index.html" {
                continue;
            }
            let file = Files::get(&name).ok_or_else(|| anyhow::anyhow!("embedded file {name} vanished"))?;
            let url = hashed_url(&name, &file.metadata.sha256_hash());
            let bytes: &'static [u8] = match file.data {
                std::borrow::Cow::Borrowed(bytes) => bytes,
                std::borrow::Cow::Owned(bytes) => Box::leak(bytes.into_boxed_slice()),
            };
            by_url.insert(url.clone(), Asset { bytes, content_type: content_type(&name) });
            url_of.insert(name.to_string(), url);
        }
        let template =
            Files::get("index.html").ok_or_else(|| anyhow::anyhow!("workbench index.html is not embedded"))?;
        let template = std::str::from_utf8(&template.data)?.to_owned();
        let imports: serde_json::Map<String, serde_json::Value> = url_of
            .iter()
            .filter(|(name, _)| name.ends_with(".js"))
            .map(|(name, url)| (format!("wb/{name}"), json!(url)))
            .collect();
        let import_map = serde_json::to_string(&json!({ "imports": imports }))?;
        let mut index = template.replace("{{importmap}}", &import_map);
        for (name, url) in &url_of {
            index = index.replace(&format!("{{{{{name}}}}}"), url);
        }
        anyhow::ensure!(!index.contains("{{"), "workbench index.html names a file that is not embedded");
        let map_hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(import_map.as_bytes()));
        Ok(Assets { index, csp: csp(&map_hash), by_url })
    }

    /// The asset at `path` (a hashed URL path under [`PREFIX`]).
    pub fn get(&self, path: &str) -> Option<&Asset> {
        self.by_url.get(path)
    }
}

/// `pages/home.js` + hash → `/assets/pages/home.<10 hex>.js`.
fn hashed_url(name: &str, sha256: &[u8; 32]) -> String {
    let hash = &hex::encode(sha256)[..HASH_CHARS];
    match name.rsplit_once('.') {
        Some((stem, ext)) => format!("{PREFIX}{stem}.{hash}.{ext}"),
        None => format!("{PREFIX}{name}.{hash}"),
    }
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Scripts only from this origin (plus the import map, by its hash);
/// inline style attributes allowed for the rendered article in the
/// sandboxed preview (it inherits this policy); images from anywhere an
/// article or a result may point (http, https, data).
fn csp(import_map_sha256_b64: &str) -> String {
    [
        "default-src 'none'".to_owned(),
        format!("script-src 'self' 'sha256-{import_map_sha256_b64}'"),
        "style-src 'self' 'unsafe-inline'".to_owned(),
        "img-src 'self' http: https: data:".to_owned(),
        "connect-src 'self'".to_owned(),
        "frame-src 'self'".to_owned(),
        "base-uri 'none'".to_owned(),
        "form-action 'self'".to_owned(),
        "frame-ancestors 'none'".to_owned(),
    ]
    .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_hashed_assets_that_exist() {
        let assets = Assets::load().unwrap();
        assert!(!assets.index.contains("{{"));
        let urls: Vec<&str> = assets.index.split('"').filter(|s| s.starts_with(PREFIX)).collect();
        assert!(urls.iter().any(|u| u.contains("/app.") && u.ends_with(".js")), "{}", assets.index);
        for url in &urls {
            assert!(assets.get(url).is_some(), "{url} is named by the index but not served");
        }
        assert!(assets.index.contains("\"wb/pages/home.js\""), "the import map maps module names");
    }

    #[test]
    fn a_name_changes_with_the_content() {
        assert_eq!(hashed_url("pages/home.js", &[0xab; 32]), "/assets/pages/home.ababababab.js");
        assert_ne!(hashed_url("app.js", &[1; 32]), hashed_url("app.js", &[2; 32]));
    }
}
