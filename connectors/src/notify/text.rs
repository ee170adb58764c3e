//! The digest as chat text (markdown for WeCom, DingTalk and Feishu cards,
//! HTML for Telegram), one line per item, and the split of a long digest
//! into messages under a target's limit.

use super::Envelope;
use super::digest::DigestItem;

/// Markup of a chat target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markup {
    /// Markdown (WeCom, DingTalk, Feishu's `lark_md`, e-mail's plain part).
    Markdown,
    /// Telegram's HTML parse mode: `<b>`, `<a href>`, entities escaped.
    Html,
}

/// How a limit is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// UTF-8 bytes (WeCom's 4096).
    Bytes,
    /// Characters (Telegram's 4096).
    Chars,
}

impl Measure {
    fn of(self, text: &str) -> usize {
        match self {
            Measure::Bytes => text.len(),
            Measure::Chars => text.chars().count(),
        }
    }
}

fn escape(markup: Markup, text: &str) -> String {
    match markup {
        Markup::Markdown => text.replace(['[', ']'], " "),
        Markup::Html => html_escape::encode_text(text).into_owned(),
    }
}

/// One item's line.
fn line(markup: Markup, n: usize, item: &DigestItem) -> String {
    let title = escape(markup, &item.title);
    let title = match (&item.url, markup) {
        (Some(url), Markup::Markdown) => format!("[{title}]({url})"),
        (Some(url), Markup::Html) => {
            format!("<a href=\"{}\">{title}</a>", html_escape::encode_double_quoted_attribute(url))
        }
        (None, _) => title,
    };
    let mut meta = vec![format!("{} #{}", item.source, item.rank)];
    if let Some(hot) = item.hot_value {
        meta.push(format!("热度 {hot}"));
    }
    if !item.also_on.is_empty() {
        meta.push(format!("也在 {}", item.also_on.join("、")));
    }
    meta.push(format!("趋势分 {}", item.score));
    format!("{n}. {title}  ({})", meta.join(" · "))
}

/// The digest's title line.
fn header(markup: Markup, envelope: &Envelope<'_>) -> String {
    let name = escape(markup, envelope.watchlist_name);
    let count = envelope.digest.items.len();
    match markup {
        Markup::Markdown => format!("**{name}** · {count} 条新热点"),
        Markup::Html => format!("<b>{name}</b> · {count} 条新热点"),
    }
}

/// The digest as messages of at most `limit` (counted by `measure`), the
/// header on each (with `(i/n)` when split); a line longer than a whole
/// message is cut.
pub fn messages(envelope: &Envelope<'_>, markup: Markup, measure: Measure, limit: usize) -> Vec<String> {
    let header = header(markup, envelope);
    // Room for the header, " (99/99)" and the line break.
    let room = limit.saturating_sub(measure.of(&header) + 10);
    let mut chunks: Vec<Vec<String>> = vec![Vec::new()];
    let mut used = 0;
    for (i, item) in envelope.digest.items.iter().enumerate() {
        let mut text = line(markup, i + 1, item);
        while measure.of(&text) > room {
            text.pop();
        }
        let size = measure.of(&text) + 1;
        if used + size > room && !chunks.last().is_some_and(Vec::is_empty) {
            chunks.push(Vec::new());
            used = 0;
        }
        used += size;
        chunks.last_mut().expect("one chunk at least").push(text);
    }
    let total = chunks.len();
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, lines)| {
            let title = if total > 1 { format!("{header} ({}/{total})", i + 1) } else { header.clone() };
            format!("{title}\n{}", lines.join("\n"))
        })
        .collect()
}
