//! The start tags and comments of an HTML text, read with html5ever's
//! WHATWG tokenizer (no tree is built). The sanitizer uses it to say what it
//! removes from raw HTML; the tests use it to check every rendered element.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};

/// One start tag: lower-cased name and attributes in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartTag {
    /// The tag name, lower-cased (`img`).
    pub name: String,
    /// The attributes as `(name, value)`, names lower-cased, in source order.
    pub attrs: Vec<(String, String)>,
}

impl StartTag {
    /// The value of attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What [`scan`] found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Every start tag, in document order.
    pub start_tags: Vec<StartTag>,
    /// Number of `<!-- … -->` comments.
    pub comments: usize,
}

#[derive(Default)]
struct Sink {
    scan: RefCell<Scan>,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::TagToken(Tag { kind: TagKind::StartTag, name, attrs, .. }) => {
                let name = name.to_string();
                // Switch to the text states a tree builder would pick, so a
                // script's body is not read as markup.
                let next = match name.as_str() {
                    "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                    "style" | "xmp" | "iframe" | "noembed" | "noframes" => TokenSinkResult::RawData(RawKind::Rawtext),
                    "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
                    "plaintext" => TokenSinkResult::Plaintext,
                    _ => TokenSinkResult::Continue,
                };
                let attrs = attrs.into_iter().map(|a| (a.name.local.to_string(), a.value.to_string())).collect();
                self.scan.borrow_mut().start_tags.push(StartTag { name, attrs });
                next
            }
            Token::CommentToken(_) => {
                self.scan.borrow_mut().comments += 1;
                TokenSinkResult::Continue
            }
            _ => TokenSinkResult::Continue,
        }
    }
}

/// Tokenizes `html` as the body of a document would be.
pub fn scan(html: &str) -> Scan {
    let tokenizer = Tokenizer::new(Sink::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.scan.take()
}

/// Elements without an end tag.
const VOID: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"];

/// The deepest element nesting of HTML as html5ever serializes it: every
/// non-void element has its end tag, `<` in text is `&lt;` and attribute
/// values are double-quoted. A byte scan, no tokenizer.
pub fn serialized_depth(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'<') {
        let start = i + offset + 1;
        let mut end = start;
        let mut quoted = false;
        while end < bytes.len() && (quoted || bytes[end] != b'>') {
            quoted ^= bytes[end] == b'"';
            end += 1;
        }
        let tag = &html[start..end.min(bytes.len())];
        if let Some(_closing) = tag.strip_prefix('/') {
            depth = depth.saturating_sub(1);
        } else if !tag.starts_with('!') {
            let name = tag.split([' ', '/']).next().unwrap_or_default();
            if !VOID.contains(&name) {
                depth += 1;
                deepest = deepest.max(depth);
            }
        }
        i = (end + 1).min(bytes.len());
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_of_serialized_html() {
        assert_eq!(serialized_depth("<p>a<br>b<img alt=\"x > <y\"></p><p><b><i>c</i></b></p>"), 3);
        assert_eq!(serialized_depth("text &lt;b&gt;"), 0);
        assert_eq!(serialized_depth(&"<div>".repeat(50)), 50);
    }

    #[test]
    fn tags_attributes_comments_and_script_bodies() {
        let found = scan(
            "<p align=center>x<!-- c --><img src='a.png' onerror=alert(1)></img>\
             <script>document.write('<b onclick=1>')</script><B>y</B></p>",
        );
        let names: Vec<_> = found.start_tags.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["p", "img", "script", "b"]);
        assert_eq!(found.start_tags[0].attr("align"), Some("center"));
        assert_eq!(found.start_tags[1].attrs, [("src".into(), "a.png".into()), ("onerror".into(), "alert(1)".into())]);
        assert_eq!(found.comments, 1);
    }
}
