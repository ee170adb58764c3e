//! The class names the renderer gives its own elements so the theme CSS can
//! address them (`.mo-alert-tip`, `.mo-fnref`, …). They exist only between
//! rendering and inlining: the sanitizer lets exactly these through and the
//! inliner's last pass removes every `class` attribute. Themes may rely on
//! them; docs/articles.md lists them for custom themes.

/// The article root `<section>`.
pub const ARTICLE: &str = "mo-article";
/// The `<h1>` made from the request's `title`.
pub const TITLE: &str = "mo-title";
/// The text of an external link that became a reference (`<span>`).
pub const LINK: &str = "mo-link";
/// A URL shown as text (a link whose text is its URL), `<span>`.
pub const URL: &str = "mo-url";
/// A reference number after a link or a footnote mark (`<sup>[n]</sup>`).
pub const FNREF: &str = "mo-fnref";
/// The reference list at the end (`<section>`).
pub const REFERENCES: &str = "mo-references";
/// The reference list's heading (`<p>`).
pub const REFERENCES_TITLE: &str = "mo-references-title";
/// One entry of the reference list (`<section>`).
pub const REFERENCE: &str = "mo-reference";
/// An entry's number, `[n]` (`<span>`).
pub const REFERENCE_NUM: &str = "mo-reference-num";
/// An entry's text: the link text or the footnote (`<span>`).
pub const REFERENCE_TEXT: &str = "mo-reference-text";
/// An entry's URL, as text (`<span>`).
pub const REFERENCE_URL: &str = "mo-reference-url";
/// A standalone image (`<figure>`).
pub const FIGURE: &str = "mo-figure";
/// A standalone image's caption (`<figcaption>`).
pub const CAPTION: &str = "mo-caption";
/// An image inside running text (`<img>`).
pub const INLINE_IMAGE: &str = "mo-inline-image";
/// A highlighted code block (`<pre>`).
pub const CODE: &str = "mo-code";
/// A task-list item (`<li>`).
pub const TASK: &str = "mo-task";
/// Added to a checked task-list item (`<li>`).
pub const TASK_DONE: &str = "mo-task-done";
/// A task-list item's box (`<span>` ☐/☑).
pub const TASK_BOX: &str = "mo-task-box";
/// The scrolling wrapper around a table (`<section>`).
pub const TABLE_WRAP: &str = "mo-table-wrap";
/// A GitHub alert (`<section class="mo-alert mo-alert-tip">`), with one of
/// the five kind classes below.
pub const ALERT: &str = "mo-alert";
/// An alert's title (`<p>`).
pub const ALERT_TITLE: &str = "mo-alert-title";
/// The kind of a `> [!NOTE]` alert.
pub const ALERT_NOTE: &str = "mo-alert-note";
/// The kind of a `> [!TIP]` alert.
pub const ALERT_TIP: &str = "mo-alert-tip";
/// The kind of a `> [!IMPORTANT]` alert.
pub const ALERT_IMPORTANT: &str = "mo-alert-important";
/// The kind of a `> [!WARNING]` alert.
pub const ALERT_WARNING: &str = "mo-alert-warning";
/// The kind of a `> [!CAUTION]` alert.
pub const ALERT_CAUTION: &str = "mo-alert-caution";

/// Every class above: what the sanitizer allows.
pub const ALL: &[&str] = &[
    ARTICLE,
    TITLE,
    LINK,
    URL,
    FNREF,
    REFERENCES,
    REFERENCES_TITLE,
    REFERENCE,
    REFERENCE_NUM,
    REFERENCE_TEXT,
    REFERENCE_URL,
    FIGURE,
    CAPTION,
    INLINE_IMAGE,
    CODE,
    TASK,
    TASK_DONE,
    TASK_BOX,
    TABLE_WRAP,
    ALERT,
    ALERT_TITLE,
    ALERT_NOTE,
    ALERT_TIP,
    ALERT_IMPORTANT,
    ALERT_WARNING,
    ALERT_CAUTION,
];
