//! Notification channels (docs/watchlists.md "Channels"): one
//! [`ChannelFormat`] per target turns a watch list's [`Digest`] into the
//! HTTP requests its official format asks for; [`send`] posts them through
//! the outbound layer's guard ([`crate::outbound::GuardedFetcher::post`]:
//! SSRF checks, timeouts) with bounded retries and backoff.
//!
//! Built: the generic webhook ([`webhook`]), the WeCom group robot
//! ([`wecom`]), the Feishu custom bot ([`feishu`]), the DingTalk custom
//! robot ([`dingtalk`]) and Telegram ([`telegram`]), each a
//! [`ChannelFormat`]; e-mail goes over SMTP ([`email`]) through the
//! operator's server ([`Smtp`]). Why a delivery failed is a
//! [`NotifyError`]; the delivery log keeps its text ([`Sent::last_error`]).

pub mod digest;
pub mod dingtalk;
pub mod email;
pub mod feishu;
pub mod secret;
pub mod telegram;
pub mod text;
pub mod webhook;
pub mod wecom;

use std::time::Duration;

use chrono::{DateTime, Utc};
use mediaops_proto::closed_sets::WatchChannel;
use mediaops_proto::mediaops::watch::v1::Channel;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::outbound::{FetchLimits, GuardedFetcher, OutboundError};
pub use digest::{Digest, DigestItem};

/// Why a digest was not delivered to a channel.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// A request body did not serialize (a bug).
    #[error("the body does not serialize: {0}")]
    Encode(#[from] serde_json::Error),
    /// A header name or value the HTTP stack refuses.
    #[error("header {name}: {reason}")]
    Header {
        /// The header's name.
        name: String,
        /// What the HTTP stack said.
        reason: String,
    },
    /// The target's answer is not the JSON its format documents.
    #[error("the answer is not JSON: {0}")]
    NotJson(serde_json::Error),
    /// A robot answered 200 with a failure code in its body
    /// (`{"errcode": 93000, "errmsg": …}`, Telegram's `{"ok": false}`).
    #[error("{code}: {message}")]
    Refused {
        /// The code's key and value (`errcode 93000`), or the target's name.
        code: String,
        /// The robot's message.
        message: String,
    },
    /// A robot's answer without the code its format documents.
    #[error("the answer has no {0}")]
    NoCode(String),
    /// The HTTP request failed (transport, timeout, refused address, non-2xx).
    #[error(transparent)]
    Outbound(#[from] OutboundError),
    /// A bad mail address: the `smtp_from` setting (`what` = `smtp_from`) or a
    /// channel's recipient.
    #[error("{what} {address:?}: {reason}")]
    Address {
        /// `smtp_from` or `recipient`.
        what: &'static str,
        /// The address as given.
        address: String,
        /// What the parser said.
        reason: String,
    },
    /// No SMTP server is configured (`[watchlists] smtp_url`).
    #[error("no SMTP server is configured (watchlists.smtp_url)")]
    NoSmtp,
    /// The mail could not be built or the SMTP server refused it.
    #[error("{0}")]
    Smtp(String),
    /// The channel's `type` is none of [`WatchChannel`] (a watch list
    /// saved before its type was refused).
    #[error("{0:?} is no channel type (docs/watchlists.md \"Channels\")")]
    UnknownKind(String),
}

/// One HTTP POST a channel sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The target's address (with its query: a robot's key, a signature).
    pub url: String,
    /// `(name, value)` pairs, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body's bytes (JSON for every built format).
    pub body: Vec<u8>,
}

impl Outgoing {
    /// A JSON POST to `url`.
    ///
    /// # Errors
    /// [`NotifyError::Encode`]: the body does not serialize (a bug).
    pub fn json(url: &str, body: &serde_json::Value) -> Result<Outgoing, NotifyError> {
        Ok(Outgoing {
            url: url.to_owned(),
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: serde_json::to_vec(body)?,
        })
    }
}

/// A robot's `{"<code>": 0, "<message>": …}` answer: `Ok` for code 0.
///
/// # Errors
/// [`NotifyError::Refused`] for another code (with the robot's message),
/// [`NotifyError::NoCode`] without one, [`NotifyError::NotJson`].
pub fn errcode_zero(body: &[u8], code: &str, message: &str) -> Result<(), NotifyError> {
    let answer: serde_json::Value = serde_json::from_slice(body).map_err(NotifyError::NotJson)?;
    match answer.get(code).and_then(serde_json::Value::as_i64) {
        Some(0) => Ok(()),
        Some(other) => Err(NotifyError::Refused {
            code: format!("{code} {other}"),
            message: answer[message].as_str().unwrap_or_default().to_owned(),
        }),
        None => Err(NotifyError::NoCode(code.to_owned())),
    }
}

/// What a channel sends for a digest.
pub struct Envelope<'a> {
    /// The watch list's id.
    pub watchlist_id: &'a str,
    /// The watch list's name (titles and subjects).
    pub watchlist_name: &'a str,
    /// `<watchlist id>:<run time in Unix ms>`: the idempotency key.
    pub digest_id: &'a str,
    /// When the run happened (the service clock).
    pub run_at: DateTime<Utc>,
    /// What the run found.
    pub digest: &'a Digest,
}

