//! Markdown → article HTML with the renderer's classes (before sanitizing
//! and inlining). CommonMark + GFM with comrak: tables, task lists,
//! strikethrough, footnotes, GitHub alerts, autolinks; plus `==mark==` and
//! `++ins++`, and YAML front matter (left out with a warning).
//!
//! comrak's own HTML writer does the nodes we do not change; ours handles the
//! WeChat rules of spec 4.15: the title H1, links as numbered references,
//! images as figures with captions, highlighted code, task boxes, alerts,
//! table alignment as style, and soft line breaks that do not put a space
//! between two Chinese characters.

use std::collections::HashSet;
use std::fmt::{self, Write};

use comrak::arena_tree::NodeEdge;
use comrak::html::{ChildRendering, Context, format_document_with_formatter, format_node_default};
use comrak::nodes::{AlertType, AstNode, NodeValue, TableAlignment};
use comrak::{Arena, Options, parse_document};
use syntect::highlighting::Theme;

use super::classes;
use super::code_slots::CodeSlots;
use super::highlight;
use super::references::{self, LinkTreatment, NodeId, Reference, References};
use super::sanitize::local_image_warning;
use super::warnings::Warnings;
use mediaops_connectors::wechat::urls::{self, UrlKind};

/// Deepest nesting of Markdown nodes accepted (block quotes in lists in …).
/// Real articles stay under 15; the limit keeps every later stage shallow.
pub const MAX_DEPTH: usize = 100;

/// A document the renderer refuses, with the reason for the 400.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    /// The nesting depth reached when the check stopped: [`MAX_DEPTH`] + 1.
    pub depth: usize,
}

/// What [`to_html`] produced.
pub struct MarkdownHtml {
    /// `<section class="mo-article">…</section>`, raw HTML still in it and
    /// code bodies in [`MarkdownHtml::code`].
    pub html: String,
    /// Every raw HTML fragment of the document, for the sanitizer's report.
    pub raw_html: String,
    /// The highlighted code bodies, to put back after inlining.
    pub code: CodeSlots,
}

/// The comrak options: GFM plus the few extensions Chinese WeChat authors use.
fn options() -> Options<'static> {
    let mut options = Options::default();
    let extension = &mut options.extension;
    extension.strikethrough = true;
    extension.table = true;
    extension.autolink = true;
    extension.tasklist = true;
    extension.footnotes = true;
    extension.alerts = true;
    extension.highlight = true;
    extension.insert = true;
    extension.cjk_friendly_emphasis = true;
    extension.front_matter_delimiter = Some("---".to_owned());
    // Raw HTML is kept here and cleaned by the sanitizer afterwards (GFM's
    // tag filter, off by default, would show `<script>` to readers as text).
    options.render.r#unsafe = true;
    options
}

/// Renders `markdown`; `title`, when given, becomes the H1. Code blocks use
/// `code_theme`'s colours. Changes the reader should know of go to `warnings`.
pub fn to_html(
    markdown: &str,
    title: Option<&str>,
    code_theme: &Theme,
    warnings: &mut Warnings,
) -> Result<MarkdownHtml, TooDeep> {
    let arena = Arena::new();
    let options = options();
    let root = parse_document(&arena, markdown, &options);
    check_depth(root)?;
    let survey = Survey::of(root, title, warnings);
    let references = References::plan(root, warnings);
    let code = CodeSlots::default();
    let state = State {
        references: &references,
        figures: &survey.figures,
        dropped_heading: survey.dropped_heading,
        title,
        code_theme,
        code: &code,
        warnings: Warnings::default(),
        in_reference: false,
    };
    let mut html = String::with_capacity(markdown.len() * 2 + 256);
    let state = format_document_with_formatter(root, &options, &mut html, &Default::default(), format, state)
        .expect("writing to a String cannot fail");
    warnings.merge(state.warnings);
    Ok(MarkdownHtml { html, raw_html: survey.raw_html, code })
}

fn check_depth<'a>(root: &'a AstNode<'a>) -> Result<(), TooDeep> {
    let mut depth = 0usize;
    for edge in root.traverse() {
        match edge {
            NodeEdge::Start(_) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(TooDeep { depth });
                }
            }
            NodeEdge::End(_) => depth -= 1,
        }
    }
    Ok(())
}

/// What one pass over the tree learns before writing.
struct Survey {
    /// Paragraphs holding only images (and the links around them): written
    /// as a run of `<figure>`s instead of a `<p>`.
    figures: HashSet<NodeId>,
    /// The first H1 when it repeats the title.
    dropped_heading: Option<NodeId>,
    raw_html: String,
}

