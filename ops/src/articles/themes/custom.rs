//! Custom themes: CSS supplied by an account (docs/articles.md). The CSS is
//! applied over the shared base stylesheet, exactly like a built-in theme,
//! and must pass these checks when it is stored (400 naming the field):
//!
//! - `id`: 1-40 of `[a-z0-9_-]`, starting with a letter or digit, not a
//!   built-in id; at most [`MAX_CUSTOM_THEMES`] per account;
//! - `name`: 1-40 characters; `description`: at most 200;
//! - `css`: 1 byte to [`MAX_CSS_BYTES`]; no `@import`, no `javascript:` or
//!   `vbscript:`, no `expression(`, `behavior` or `-moz-binding`, no CSS
//!   escapes (`\`, which could spell any of these), `url(…)` only with an
//!   `http(s)://` address; and css-inline must be able to apply it.

use mediaops_proto::mediaops::studio::v1::PutCustomThemeRequest;

use super::builtin;
use crate::articles::render::inline_styles;
use mediaops_proto::error::ServiceError;

/// Largest custom stylesheet, in bytes of UTF-8.
pub const MAX_CSS_BYTES: usize = 64 * 1024;
/// Custom themes one account may keep.
pub const MAX_CUSTOM_THEMES: usize = 50;
const MAX_ID_CHARS: usize = 40;
const MAX_NAME_CHARS: usize = 40;
const MAX_DESCRIPTION_CHARS: usize = 200;

/// A checked request: id, trimmed name and description, CSS as given.
pub struct CheckedTheme {
    /// The theme id: 1-40 of `a-z`, `0-9`, `_`, `-`, starting with a letter
    /// or digit, not a built-in theme's id.
    pub id: String,
    /// The display name, trimmed, 1-40 characters.
    pub name: String,
    /// The description, trimmed, at most 200 characters (may be empty).
    pub description: String,
    /// The theme's CSS as given, at most [`MAX_CSS_BYTES`] bytes.
    pub css: String,
}

/// Checks every field of a custom theme.
pub fn check(request: PutCustomThemeRequest) -> Result<CheckedTheme, ServiceError> {
    check_id(&request.id)?;
    let name = request.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(ServiceError::invalid_field(
            "name",
            format!("the name must have 1 to {MAX_NAME_CHARS} characters"),
        ));
    }
    let description = request.description.trim();
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(ServiceError::invalid_field(
            "description",
            format!("the description may have at most {MAX_DESCRIPTION_CHARS} characters"),
        ));
    }
    check_css(&request.css).map_err(|message| ServiceError::invalid_field("css", message))?;
    Ok(CheckedTheme { id: request.id, name: name.to_owned(), description: description.to_owned(), css: request.css })
}

/// Checks a custom theme id.
pub fn check_id(id: &str) -> Result<(), ServiceError> {
    let well_formed = !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && id.bytes().next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if !well_formed {
        return Err(ServiceError::invalid_field(
            "id",
            format!("a custom theme id is 1-{MAX_ID_CHARS} of a-z, 0-9, _ and -, starting with a letter or digit"),
        ));
    }
    if builtin::find(id).is_some() {
        return Err(ServiceError::invalid_field("id", format!("{id:?} is a built-in theme; choose another id")));
    }
    Ok(())
}

/// Checks custom CSS; the error is the message for the 400.
pub fn check_css(css: &str) -> Result<(), String> {
    if css.trim().is_empty() {
        return Err("the CSS is empty".into());
    }
    if css.len() > MAX_CSS_BYTES {
        return Err(format!("the CSS is {} bytes; at most {MAX_CSS_BYTES} are accepted", css.len()));
    }
    if css.contains('\\') {
        return Err("CSS escapes (\\) are not accepted".into());
    }
    let lower = without_comments(css).to_ascii_lowercase();
    for forbidden in ["@import", "javascript:", "vbscript:", "expression(", "behavior", "-moz-binding"] {
        if lower.contains(forbidden) {
            return Err(format!("{forbidden} is not allowed in theme CSS"));
        }
    }
    let mut rest = lower.as_str();
    while let Some(at) = rest.find("url(") {
        let target = rest[at + 4..].trim_start().trim_start_matches(['"', '\'']);
        if !(target.starts_with("https://") || target.starts_with("http://")) {
            return Err("url(…) must hold an http:// or https:// address".into());
        }
        rest = &rest[at + 4..];
    }
    let sample = "<section class=\"mo-article\"><p>样例 <strong>文字</strong></p></section>";
    inline_styles::inline(sample, &format!("{}\n{css}", builtin::BASE_CSS))
        .map(|_| ())
        .map_err(|e| format!("the CSS cannot be applied: {e}"))
}

/// `css` with `/* … */` comments blanked, so a comment cannot split a word
/// the checks look for (`@imp/**/ort` is not an import, but is refused too).
fn without_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_rules() {
        assert!(check_css(".mo-article p { color: #123; } h2 { border-bottom: 1px solid #eee }").is_ok());
        assert!(check_css("p { background-image: url( 'https://cdn.example.com/a.png' ) }").is_ok());
        for (css, message) in [
            ("", "empty"),
            ("@import url(https://evil.example/x.css);", "@import"),
            ("@imp/* split */ort 'x.css';", "@import"),
            ("p { background: url(javascript:alert(1)) }", "javascript:"),
            ("p { background: url(data:image/png;base64,AAAA) }", "url(…)"),
            ("p { background: url(/local.png) }", "url(…)"),
            ("p { width: expression(alert(1)) }", "expression("),
            ("p { behavior: url(x.htc) }", "behavior"),
            ("p { background: \\75rl(x) }", "escapes"),
        ] {
            let error = check_css(css).unwrap_err();
            assert!(error.contains(message), "{css}: {error}");
        }
        let big = format!("p {{ color: red }}\n{}", " ".repeat(MAX_CSS_BYTES));
        assert!(check_css(&big).unwrap_err().contains("at most 65536"));
    }

    #[test]
    fn ids() {
        assert!(check_id("my-theme_2").is_ok());
        for bad in ["", "-x", "My", "a b", "ä", &"x".repeat(41)] {
            assert_eq!(check_id(bad).unwrap_err().field.as_deref(), Some("id"), "{bad:?}");
        }
        assert!(check_id("magazine").unwrap_err().message.contains("built-in"));
    }
}
