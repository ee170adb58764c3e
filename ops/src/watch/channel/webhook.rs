//! The generic webhook (issue 19 item 2; docs/watchlists.md "Generic
//! webhook"): one JSON POST per digest.
//!
//! Headers:
//! - `Content-Type: application/json`
//! - `Idempotency-Key: <digestId>`: the same digest retried carries the same key;
//! - `X-Mediaops-Timestamp: <Unix seconds>`;
//! - `X-Mediaops-Signature: sha256=<hex>` when the channel has a secret:
//!   HMAC-SHA256 keyed by the secret over `<timestamp>.<body>` (the raw
//!   body bytes), so a receiver checks both the body and its freshness.

use chrono::{DateTime, SecondsFormat, Utc};
use mediaops_proto::mediaops::watch::v1::Channel;
use serde_json::json;

use super::{ChannelFormat, Envelope, Outgoing};

/// Signature header.
pub const SIGNATURE: &str = "x-mediaops-signature";
/// Time stamp header (Unix seconds).
pub const TIMESTAMP: &str = "x-mediaops-timestamp";
/// Idempotency header.
pub const IDEMPOTENCY: &str = "idempotency-key";

/// The generic webhook format.
pub struct Webhook;

/// `sha256=<hex of HMAC-SHA256(secret, "<timestamp>.<body>")>`.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let message = [format!("{timestamp}.").as_bytes(), body].concat();
    format!("sha256={}", hex::encode(super::hmac_sha256(secret.as_bytes(), &message)))
}

impl ChannelFormat for Webhook {
    fn render(&self, channel: &Channel, envelope: &Envelope<'_>, now: DateTime<Utc>) -> Result<Vec<Outgoing>, String> {
        let body = json!({
            "type": "watchlist.digest",
            "watchlistId": envelope.watchlist_id,
            "watchlistName": envelope.watchlist_name,
            "digestId": envelope.digest_id,
            "runAt": envelope.run_at.to_rfc3339_opts(SecondsFormat::Secs, true),
            "matched": envelope.digest.matched,
            "deduplicated": envelope.digest.deduplicated,
            "items": envelope.digest.items,
        });
        let body = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
        let timestamp = now.timestamp();
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            (IDEMPOTENCY.to_owned(), envelope.digest_id.to_owned()),
            (TIMESTAMP.to_owned(), timestamp.to_string()),
        ];
        if !channel.secret.is_empty() {
            headers.push((SIGNATURE.to_owned(), signature(&channel.secret, timestamp, &body)));
        }
        Ok(vec![Outgoing { url: channel.url.clone(), headers, body }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_over_timestamp_dot_body() {
        // RFC 4231 test case 2 checks the primitive: key "Jefe", data
        // "what do ya want for nothing?"; here the data is "<ts>.<body>".
        assert_eq!(
            hex::encode(super::super::hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let a = signature("k", 1_700_000_000, b"{}");
        assert!(a.starts_with("sha256=") && a.len() == 7 + 64);
        assert_ne!(a, signature("k", 1_700_000_001, b"{}"), "the time stamp is signed");
        assert_ne!(a, signature("k2", 1_700_000_000, b"{}"));
    }
}