impl Survey {
    fn of<'a>(root: &'a AstNode<'a>, title: Option<&str>, warnings: &mut Warnings) -> Survey {
        let mut survey = Survey { figures: HashSet::new(), dropped_heading: None, raw_html: String::new() };
        if let Some(title) = title {
            let first = root.children().find(|n| !matches!(n.data().value, NodeValue::FrontMatter(_)));
            if let Some(first) = first
                && matches!(first.data().value, NodeValue::Heading(ref h) if h.level == 1)
                && first.collect_text().trim() == title.trim()
            {
                survey.dropped_heading = Some(references::id(first));
                warnings.add("the first heading repeats the title: left out (the title is the H1)");
            }
        }
        for node in root.descendants() {
            match node.data().value {
                NodeValue::FrontMatter(_) => warnings.add("YAML front matter is not article text: left out"),
                NodeValue::HtmlBlock(ref block) => {
                    survey.raw_html.push_str(&block.literal);
                    survey.raw_html.push('\n');
                }
                NodeValue::HtmlInline(ref literal) => survey.raw_html.push_str(literal),
                NodeValue::Paragraph if is_figure_paragraph(node) => {
                    survey.figures.insert(references::id(node));
                }
                NodeValue::Image(ref image) => match urls::classify(&image.url) {
                    UrlKind::Local | UrlKind::Anchor => warnings.add(local_image_warning(&image.url)),
                    UrlKind::Data => warnings.add(
                        "an image with a data: URL was left out (its alt text is shown): upload it with \
                         POST /api/articles/media/upload and use the returned URL",
                    ),
                    UrlKind::Script => warnings.add("an image with a javascript: URL was left out"),
                    UrlKind::Mail => warnings.add("an image with a mailto: URL was left out (its alt text is shown)"),
                    UrlKind::Other(scheme) => {
                        warnings.add(format!("an image with a {scheme}: URL was left out (its alt text is shown)"))
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        survey
    }
}

fn is_figure_paragraph<'a>(paragraph: &'a AstNode<'a>) -> bool {
    let mut images = 0;
    for child in paragraph.children() {
        match child.data().value {
            NodeValue::Image(_) => images += 1,
            NodeValue::Link(_) => {
                let mut inner = 0;
                for grandchild in child.children() {
                    match grandchild.data().value {
                        NodeValue::Image(_) => inner += 1,
                        NodeValue::Text(ref t) if t.trim().is_empty() => {}
                        _ => return false,
                    }
                }
                if inner == 0 {
                    return false;
                }
                images += inner;
            }
            NodeValue::Text(ref t) if t.trim().is_empty() => {}
            NodeValue::SoftBreak | NodeValue::LineBreak => {}
            _ => return false,
        }
    }
    images > 0
}

/// The formatter's state.
struct State<'s, 'a> {
    references: &'s References<'a>,
    figures: &'s HashSet<NodeId>,
    dropped_heading: Option<NodeId>,
    title: Option<&'s str>,
    code_theme: &'s Theme,
    code: &'s CodeSlots,
    warnings: Warnings,
    /// Writing a footnote's text into the reference list.
    in_reference: bool,
}

type Cx<'o, 'c, 's, 'a> = Context<'o, 'c, State<'s, 'a>>;

fn format<'s, 'a>(
    cx: &mut Cx<'_, '_, 's, 'a>,
    node: &'a AstNode<'a>,
    entering: bool,
) -> Result<ChildRendering, fmt::Error> {
    let ast = node.data();
    match ast.value {
        NodeValue::Document => document(cx, entering),
        NodeValue::Heading(_) if cx.user.dropped_heading == Some(references::id(node)) => Ok(ChildRendering::Skip),
        NodeValue::Paragraph => paragraph(cx, node, entering),
        NodeValue::Text(ref text) if in_figure(cx, node) && text.trim().is_empty() => Ok(ChildRendering::HTML),
        NodeValue::SoftBreak | NodeValue::LineBreak if in_figure(cx, node) => Ok(ChildRendering::HTML),
        NodeValue::SoftBreak => {
            if entering && !joins_cjk(node) {
                cx.write_str("\n")?;
            }
            Ok(ChildRendering::HTML)
        }
        NodeValue::Link(ref link) => self::link(cx, node, entering, &link.url),
        NodeValue::Image(ref image) => {
            if entering {
                self::image(cx, node, &image.url, &image.title)?;
            }
            Ok(ChildRendering::Skip)
        }
        NodeValue::FootnoteReference(ref mark) => {
            if entering && let Some(number) = cx.user.references.footnote(&mark.name) {
                write!(cx, "<sup class=\"{}\">[{number}]</sup>", classes::FNREF)?;
            }
            Ok(ChildRendering::Skip)
        }
        NodeValue::FootnoteDefinition(_) => {
            Ok(if cx.user.in_reference { ChildRendering::HTML } else { ChildRendering::Skip })
        }
        NodeValue::CodeBlock(ref block) => {
            if entering {
                let code = highlight::code_block(&block.literal, &block.info, cx.user.code_theme);
                cx.cr()?;
                let slot = cx.user.code.slot(code.body);
                writeln!(
                    cx,
                    "<pre class=\"{}\" style=\"{}\"><code>{slot}</code></pre>",
                    classes::CODE,
                    code.pre_style
                )?;
                if let Some(warning) = code.warning {
                    cx.user.warnings.add(warning);
                }
            }
            Ok(ChildRendering::Skip)
        }
        NodeValue::TaskItem(ref task)
            if node.parent().is_some_and(|p| matches!(p.data().value, NodeValue::List(_))) =>
        {
            if entering {
                cx.cr()?;
                let class = match task.symbol {
                    Some(_) => format!("{} {}", classes::TASK, classes::TASK_DONE),
                    None => classes::TASK.to_owned(),
                };
                write!(cx, "<li class=\"{class}\">")?;
                // The box goes inside the first paragraph when there is one,
                // so it stays on the text's line in loose lists too.
                if !node.first_child().is_some_and(|c| matches!(c.data().value, NodeValue::Paragraph)) {
                    task_box(cx, task.symbol.is_some())?;
                }
            } else {
                cx.write_str("</li>\n")?;
            }
            Ok(ChildRendering::HTML)
        }
        NodeValue::Alert(ref alert) => {
            if entering {
                let (class, default_title) = alert_kind(alert.alert_type);
                cx.cr()?;
                write!(cx, "<section class=\"{} {class}\"><p class=\"{}\">", classes::ALERT, classes::ALERT_TITLE)?;
                match alert.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                    Some(title) => cx.escape(title)?,
                    None => cx.write_str(default_title)?,
                }
                cx.write_str("</p>\n")?;
            } else {
                cx.write_str("</section>\n")?;
            }
            Ok(ChildRendering::HTML)
        }
        NodeValue::Table(_) => {
            if entering {
                cx.cr()?;
                write!(cx, "<section class=\"{}\">", classes::TABLE_WRAP)?;
                format_node_default(cx, node, entering)
            } else {
                let rendering = format_node_default(cx, node, entering)?;
                cx.write_str("</section>\n")?;
                Ok(rendering)
            }
        }
        NodeValue::TableCell => table_cell(cx, node, entering),
        _ => format_node_default(cx, node, entering),
    }
}

fn document(cx: &mut Cx<'_, '_, '_, '_>, entering: bool) -> Result<ChildRendering, fmt::Error> {
    if entering {
        writeln!(cx, "<section class=\"{}\">", classes::ARTICLE)?;
        if let Some(title) = cx.user.title {
            write!(cx, "<h1 class=\"{}\">", classes::TITLE)?;
            cx.escape(title.trim())?;
            cx.write_str("</h1>\n")?;
        }
    } else {
        reference_list(cx)?;
        cx.write_str("</section>\n")?;
    }
    Ok(ChildRendering::HTML)
}

fn paragraph<'a>(
    cx: &mut Cx<'_, '_, '_, 'a>,
    node: &'a AstNode<'a>,
    entering: bool,
) -> Result<ChildRendering, fmt::Error> {
    let in_footnote = node.parent().is_some_and(|p| matches!(p.data().value, NodeValue::FootnoteDefinition(_)));
    if cx.user.in_reference && in_footnote {
        // A footnote's paragraphs run on inside its list entry.
        if !entering && node.next_sibling().is_some() {
            cx.write_str("<br>")?;
        }
        return Ok(ChildRendering::HTML);
    }
    if cx.user.figures.contains(&references::id(node)) {
        return Ok(ChildRendering::HTML);
    }
    let rendering = format_node_default(cx, node, entering)?;
    if entering
        && node.previous_sibling().is_none()
        && let Some(item) = node.parent()
        && let NodeValue::TaskItem(ref task) = item.data().value
        && item.parent().is_some_and(|p| matches!(p.data().value, NodeValue::List(_)))
    {
        task_box(cx, task.symbol.is_some())?;
    }
    Ok(rendering)
}

