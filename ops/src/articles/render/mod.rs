//! Markdown → WeChat-ready HTML (spec 4.15 "Render"): every element carries
//! inline styles, no `<style>`, no classes, no scripts, no event handlers,
//! no script URLs. The stages, each in its own module:
//!
//! 1. [`markdown`]: comrak parses CommonMark + GFM; our writer applies the
//!    WeChat rules ([`references`] for links and footnotes, [`highlight`]
//!    for code) and marks elements with [`classes`]; highlighted code waits
//!    in [`code_slots`] (it is ours and already styled);
//! 2. [`sanitize`]: when the Markdown holds raw HTML, ammonia cleans the
//!    whole HTML and the report says what it removed;
//! 3. [`inline_styles`]: css-inline applies the theme's CSS as `style`
//!    attributes and the classes are dropped.
//!
//! Everything changed or left out is listed in [`Rendered::warnings`].

pub mod classes;
pub mod code_slots;
pub mod highlight;
pub mod html_tags;
pub mod inline_styles;
pub mod markdown;
pub mod references;
pub mod sanitize;
pub mod warnings;

#[cfg(test)]
mod tests;

use syntect::highlighting::Theme;

use warnings::Warnings;

/// The look of a render: the full stylesheet (base + theme) and the code
/// colours.
#[derive(Clone, Copy)]
pub struct Look<'t> {
    /// The base CSS followed by the theme's, inlined into every element.
    pub css: &'t str,
    /// The syntect theme colouring highlighted code.
    pub code_theme: &'t Theme,
}

/// A rendered article.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// `<section>…</section>` with inline styles on every element.
    pub html: String,
    /// One line per kind of change or drop, in the order first met.
    pub warnings: Vec<String>,
}

/// Why a document could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// Markdown nesting deeper than [`markdown::MAX_DEPTH`], or elements
    /// (raw HTML included) deeper than [`MAX_ELEMENT_DEPTH`].
    #[error("the document nests {0} levels deep; at most {max} Markdown levels and {MAX_ELEMENT_DEPTH} HTML levels are supported", max = markdown::MAX_DEPTH)]
    TooDeep(usize),
    /// The stylesheet could not be applied (a custom theme's CSS).
    #[error("the theme's CSS cannot be applied: {0}")]
    Css(String),
}

/// Deepest element nesting rendered (Markdown and raw HTML together); the
/// inliner recurses per level, so this bounds its stack use.
pub const MAX_ELEMENT_DEPTH: usize = 256;

/// Nesting of the written HTML, raw HTML as the author typed it, refused
/// before the sanitizer parses it: html5ever's tree builder takes time
/// quadratic in the depth (10,000 nested `<div>` took seconds to refuse).
/// Generous, as unclosed tags (`<p>`, `<li>`) count here but are closed by
/// the parser; [`MAX_ELEMENT_DEPTH`] applies to what it builds.
const MAX_WRITTEN_DEPTH: usize = 4 * MAX_ELEMENT_DEPTH;

/// Renders `markdown` with `look`; `title` (trimmed, non-empty) becomes the
/// H1. CPU-bound: call it off the async runtime's worker threads.
pub fn render(markdown: &str, title: Option<&str>, look: Look<'_>) -> Result<Rendered, RenderError> {
    let mut warnings = Warnings::default();
    let title = title.map(str::trim).filter(|t| !t.is_empty());
    let article = markdown::to_html(markdown, title, look.code_theme, &mut warnings)
        .map_err(|too_deep| RenderError::TooDeep(too_deep.depth))?;
    // Only raw HTML can bring unsafe markup: everything the writer emits is
    // escaped text, allow-listed tags and checked URLs. So a document without
    // raw HTML skips the sanitizer's parse and serialize.
    let clean = if article.raw_html.is_empty() {
        article.html
    } else {
        let written = html_tags::serialized_depth(&article.html);
        if written > MAX_WRITTEN_DEPTH {
            return Err(RenderError::TooDeep(written));
        }
        sanitize::report_raw_html(&article.raw_html, &mut warnings);
        sanitize::sanitize(&article.html)
    };
    let depth = html_tags::serialized_depth(&clean);
    if depth > MAX_ELEMENT_DEPTH {
        return Err(RenderError::TooDeep(depth));
    }
    let html = inline_styles::inline(&clean, look.css).map_err(|e| RenderError::Css(e.to_string()))?;
    Ok(Rendered { html: article.code.fill(&html), warnings: warnings.into_messages() })
}
