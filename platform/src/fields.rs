//! Rules for one text value of a request (docs/errors.md "Limits of a request"), checked before
//! anything reaches the store, so bad input is a 400 naming its field and
//! never a database error:
//!
//! - [`text`]: any required text (a keyword, a prompt, a title): trimmed,
//!   not blank, no control character but tab, line feed and carriage
//!   return. NUL in particular: PostgreSQL `text` cannot hold it.
//! - [`identifier`]: an id, or a link given for one (task ids, account and
//!   work ids, sync targets): one line, no control character at all, at
//!   most a given number of characters.
//!
//! Rules and limits: docs/errors.md "Limits".

use mediaops_proto::error::ServiceError;

/// Longest id or link a data operation accepts, in characters.
pub const MAX_ID_CHARS: usize = 2048;

/// A required text value, trimmed.
///
/// # Errors
/// 400 `invalid_input` naming `field` when blank or holding a control
/// character other than `\t`, `\n`, `\r`.
pub fn text<'a>(value: &'a str, field: &str) -> Result<&'a str, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ServiceError::invalid_field(field, format!("{field} must not be empty")));
    }
    if value.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) {
        return Err(ServiceError::invalid_field(
            field,
            format!("`{field}` must not contain control characters (such as U+0000)"),
        ));
    }
    Ok(value)
}

/// A required identifier (or a link given for one), trimmed.
///
/// # Errors
/// 400 `invalid_input` naming `field` when blank, longer than `max_chars`
/// characters or holding any control character.
pub fn identifier<'a>(value: &'a str, field: &str, max_chars: usize) -> Result<&'a str, ServiceError> {
    let value = text(value, field)?;
    if value.chars().count() > max_chars || value.chars().any(char::is_control) {
        return Err(ServiceError::invalid_field(
            field,
            format!(
                "`{field}` must be an id of at most {max_chars} characters on one line, without control characters"
            ),
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_long_ids_are_refused_by_name() {
        assert_eq!(text("  美食 \n", "keyword").unwrap(), "美食");
        assert_eq!(text("line one\nline two", "prompt").unwrap(), "line one\nline two");
        assert_eq!(text("a\u{0}b", "keyword").unwrap_err().field.as_deref(), Some("keyword"));
        assert_eq!(text(" ", "keyword").unwrap_err().field.as_deref(), Some("keyword"));
        assert_eq!(identifier(" abc ", "accountId", 8).unwrap(), "abc");
        assert_eq!(identifier("a\u{0}b", "accountId", 8).unwrap_err().field.as_deref(), Some("accountId"));
        assert!(identifier("a\nb", "taskId", 8).is_err());
        assert!(identifier("a\u{85}b", "taskId", 8).is_err(), "C1 controls too");
        assert!(identifier(&"x".repeat(9), "taskId", 8).is_err());
        assert!(identifier(&"字".repeat(8), "taskId", 8).is_ok(), "characters, not bytes");
    }
}