/// ☑ or ☐ before a task's text.
fn task_box(cx: &mut Cx<'_, '_, '_, '_>, done: bool) -> fmt::Result {
    write!(cx, "<span class=\"{}\">{}</span>", classes::TASK_BOX, if done { '☑' } else { '☐' })
}

/// Whether `node` sits in a figure paragraph (directly or inside its link).
fn in_figure<'a>(cx: &Cx<'_, '_, '_, 'a>, node: &'a AstNode<'a>) -> bool {
    let Some(parent) = node.parent() else { return false };
    if cx.user.figures.contains(&references::id(parent)) {
        return true;
    }
    matches!(parent.data().value, NodeValue::Link(_))
        && parent.parent().is_some_and(|p| cx.user.figures.contains(&references::id(p)))
}

fn link<'a>(
    cx: &mut Cx<'_, '_, '_, 'a>,
    node: &'a AstNode<'a>,
    entering: bool,
    url: &str,
) -> Result<ChildRendering, fmt::Error> {
    match cx.user.references.link(node) {
        LinkTreatment::Keep => {
            if entering {
                cx.write_str("<a href=\"")?;
                cx.escape_href(url)?;
                cx.write_str("\">")?;
            } else {
                cx.write_str("</a>")?;
            }
        }
        LinkTreatment::Url => {
            // A URL shown as text may break anywhere instead of stretching
            // a justified line.
            if entering {
                write!(cx, "<span class=\"{}\">", classes::URL)?;
            } else {
                cx.write_str("</span>")?;
            }
        }
        LinkTreatment::Text => {}
        LinkTreatment::Reference(number) => {
            // A linked image carries the mark in its caption instead.
            let image_only = node.children().all(|c| match c.data().value {
                NodeValue::Image(_) => true,
                NodeValue::Text(ref t) => t.trim().is_empty(),
                _ => false,
            });
            if !image_only {
                if entering {
                    write!(cx, "<span class=\"{}\">", classes::LINK)?;
                } else {
                    write!(cx, "</span><sup class=\"{}\">[{number}]</sup>", classes::FNREF)?;
                }
            }
        }
    }
    Ok(ChildRendering::HTML)
}

