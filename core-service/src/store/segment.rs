//! Chinese segmentation for the store's full-text indexes (issue 5, item 4).
//!
//! Titles, descriptions, tags and queries are cut with jieba in search mode
//! (the same segmenter and rules as skill search,
//! [`crate::catalog::search::terms`]): lower-cased, punctuation dropped,
//! single CJK characters dropped unless the text is one character. Each
//! term is then reduced to its letters and digits so that neither FTS5's
//! `unicode61` tokenizer nor a tsquery can split or misread it. Both
//! backends index exactly these terms: SQLite as space-separated words in an
//! FTS5 table, PostgreSQL as a tsvector literal with title terms weighted A
//! and body terms B.

use crate::store::model::{Account, Work};

/// The index terms of a text, deduplicated, in order.
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for term in crate::catalog::search::terms(text) {
        let clean: String = term.chars().filter(|c| c.is_alphanumeric()).collect();
        if !clean.is_empty() && !out.contains(&clean) {
            out.push(clean);
        }
    }
    out
}

/// A work's (title terms, body terms); the body is description then tags,
/// then the marker of each topic the classifier puts it in
/// ([`crate::store::topic`]).
pub fn work_terms(work: &Work) -> (Vec<String>, Vec<String>) {
    let title = terms(&work.title);
    let mut body_text = work.description.clone().unwrap_or_default();
    for tag in &work.tags {
        body_text.push(' ');
        body_text.push_str(tag);
    }
    let mut body = terms(&body_text);
    for topic in crate::store::topic::classify(&work.title, work.description.as_deref(), &work.tags) {
        body.push(topic.marker().to_owned());
    }
    (title, body)
}

/// An account's (nickname terms, body terms); the body is signature then
/// category.
pub fn account_terms(account: &Account) -> (Vec<String>, Vec<String>) {
    let mut body_text = account.signature.clone().unwrap_or_default();
    if let Some(category) = &account.category {
        body_text.push(' ');
        body_text.push_str(category);
    }
    (terms(&account.nickname), terms(&body_text))
}

/// An FTS5 query matching rows that hold every term: `"a" "b"`.
/// `None` when the query has no terms.
pub fn fts5_query(terms: &[String]) -> Option<String> {
    (!terms.is_empty()).then(|| terms.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(" "))
}

/// A tsvector literal: title terms at positions 1.. weighted A, body terms
/// after them weighted B (positions capped at 16383 as PostgreSQL requires).
pub fn tsvector_literal(title: &[String], body: &[String]) -> String {
    let mut out = String::new();
    let weighted = title.iter().map(|t| (t, 'A')).chain(body.iter().map(|t| (t, 'B')));
    for (position, (term, weight)) in weighted.enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        let position = (position + 1).min(16383);
        out.push_str(&format!("'{term}':{position}{weight}"));
    }
    out
}

/// A tsquery literal matching rows that hold every term: `'a' & 'b'`.
/// `None` when the query has no terms.
pub fn tsquery_literal(terms: &[String]) -> Option<String> {
    (!terms.is_empty()).then(|| terms.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(" & "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_queries_split_into_clean_terms() {
        assert_eq!(terms("AI绘画"), vec!["ai", "绘画"]);
        assert_eq!(terms("美食"), vec!["美食"]);
        assert!(terms("“美食”！ it's O'Neil").iter().all(|t| t.chars().all(char::is_alphanumeric)));
        assert_eq!(fts5_query(&terms("AI绘画")).unwrap(), "\"ai\" \"绘画\"");
        assert_eq!(tsquery_literal(&terms("AI绘画")).unwrap(), "'ai' & '绘画'");
        assert_eq!(tsvector_literal(&["ai".into()], &["画".into()]), "'ai':1A '画':2B");
        assert!(fts5_query(&terms("，。")).is_none());
    }
}
