//! Per-account word lists: the rules they follow (their shapes and the
//! [`CustomWordStore`](mediaops_store::word_list::CustomWordStore) trait
//! are the store's, [`mediaops_store::word_list`]). A scope is `all`
//! (every platform) or one platform name.
//!
//! The rules of a list (docs/banned-words.md "Per-account lists"), checked by
//! [`validate`] before anything is stored:
//! - at most [`MAX_WORDS`] added words and [`MAX_WORDS`] allowed phrases;
//! - each word or phrase 1 to [`MAX_WORD_CHARS`] characters, not empty after
//!   normalization; duplicates (same normalized form) keep the first;
//! - an added word's category is one of the lexicon's, empty meaning
//!   [`CUSTOM_CATEGORY`].

use std::collections::HashSet;

use super::lexicon::{CUSTOM_CATEGORY, Lexicon};
use super::normalize::normalize_word;
use super::platform::Platform;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_store::word_list::PlatformScope;
use mediaops_store::word_list::{ALL_PLATFORMS, AddedWord, WordList};

/// Most added words, and most allowed phrases, in one list.
pub const MAX_WORDS: usize = 2000;
/// Longest word or phrase, in characters.
pub const MAX_WORD_CHARS: usize = 50;

/// A platform names its word-list scope (`AccountLists::for_platform`, in
/// the store: the records live there, [`mediaops_store::word_list`]).
impl PlatformScope for Platform {
    fn scope(&self) -> &'static str {
        self.name()
    }
}

/// The scope name of an optional platform.
pub fn scope_name(platform: Option<Platform>) -> &'static str {
    platform.map_or(ALL_PLATFORMS, Platform::name)
}

/// Checks and cleans a list an operator sent (see the module docs).
///
/// # Errors
/// 400 naming the offending field, e.g. `add[2].category` or `allow[0]`.
pub fn validate(lexicon: &Lexicon, add: Vec<AddedWord>, allow: Vec<String>) -> Result<WordList, ServiceError> {
    if add.len() > MAX_WORDS {
        return Err(ServiceError::invalid_field("add", format!("at most {MAX_WORDS} words")));
    }
    if allow.len() > MAX_WORDS {
        return Err(ServiceError::invalid_field("allow", format!("at most {MAX_WORDS} words")));
    }
    let mut seen = HashSet::new();
    let mut clean_add = Vec::with_capacity(add.len());
    for (i, AddedWord { word, category }) in add.into_iter().enumerate() {
        let word = check_word(&word, &format!("add[{i}].word"))?;
        let category = category.trim();
        let category = if category.is_empty() { CUSTOM_CATEGORY } else { category };
        if !lexicon.has_category(category) {
            return Err(ServiceError::invalid_field(
                format!("add[{i}].category"),
                format!("unknown category {}; one of: {}", excerpt(category), lexicon.category_names().join(", ")),
            ));
        }
        if seen.insert(normalize_word(&word)) {
            clean_add.push(AddedWord { word, category: category.to_owned() });
        }
    }
    let mut seen = HashSet::new();
    let mut clean_allow = Vec::with_capacity(allow.len());
    for (i, phrase) in allow.into_iter().enumerate() {
        let phrase = check_word(&phrase, &format!("allow[{i}]"))?;
        if seen.insert(normalize_word(&phrase)) {
            clean_allow.push(phrase);
        }
    }
    Ok(WordList { add: clean_add, allow: clean_allow, updated_at: None })
}

fn check_word(word: &str, field: &str) -> Result<String, ServiceError> {
    let word = word.trim();
    let chars = word.chars().count();
    if chars == 0 || chars > MAX_WORD_CHARS {
        return Err(ServiceError::invalid_field(field, format!("`{field}` must be 1 to {MAX_WORD_CHARS} characters")));
    }
    if normalize_word(word).is_empty() {
        return Err(ServiceError::invalid_field(field, format!("`{field}` has only separators ({})", excerpt(word))));
    }
    Ok(word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(word: &str, category: &str) -> AddedWord {
        AddedWord { word: word.into(), category: category.into() }
    }

    #[test]
    fn validation_names_fields_and_drops_duplicates() {
        let lexicon = Lexicon::builtin().unwrap();
        let clean = validate(
            lexicon,
            vec![word(" 私域 ", ""), word("私 域", "站外导流"), word("保底", "金融承诺")],
            vec!["最佳实践".into(), "最佳 实践".into()],
        )
        .unwrap();
        assert_eq!(clean.add, vec![word("私域", "自定义"), word("保底", "金融承诺")]);
        assert_eq!(clean.allow, vec!["最佳实践"]);

        let error = validate(lexicon, vec![word("a", "极限用语"), word("b", "nope")], vec![]).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("add[1].category"));
        assert!(error.message.contains("极限用语"), "{}", error.message);
        let error = validate(lexicon, vec![], vec!["ok".into(), " - ".into()]).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("allow[1]"));
        let error = validate(lexicon, vec![word(&"长".repeat(MAX_WORD_CHARS + 1), "")], vec![]).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("add[0].word"));
        let error = validate(lexicon, vec![], vec!["x".into(); MAX_WORDS + 1]).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("allow"));
    }
}
