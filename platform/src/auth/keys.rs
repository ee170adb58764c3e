//! API key material: generation, hashing, display prefixes.

use rand::Rng;
use sha2::{Digest, Sha256};

/// Prefix of every key this service generates.
pub const KEY_PREFIX: &str = "mk_";

/// A new random key: `mk_` + 40 characters of [A-Za-z0-9] (~238 bits).
pub fn generate_key() -> String {
    generate_secret(KEY_PREFIX)
}

/// `prefix` + 40 random characters of [A-Za-z0-9] (~238 bits): API keys
/// (`mk_`) and feed tokens (`mf_`, docs/watchlists.md "Feeds").
pub fn generate_secret(prefix: &str) -> String {
    let mut rng = rand::rng();
    let body: String = (0..40).map(|_| rng.sample(rand::distr::Alphanumeric) as char).collect();
    format!("{prefix}{body}")
}

/// Hex SHA-256 of the key: the only form in which a key is stored.
pub fn hash_key(key: &str) -> String {
    // Into a buffer, not `hex::encode`, which collects the 64 characters
    // one `char` at a time (every call authenticates its key).
    let digest = Sha256::digest(key.as_bytes());
    let mut hex = [0u8; 64];
    match hex::encode_to_slice(digest, &mut hex) {
        Ok(()) => String::from_utf8_lossy(&hex).into_owned(),
        // Not reached: 32 bytes are 64 hex digits.
        Err(_) => hex::encode(digest),
    }
}

/// The first 7 characters and an ellipsis, for logs and key listings.
pub fn display_prefix(key: &str) -> String {
    let head: String = key.chars().take(7).collect();
    format!("{head}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_are_well_formed_and_distinct() {
        let a = generate_key();
        let b = generate_key();
        assert_ne!(a, b);
        assert!(mediaops_proto::bearer::is_well_formed_key(&a));
        assert!(a.starts_with(KEY_PREFIX));
        assert_eq!(a.len(), 43);
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(hash_key("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(display_prefix("mk_abcdefgh"), "mk_abcd…");
    }
}
