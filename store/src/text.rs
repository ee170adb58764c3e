//! Chinese segmentation (jieba, search mode), the one place for it: skill
//! search (`mediaops_platform::catalog::search`), the store's full-text indexes and
//! topics ([`crate::segment`], [`crate::topic`]) and hot
//! keywords cut their texts here. A leaf module: it depends on no other
//! module of the crates.

use std::sync::OnceLock;

fn jieba() -> &'static jieba_rs::Jieba {
    static JIEBA: OnceLock<jieba_rs::Jieba> = OnceLock::new();
    JIEBA.get_or_init(jieba_rs::Jieba::new)
}

/// Loads the segmentation dictionary (about 0.7 s) off the request path;
/// the core calls it on a blocking thread at start.
pub fn warm_up() {
    jieba();
}

/// The search terms of a query: segmented, lower-cased, without punctuation,
/// white space or duplicates.
pub fn terms(query: &str) -> Vec<String> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    let single = query.chars().count() == 1;
    let mut terms: Vec<String> = Vec::new();
    for word in jieba().cut_for_search(&query, true) {
        let word = word.word.trim();
        let meaningful = word.chars().any(char::is_alphanumeric);
        let long_enough = single || word.chars().count() > 1 || word.is_ascii();
        if meaningful && long_enough && !terms.iter().any(|t| t == word) {
            terms.push(word.to_owned());
        }
    }
    terms
}

/// Longest term, in UTF-8 bytes: PostgreSQL's word limit (2,047 bytes,
/// `MAXSTRLEN` of tsearch); a longer term is cut at a character boundary.
pub const MAX_TERM_BYTES: usize = 2047;

/// The index terms of a text, deduplicated, in order, each cut to
/// [`MAX_TERM_BYTES`].
pub fn index_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for term in terms(text) {
        let clean = cut_to_limit(term.chars().filter(|c| c.is_alphanumeric()).collect());
        if !clean.is_empty() && !out.contains(&clean) {
            out.push(clean);
        }
    }
    out
}

/// `term` cut to [`MAX_TERM_BYTES`] at a character boundary.
pub(crate) fn cut_to_limit(mut term: String) -> String {
    if term.len() > MAX_TERM_BYTES {
        let cut = (0..=MAX_TERM_BYTES).rev().find(|&i| term.is_char_boundary(i)).unwrap_or(0);
        term.truncate(cut);
    }
    term
}
