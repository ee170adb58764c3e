//! The secret of a webhook channel (docs/watchlists.md "Generic webhook"):
//! a [Standard Webhooks](https://www.standardwebhooks.com/) secret,
//! `whsec_<base64 of the key>`, or any other text used as its own bytes.
//! Checked when a watch list is saved ([`check_secret`], by the rules) and
//! turned into the HMAC key when a digest is signed ([`signing_key`], by the
//! webhook channel).

use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};

/// The prefix of a Standard Webhooks secret: `whsec_<base64 of the key>`.
pub const SECRET_PREFIX: &str = "whsec_";

/// Standard base64, padding optional (secrets are often pasted without it).
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The HMAC key of the `webhook-signature` header: for a Standard Webhooks
/// secret, `whsec_<base64>`, the bytes the base64 decodes to (as that
/// specification's libraries read it); any other secret (and a `whsec_`
/// one whose rest is not base64, saved before such secrets were checked)
/// is used as its own UTF-8 bytes.
pub fn signing_key(secret: &str) -> Vec<u8> {
    secret
        .strip_prefix(SECRET_PREFIX)
        .and_then(|encoded| BASE64.decode(encoded).ok())
        .filter(|key| !key.is_empty())
        .unwrap_or_else(|| secret.as_bytes().to_vec())
}

/// A webhook secret that may not be saved. Its text never quotes the
/// secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// `whsec_` followed by something that is not base64 of one byte or more.
    #[error(
        "a secret starting with {SECRET_PREFIX} must be base64 of the key after the prefix (Standard Webhooks), \
         e.g. {SECRET_PREFIX} + 32 random bytes in base64"
    )]
    NotBase64,
}

/// Whether `secret` may be saved on a webhook channel: a `whsec_` secret
/// must be base64 of at least one byte after its prefix.
///
/// # Errors
/// [`SecretError::NotBase64`].
pub fn check_secret(secret: &str) -> Result<(), SecretError> {
    match secret.strip_prefix(SECRET_PREFIX) {
        Some(encoded) if BASE64.decode(encoded).map_or(true, |key| key.is_empty()) => Err(SecretError::NotBase64),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whsec_secret_must_be_base64() {
        assert!(check_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_ok());
        assert!(check_secret("whsec_dGVzdA").is_ok(), "padding is optional");
        assert!(check_secret("anything else").is_ok());
        for bad in ["whsec_", "whsec_not base64!", "whsec_…"] {
            assert!(check_secret(bad).unwrap_err().to_string().contains("base64"), "{bad}");
        }
    }
}
