//! Raw HTML in the Markdown is sanitized with ammonia (spec 4.15: no
//! script, no event handlers, no `javascript:` URLs). The whole rendered
//! article goes through one allow-list: the tags an article needs, a few
//! attributes per tag, `style` with an allow-list of CSS properties, and
//! only the renderer's own classes. [`report_raw_html`] reads the raw HTML
//! fragments beforehand and says in `warnings` what the sanitizer will
//! remove, from the same lists.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};

use super::classes;
use super::html_tags;
use super::warnings::Warnings;
use mediaops_connectors::wechat::urls::{self, UrlKind};

/// Elements an article may contain. The base theme styles every one of them.
pub const ALLOWED_TAGS: &[&str] = &[
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "caption",
    "code",
    "dd",
    "del",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "rp",
    "rt",
    "ruby",
    "s",
    "section",
    "small",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "u",
    "ul",
];

/// Elements removed together with everything inside them.
pub const DROPPED_WITH_CONTENT: &[&str] = &[
    "script", "style", "template", "iframe", "frame", "frameset", "object", "embed", "applet", "noscript", "svg",
    "math", "canvas", "audio", "video", "textarea", "select", "button", "head", "title", "link", "meta", "base",
];

/// Attributes kept per element (besides `style`, and `class` for our own classes).
const TAG_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href", "title"]),
    ("abbr", &["title"]),
    ("img", &["src", "alt", "title", "width", "height"]),
    ("ol", &["start"]),
    ("td", &["colspan", "rowspan"]),
    ("th", &["colspan", "rowspan"]),
];

/// URL schemes kept in `href` and `src`; relative and `file:` URLs pass (a
/// local image is reported, not removed, so the author sees which file to
/// upload and can swap the `src` for the uploaded URL).
const URL_SCHEMES: &[&str] = &["http", "https", "mailto", "tel", "file"];

/// CSS properties kept in a `style` attribute. Nothing here takes a URL.
pub const STYLE_PROPERTIES: &[&str] = &[
    "color",
    "background-color",
    "font-size",
    "font-weight",
    "font-style",
    "font-family",
    "font-variant",
    "text-align",
    "text-decoration",
    "text-decoration-line",
    "text-decoration-color",
    "text-decoration-style",
    "text-indent",
    "text-transform",
    "line-height",
    "letter-spacing",
    "word-spacing",
    "word-break",
    "overflow-wrap",
    "white-space",
    "vertical-align",
    "display",
    "width",
    "max-width",
    "min-width",
    "height",
    "max-height",
    "min-height",
    "margin",
    "margin-top",
    "margin-right",
    "margin-bottom",
    "margin-left",
    "padding",
    "padding-top",
    "padding-right",
    "padding-bottom",
    "padding-left",
    "border",
    "border-top",
    "border-right",
    "border-bottom",
    "border-left",
    "border-color",
    "border-style",
    "border-width",
    "border-radius",
    "border-collapse",
    "opacity",
];

static SANITIZER: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut builder = Builder::empty();
    builder
        .tags(ALLOWED_TAGS.iter().copied().collect())
        .clean_content_tags(DROPPED_WITH_CONTENT.iter().copied().collect())
        .tag_attributes(TAG_ATTRIBUTES.iter().map(|(tag, attrs)| (*tag, attrs.iter().copied().collect())).collect())
        .generic_attributes(HashSet::from(["style"]))
        .allowed_classes(
            ALLOWED_TAGS.iter().map(|tag| (*tag, classes::ALL.iter().copied().collect::<HashSet<_>>())).collect(),
        )
        .filter_style_properties(STYLE_PROPERTIES.iter().copied().collect())
        .url_schemes(URL_SCHEMES.iter().copied().collect())
        .url_relative(UrlRelative::PassThrough)
        .link_rel(None)
        .strip_comments(true)
        .attribute_filter(|_element, attribute, value| {
            // Belt and braces over the property allow-list: no CSS
            // expressions, bindings or URLs in any style value.
            if attribute == "style" && !style_values_are_safe(value) { None } else { Some(value.into()) }
        });
    builder
});

