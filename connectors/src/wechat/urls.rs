//! What a link or image URL points at, for the WeChat rules of spec 4.15:
//! only `mp.weixin.qq.com` links survive the WeChat editor, other web links
//! become numbered references, local images must be uploaded first, and
//! script URLs never reach the output.

/// The kind of a URL as written in Markdown or raw HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlKind {
    /// `http(s)://mp.weixin.qq.com/…`: stays a live link.
    Weixin,
    /// Any other `http(s)://` or protocol-relative `//host/…` URL.
    Web,
    /// `mailto:`.
    Mail,
    /// `#section`: an in-page anchor.
    Anchor,
    /// A relative or root-relative path, a `file:` URL or a Windows path:
    /// something on the author's disk or site, not reachable by WeChat.
    Local,
    /// `data:`.
    Data,
    /// `javascript:` or `vbscript:`.
    Script,
    /// Any other scheme (`tel:`, `ftp:`, …), lower-cased.
    Other(String),
}

/// Classifies `url`. Whitespace and control characters are ignored when
/// reading the scheme, as browsers do (`java\tscript:` is a script URL).
pub fn classify(url: &str) -> UrlKind {
    let compact: String = url.chars().filter(|c| !c.is_ascii_whitespace() && !c.is_control()).collect();
    if compact.starts_with('#') {
        return UrlKind::Anchor;
    }
    if let Some(rest) = compact.strip_prefix("//") {
        return web_or_weixin(rest);
    }
    let Some(scheme) = scheme_of(&compact) else {
        return UrlKind::Local;
    };
    let rest = &compact[scheme.len() + 1..];
    match scheme.as_str() {
        "http" | "https" => web_or_weixin(rest.trim_start_matches('/')),
        "mailto" => UrlKind::Mail,
        "javascript" | "vbscript" => UrlKind::Script,
        "data" => UrlKind::Data,
        "file" => UrlKind::Local,
        // `C:\Users\…` or `C:/…`: a drive letter, not a scheme.
        s if s.len() == 1 => UrlKind::Local,
        _ => UrlKind::Other(scheme),
    }
}

/// The lower-cased scheme when `url` starts with `scheme:` (RFC 3986 syntax).
fn scheme_of(url: &str) -> Option<String> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .then(|| scheme.to_ascii_lowercase())
}

/// `authority_and_path` is what follows `scheme://`.
fn web_or_weixin(authority_and_path: &str) -> UrlKind {
    let authority = authority_and_path.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = host.split(':').next().unwrap_or_default().trim_end_matches('.');
    if host.eq_ignore_ascii_case("mp.weixin.qq.com") { UrlKind::Weixin } else { UrlKind::Web }
}

/// Whether an image at `src` must be uploaded through
/// `POST /api/articles/media/upload` before the article can be saved.
pub fn is_local_image(src: &str) -> bool {
    matches!(classify(src), UrlKind::Local | UrlKind::Anchor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let cases = [
            ("https://mp.weixin.qq.com/s/abc", UrlKind::Weixin),
            ("http://MP.WEIXIN.QQ.COM./s?x=1", UrlKind::Weixin),
            ("https://user@mp.weixin.qq.com:443/s", UrlKind::Weixin),
            ("https://mp.weixin.qq.com.evil.example/s", UrlKind::Web),
            ("https://example.com/mp.weixin.qq.com", UrlKind::Web),
            ("//cdn.example.com/a.png", UrlKind::Web),
            ("mailto:a@example.com", UrlKind::Mail),
            ("#intro", UrlKind::Anchor),
            ("./images/es-write.png", UrlKind::Local),
            ("qrcode.jpeg", UrlKind::Local),
            ("/solution/0000-0099/README_EN.md", UrlKind::Local),
            ("../theme-documentation-content#x", UrlKind::Local),
            ("file:///Users/me/a.png", UrlKind::Local),
            ("C:\\Users\\me\\a.png", UrlKind::Local),
            ("javascript:alert(1)", UrlKind::Script),
            (" JaVa\tScRiPt:alert(1)", UrlKind::Script),
            ("vbscript:msgbox", UrlKind::Script),
            ("data:image/png;base64,AAAA", UrlKind::Data),
            ("tel:10086", UrlKind::Other("tel".into())),
            ("a:b/c", UrlKind::Local),
        ];
        for (url, kind) in cases {
            assert_eq!(classify(url), kind, "{url}");
        }
    }

    #[test]
    fn local_images() {
        assert!(is_local_image("./pictures/Codelf.png"));
        assert!(is_local_image("file:///tmp/a.png"));
        assert!(is_local_image("qrcode.jpeg"));
        assert!(!is_local_image("https://oss.javaguide.cn/a.png"));
        assert!(!is_local_image("data:image/png;base64,AAAA"));
    }
}
