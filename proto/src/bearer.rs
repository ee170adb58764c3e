//! `Authorization: Bearer <API_KEY>` parsing (spec 5.1): the scheme
//! `Bearer` in any case (RFC 9110 §11.1: the scheme is case-insensitive),
//! one or more spaces, the key. Shared by the gateway (HTTP header) and the
//! core (gRPC metadata) so both reject the same malformed values.

/// Why an authorization value was refused (all are 401 `unauthenticated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BearerError {
    /// No `authorization` header / metadata at all.
    Missing,
    /// Not `Bearer <key>` (scheme in any case, spaces before the key), or
    /// the key has characters outside
    /// the key alphabet or a length outside 16..=256.
    Malformed,
}

impl BearerError {
    /// The message clients see.
    pub fn message(self) -> &'static str {
        match self {
            BearerError::Missing => "missing API key: send `Authorization: Bearer <API_KEY>`",
            BearerError::Malformed => {
                "malformed Authorization header: expected `Bearer <API_KEY>` (the word Bearer, a space, the key)"
            }
        }
    }
}

/// Shortest and longest accepted key.
pub const KEY_LENGTH: std::ops::RangeInclusive<usize> = 16..=256;

/// Whether `key` is made of the key alphabet (RFC 7235 token68 characters)
/// and has an accepted length. Says nothing of whether the key exists.
pub fn is_well_formed_key(key: &str) -> bool {
    KEY_LENGTH.contains(&key.len()) && key.bytes().all(|b| KEY_ALPHABET[usize::from(b)])
}

/// Whether each byte is of the key alphabet: a table, since every call
/// checks its key's form up to three times (the gateway, the core).
const KEY_ALPHABET: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=');
        b += 1;
    }
    table
};

/// Extracts the key from an authorization value: the scheme compared
/// without regard to case, then one or more spaces, then the key.
pub fn parse_bearer(value: Option<&str>) -> Result<&str, BearerError> {
    let value = value.ok_or(BearerError::Missing)?;
    let (scheme, key) = value.split_once(' ').ok_or(BearerError::Malformed)?;
    let key = key.trim_start_matches(' ');
    if scheme.eq_ignore_ascii_case("Bearer") && is_well_formed_key(key) { Ok(key) } else { Err(BearerError::Malformed) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_scheme_in_any_case_and_spaces_before_the_key() {
        for value in [
            "Bearer mk_0123456789abcdef",
            "bearer mk_0123456789abcdef",
            "BEARER mk_0123456789abcdef",
            "Bearer   mk_0123456789abcdef",
        ] {
            assert_eq!(parse_bearer(Some(value)), Ok("mk_0123456789abcdef"), "{value:?}");
        }
    }

    #[test]
    fn rejects_malformed_values() {
        for value in [
            "",
            "Bearer",
            "Bearer ",
            "Bearer\tmk_0123456789abcdef",
            "Bearers mk_0123456789abcdef",
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

    #[test]
    fn the_alphabet_table_is_rfc_7235_token68() {
        for b in 0..=255u8 {
            let token68 = b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b);
            assert_eq!(KEY_ALPHABET[usize::from(b)], token68, "byte {b:#04x}");
        }
    }
}
