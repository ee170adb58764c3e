//! External links as numbered references (spec 4.15): WeChat only keeps
//! links to `mp.weixin.qq.com`, so every other web link becomes its text
//! followed by `[n]`, and a list at the end gives each number's URL. GFM
//! footnotes share the numbering, so the reader sees one sequence 1..n in
//! the order the marks appear. A link whose text is its URL becomes plain
//! text (the URL is already on the page).

use std::collections::HashMap;

use comrak::nodes::{AstNode, NodeValue};

use super::warnings::Warnings;
use mediaops_connectors::wechat::urls::{self, UrlKind};

/// An AST node's identity (its address in the arena).
pub type NodeId = usize;

/// The identity of `node`.
pub fn id(node: &AstNode<'_>) -> NodeId {
    node as *const AstNode<'_> as usize
}

/// How one Markdown link is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkTreatment {
    /// `<a href>`: a WeChat article link.
    Keep,
    /// Only the link text: the link cannot work in WeChat.
    Text,
    /// The link text, which is its URL, as plain text.
    Url,
    /// The link text, then reference mark `[n]`.
    Reference(u32),
}

/// One entry of the reference list.
#[derive(Debug)]
pub enum Reference<'a> {
    /// An external link turned into a reference (one per distinct URL).
    Link {
        /// Its number in the shared 1..n sequence.
        number: u32,
        /// The link text, trimmed (an image-only link: its alt text).
        text: String,
        /// The link target, as written.
        url: String,
    },
    /// A GFM footnote, numbered where its first mark appears.
    Footnote {
        /// Its number in the shared 1..n sequence.
        number: u32,
        /// The footnote's definition node, rendered into the list.
        definition: &'a AstNode<'a>,
    },
}

impl Reference<'_> {
    /// The entry's number, `[n]` in the text and the list.
    pub fn number(&self) -> u32 {
        match self {
            Reference::Link { number, .. } | Reference::Footnote { number, .. } => *number,
        }
    }
}

/// Numbers of every link and footnote mark of a document, and the list.
#[derive(Debug, Default)]
pub struct References<'a> {
    links: HashMap<NodeId, LinkTreatment>,
    footnotes: HashMap<String, u32>,
    /// In number order.
    pub list: Vec<Reference<'a>>,
}

impl<'a> References<'a> {
    /// Walks the document in reading order (footnote definitions sit at the
    /// end, so links inside them are numbered after the body's marks).
    pub fn plan(root: &'a AstNode<'a>, warnings: &mut Warnings) -> References<'a> {
        let mut references = References::default();
        let mut by_url: HashMap<String, u32> = HashMap::new();
        let mut definitions: HashMap<String, &'a AstNode<'a>> = HashMap::new();
        for node in root.descendants() {
            if let NodeValue::FootnoteDefinition(ref definition) = node.data().value {
                definitions.insert(definition.name.clone(), node);
            }
        }
        for node in root.descendants() {
            match node.data().value {
                NodeValue::Link(ref link) => {
                    let text = node.collect_text();
                    let treatment = references.treat_link(&link.url, &text, node, &mut by_url, warnings);
                    references.links.insert(id(node), treatment);
                }
                NodeValue::FootnoteReference(ref mark) => {
                    if references.footnotes.contains_key(&mark.name) {
                        continue;
                    }
                    let Some(&definition) = definitions.get(&mark.name) else { continue };
                    let number = references.next_number();
                    references.footnotes.insert(mark.name.clone(), number);
                    references.list.push(Reference::Footnote { number, definition });
                }
                _ => {}
            }
        }
        references
    }

    fn next_number(&self) -> u32 {
        self.list.len() as u32 + 1
    }

    fn treat_link(
        &mut self,
        url: &str,
        text: &str,
        node: &'a AstNode<'a>,
        by_url: &mut HashMap<String, u32>,
        warnings: &mut Warnings,
    ) -> LinkTreatment {
        let kind = urls::classify(url);
        let shown = text.trim();
        if url.trim().is_empty() {
            return LinkTreatment::Text;
        }
        if text_is_url(shown, url) && matches!(kind, UrlKind::Web | UrlKind::Mail | UrlKind::Weixin) {
            return LinkTreatment::Url;
        }
        match kind {
            UrlKind::Weixin => LinkTreatment::Keep,
            UrlKind::Web | UrlKind::Mail => {
                if let Some(&number) = by_url.get(url) {
                    return LinkTreatment::Reference(number);
                }
                let number = self.next_number();
                by_url.insert(url.to_owned(), number);
                let text = if shown.is_empty() || only_images(node) { image_alt_or_empty(node) } else { shown.into() };
                self.list.push(Reference::Link { number, text, url: url.to_owned() });
                LinkTreatment::Reference(number)
            }
            UrlKind::Script => {
                warnings.add(format!("removed the javascript:/vbscript: link target of {:?}", short(shown)));
                LinkTreatment::Text
            }
            UrlKind::Anchor => {
                warnings.add(format!("in-page link {url:?} kept as text (WeChat has no anchors)"));
                LinkTreatment::Text
            }
            UrlKind::Local => {
                warnings.add(format!("relative link {url:?} kept as text (it has no address outside its site)"));
                LinkTreatment::Text
            }
            UrlKind::Data | UrlKind::Other(_) => {
                warnings.add(format!("link {:?} kept as text (WeChat cannot open it)", short(url)));
                LinkTreatment::Text
            }
        }
    }

    /// How the link `node` renders.
    pub fn link(&self, node: &AstNode<'_>) -> LinkTreatment {
        self.links.get(&id(node)).copied().unwrap_or(LinkTreatment::Text)
    }

    /// The number of footnote `name`, if it is referenced and defined.
    pub fn footnote(&self, name: &str) -> Option<u32> {
        self.footnotes.get(name).copied()
    }
}

/// Whether a link's text is its URL, written with or without the scheme,
/// `mailto:`, `www.` or a trailing slash.
fn text_is_url(text: &str, url: &str) -> bool {
    fn bare(s: &str) -> &str {
        let s = s.trim();
        let s = s.strip_prefix("mailto:").unwrap_or(s);
        let s = s.split_once("://").map_or(s, |(_, rest)| rest);
        let s = s.strip_prefix("www.").unwrap_or(s);
        s.trim_end_matches('/')
    }
    !text.is_empty() && bare(text).eq_ignore_ascii_case(bare(url))
}

fn only_images<'a>(node: &'a AstNode<'a>) -> bool {
    node.children().all(|child| match child.data().value {
        NodeValue::Image(_) => true,
        NodeValue::Text(ref t) => t.trim().is_empty(),
        NodeValue::SoftBreak | NodeValue::LineBreak => true,
        _ => false,
    })
}

fn image_alt_or_empty<'a>(node: &'a AstNode<'a>) -> String {
    node.children()
        .find(|child| matches!(child.data().value, NodeValue::Image(_)))
        .map(|image| image.collect_text().trim().to_owned())
        .unwrap_or_default()
}

/// A long text cut for a warning.
fn short(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_equal_to_url() {
        assert!(text_is_url("https://weibo.com/easy", "https://weibo.com/easy"));
        assert!(text_is_url("weibo.com/easy/", "https://www.weibo.com/easy"));
        assert!(text_is_url("a@b.cn", "mailto:a@b.cn"));
        assert!(!text_is_url("微博", "https://weibo.com/easy"));
        assert!(!text_is_url("", "https://weibo.com"));
    }
}
