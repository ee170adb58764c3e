//! Chinese segmentation for the store's full-text indexes.
//!
//! Titles, descriptions, tags and queries are cut with jieba in search mode
//! (the same segmenter and rules as skill search,
//! [`crate::text::terms`], cleaned by [`crate::text::index_terms`]): lower-cased, punctuation dropped,
//! single CJK characters dropped unless the text is one character. Each
//! term is then reduced to its letters and digits so that neither FTS5's
//! `unicode61` tokenizer nor a tsquery can split or misread it. Both
//! backends index exactly these terms: SQLite as space-separated words in an
//! FTS5 table, PostgreSQL as a tsvector literal with title terms weighted A
//! and body terms B.
//!
//! Limits (docs/errors.md "Limits"), the same on both backends so they find
//! the same rows: a term is cut to [`MAX_TERM_BYTES`](crate::text::MAX_TERM_BYTES) (PostgreSQL refuses a
//! longer word in a tsquery or tsvector); a query keeps its first
//! [`MAX_QUERY_TERMS`] terms; a row's index keeps its first terms up to
//! [`MAX_INDEX_BYTES`] (a tsvector holds at most 1 MiB).

use crate::model::{Account, Work};
use crate::text::index_terms;

/// Most terms a search query uses (the first ones; the rest are ignored).
pub const MAX_QUERY_TERMS: usize = 32;

/// Most bytes of terms indexed per row (the first terms; half of the 1 MiB
/// a tsvector may hold, leaving room for positions).
pub const MAX_INDEX_BYTES: usize = 512 * 1024;

/// The first [`MAX_QUERY_TERMS`] terms of a query.
pub(crate) fn query_terms(terms: &[String]) -> &[String] {
    &terms[..terms.len().min(MAX_QUERY_TERMS)]
}

