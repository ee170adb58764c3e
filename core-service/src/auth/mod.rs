//! API keys and the accounts they belong to (spec 5).
//!
//! Keys are stored only as SHA-256 hashes; the plaintext is shown once, when
//! the key is created. [`KeyStore`] is the seam the billing issue extends
//! with a Redis implementation; [`embedded::EmbeddedKeyStore`] is the
//! file-backed default of the one-process `cargo run`.

pub mod embedded;
pub mod keys;

use crate::error::ServiceError;

/// Who is calling: the account a valid, enabled key belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub account_id: String,
    /// First characters of the key, safe to log.
    pub key_prefix: String,
}

/// Storage of hashed API keys.
#[async_trait::async_trait]
pub trait KeyStore: Send + Sync + 'static {
    /// The account of `key`. 401 for an unknown or disabled key.
    async fn authenticate(&self, key: &str) -> Result<Principal, ServiceError>;

    /// Stores `key` for `account_id` unless it exists; creates the account
    /// with `grant_points` when it is new. Returns whether the key was added.
    async fn insert_key(&self, key: &str, account_id: &str, grant_points: i64) -> Result<bool, ServiceError>;

    /// Number of keys stored (enabled or not).
    async fn key_count(&self) -> Result<usize, ServiceError>;
}
