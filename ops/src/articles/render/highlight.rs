//! Code blocks highlighted with syntect (Sublime Text grammars, pure-Rust
//! regex engine) into inline colours: no classes, because the WeChat editor
//! drops them (spec 4.15). Newlines become `<br>` and spaces no-break spaces,
//! since the editor collapses whitespace even inside `<pre>`. The colours
//! come from the theme's syntect colour scheme (its `code_theme`).

use std::fmt::Write;
use std::sync::LazyLock;

use syntect::easy::HighlightLines;
use syntect::highlighting::{Color, FontStyle, Style, Theme};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;
use two_face::theme::{EmbeddedLazyThemeSet, EmbeddedThemeName};

/// Grammars: syntect's defaults plus bat's extra set (TypeScript, Kotlin,
/// Swift, TOML, Dockerfile, …), built for the fancy-regex engine.
static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(two_face::syntax::extra_newlines);
static THEMES: LazyLock<EmbeddedLazyThemeSet> = LazyLock::new(two_face::theme::extra);

/// Spaces per tab in code.
const TAB_WIDTH: usize = 4;

/// A syntect colour theme by its embedded name.
pub fn code_theme(name: EmbeddedThemeName) -> &'static Theme {
    THEMES.get(name)
}

/// Loads the grammars and themes now instead of on the first code block.
pub fn warm_up() {
    LazyLock::force(&SYNTAXES);
    let _ = code_theme(EmbeddedThemeName::Github);
}

/// Info strings that mean "no language".
const PLAIN: &[&str] = &["", "text", "txt", "plain", "plaintext", "output", "log"];
/// Diagram languages WeChat cannot draw: shown as code, with a warning.
const DIAGRAMS: &[&str] = &["mermaid", "plantuml", "puml", "infographic", "flow", "sequence", "dot", "graphviz"];

/// What to do with a fence's language.
enum Language<'s> {
    Plain,
    Diagram(String),
    Unknown(String),
    Known(&'s SyntaxReference),
}

fn language(info: &str) -> Language<'static> {
    let token = info.split(|c: char| c.is_whitespace() || c == '{' || c == ',').next().unwrap_or_default();
    let token = token.trim_start_matches('.').to_ascii_lowercase();
    if PLAIN.contains(&token.as_str()) {
        return Language::Plain;
    }
    if DIAGRAMS.contains(&token.as_str()) {
        return Language::Diagram(token);
    }
    let alias = match token.as_str() {
        "shell" | "sh" | "zsh" | "console" | "shellscript" | "shell-session" => "bash",
        "golang" => "go",
        "py" | "python3" => "python",
        "c++" => "cpp",
        "c#" | "csharp" => "cs",
        "js" | "node" | "jsx" | "mjs" => "javascript",
        "tsx" => "typescript",
        "ts" => "typescript",
        "yml" => "yaml",
        "kt" => "kotlin",
        "rb" => "ruby",
        "rs" => "rust",
        "vue" | "svelte" | "xml" | "xhtml" => "html",
        other => other,
    };
    let syntax = SYNTAXES
        .find_syntax_by_token(alias)
        .or_else(|| SYNTAXES.syntaxes().iter().find(|s| s.name.eq_ignore_ascii_case(alias)));
    match syntax {
        Some(syntax) => Language::Known(syntax),
        None => Language::Unknown(token),
    }
}

/// A highlighted code block and what the author should know about it.
pub struct CodeBlock {
    /// The `style` of its `<pre>`: the code theme's text colour, and its
    /// background when the scheme is dark (a light scheme's background is
    /// left to the theme CSS).
    pub pre_style: String,
    /// What goes inside `<code>`: escaped text, coloured `<span style>`s and
    /// [`LINE_BREAK`]s. Every element in it already carries its style, so it
    /// can skip the inliner (the renderer puts it back afterwards).
    pub body: String,
    /// Why the block is shown without colours or as code (an unknown
    /// language, a diagram WeChat cannot draw, a highlighter failure);
    /// `None` when it was highlighted.
    pub warning: Option<String>,
}

/// The line break inside code, styled here because the body skips the inliner.
pub const LINE_BREAK: &str = "<br style=\"line-height: inherit;\">";

/// Highlights `code` (the fence's body) for the fence's `info` string with
/// `theme`'s colours. Never fails: an unknown language or a grammar error
/// gives uncoloured code and a warning.
pub fn code_block(code: &str, info: &str, theme: &Theme) -> CodeBlock {
    let foreground = theme.settings.foreground.unwrap_or(Color { r: 0x33, g: 0x33, b: 0x33, a: 0xff });
    let background = theme.settings.background.unwrap_or(Color { r: 0xf6, g: 0xf8, b: 0xfa, a: 0xff });
    // A dark scheme needs its own background for contrast; a light one
    // leaves the block's background to the theme CSS.
    let pre_style = if is_dark(background) {
        format!("background-color:{};color:{}", hex(background), hex(foreground))
    } else {
        format!("color:{}", hex(foreground))
    };
    let mut body = String::with_capacity(code.len() * 3);
    let mut warning = None;
    match language(info) {
        Language::Plain => push_plain(&mut body, code),
        Language::Diagram(name) => {
            warning = Some(format!("{name} diagrams cannot be drawn in WeChat: shown as code"));
            push_plain(&mut body, code);
        }
        Language::Unknown(name) => {
            warning = Some(format!("no highlighting for code language {name:?}: shown without colours"));
            push_plain(&mut body, code);
        }
        Language::Known(syntax) => {
            if let Err(e) = push_highlighted(&mut body, code, syntax, theme, foreground) {
                warning = Some(format!("highlighting {} code failed ({e}): shown without colours", syntax.name));
                body.clear();
                push_plain(&mut body, code);
            }
        }
    }
    CodeBlock { pre_style, body, warning }
}

