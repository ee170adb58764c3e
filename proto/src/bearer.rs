//! `Authorization: Bearer <API_KEY>` parsing (spec 5.1): the word Bearer, one
//! space, the key. Shared by the gateway (HTTP header) and the core (gRPC
//! metadata) so both reject the same malformed values.

/// Why an authorization value was refused (all are 401 `unauthenticated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BearerError {
    /// No `authorization` header / metadata at all.
    Missing,
    /// Not `Bearer <key>` with one space, or the key has characters outside
    /// the key alphabet or a length outside 16..=256.
    Malformed,
}

impl BearerError {
    /// The message clients see.
    pub fn message(self) -> &'static str {
        match self {
            BearerError::Missing => "missing API key: send `Authorization: Bearer <API_KEY>`",
            BearerError::Malformed => {
                "malformed Authorization header: expected `Bearer <API_KEY>` (the word Bearer, one space, the key)"
            }
        }
    }
}

/// Shortest and longest accepted key.
pub const KEY_LENGTH: std::ops::RangeInclusive<usize> = 16..=256;

/// Whether `key` is made of the key alphabet (RFC 7235 token68 characters)
/// and has an accepted length. Says nothing of whether the key exists.
pub fn is_well_formed_key(key: &str) -> bool {
    KEY_LENGTH.contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'='))
}

/// Extracts the key from an authorization value.
pub fn parse_bearer(value: Option<&str>) -> Result<&str, BearerError> {
    let value = value.ok_or(BearerError::Missing)?;
    let key = value.strip_prefix("Bearer ").ok_or(BearerError::Malformed)?;
    if is_well_formed_key(key) { Ok(key) } else { Err(BearerError::Malformed) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_bearer_one_space_key() {
        assert_eq!(parse_bearer(Some("Bearer mk_0123456789abcdef")), Ok("mk_0123456789abcdef"));
    }

    #[test]
    fn rejects_malformed_values() {
        for value in [
            "",
            "Bearer",
            "Bearer ",
            "bearer mk_0123456789abcdef",
            "Bearer  mk_0123456789abcdef",
            "Basic mk_0123456789abcdef",
            "Bearer mk_0123456789abcdef ",
            "Bearer short",
            "Bearer mk_0123456789abcdef\u{4e2d}",
            "mk_0123456789abcdef",
        ] {
            assert_eq!(parse_bearer(Some(value)), Err(BearerError::Malformed), "{value:?}");
        }
        assert_eq!(parse_bearer(None), Err(BearerError::Missing));
    }
}
