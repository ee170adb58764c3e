//! Feishu (飞书) custom bot (docs/watchlists.md "Feishu"): POST an
//! interactive card `{"msg_type":"interactive","card":{header, elements}}`
//! to the bot's webhook URL. With a secret (签名校验), the body also carries
//! `timestamp` (Unix seconds, a string) and `sign = base64(HMAC-SHA256(key =
//! "<timestamp>\n<secret>", message = ""))`, Feishu's documented algorithm.
//! Answers `{"code":0,…}`; another `code` is a failure.

use base64::Engine;
use chrono::{DateTime, Utc};
use mediaops_proto::mediaops::watch::v1::Channel;
use serde_json::json;

use super::text::{Markup, Measure, messages};
use super::{ChannelFormat, Envelope, NotifyError, Outgoing, errcode_zero};

/// Characters of one card's text (ours: well under Feishu's 30 KB card limit).
pub const LIMIT_CHARS: usize = 4000;

/// The Feishu custom bot format.
pub struct Feishu;

/// The `sign` field: base64 of HMAC-SHA256 with key `"<timestamp>\n<secret>"`
/// (`timestamp` in Unix seconds) over an empty message.
pub fn sign(timestamp: i64, secret: &str) -> String {
    let key = format!("{timestamp}\n{secret}");
    base64::engine::general_purpose::STANDARD.encode(super::hmac_sha256(key.as_bytes(), b""))
}

impl ChannelFormat for Feishu {
    fn render(
        &self,
        channel: &Channel,
        envelope: &Envelope<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Outgoing>, NotifyError> {
        messages(envelope, Markup::Markdown, Measure::Chars, LIMIT_CHARS)
            .into_iter()
            .map(|text| {
                let (title, content) = text.split_once('\n').unwrap_or((text.as_str(), ""));
                let mut body = json!({
                    "msg_type": "interactive",
                    "card": {
                        "header": {"title": {"tag": "plain_text", "content": title.replace("**", "")}},
                        "elements": [{"tag": "div", "text": {"tag": "lark_md", "content": content}}],
                    },
                });
                if !channel.secret.is_empty() {
                    let ts = now.timestamp();
                    body["timestamp"] = json!(ts.to_string());
                    body["sign"] = json!(sign(ts, &channel.secret));
                }
                Outgoing::json(&channel.url, &body)
            })
            .collect()
    }

    fn accepted(&self, body: &[u8]) -> Result<(), NotifyError> {
        errcode_zero(body, "code", "msg")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sign_follows_the_documented_algorithm() {
        // Computed with the Python 3 sample of Feishu's custom-bot docs
        // (hmac.new(f"{timestamp}\n{secret}", b"", sha256), base64) for
        // timestamp 1599360473 and secret "your_secret".
        assert_eq!(super::sign(1_599_360_473, "your_secret"), "tAvYKNLmljs8ve/yiSgowzRhazcChnWmm57iq+BDjso=");
    }
}