fn image<'a>(cx: &mut Cx<'_, '_, '_, 'a>, node: &'a AstNode<'a>, url: &str, title: &str) -> fmt::Result {
    let alt = node.collect_text();
    let alt = alt.trim();
    if matches!(urls::classify(url), UrlKind::Data | UrlKind::Script | UrlKind::Mail | UrlKind::Other(_)) {
        return cx.escape(alt);
    }
    let figure = in_figure(cx, node);
    if figure {
        write!(cx, "<figure class=\"{}\">", classes::FIGURE)?;
        cx.cr()?;
        cx.write_str("<img src=\"")?;
    } else {
        write!(cx, "<img class=\"{}\" src=\"", classes::INLINE_IMAGE)?;
    }
    cx.escape_href(url)?;
    cx.write_str("\" alt=\"")?;
    cx.escape(alt)?;
    cx.write_str("\"")?;
    if !title.trim().is_empty() {
        cx.write_str(" title=\"")?;
        cx.escape(title.trim())?;
        cx.write_str("\"")?;
    }
    cx.write_str(">")?;
    if !figure {
        return Ok(());
    }
    let caption = if title.trim().is_empty() { alt } else { title.trim() };
    let mark = node.parent().filter(|p| matches!(p.data().value, NodeValue::Link(_))).and_then(|link| {
        match cx.user.references.link(link) {
            LinkTreatment::Reference(number) => Some(number),
            _ => None,
        }
    });
    if !caption.is_empty() || mark.is_some() {
        write!(cx, "<figcaption class=\"{}\">", classes::CAPTION)?;
        cx.escape(caption)?;
        if let Some(number) = mark {
            write!(cx, "<sup class=\"{}\">[{number}]</sup>", classes::FNREF)?;
        }
        cx.write_str("</figcaption>")?;
    }
    cx.write_str("</figure>\n")
}

fn alert_kind(kind: AlertType) -> (&'static str, &'static str) {
    match kind {
        AlertType::Note => (classes::ALERT_NOTE, "说明"),
        AlertType::Tip => (classes::ALERT_TIP, "提示"),
        AlertType::Important => (classes::ALERT_IMPORTANT, "重要"),
        AlertType::Warning => (classes::ALERT_WARNING, "警告"),
        AlertType::Caution => (classes::ALERT_CAUTION, "注意"),
    }
}

