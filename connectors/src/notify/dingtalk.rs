//! DingTalk (钉钉) custom robot (docs/watchlists.md "DingTalk"): POST
//! `{"msgtype":"markdown","markdown":{"title","text"}}` to the robot's
//! webhook URL. With a secret (加签, `SEC…`), `&timestamp=<ms>&sign=<sign>`
//! is added: `sign = urlencode(base64(HMAC-SHA256(key = secret, message =
//! "<timestamp>\n<secret>")))`, DingTalk's documented algorithm. Answers
//! `{"errcode":0,"errmsg":"ok"}`.

use base64::Engine;
use chrono::{DateTime, Utc};
use mediaops_proto::mediaops::watch::v1::Channel;
use serde_json::json;

use super::text::{Markup, Measure, messages};
use super::{ChannelFormat, Envelope, NotifyError, Outgoing, errcode_zero};

/// Characters of one markdown message (ours: DingTalk truncates long ones).
pub const LIMIT_CHARS: usize = 4000;

/// The DingTalk custom robot format.
pub struct Dingtalk;

/// The `sign` query value, URL-encoded: base64 of HMAC-SHA256 with key
/// `secret` over `"<timestamp_ms>\n<secret>"` (`timestamp_ms` in Unix
/// milliseconds).
pub fn sign(timestamp_ms: i64, secret: &str) -> String {
    let mac = super::hmac_sha256(secret.as_bytes(), format!("{timestamp_ms}\n{secret}").as_bytes());
    let b64 = base64::engine::general_purpose::STANDARD.encode(mac);
    form_urlencoded::byte_serialize(b64.as_bytes()).collect()
}

impl ChannelFormat for Dingtalk {
    fn render(
        &self,
        channel: &Channel,
        envelope: &Envelope<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Outgoing>, NotifyError> {
        let mut url = channel.url.clone();
        if !channel.secret.is_empty() {
            let ts = now.timestamp_millis();
            let joiner = if url.contains('?') { '&' } else { '?' };
            url = format!("{url}{joiner}timestamp={ts}&sign={}", sign(ts, &channel.secret));
        }
        messages(envelope, Markup::Markdown, Measure::Chars, LIMIT_CHARS)
            .into_iter()
            .map(|text| {
                let body = json!({"msgtype": "markdown", "markdown": {"title": envelope.watchlist_name, "text": text}});
                Outgoing::json(&url, &body)
            })
            .collect()
    }

    fn accepted(&self, body: &[u8]) -> Result<(), NotifyError> {
        errcode_zero(body, "errcode", "errmsg")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sign_follows_the_documented_algorithm() {
        // Computed with the Python sample of DingTalk's robot docs
        // (hmac.new(secret, f"{timestamp}\n{secret}", sha256), base64,
        // quote_plus) for timestamp 1700000000000 and secret "secret".
        assert_eq!(super::sign(1_700_000_000_000, "secret"), "OuzzJR5%2BxZ4%2FEYwqtNt6sMYZQMTa%2FHEGvc9miJe7XzY%3D");
    }
}