fn push_highlighted(
    html: &mut String,
    code: &str,
    syntax: &SyntaxReference,
    theme: &Theme,
    foreground: Color,
) -> Result<(), syntect::Error> {
    let mut lines = HighlightLines::new(syntax, theme);
    let mut pending: Option<(Style, String)> = None;
    for line in LinesWithEndings::from(trim_final_newline(code)) {
        for (style, text) in lines.highlight_line(line, &SYNTAXES)? {
            match &mut pending {
                Some((current, buffer)) if same_look(current, &style) => buffer.push_str(text),
                _ => {
                    if let Some((style, text)) = pending.take() {
                        push_token(html, &style, &text, foreground);
                    }
                    pending = Some((style, text.to_owned()));
                }
            }
        }
    }
    if let Some((style, text)) = pending {
        push_token(html, &style, &text, foreground);
    }
    Ok(())
}

fn same_look(a: &Style, b: &Style) -> bool {
    a.foreground == b.foreground && a.font_style == b.font_style
}

/// One run of equally styled text: a `<span style>` unless it looks like
/// the block's default text. Whitespace-only runs need no colour.
fn push_token(html: &mut String, style: &Style, text: &str, foreground: Color) {
    let plain = (style.foreground == foreground && style.font_style.is_empty()) || text.trim().is_empty();
    if plain {
        push_code_text(html, text);
        return;
    }
    let _ = write!(html, "<span style=\"color:{}", hex(style.foreground));
    if style.font_style.contains(FontStyle::BOLD) {
        html.push_str(";font-weight:bold");
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        html.push_str(";font-style:italic");
    }
    html.push_str("\">");
    push_code_text(html, text);
    html.push_str("</span>");
}

fn push_plain(html: &mut String, code: &str) {
    push_code_text(html, trim_final_newline(code));
}

fn trim_final_newline(code: &str) -> &str {
    code.strip_suffix('\n').map(|c| c.strip_suffix('\r').unwrap_or(c)).unwrap_or(code)
}

/// Escapes code text; newline → `<br>`, space → U+00A0, tab → four U+00A0.
fn push_code_text(html: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '\n' => html.push_str(LINE_BREAK),
            '\r' => {}
            ' ' => html.push('\u{a0}'),
            '\t' => html.extend(std::iter::repeat_n('\u{a0}', TAB_WIDTH)),
            c => html.push(c),
        }
    }
}

fn is_dark(color: Color) -> bool {
    299 * u32::from(color.r) + 587 * u32::from(color.g) + 114 * u32::from(color.b) < 128 * 1000
}

fn hex(color: Color) -> String {
    format!("#{:02x}{:02x}{:02x}", color.r, color.g, color.b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn github() -> &'static Theme {
        code_theme(EmbeddedThemeName::Github)
    }

    #[test]
    fn languages_of_the_real_documents_are_found() {
        for token in [
            "python",
            "java",
            "cpp",
            "go",
            "ts",
            "rust",
            "js",
            "cs",
            "php",
            "scala",
            "swift",
            "rb",
            "kotlin",
            "c",
            "javascript",
            "html",
            "shell",
            "jsx",
            "json",
            "bash",
            "markdown",
            "md",
            "yaml",
            "sql",
            "tsx",
        ] {
            assert!(matches!(language(token), Language::Known(_)), "{token}");
        }
        assert!(matches!(language(""), Language::Plain));
        assert!(matches!(language("text"), Language::Plain));
        assert!(matches!(language("mermaid"), Language::Diagram(_)));
        assert!(matches!(language("cj"), Language::Unknown(_)));
    }

    #[test]
    fn colours_are_inline_and_whitespace_survives() {
        let block = code_block("fn main() {\n\tlet a = \"<x>\";\n}\n", "rust", github());
        assert!(block.warning.is_none());
        assert!(block.pre_style.starts_with("color:#"), "light scheme: {}", block.pre_style);
        let dark = code_block("x\n", "rust", code_theme(EmbeddedThemeName::OneHalfDark));
        assert!(dark.pre_style.starts_with("background-color:#282c34;"), "{}", dark.pre_style);
        let html = &block.body;
        assert!(html.contains("<span style=\"color:#"), "{html}");
        assert!(!html.contains('\n'), "{html}");
        assert_eq!(html.matches(LINE_BREAK).count(), 2, "no break after the last line: {html}");
        assert!(html.contains("&lt;x&gt;") && html.contains("\">\u{a0}\u{a0}\u{a0}\u{a0}<span"), "{html}");
    }

    #[test]
    fn unknown_languages_are_plain_with_a_warning() {
        let block = code_block("a < b\n", "cj", github());
        assert_eq!(block.body, "a\u{a0}&lt;\u{a0}b");
        assert_eq!(block.warning.unwrap(), "no highlighting for code language \"cj\": shown without colours");
    }
}
