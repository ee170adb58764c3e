//! The `[outbound]` table of the core's settings (docs/outbound.md
//! "Configuration"): timeouts and retries of every connector, and the
//! limits and allow-list of the guarded fetch of user-supplied links.
//!
//! ```toml
//! [outbound]
//! connect_timeout_secs = 5
//! read_timeout_secs = 30
//! request_timeout_secs = 60
//! retries = 2
//! allow = ["10.20.0.0/16", "images.corp.example"]
//! ```
//!
//! As environment variables: `MEDIAOPS_OUTBOUND__RETRIES=3`,
//! `MEDIAOPS_OUTBOUND__ALLOW='["127.0.0.1/32"]'`.

use serde::{Deserialize, Serialize};

use super::policy::AddressPolicy;

/// Settings shared by every outbound call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OutboundSettings {
    /// Seconds to open a TCP (and TLS) connection.
    pub connect_timeout_secs: u64,
    /// Seconds without a byte from the peer before a read fails.
    pub read_timeout_secs: u64,
    /// Seconds for one connector request, reply body included (a connector
    /// may ask for more, e.g. image generation).
    pub request_timeout_secs: u64,
    /// Retries of an idempotent connector request after a transport
    /// failure, a timeout, a 5xx or a 429 (0 = one attempt).
    pub retries: u32,
    /// Milliseconds before the first retry; each further retry waits twice
    /// as long (plus up to 25% at random).
    pub retry_backoff_ms: u64,
    /// Largest connector reply read, in bytes.
    pub max_response_bytes: usize,
    /// Seconds for one guarded fetch of a user-supplied link, all
    /// redirects and the body included.
    pub fetch_timeout_secs: u64,
    /// Largest body a guarded fetch reads, in bytes.
    pub fetch_max_bytes: usize,
    /// Redirects a guarded fetch follows; one more is an error.
    pub max_redirects: usize,
    /// Ports a guarded fetch may connect to; empty = any. Allow-listed
    /// hosts and addresses may use any port.
    pub ports: Vec<u16>,
    /// Hosts and networks a guarded fetch may reach even though they are
    /// loopback, private, …: an IP address, a CIDR (`10.0.0.0/8`,
    /// `fd00::/8`), a host name (`images.corp`) or a domain with its
    /// subdomains (`*.corp`). For tests (fake servers on 127.0.0.1) and
    /// private deployments. Default empty.
    pub allow: Vec<String>,
    /// `User-Agent` of guarded fetches (some short-link services answer
    /// only browser-like agents).
    pub user_agent: String,
}

impl Default for OutboundSettings {
    fn default() -> Self {
        OutboundSettings {
            connect_timeout_secs: 5,
            read_timeout_secs: 30,
            request_timeout_secs: 60,
            retries: 2,
            retry_backoff_ms: 250,
            max_response_bytes: 32 * 1024 * 1024,
            fetch_timeout_secs: 15,
            fetch_max_bytes: 10 * 1024 * 1024,
            max_redirects: 5,
            ports: vec![80, 443, 8080, 8443],
            allow: Vec::new(),
            user_agent: "Mozilla/5.0 (compatible; mediaops/0.1; +https://github.com/mediaops)".into(),
        }
    }
}

impl AddressPolicy {
    /// The policy of `[outbound]`: its `allow` entries and `ports`.
    ///
    /// # Errors
    /// An allow entry that is neither an address, a CIDR, a host name nor
    /// `*.domain`.
    pub fn from_settings(settings: &OutboundSettings) -> anyhow::Result<AddressPolicy> {
        AddressPolicy::from_lists(&settings.allow, &settings.ports)
    }
}

impl OutboundSettings {
    /// Checks what the types alone do not: positive timeouts and a
    /// parseable allow-list.
    pub fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.connect_timeout_secs >= 1
                && self.read_timeout_secs >= 1
                && self.request_timeout_secs >= 1
                && self.fetch_timeout_secs >= 1,
            "outbound timeouts (MEDIAOPS_OUTBOUND__*_TIMEOUT_SECS) must be at least 1 second"
        );
        anyhow::ensure!(self.retries <= 10, "MEDIAOPS_OUTBOUND__RETRIES must be at most 10");
        AddressPolicy::from_settings(self)?;
        Ok(())
    }
}
