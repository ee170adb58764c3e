//! Telegram bot (docs/watchlists.md "Telegram"): POST
//! `<base>/bot<token>/sendMessage` with `{"chat_id", "text", "parse_mode":
//! "HTML", "disable_web_page_preview": true}`; `text` is at most 4096
//! characters, so a long digest is split. The base is the channel's `url`
//! (default `https://api.telegram.org`); the bot token is the channel's
//! secret and never appears in the delivery log. Answers `{"ok":true,…}`.

use chrono::{DateTime, Utc};
use mediaops_proto::mediaops::watch::v1::Channel;
use serde_json::json;

use super::text::{Markup, Measure, messages};
use super::{ChannelFormat, Envelope, NotifyError, Outgoing};

/// Telegram's message limit, in characters.
pub const LIMIT_CHARS: usize = 4096;

/// The Bot API's address when the channel names none.
pub const DEFAULT_BASE: &str = "https://api.telegram.org";

/// The Telegram Bot API format.
pub struct Telegram;

impl ChannelFormat for Telegram {
    fn render(
        &self,
        channel: &Channel,
        envelope: &Envelope<'_>,
        _now: DateTime<Utc>,
    ) -> Result<Vec<Outgoing>, NotifyError> {
        let base = if channel.url.is_empty() { DEFAULT_BASE } else { channel.url.trim_end_matches('/') };
        let url = format!("{base}/bot{}/sendMessage", channel.secret);
        messages(envelope, Markup::Html, Measure::Chars, LIMIT_CHARS)
            .into_iter()
            .map(|text| {
                let body = json!({
                    "chat_id": channel.chat_id,
                    "text": text,
                    "parse_mode": "HTML",
                    "disable_web_page_preview": true,
                });
                Outgoing::json(&url, &body)
            })
            .collect()
    }

    fn accepted(&self, body: &[u8]) -> Result<(), NotifyError> {
        let answer: serde_json::Value = serde_json::from_slice(body).map_err(NotifyError::NotJson)?;
        if answer["ok"] == true {
            Ok(())
        } else {
            let message = answer["description"].as_str().unwrap_or("not ok").to_owned();
            Err(NotifyError::Refused { code: "telegram".to_owned(), message })
        }
    }
}
