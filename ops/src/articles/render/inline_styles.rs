//! Theme CSS → `style` attributes with css-inline (spec 4.15: every element
//! carries its styles, nothing depends on a `<style>` sheet or a class).
//! Rules apply by selector specificity; a `style` already on an element
//! (code colours, table alignment, the author's own) wins over the sheet.
//! The last pass removes the renderer's class names, which only served as
//! selectors.

use std::borrow::Cow;
use std::sync::LazyLock;

use css_inline::{CSSInliner, InlineError};

static INLINER: LazyLock<CSSInliner<'static>> = LazyLock::new(|| {
    CSSInliner::options()
        .keep_style_tags(false)
        .keep_link_tags(false)
        .keep_at_rules(false)
        .load_remote_stylesheets(false)
        .build()
});

/// Inlines `css` into the fragment `html` and drops every `class` attribute.
pub fn inline(html: &str, css: &str) -> Result<String, InlineError> {
    let inlined = INLINER.inline_fragment(html, css)?;
    Ok(strip_classes(&inlined))
}

/// Removes `class="…"` from every tag of HTML as css-inline serializes it:
/// in text `<` is always `&lt;`, attribute values are double-quoted and a
/// `"` inside one is `&quot;`, so ` class="` inside a tag is the attribute.
pub fn strip_classes(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        let close = tag_end(rest);
        out.push_str(&without_class(&rest[..close]));
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Byte index just past the `>` that ends the tag at the start of `html`.
fn tag_end(html: &str) -> usize {
    let mut quoted = false;
    for (i, b) in html.bytes().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'>' if !quoted => return i + 1,
            _ => {}
        }
    }
    html.len()
}

fn without_class(tag: &str) -> Cow<'_, str> {
    const ATTR: &str = " class=\"";
    let Some(start) = tag.find(ATTR) else { return Cow::Borrowed(tag) };
    let value_start = start + ATTR.len();
    let Some(len) = tag[value_start..].find('"') else { return Cow::Borrowed(tag) };
    Cow::Owned(format!("{}{}", &tag[..start], &tag[value_start + len + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_go_and_styles_stay() {
        let html = "<p class=\"a b\" style=\"color:red\">x class=\"y\" &lt;b class=\"z\"&gt;</p>\
                    <img alt=\"1 &gt; 0 &quot;class=&quot;\" class=\"mo-inline-image\" src=\"a.png\">";
        assert_eq!(
            strip_classes(html),
            "<p style=\"color:red\">x class=\"y\" &lt;b class=\"z\"&gt;</p>\
             <img alt=\"1 &gt; 0 &quot;class=&quot;\" src=\"a.png\">"
        );
    }

    #[test]
    fn selectors_by_class_apply_and_inline_styles_win() {
        let css = ".mo-article p { color: #333; margin: 0 } .mo-fnref { color: blue } span { color: red }";
        let html = "<section class=\"mo-article\"><p>a<sup class=\"mo-fnref\">[1]</sup>\
                    <span style=\"color:#00f\">b</span></p></section>";
        let out = inline(html, css).unwrap();
        assert!(!out.contains("class="), "{out}");
        assert!(out.contains("<p style=\"color: #333;margin: 0;\">"), "{out}");
        assert!(out.contains("<sup style=\"color: blue;\">[1]</sup>"), "{out}");
        assert!(out.contains("<span style=\"color: #00f\">b</span>"), "{out}");
    }
}
