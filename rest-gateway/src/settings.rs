//! Gateway configuration, read from the same sources as the core's: the
//! TOML file (`--config`, else `MEDIAOPS_CONFIG`, else `./mediaops.toml`),
//! then `MEDIAOPS_*` variables.

use std::path::Path;

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use mediaops_listener::{ConfigFile, ListenerSettings, unknown_keys};
use serde::{Deserialize, Serialize};

/// What the gateway reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GatewaySettings {
    /// REST listen address (`MEDIAOPS_REST_ADDR`).
    pub rest_addr: String,
    /// The cores' gRPC addresses (`MEDIAOPS_CORE_ADDR`, or `--core-addr`):
    /// one or more `http://host:port`, comma-separated, or one DNS name
    /// whose records are the cores ([`crate::core_set`]).
    pub core_addr: String,
    /// HTTP/2 connections the gateway keeps to each core
    /// (`MEDIAOPS_CORE_CONNECTIONS`, 1-64, default 2).
    pub core_connections: usize,
    /// Seconds between two resolutions of `core_addr` and health checks of
    /// every core (`MEDIAOPS_CORE_REFRESH_SECS`, 1-3600, default 2): a core
    /// that stops serving is taken out within this time.
    pub core_refresh_secs: u64,
    /// How the calls reach the cores (`MEDIAOPS_CORE_TRANSPORT`): `stream`
    /// (the default: the calls as messages on `core_connections` long-lived
    /// call streams per core, [`crate::call_stream`]) or `unary` (each call
    /// its operation's unary RPC).
    pub core_transport: crate::core_client::CoreTransport,
    /// Largest accepted request body in bytes (`MEDIAOPS_MAX_BODY_BYTES`).
    pub max_body_bytes: usize,
    /// Origins a browser may call the API from (`MEDIAOPS_CORS_ORIGINS`):
    /// exact origins (`https://app.example.com`), comma-separated, or `*`
    /// for any; empty (the default) sends no CORS headers at all ([`crate::middleware::cors`], docs/http.md).
    pub cors_origins: String,
    /// Seconds one whole request may take, body and core call included
    /// (`MEDIAOPS_REQUEST_TIMEOUT_SECS`, 1-3600, default 330: above the
    /// core's operation timeout); then 408 `request_timeout`
    /// ([`crate::middleware::TimeoutLayer`]).
    pub request_timeout_secs: u64,
    /// Timeouts, the connection cap and port sharing of the REST port
    /// (`MEDIAOPS_HEADER_READ_TIMEOUT_SECS`, `MEDIAOPS_BODY_READ_TIMEOUT_SECS`,
    /// `MEDIAOPS_IDLE_TIMEOUT_SECS`, `MEDIAOPS_MAX_CONNECTIONS`,
    /// `MEDIAOPS_SHUTDOWN_NOTICE_SECS`, `MEDIAOPS_SHUTDOWN_GRACE_SECS`,
    /// `MEDIAOPS_REUSE_PORT`; the same
    /// keys as the core's).
    #[serde(flatten)]
    pub listener: ListenerSettings,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        GatewaySettings {
            rest_addr: "0.0.0.0:8080".into(),
            core_addr: "http://127.0.0.1:50051".into(),
            core_connections: 2,
            core_refresh_secs: 2,
            core_transport: crate::core_client::CoreTransport::Stream,
            max_body_bytes: 4 * 1024 * 1024,
            cors_origins: String::new(),
            request_timeout_secs: 330,
            listener: ListenerSettings::default(),
        }
    }
}

impl GatewaySettings {
    /// How the set of cores is kept ([`crate::core_set::Refresh`]).
    pub fn core_refresh(&self) -> crate::core_set::Refresh {
        crate::core_set::Refresh {
            connections: self.core_connections,
            every: std::time::Duration::from_secs(self.core_refresh_secs),
        }
    }

    /// Loads the settings; a value of the wrong type, a file named by
    /// `--config` or `MEDIAOPS_CONFIG` that does not exist, or a key in the
    /// file that neither the gateway nor the core reads
    /// ([`mediaops_listener::unknown_keys`]) is an error.
    pub fn load(config_file: Option<&Path>) -> anyhow::Result<GatewaySettings> {
        let file = ConfigFile::resolve(config_file);
        file.check_exists().map_err(anyhow::Error::msg)?;
        let toml = Figment::from(if file.required { Toml::file_exact(&file.path) } else { Toml::file(&file.path) });
        let table: serde_json::Value = toml.extract()?;
        unknown_keys::refuse::<GatewaySettings>(&file.path, &table, unknown_keys::CORE_KEYS)
            .map_err(anyhow::Error::msg)?;
        let settings: GatewaySettings = Figment::from(Serialized::defaults(GatewaySettings::default()))
            .merge(toml)
            .merge(Env::prefixed("MEDIAOPS_"))
            .extract()?;
        anyhow::ensure!(settings.max_body_bytes >= 1024, "MEDIAOPS_MAX_BODY_BYTES must be at least 1024");
        anyhow::ensure!(
            (1..=64).contains(&settings.core_connections),
            "MEDIAOPS_CORE_CONNECTIONS must be 1-64, not {}",
            settings.core_connections
        );
        anyhow::ensure!(
            (1..=mediaops_listener::settings::MAX_SECS).contains(&settings.core_refresh_secs),
            "MEDIAOPS_CORE_REFRESH_SECS must be 1-3600 seconds, not {}",
            settings.core_refresh_secs
        );
        anyhow::ensure!(
            (1..=mediaops_listener::settings::MAX_SECS).contains(&settings.request_timeout_secs),
            "MEDIAOPS_REQUEST_TIMEOUT_SECS must be 1-3600 seconds, not {}",
            settings.request_timeout_secs
        );
        crate::middleware::cors(&settings.cors_origins)?;
        crate::core_set::parse_targets(&settings.core_addr)?;
        settings.listener.check().map_err(anyhow::Error::msg)?;
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listed_gateway_keys_are_the_settings_keys() {
        let value = serde_json::to_value(GatewaySettings::default()).unwrap();
        let listener = serde_json::to_value(ListenerSettings::default()).unwrap();
        let own: Vec<&str> =
            value.as_object().unwrap().keys().map(String::as_str).filter(|k| listener.get(k).is_none()).collect();
        assert_eq!(own, unknown_keys::GATEWAY_KEYS);
    }
}
