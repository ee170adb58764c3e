//! E-mail over SMTP (docs/watchlists.md "E-mail"), with `lettre`: one
//! message per digest to the channel's `to` addresses, a plain-text and an
//! HTML part, `Message-ID` derived from the digest id (a retried digest
//! keeps it). The SMTP server is the operator's (`[watchlists] smtp_url`,
//! `smtp_from`), like a configured connector: `smtps://user:pass@host:465`,
//! `smtp://host:587?tls=required` (STARTTLS) or `smtp://host:25` (plain,
//! for a local relay). Without it, an e-mail channel is refused with 503
//! `not_configured`. Transient SMTP failures (4xx, connection) are retried
//! as HTTP channels are.

use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use mediaops_proto::mediaops::watch::v1::Channel;

use super::text::{Markup, Measure, messages};
use super::{Envelope, NotifyError, RetryPolicy, Sent, Smtp};

/// The mail of a digest.
///
/// # Errors
/// [`NotifyError::Address`] for a bad `from` or recipient address;
/// [`NotifyError::Smtp`] when the message cannot be built.
pub fn message(from: &str, channel: &Channel, envelope: &Envelope<'_>) -> Result<Message, NotifyError> {
    let address = |what, address: &str, e: lettre::address::AddressError| NotifyError::Address {
        what,
        address: address.to_owned(),
        reason: e.to_string(),
    };
    let from: Mailbox = from.parse().map_err(|e| address("smtp_from", from, e))?;
    let mut builder = Message::builder()
        .from(from)
        .subject(format!("{}：{} 条新热点", envelope.watchlist_name, envelope.digest.items.len()))
        .message_id(Some(format!("<{}@mediaops>", envelope.digest_id.replace(':', "."))));
    for to in &channel.to {
        builder = builder.to(to.parse().map_err(|e| address("recipient", to, e))?);
    }
    let text = messages(envelope, Markup::Markdown, Measure::Chars, usize::MAX).join("\n");
    let html = messages(envelope, Markup::Html, Measure::Chars, usize::MAX).join("<br>").replace('\n', "<br>\n");
    builder.multipart(MultiPart::alternative_plain_html(text, html)).map_err(|e| NotifyError::Smtp(e.to_string()))
}

/// Sends the digest's mail through the configured SMTP server.
pub async fn send(smtp: Smtp<'_>, retry: RetryPolicy, channel: &Channel, envelope: &Envelope<'_>) -> Sent {
    let Some(url) = smtp.url else {
        return Sent::failed(0, &NotifyError::NoSmtp);
    };
    let mail = match message(smtp.from, channel, envelope) {
        Ok(mail) => mail,
        Err(e) => return Sent::failed(0, &e),
    };
    let transport = match AsyncSmtpTransport::<Tokio1Executor>::from_url(url) {
        Ok(builder) => builder.timeout(Some(std::time::Duration::from_secs(30))).build(),
        Err(e) => return Sent::failed(0, &NotifyError::Smtp(format!("smtp_url: {e}"))),
    };
    let mut attempts = 0;
    loop {
        attempts += 1;
        match transport.send(mail.clone()).await {
            Ok(_) => return Sent { delivered: true, attempts, last_error: String::new() },
            Err(e) if e.is_permanent() || attempts > retry.retries => {
                return Sent::failed(attempts, &NotifyError::Smtp(e.to_string()));
            }
            Err(_) => tokio::time::sleep(retry.backoff * 2u32.saturating_pow(attempts - 1)).await,
        }
    }
}
