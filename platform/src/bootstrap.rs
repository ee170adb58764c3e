//! The bootstrap API key of the one-process default (README.md, docs/openapi.md).
//!
//! `MEDIAOPS_BOOTSTRAP_KEY` set: that key is stored (if absent) for the
//! account `bootstrap`, which is granted `MEDIAOPS_BOOTSTRAP_POINTS` when the
//! key is new. Not set and no key stored yet: a key is generated, stored,
//! granted the points, and returned to be printed once. Otherwise nothing
//! happens: keys are stored hashed and cannot be shown again.

use crate::auth::keys::{display_prefix, generate_key};
use crate::billing::Ledger;
use mediaops_proto::error::ServiceError;

/// Account id of the bootstrap key.
pub const BOOTSTRAP_ACCOUNT: &str = "bootstrap";

/// What happened at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bootstrap {
    /// A key was generated; this is the only time its plaintext exists.
    Generated(String),
    /// The configured key is stored (now or before); its display prefix.
    Configured(String),
    /// Keys exist and none was configured.
    Existing,
}

/// Runs the bootstrap rule against `ledger`.
pub async fn ensure_bootstrap_key(
    ledger: &dyn Ledger,
    configured: Option<&str>,
    points: i64,
) -> Result<Bootstrap, ServiceError> {
    if let Some(key) = configured {
        if ledger.insert_key(key, BOOTSTRAP_ACCOUNT).await? && points > 0 {
            ledger.grant(BOOTSTRAP_ACCOUNT, points).await?;
        }
        return Ok(Bootstrap::Configured(display_prefix(key)));
    }
    if !ledger.list_keys().await?.is_empty() {
        return Ok(Bootstrap::Existing);
    }
    let key = generate_key();
    ledger.insert_key(&key, BOOTSTRAP_ACCOUNT).await?;
    if points > 0 {
        ledger.grant(BOOTSTRAP_ACCOUNT, points).await?;
    }
    Ok(Bootstrap::Generated(key))
}

impl std::fmt::Display for Bootstrap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bootstrap::Generated(key) => write!(f, "bootstrap API key (shown once, store it now): {key}"),
            Bootstrap::Configured(prefix) => {
                write!(f, "bootstrap API key from MEDIAOPS_BOOTSTRAP_KEY is active ({prefix})")
            }
            Bootstrap::Existing => write!(f, "API keys exist; set MEDIAOPS_BOOTSTRAP_KEY to add a known key"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::embedded::EmbeddedLedger;

    #[tokio::test]
    async fn generates_once_then_keeps_quiet_and_grants_once() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = EmbeddedLedger::open(dir.path()).unwrap();
        let Bootstrap::Generated(key) = ensure_bootstrap_key(&ledger, None, 5).await.unwrap() else { panic!() };
        assert_eq!(ledger.authenticate(&key).await.unwrap().account_id, BOOTSTRAP_ACCOUNT);
        assert_eq!(ensure_bootstrap_key(&ledger, None, 5).await.unwrap(), Bootstrap::Existing);
        let configured = "mk_configuredconfigured";
        assert!(matches!(ensure_bootstrap_key(&ledger, Some(configured), 5).await.unwrap(), Bootstrap::Configured(_)));
        assert!(matches!(ensure_bootstrap_key(&ledger, Some(configured), 5).await.unwrap(), Bootstrap::Configured(_)));
        assert!(ledger.authenticate(configured).await.is_ok());
        assert_eq!(
            ledger.balance(BOOTSTRAP_ACCOUNT).await.unwrap(),
            Some(10),
            "5 for the generated key, 5 once for the configured one"
        );
    }
}
