//! Channels (issue 19 item 2; docs/watchlists.md "Channels"): one
//! [`ChannelFormat`] per target turns a digest into the HTTP requests its
//! official format asks for; [`send`] posts them through the outbound
//! layer's guard ([`mediaops_connectors::outbound::GuardedFetcher::post`]: SSRF checks,
//! timeouts) with bounded retries and backoff.
//!
//! Built: the generic webhook ([`webhook`]), the WeCom group robot
//! ([`wecom`]), the Feishu custom bot ([`feishu`]), the DingTalk custom
//! robot ([`dingtalk`]) and Telegram ([`telegram`]), each a
//! [`ChannelFormat`]; e-mail goes over SMTP ([`email`]), and needs the
//! operator's SMTP server ([`available`]: 503 `not_configured` without).

pub mod dingtalk;
pub mod email;
pub mod feishu;
pub mod telegram;
pub mod text;
pub mod webhook;
pub mod wecom;

use std::time::Duration;

use chrono::{DateTime, Utc};
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::watch::v1::Channel;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::digest::Digest;
use super::settings::WatchSettings;
use mediaops_connectors::outbound::{FetchLimits, GuardedFetcher};
use mediaops_platform::error::ServiceError;

/// One HTTP POST a channel sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Outgoing {
    /// A JSON POST to `url`.
    ///
    /// # Errors
    /// The body does not serialize (a bug).
    pub fn json(url: &str, body: &serde_json::Value) -> Result<Outgoing, String> {
        Ok(Outgoing {
            url: url.to_owned(),
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: serde_json::to_vec(body).map_err(|e| e.to_string())?,
        })
    }
}

/// A robot's `{"<code>": 0, "<message>": …}` answer: `Ok` for code 0.
///
/// # Errors
/// Another code (with the robot's message), or a body that is not JSON.
pub fn errcode_zero(body: &[u8], code: &str, message: &str) -> Result<(), String> {
    let answer: serde_json::Value = serde_json::from_slice(body).map_err(|e| format!("the answer is not JSON: {e}"))?;
    match answer.get(code).and_then(serde_json::Value::as_i64) {
        Some(0) => Ok(()),
        Some(other) => Err(format!("{code} {other}: {}", answer[message].as_str().unwrap_or_default())),
        None => Err(format!("the answer has no {code}")),
    }
}

/// What a channel sends for a digest.
pub struct Envelope<'a> {
    pub watchlist_id: &'a str,
    pub watchlist_name: &'a str,
    /// `<watchlist id>:<run time in Unix ms>`: the idempotency key.
    pub digest_id: &'a str,
    pub run_at: DateTime<Utc>,
    pub digest: &'a Digest,
}

/// A target's message format.
pub trait ChannelFormat: Send + Sync {
    /// The requests carrying the digest, in order (a long digest may be
    /// split); `now` stamps the signatures that carry a time.
    ///
    /// # Errors
    /// A text saying why the digest cannot be sent (a bad secret).
    fn render(&self, channel: &Channel, envelope: &Envelope<'_>, now: DateTime<Utc>) -> Result<Vec<Outgoing>, String>;

    /// Whether a 2xx answer means delivered: robots answer 200 with an
    /// error code in the body.
    ///
    /// # Errors
    /// What the target said.
    fn accepted(&self, _body: &[u8]) -> Result<(), String> {
        Ok(())
    }
}

/// Whether a channel type can be used on this service.
///
/// # Errors
/// 503 `not_configured` naming `field` for e-mail without an SMTP server;
/// 503 `not_implemented` for a type not built.
pub fn available(kind: &str, settings: &WatchSettings, field: &str) -> Result<(), ServiceError> {
    if kind == "email" {
        return match settings.smtp_url {
            Some(_) => Ok(()),
            None => Err(ServiceError {
                field: Some(field.to_owned()),
                ..ServiceError::new(
                    ErrorCode::NotConfigured,
                    "e-mail channels need an SMTP server: set MEDIAOPS_WATCHLISTS__SMTP_URL and __SMTP_FROM (docs/watchlists.md \"E-mail\"); nothing was stored",
                )
            }),
        };
    }
    format_of(kind, field).map(|_| ())
}

/// The HTTP format of a channel type.
///
/// # Errors
/// 503 `not_implemented` naming `field` for a type without one.
pub fn format_of(kind: &str, field: &str) -> Result<&'static dyn ChannelFormat, ServiceError> {
    match kind {
        "webhook" => Ok(&webhook::Webhook),
        "wecom" => Ok(&wecom::Wecom),
        "feishu" => Ok(&feishu::Feishu),
        "dingtalk" => Ok(&dingtalk::Dingtalk),
        "telegram" => Ok(&telegram::Telegram),
        other => Err(ServiceError {
            field: Some(field.to_owned()),
            ..ServiceError::new(
                ErrorCode::NotImplemented,
                format!("the {other} channel is not built yet (docs/watchlists.md \"Channels\"); nothing was stored"),
            )
        }),
    }
}

