//! `[watchlists]` settings (`MEDIAOPS_WATCHLISTS__…`; docs/watchlists.md
//! "Configuration").

use mediaops_connectors::notify::Smtp;
use mediaops_proto::closed_sets::WatchChannel;
use mediaops_proto::error::ServiceError;
use mediaops_proto::error_code::ErrorCode;
use serde::{Deserialize, Serialize};

/// How the watch-list scheduler runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct WatchSettings {
    /// Whether this core runs due watch lists (`…__SCHEDULER`); the API
    /// works either way.
    pub scheduler: bool,
    /// Seconds between two looks for due watch lists (`…__TICK_SECS`).
    pub tick_secs: f64,
    /// Seconds between two runs of an `on_change` watch list (`…__ON_CHANGE_SECS`).
    pub on_change_secs: u64,
    /// Seconds a runner holds a watch list it runs before another may take
    /// it over (`…__LEASE_SECS`).
    pub lease_secs: u64,
    /// The SMTP server of e-mail channels (`…__SMTP_URL`):
    /// `smtps://user:pass@host:465`, `smtp://host:587?tls=required`
    /// (STARTTLS) or `smtp://host:25`; unset = e-mail channels answer 503
    /// `not_configured`.
    pub smtp_url: Option<String>,
    /// The sender of e-mail digests (`…__SMTP_FROM`), e.g. `mediaops <watch@example.com>`.
    pub smtp_from: String,
}

impl Default for WatchSettings {
    fn default() -> Self {
        WatchSettings {
            scheduler: true,
            tick_secs: 30.0,
            on_change_secs: 300,
            lease_secs: 300,
            smtp_url: None,
            smtp_from: "mediaops <watch@localhost>".into(),
        }
    }
}

impl WatchSettings {
    /// The interval of `on_change` runs.
    pub fn on_change_every(&self) -> chrono::Duration {
        chrono::Duration::seconds(i64::try_from(self.on_change_secs).unwrap_or(i64::MAX).max(1))
    }

    /// The SMTP server e-mail channels are sent through.
    pub fn smtp(&self) -> Smtp<'_> {
        Smtp { url: self.smtp_url.as_deref(), from: &self.smtp_from }
    }

    /// Whether a channel type can be used on this service.
    ///
    /// # Errors
    /// 400 naming `field` for a type that is none of [`WatchChannel`];
    /// 503 `not_configured` naming `field` for e-mail without an SMTP
    /// server. Nothing is stored.
    pub fn channel_available(&self, kind: &str, field: &str) -> Result<(), ServiceError> {
        match WatchChannel::parse_field(kind, field)? {
            WatchChannel::Email if self.smtp_url.is_none() => Err(ServiceError {
                field: Some(field.to_owned()),
                ..ServiceError::new(
                    ErrorCode::NotConfigured,
                    "e-mail channels need an SMTP server: set MEDIAOPS_WATCHLISTS__SMTP_URL and __SMTP_FROM (docs/watchlists.md \"E-mail\"); nothing was stored",
                )
            }),
            WatchChannel::Email
            | WatchChannel::Webhook
            | WatchChannel::Wecom
            | WatchChannel::Feishu
            | WatchChannel::Dingtalk
            | WatchChannel::Telegram => Ok(()),
        }
    }
}