/// A work's (title terms, body terms); the body is description then tags,
/// then the marker of each topic the classifier puts it in
/// ([`crate::topic`]).
pub fn work_terms(work: &Work) -> (Vec<String>, Vec<String>) {
    let title = index_terms(&work.title);
    let mut body_text = work.description.clone().unwrap_or_default();
    for tag in &work.tags {
        body_text.push(' ');
        body_text.push_str(tag);
    }
    let mut body = index_terms(&body_text);
    for topic in crate::topic::classify(&work.title, work.description.as_deref(), &work.tags) {
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
    (index_terms(&account.nickname), index_terms(&body_text))
}

/// [`work_terms`] for a write on an async path: a work whose text is over
/// [`crate::offload::INLINE_BYTES`] (a long description from an import, a
/// sync or a vendor) is segmented on the blocking pool.
pub async fn work_terms_async(work: &Work) -> (Vec<String>, Vec<String>) {
    let bytes = work.title.len()
        + work.description.as_ref().map_or(0, String::len)
        + work.tags.iter().map(String::len).sum::<usize>();
    if bytes <= crate::offload::INLINE_BYTES {
        return work_terms(work);
    }
    let work = work.clone();
    crate::offload::cpu(bytes, move || work_terms(&work)).await
}

/// [`account_terms`] for a write on an async path (see [`work_terms_async`]).
pub async fn account_terms_async(account: &Account) -> (Vec<String>, Vec<String>) {
    let bytes = account.nickname.len()
        + account.signature.as_ref().map_or(0, String::len)
        + account.category.as_ref().map_or(0, String::len);
    if bytes <= crate::offload::INLINE_BYTES {
        return account_terms(account);
    }
    let account = account.clone();
    crate::offload::cpu(bytes, move || account_terms(&account)).await
}

/// An FTS5 query matching rows that hold every term: `"a" "b"`.
/// `None` when the query has no terms.
/// Only the first [`MAX_QUERY_TERMS`] terms count.
pub fn fts5_query(terms: &[String]) -> Option<String> {
    let terms = query_terms(terms);
    (!terms.is_empty()).then(|| terms.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(" "))
}

/// The term that marks a work of `platform` in SQLite's `works_fts`
/// (column `platform_terms`, migration 0013): `zzplatform` and the platform
/// token in lower case, as the migration writes it (`'zzplatform' ||
/// lower(platform)`). A search then names its platform inside the FTS5
/// query, and FTS5 intersects the two doclists instead of the statement
/// looking up every match's `works` row for its platform (docs/data-apis.md
/// "Search at scale").
pub fn platform_term(platform: &str) -> String {
    format!("zzplatform{}", platform.to_lowercase())
}

/// The FTS5 query of a works search on `platform`: every term in the title
/// or the body, and the platform's term ([`platform_term`]) in
/// `platform_terms`. `None` when the query has no terms.
pub fn fts5_work_query(terms: &[String], platform: &str) -> Option<String> {
    fts5_platform_query(terms, "{title_terms body_terms}", platform)
}

/// The FTS5 query of an accounts search on `platform` (migration 0019): every
/// term in the nickname or the body, and the platform's term in
/// `platform_terms`. `None` when the query has no terms.
pub fn fts5_account_query(terms: &[String], platform: &str) -> Option<String> {
    fts5_platform_query(terms, "{nickname_terms body_terms}", platform)
}

/// Every term in `columns` (an FTS5 column filter) and the platform's term
/// in `platform_terms`: the terms' phrases first, the platform's last
/// ([`crate::fts5_bm25`] scores the first ones only).
fn fts5_platform_query(terms: &[String], columns: &str, platform: &str) -> Option<String> {
    let text = fts5_query(terms)?;
    Some(format!("{columns} : ({text}) AND platform_terms : \"{}\"", platform_term(platform)))
}

/// A tsvector literal: title terms at positions 1.. weighted A, body terms
/// after them weighted B (positions capped at 16383 as PostgreSQL requires),
/// terms past [`MAX_INDEX_BYTES`] left out.
pub fn tsvector_literal(title: &[String], body: &[String]) -> String {
    let mut out = String::new();
    let weighted = title.iter().map(|t| (t, 'A')).chain(body.iter().map(|t| (t, 'B')));
    let mut indexed = 0;
    for (position, (term, weight)) in weighted.enumerate() {
        indexed += term.len();
        if indexed > MAX_INDEX_BYTES {
            break;
        }
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
/// Only the first [`MAX_QUERY_TERMS`] terms count.
pub fn tsquery_literal(terms: &[String]) -> Option<String> {
    let terms = query_terms(terms);
    (!terms.is_empty()).then(|| terms.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(" & "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::cut_to_limit;

    #[test]
    fn mixed_queries_split_into_clean_terms() {
        assert_eq!(index_terms("AI绘画"), vec!["ai", "绘画"]);
        assert_eq!(index_terms("美食"), vec!["美食"]);
        assert!(index_terms("“美食”！ it's O'Neil").iter().all(|t| t.chars().all(char::is_alphanumeric)));
        assert_eq!(fts5_query(&index_terms("AI绘画")).unwrap(), "\"ai\" \"绘画\"");
        assert_eq!(tsquery_literal(&index_terms("AI绘画")).unwrap(), "'ai' & '绘画'");
        assert_eq!(tsvector_literal(&["ai".into()], &["画".into()]), "'ai':1A '画':2B");
        assert!(fts5_query(&index_terms("，。")).is_none());
        assert_eq!(
            fts5_work_query(&index_terms("AI绘画"), "Lifestyle").unwrap(),
            "{title_terms body_terms} : (\"ai\" \"绘画\") AND platform_terms : \"zzplatformlifestyle\""
        );
        assert!(fts5_work_query(&index_terms("，。"), "lifestyle").is_none());
    }

    #[test]
    fn terms_and_queries_stay_within_postgresql_limits() {
        let long = index_terms(&"a".repeat(5000));
        assert_eq!(long, vec!["a".repeat(crate::text::MAX_TERM_BYTES)]);
        assert_eq!(cut_to_limit("é".repeat(1024)), "é".repeat(1023), "cut at a character boundary");
        let many: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
        assert_eq!(tsquery_literal(&many).unwrap().matches(" & ").count(), MAX_QUERY_TERMS - 1);
        assert_eq!(fts5_query(&many).unwrap().matches(' ').count(), MAX_QUERY_TERMS - 1);
        let huge: Vec<String> =
            (0..1000).map(|i| format!("{i}{}", "x".repeat(crate::text::MAX_TERM_BYTES - 4))).collect();
        assert!(tsvector_literal(&huge, &[]).len() < MAX_INDEX_BYTES + 20 * 1000);
    }
}