/// `<th>`/`<td>` with the column's alignment as `text-align` (WeChat drops
/// the `align` attribute).
fn table_cell<'a>(
    cx: &mut Cx<'_, '_, '_, 'a>,
    node: &'a AstNode<'a>,
    entering: bool,
) -> Result<ChildRendering, fmt::Error> {
    let header = node.parent().is_some_and(|row| matches!(row.data().value, NodeValue::TableRow(true)));
    let tag = if header { "th" } else { "td" };
    if !entering {
        write!(cx, "</{tag}>")?;
        return Ok(ChildRendering::HTML);
    }
    let column = node.preceding_siblings().count() - 1;
    let alignment = node
        .parent()
        .and_then(|row| row.parent())
        .and_then(|table| match table.data().value {
            NodeValue::Table(ref t) => t.alignments.get(column).copied(),
            _ => None,
        })
        .unwrap_or(TableAlignment::None);
    cx.cr()?;
    match alignment {
        TableAlignment::Left => write!(cx, "<{tag} style=\"text-align:left\">")?,
        TableAlignment::Center => write!(cx, "<{tag} style=\"text-align:center\">")?,
        TableAlignment::Right => write!(cx, "<{tag} style=\"text-align:right\">")?,
        TableAlignment::None => write!(cx, "<{tag}>")?,
    }
    Ok(ChildRendering::HTML)
}

/// The reference list: links' URLs and footnotes' texts by number.
fn reference_list(cx: &mut Cx<'_, '_, '_, '_>) -> fmt::Result {
    let references = cx.user.references;
    if references.list.is_empty() || cx.user.in_reference {
        return Ok(());
    }
    let links = references.list.iter().any(|r| matches!(r, Reference::Link { .. }));
    let notes = references.list.iter().any(|r| matches!(r, Reference::Footnote { .. }));
    let heading = match (links, notes) {
        (true, true) => "注释与参考链接",
        (true, false) => "参考链接",
        _ => "注释",
    };
    write!(
        cx,
        "<section class=\"{}\">\n<p class=\"{}\">{heading}</p>\n",
        classes::REFERENCES,
        classes::REFERENCES_TITLE
    )?;
    for reference in &references.list {
        write!(
            cx,
            "<section class=\"{}\"><span class=\"{}\">[{}]</span><span class=\"{}\">",
            classes::REFERENCE,
            classes::REFERENCE_NUM,
            reference.number(),
            classes::REFERENCE_TEXT
        )?;
        match reference {
            Reference::Link { text, url, .. } => {
                if !text.is_empty() {
                    cx.escape(text)?;
                    cx.write_str(": ")?;
                }
                write!(cx, "</span><span class=\"{}\">", classes::REFERENCE_URL)?;
                cx.escape(url.strip_prefix("mailto:").unwrap_or(url))?;
            }
            Reference::Footnote { definition, .. } => footnote_text(cx, definition)?,
        }
        cx.write_str("</span></section>\n")?;
    }
    cx.write_str("</section>\n")
}

/// Writes a footnote definition's content with the same formatter.
fn footnote_text<'a>(cx: &mut Cx<'_, '_, '_, 'a>, definition: &'a AstNode<'a>) -> fmt::Result {
    let state = State {
        references: cx.user.references,
        figures: cx.user.figures,
        dropped_heading: None,
        title: None,
        code_theme: cx.user.code_theme,
        code: cx.user.code,
        warnings: Warnings::default(),
        in_reference: true,
    };
    let mut text = String::new();
    let state = format_document_with_formatter(definition, cx.options, &mut text, cx.plugins, format, state)?;
    cx.user.warnings.merge(state.warnings);
    cx.write_str(text.trim())
}

/// Whether a soft line break sits between two characters that join without
/// a space in Chinese (a CJK character or full-width punctuation on either
/// side of an ideograph pair, or full-width punctuation on one side).
fn joins_cjk<'a>(node: &'a AstNode<'a>) -> bool {
    let before = node.previous_sibling().and_then(|n| n.collect_text().chars().next_back());
    let after = node.next_sibling().and_then(|n| n.collect_text().chars().next());
    match (before, after) {
        (Some(a), Some(b)) => (is_cjk(a) && is_cjk(b)) || is_cjk_punctuation(a) || is_cjk_punctuation(b),
        _ => false,
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF
        | 0x3040..=0x30FF | 0x3000..=0x303F | 0xFF00..=0xFFEF)
}

fn is_cjk_punctuation(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x303F | 0xFF00..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
        || matches!(c, '“' | '”' | '‘' | '’' | '…' | '—')
}
