//! Who is calling (spec 5): the [`Principal`] an API key resolves to, and
//! key material ([`keys`]). Keys are stored by the ledger
//! ([`crate::billing::Ledger`]) only as SHA-256 hashes.

pub mod keys;

/// The account a valid, enabled key belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The account the key belongs to.
    pub account_id: String,
    /// First 12 hex characters of the key's SHA-256 (`KeyInfo::key_id`):
    /// names the key's rate-limit cell.
    pub key_id: String,
    /// First characters of the key, safe to log.
    pub key_prefix: String,
}

/// The `key_id` of a caller authenticated by a feed token: `feed:<feed>`.
pub fn feed_principal_key_id(feed: &str) -> String {
    format!("feed:{feed}")
}

/// Checks an account id: 1-64 characters of `A-Z a-z 0-9 _ . -` (they
/// appear inside Redis keys and file names).
pub fn check_account_id(account_id: &str) -> Result<(), mediaops_proto::error::ServiceError> {
    let ok = (1..=64).contains(&account_id.len())
        && account_id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(mediaops_proto::error::ServiceError::invalid_field(
            "accountId",
            "an account id is 1-64 characters of A-Z a-z 0-9 _ . -",
        ))
    }
}
