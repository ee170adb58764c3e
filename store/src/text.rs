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

/// The index terms every text indexed with `term` also holds, by jieba's
/// search mode: with each word of more than two characters it emits every
/// two-character substring that is a dictionary word, and with each word of
/// more than three characters every such three-character substring, before
/// the word itself; a three-character term that is such a substring of a
/// longer word comes with that word's two-character ones, its own among
/// them. [`index_terms`] keeps them all (each is longer than one character,
/// and a row's index keeps its first terms). So a work holding `term` holds
/// these: the keyword boards' matching step, which walks `term`'s list of
/// works, need not look them up (docs/rankings.md "Term lists"). Only for a
/// term of CJK ideographs (the unified block and extension A, which
/// cleaning leaves as they are) of at most [`MAX_TERM_BYTES`]; empty
/// otherwise, as for a term of two characters or fewer.
pub fn implied_terms(term: &str) -> Vec<String> {
    let chars: Vec<char> = term.chars().collect();
    if chars.len() <= 2 || term.len() > MAX_TERM_BYTES || !chars.iter().all(|c| cjk_ideograph(*c)) {
        return Vec::new();
    }
    let widths: &[usize] = if chars.len() > 3 { &[2, 3] } else { &[2] };
    let mut out: Vec<String> = Vec::new();
    for &width in widths {
        for gram in chars.windows(width) {
            let gram: String = gram.iter().collect();
            if jieba().has_word(&gram) && !out.contains(&gram) {
                out.push(gram);
            }
        }
    }
    out
}

/// Whether `c` is a CJK ideograph of the unified block or extension A
/// (U+4E00–U+9FFF, U+3400–U+4DBF): characters that cleaning leaves as they
/// are and that FTS5 neither folds nor splits on.
pub fn cjk_ideograph(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{3400}'..='\u{4DBF}').contains(&c)
}

/// Whether FTS5's `unicode61` tokenizer keeps `c` as it is (no case or
/// diacritic folding, never a separator): ASCII lower-case letters and
/// digits (index terms are lower-cased) and the CJK ideographs of the
/// unified block and extension A. A term made of these is one FTS5 token,
/// itself: the term lists (`term_lists`) list it under itself and the
/// relevance score reads its kept count of works (`listing`, migration
/// 0024).
pub fn exact_char(c: char) -> bool {
    c.is_ascii_digit() || c.is_ascii_lowercase() || cjk_ideograph(c)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text whose index holds a term holds that term's implied terms,
    /// whatever surrounds it: checked on every term of three characters or
    /// more of each text below.
    #[test]
    fn a_text_holding_a_term_holds_its_implied_terms() {
        let words = ["美味佳肴", "中华人民共和国", "北京大学", "科技数码", "共和国", "人民大会堂", "自然语言处理"];
        let contexts = ["{}", "今天的{}真好吃", "{}作品1", "一道{}。", "在{}里面", "abc{}def", "{}{}"];
        let mut checked = 0;
        for word in words {
            for context in contexts {
                let text = context.replace("{}", word);
                let indexed = index_terms(&text);
                for term in indexed.iter().filter(|t| t.chars().count() >= 3) {
                    for implied in implied_terms(term) {
                        assert!(indexed.contains(&implied), "{text}: {term} without {implied} ({indexed:?})");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 50, "{checked}");
        let grams = implied_terms("美味佳肴");
        assert!(grams.contains(&"美味".to_owned()) && grams.contains(&"佳肴".to_owned()), "{grams:?}");
        assert!(grams.iter().all(|g| jieba().has_word(g)), "only dictionary words: {grams:?}");
        assert!(implied_terms("美味").is_empty(), "two characters imply nothing");
        assert!(implied_terms("café美食").is_empty(), "only CJK ideographs");
    }
}