/// The HTML with everything outside the allow-lists removed.
pub fn sanitize(html: &str) -> String {
    SANITIZER.clean(html).to_string()
}

fn style_values_are_safe(style: &str) -> bool {
    let lower = style.to_ascii_lowercase();
    !["url(", "expression", "javascript:", "vbscript:", "behavior", "-moz-binding", "@import", "\\"]
        .iter()
        .any(|bad| lower.contains(bad))
}

static TAG_ATTRIBUTE_SETS: LazyLock<HashMap<&'static str, HashSet<&'static str>>> =
    LazyLock::new(|| TAG_ATTRIBUTES.iter().map(|(tag, attrs)| (*tag, attrs.iter().copied().collect())).collect());

/// Adds to `warnings` what [`sanitize`] will remove from the raw HTML
/// fragments of a document (HTML blocks and inline HTML, concatenated).
pub fn report_raw_html(raw_html: &str, warnings: &mut Warnings) {
    let scan = html_tags::scan(raw_html);
    for tag in &scan.start_tags {
        let name = tag.name.as_str();
        if DROPPED_WITH_CONTENT.contains(&name) {
            warnings.add(format!("raw HTML: removed the <{name}> element and its content"));
            continue;
        }
        if !ALLOWED_TAGS.contains(&name) {
            warnings.add(format!("raw HTML: removed the <{name}> tag (its content is kept)"));
            continue;
        }
        for (attribute, value) in &tag.attrs {
            report_attribute(name, attribute, value, warnings);
        }
    }
    for _ in 0..scan.comments {
        warnings.add("raw HTML: removed an HTML comment");
    }
}

fn report_attribute(tag: &str, attribute: &str, value: &str, warnings: &mut Warnings) {
    if attribute.starts_with("on") {
        warnings.add(format!("raw HTML: removed the event handler {attribute} on <{tag}>"));
        return;
    }
    match attribute {
        "style" => report_style(tag, value, warnings),
        "class" => {
            if value.split_ascii_whitespace().any(|class| !classes::ALL.contains(&class)) {
                warnings.add(format!("raw HTML: removed the class attribute on <{tag}> (WeChat keeps no classes)"));
            }
        }
        _ if TAG_ATTRIBUTE_SETS.get(tag).is_some_and(|attrs| attrs.contains(attribute)) => {
            if attribute == "href" || attribute == "src" {
                report_url(tag, attribute, value, warnings);
            }
        }
        _ => warnings.add(format!("raw HTML: removed the attribute {attribute} on <{tag}>")),
    }
}

fn report_url(tag: &str, attribute: &str, value: &str, warnings: &mut Warnings) {
    match urls::classify(value) {
        UrlKind::Script => {
            warnings.add(format!("raw HTML: removed a javascript:/vbscript: URL in <{tag} {attribute}>"))
        }
        UrlKind::Data => warnings.add(format!("raw HTML: removed a data: URL in <{tag} {attribute}>")),
        UrlKind::Other(scheme) if scheme != "tel" => {
            warnings.add(format!("raw HTML: removed a {scheme}: URL in <{tag} {attribute}>"))
        }
        UrlKind::Local | UrlKind::Anchor if tag == "img" => warnings.add(local_image_warning(value)),
        _ => {}
    }
}

fn report_style(tag: &str, style: &str, warnings: &mut Warnings) {
    if !style_values_are_safe(style) {
        warnings.add(format!("raw HTML: removed an unsafe style attribute on <{tag}> (URL, expression or escape)"));
        return;
    }
    for declaration in style.split(';').map(str::trim).filter(|d| !d.is_empty()) {
        let property = declaration.split(':').next().unwrap_or_default().trim().to_ascii_lowercase();
        let well_formed = declaration.contains(':')
            && !property.is_empty()
            && property.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
        if !well_formed {
            warnings.add(format!("raw HTML: removed the malformed CSS declaration {declaration:?} on <{tag}>"));
        } else if !STYLE_PROPERTIES.contains(&property.as_str()) {
            warnings.add(format!("raw HTML: removed the CSS property {property} on <{tag}>"));
        }
    }
}