/// A target's message format.
pub trait ChannelFormat: Send + Sync {
    /// The requests carrying the digest, in order (a long digest may be
    /// split); `now` stamps the signatures that carry a time.
    ///
    /// # Errors
    /// Why the digest cannot be sent ([`NotifyError::Encode`]).
    fn render(
        &self,
        channel: &Channel,
        envelope: &Envelope<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Outgoing>, NotifyError>;

    /// Whether a 2xx answer means delivered: robots answer 200 with an
    /// error code in the body.
    ///
    /// # Errors
    /// What the target said ([`NotifyError::Refused`], …).
    fn accepted(&self, _body: &[u8]) -> Result<(), NotifyError> {
        Ok(())
    }
}

/// The HTTP format of a channel kind; `None` for e-mail, which goes over
/// SMTP ([`email`]).
pub fn format_of(kind: WatchChannel) -> Option<&'static dyn ChannelFormat> {
    match kind {
        WatchChannel::Webhook => Some(&webhook::Webhook),
        WatchChannel::Wecom => Some(&wecom::Wecom),
        WatchChannel::Feishu => Some(&feishu::Feishu),
        WatchChannel::Dingtalk => Some(&dingtalk::Dingtalk),
        WatchChannel::Telegram => Some(&telegram::Telegram),
        WatchChannel::Email => None,
    }
}

/// How one channel's delivery ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// Whether every request was accepted.
    pub delivered: bool,
    /// HTTP requests (or SMTP sends) made, retries included.
    pub attempts: u32,
    /// Why the last attempt failed (a [`NotifyError`]'s text, the channel's
    /// secret masked); empty when delivered.
    pub last_error: String,
}

impl Sent {
    fn failed(attempts: u32, error: &NotifyError) -> Sent {
        Sent { delivered: false, attempts, last_error: error.to_string() }
    }
}

/// The operator's SMTP server for e-mail channels (`[watchlists] smtp_url`,
/// `smtp_from`; docs/watchlists.md "E-mail").
#[derive(Debug, Clone, Copy)]
pub struct Smtp<'a> {
    /// `smtps://user:pass@host:465`, `smtp://host:587?tls=required` or
    /// `smtp://host:25`; `None` when no server is configured.
    pub url: Option<&'a str>,
    /// The `From` mailbox (`mediaops <watch@localhost>`).
    pub from: &'a str,
}

/// What deliveries go through: the outbound guard for HTTP targets, the
/// SMTP server for e-mail, and the retry policy.
pub struct Transport<'a> {
    /// The guarded client every HTTP target is posted through.
    pub fetcher: &'a GuardedFetcher,
    /// Timeouts and sizes of one request.
    pub limits: FetchLimits,
    /// Retries after a transient failure.
    pub retry: RetryPolicy,
    /// The SMTP server of e-mail channels.
    pub smtp: Smtp<'a>,
}

/// Retry policy of a delivery: `retries` more attempts after a transient
/// failure (transport, timeout, 5xx, 429), waiting `backoff × 2^(n-1)`.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub retries: u32,
    /// The first wait; each next one doubles.
    pub backoff: Duration,
}

/// Renders and posts the digest to `channel`; every request must be
/// accepted for the channel to count as delivered. The channel's secret
/// never appears in `last_error` (a Telegram token is in its URL).
pub async fn send(transport: &Transport<'_>, channel: &Channel, envelope: &Envelope<'_>, now: DateTime<Utc>) -> Sent {
    let mut sent = match WatchChannel::parse(&channel.r#type) {
        None => Sent::failed(0, &NotifyError::UnknownKind(channel.r#type.clone())),
        Some(kind) => match format_of(kind) {
            None => email::send(transport.smtp, transport.retry, channel, envelope).await,
            Some(format) => send_http(format, transport, channel, envelope, now).await,
        },
    };
    if !channel.secret.is_empty() {
        sent.last_error = sent.last_error.replace(&channel.secret, "***");
    }
    sent
}

/// Posts the digest in `format` (secrets not masked yet: [`send`] does it).
async fn send_http(
    format: &dyn ChannelFormat,
    transport: &Transport<'_>,
    channel: &Channel,
    envelope: &Envelope<'_>,
    now: DateTime<Utc>,
) -> Sent {
    let (fetcher, limits, retry) = (transport.fetcher, &transport.limits, transport.retry);
    let requests = match format.render(channel, envelope, now) {
        Ok(requests) => requests,
        Err(e) => return Sent::failed(0, &e),
    };
    let mut attempts = 0;
    for request in requests {
        let headers = match header_map(&request.headers) {
            Ok(headers) => headers,
            Err(e) => return Sent::failed(attempts, &e),
        };
        let mut try_no = 0;
        loop {
            attempts += 1;
            try_no += 1;
            let answer = fetcher.post(&request.url, headers.clone(), request.body.clone(), limits).await;
            let failure = match answer {
                Ok(answer) => match format.accepted(&answer.bytes) {
                    Ok(()) => break,
                    Err(e) => return Sent::failed(attempts, &e),
                },
                Err(e) => e,
            };
            if !failure.is_transient() || try_no > retry.retries {
                return Sent::failed(attempts, &NotifyError::Outbound(failure));
            }
            tokio::time::sleep(retry.backoff * 2u32.saturating_pow(try_no - 1)).await;
        }
    }
    Sent { delivered: true, attempts, last_error: String::new() }
}

fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, NotifyError> {
    let refused = |name: &str, reason: String| NotifyError::Header { name: name.to_owned(), reason };
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let header = HeaderName::try_from(name.as_str()).map_err(|e| refused(name, e.to_string()))?;
        let value = HeaderValue::try_from(value.as_str()).map_err(|e| refused(name, e.to_string()))?;
        map.insert(header, value);
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
