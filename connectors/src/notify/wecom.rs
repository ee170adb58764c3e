//! WeCom (企业微信) group robot (docs/watchlists.md "WeCom"): POST the
//! robot's webhook URL `{"msgtype":"markdown","markdown":{"content":…}}`;
//! the content is at most 4096 UTF-8 bytes, so a long digest is split. The
//! robot answers 200 `{"errcode":0,"errmsg":"ok"}`; another `errcode` is a
//! failure.

use chrono::{DateTime, Utc};
use mediaops_proto::mediaops::watch::v1::Channel;
use serde_json::json;

use super::text::{Markup, Measure, messages};
use super::{ChannelFormat, Envelope, NotifyError, Outgoing, errcode_zero};

/// WeCom's markdown limit, in bytes.
pub const LIMIT_BYTES: usize = 4096;

/// The WeCom group robot format.
pub struct Wecom;

impl ChannelFormat for Wecom {
    fn render(
        &self,
        channel: &Channel,
        envelope: &Envelope<'_>,
        _now: DateTime<Utc>,
    ) -> Result<Vec<Outgoing>, NotifyError> {
        messages(envelope, Markup::Markdown, Measure::Bytes, LIMIT_BYTES)
            .into_iter()
            .map(|content| {
                Outgoing::json(&channel.url, &json!({"msgtype": "markdown", "markdown": {"content": content}}))
            })
            .collect()
    }

    fn accepted(&self, body: &[u8]) -> Result<(), NotifyError> {
        errcode_zero(body, "errcode", "errmsg")
    }
}