/// How one channel's delivery ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub delivered: bool,
    pub attempts: u32,
    pub last_error: String,
}

/// What deliveries go through: the outbound guard for HTTP targets, the
/// SMTP settings for e-mail, and the retry policy.
pub struct Transport<'a> {
    pub fetcher: &'a GuardedFetcher,
    pub limits: FetchLimits,
    pub retry: RetryPolicy,
    pub settings: &'a WatchSettings,
}

/// Retry policy of a delivery: `retries` more attempts after a transient
/// failure (transport, timeout, 5xx, 429), waiting `backoff × 2^(n-1)`.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub retries: u32,
    pub backoff: Duration,
}

/// Renders and posts the digest to `channel`; every request must be
/// accepted for the channel to count as delivered. The channel's secret
/// never appears in `last_error` (a Telegram token is in its URL).
pub async fn send(transport: &Transport<'_>, channel: &Channel, envelope: &Envelope<'_>, now: DateTime<Utc>) -> Sent {
    let mut sent = if channel.r#type == "email" {
        email::send(transport.settings, transport.retry, channel, envelope).await
    } else {
        send_unredacted(transport.fetcher, &transport.limits, transport.retry, channel, envelope, now).await
    };
    if !channel.secret.is_empty() {
        sent.last_error = sent.last_error.replace(&channel.secret, "***");
    }
    sent
}

async fn send_unredacted(
    fetcher: &GuardedFetcher,
    limits: &FetchLimits,
    retry: RetryPolicy,
    channel: &Channel,
    envelope: &Envelope<'_>,
    now: DateTime<Utc>,
) -> Sent {
    let format = match format_of(&channel.r#type, "type") {
        Ok(format) => format,
        Err(e) => return Sent { delivered: false, attempts: 0, last_error: e.message },
    };
    let requests = match format.render(channel, envelope, now) {
        Ok(requests) => requests,
        Err(e) => return Sent { delivered: false, attempts: 0, last_error: e },
    };
    let mut attempts = 0;
    for request in requests {
        let headers = match header_map(&request.headers) {
            Ok(headers) => headers,
            Err(e) => return Sent { delivered: false, attempts, last_error: e },
        };
        let mut try_no = 0;
        loop {
            attempts += 1;
            try_no += 1;
            let answer = fetcher.post(&request.url, headers.clone(), request.body.clone(), limits).await;
            let failure = match answer {
                Ok(answer) => match format.accepted(&answer.bytes) {
                    Ok(()) => break,
                    Err(e) => return Sent { delivered: false, attempts, last_error: e },
                },
                Err(e) => e,
            };
            if !failure.is_transient() || try_no > retry.retries {
                return Sent { delivered: false, attempts, last_error: failure.to_string() };
            }
            tokio::time::sleep(retry.backoff * 2u32.saturating_pow(try_no - 1)).await;
        }
    }
    Sent { delivered: true, attempts, last_error: String::new() }
}

fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name = HeaderName::try_from(name.as_str()).map_err(|e| format!("header {name}: {e}"))?;
        let value = HeaderValue::try_from(value.as_str()).map_err(|e| format!("header {name}: {e}"))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// HMAC-SHA256 of `message` under `key`: the signature primitive of the
/// webhook, Feishu and DingTalk formats.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    use hmac::{Hmac, Mac};
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}