/// The warning for an image that is a local file (spec 4.15: local images
/// must be uploaded first).
pub fn local_image_warning(src: &str) -> String {
    format!(
        "image {src:?} is a local file: upload it first with POST /api/articles/media/upload and use the returned URL"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(html: &str) -> Vec<String> {
        let mut warnings = Warnings::default();
        report_raw_html(html, &mut warnings);
        warnings.into_messages()
    }

    #[test]
    fn scripts_handlers_and_script_urls_are_removed() {
        let html = "<p onclick=\"steal()\">hi<script>alert(1)</script>\
                    <a href=\"javascript:alert(1)\">x</a><a href=\" JAVA\tscript:alert(1)\">y</a>\
                    <img src=\"x.png\" onerror=\"alert(1)\"><iframe src=\"https://evil.example\"></iframe>\
                    <style>p{color:red}</style><svg><script>1</script></svg></p>";
        let clean = sanitize(html);
        let lower = clean.to_ascii_lowercase();
        for bad in ["<script", "onclick", "onerror", "javascript", "<iframe", "<style", "<svg", "alert", "steal"] {
            assert!(!lower.contains(bad), "{bad} survived: {clean}");
        }
        assert!(clean.contains("<a>x</a>") && clean.contains("<img src=\"x.png\">"), "{clean}");
        let warnings = report(html);
        for expected in [
            "raw HTML: removed the event handler onclick on <p>",
            "raw HTML: removed the <script> element and its content (2 times)",
            "raw HTML: removed a javascript:/vbscript: URL in <a href> (2 times)",
            "raw HTML: removed the event handler onerror on <img>",
            "raw HTML: removed the <iframe> element and its content",
            "raw HTML: removed the <style> element and its content",
            "raw HTML: removed the <svg> element and its content",
        ] {
            assert!(warnings.iter().any(|w| w == expected), "missing {expected:?} in {warnings:#?}");
        }
        assert!(warnings.iter().any(|w| w.starts_with("image \"x.png\" is a local file")), "{warnings:#?}");
    }

    #[test]
    fn styles_keep_allowed_properties_only() {
        let html = "<p style=\"color: red; position: fixed; max-height=80%\">a</p>\
                    <span style=\"background: url(javascript:alert(1))\">b</span>\
                    <span style=\"width: expression(alert(1))\">c</span>";
        let clean = sanitize(html);
        assert!(clean.contains("<p style=\"color:red\">a</p>"), "{clean}");
        assert!(!clean.contains("url(") && !clean.contains("expression"), "{clean}");
        let warnings = report(html);
        assert!(warnings.contains(&"raw HTML: removed the CSS property position on <p>".to_owned()), "{warnings:#?}");
        assert!(warnings.iter().any(|w| w.contains("malformed CSS declaration \"max-height=80%\"")), "{warnings:#?}");
        assert!(warnings.iter().any(|w| w.contains("unsafe style attribute on <span>")), "{warnings:#?}");
    }

    #[test]
    fn only_our_classes_survive_and_unknown_tags_keep_their_text() {
        let html = "<center><strong class=\"example\">示例</strong><span class=\"mo-link\">k</span></center>\
                    <!-- tabs:start --><font color=red>f</font>";
        let clean = sanitize(html);
        // ammonia leaves an empty class; the inliner's last pass removes all classes.
        assert_eq!(clean, "<strong class=\"\">示例</strong><span class=\"mo-link\">k</span>f");
        assert_eq!(
            report(html),
            [
                "raw HTML: removed the <center> tag (its content is kept)",
                "raw HTML: removed the class attribute on <strong> (WeChat keeps no classes)",
                "raw HTML: removed the <font> tag (its content is kept)",
                "raw HTML: removed an HTML comment",
            ]
        );
    }

    #[test]
    fn web_links_and_images_pass() {
        let html = "<a href=\"https://example.com/a?b=1&amp;c=2\" title=\"t\">l</a><img src=\"https://e.com/i.png\" alt=\"图\">";
        assert_eq!(sanitize(html), html);
        assert!(report(html).is_empty());
    }
}
