//! The generic webhook (docs/watchlists.md "Generic
//! webhook"): one JSON POST per digest, signed the
//! [Standard Webhooks](https://www.standardwebhooks.com/) way, so any of
//! that specification's libraries verifies it, and also with the older
//! `X-Mediaops-*` headers for receivers written against them.
//!
//! Headers:
//! - `Content-Type: application/json`;
//! - `Idempotency-Key: <digestId>` and `webhook-id: <digestId>`: the same
//!   digest retried carries the same id;
//! - `webhook-timestamp` and `X-Mediaops-Timestamp`: Unix seconds of the
//!   **wall clock** at sending (never the service clock of a replay, which a
//!   receiver refusing old timestamps would refuse);
//! - with a secret, `webhook-signature: v1,<base64 of HMAC-SHA256(key,
//!   "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being
//!   [`signing_key`] of the secret;
//! - with a secret, `X-Mediaops-Signature: sha256=<hex of
//!   HMAC-SHA256(secret bytes, "<timestamp>.<body>")>` (unchanged).

use base64::Engine;
use base64::engine::general_purpose;
use chrono::{DateTime, SecondsFormat, Utc};
use mediaops_proto::mediaops::watch::v1::Channel;
use serde_json::json;

use super::secret::signing_key;
use super::{ChannelFormat, Envelope, NotifyError, Outgoing};

/// Signature header of the `X-Mediaops-*` scheme.
pub const SIGNATURE: &str = "x-mediaops-signature";
/// Time stamp header of the `X-Mediaops-*` scheme (Unix seconds).
pub const TIMESTAMP: &str = "x-mediaops-timestamp";
/// Idempotency header.
pub const IDEMPOTENCY: &str = "idempotency-key";
/// Standard Webhooks: the message id (the digest id).
pub const WEBHOOK_ID: &str = "webhook-id";
/// Standard Webhooks: Unix seconds at sending.
pub const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
/// Standard Webhooks: `v1,<base64 signature>`.
pub const WEBHOOK_SIGNATURE: &str = "webhook-signature";
/// The generic webhook format.
pub struct Webhook;

/// `v1,<base64 of HMAC-SHA256(signing_key(secret), "<id>.<timestamp>.<body>")>`
/// (Standard Webhooks, "Signature scheme").
pub fn standard_signature(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> String {
    let message = [format!("{id}.{timestamp}.").as_bytes(), body].concat();
    let mac = super::hmac_sha256(&signing_key(secret), &message);
    format!("v1,{}", general_purpose::STANDARD.encode(mac))
}

/// `sha256=<hex of HMAC-SHA256(secret bytes, "<timestamp>.<body>")>`: the
/// `X-Mediaops-Signature` header.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let message = [format!("{timestamp}.").as_bytes(), body].concat();
    format!("sha256={}", hex::encode(super::hmac_sha256(secret.as_bytes(), &message)))
}

impl ChannelFormat for Webhook {
    fn render(
        &self,
        channel: &Channel,
        envelope: &Envelope<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Outgoing>, NotifyError> {
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
        let body = serde_json::to_vec(&body)?;
        let timestamp = now.timestamp();
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            (IDEMPOTENCY.to_owned(), envelope.digest_id.to_owned()),
            (WEBHOOK_ID.to_owned(), envelope.digest_id.to_owned()),
            (WEBHOOK_TIMESTAMP.to_owned(), timestamp.to_string()),
            (TIMESTAMP.to_owned(), timestamp.to_string()),
        ];
        if !channel.secret.is_empty() {
            let standard = standard_signature(&channel.secret, envelope.digest_id, timestamp, &body);
            headers.push((WEBHOOK_SIGNATURE.to_owned(), standard));
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

    #[test]
    fn the_standard_signature_matches_the_specifications_example() {
        // The example of the Standard Webhooks specification (and of its
        // libraries' tests): this secret, id, timestamp and payload sign to
        // this value.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            standard_signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        // Without the prefix the secret is its own bytes.
        assert_eq!(signing_key("plain"), b"plain");
        assert_eq!(signing_key("whsec_AAEC"), vec![0, 1, 2]);
    }
}
