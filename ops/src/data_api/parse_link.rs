//! `tool/parse-content-detail` (spec 4.6; docs/data/tool.md): a share link
//! or a whole share text in, `{platform, source, item{title, authorName,
//! likeCount, shareCount}}` out.
//!
//! 1. The link is taken from the text ([`share_link::link_in`]); none is a
//!    400 naming `url`.
//! 2. A short link (`v.douyin.com`, `xhslink.com`, `b23.tv`, …) is followed
//!    ([`mediaops_connectors::share_link::resolve_short`]: the SSRF-guarded
//!    fetcher, redirects bounded by `max_redirects`, each hop checked, no
//!    body read) until the first address that is not a short link, which
//!    is not requested itself.
//! 3. The platform and work ids are recognized ([`share_link::recognize`]);
//!    a link of no covered platform, or a platform page without a work id,
//!    is a 400 naming `url` and saying what was recognized.
//! 4. The work is looked up in the store by every id form; a miss goes to
//!    the operation's fallback sources, else 404 `not_found`.

use std::sync::Arc;

use mediaops_proto::mediaops::tool::v1 as pb;

use super::share_link::{self, Recognized};
use super::{count, required, store_error};
use mediaops_connectors::outbound::GuardedFetcher;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::ContentStore;

/// `source` of answers from the content store.
pub const SOURCE: &str = "store";

/// What the operation needs: the store and the guarded fetcher for short
/// links.
pub struct LinkParser {
    /// Where the work is looked up by its ids.
    pub store: Arc<dyn ContentStore>,
    /// The guarded client short links are followed through.
    pub fetcher: GuardedFetcher,
}

impl LinkParser {
    /// The work `text` (a link or a share text) points at, from the store.
    ///
    /// # Errors
    /// 400 naming `url` (no link, refused or malformed link, unknown
    /// platform, no work id); 502 when a short link's server fails.
    pub async fn parse(&self, text: &str) -> Result<Answer<pb::ParseContentDetailResponse>, ServiceError> {
        let text = required(text, "url")?;
        let link = share_link::link_in(text)
            .ok_or_else(|| ServiceError::invalid_field("url", format!("url: no http(s) link in {}", excerpt(text))))?;
        let (platform, ids) = self.work_of(&link).await?;
        for id in &ids {
            let Some(record) = self.store.get_work(platform, id).await.map_err(store_error)? else { continue };
            let snapshot = record.latest.unwrap_or_default();
            return Ok(Answer::Found(pb::ParseContentDetailResponse {
                platform: platform.to_owned(),
                source: SOURCE.to_owned(),
                item: Some(pb::ParsedContent {
                    title: record.work.title,
                    author_name: record.author.map(|a| a.nickname).unwrap_or_default(),
                    like_count: count(snapshot.likes),
                    share_count: count(snapshot.shares),
                }),
            }));
        }
        Ok(Answer::NotFound(format!("no {platform} work with id {} is in the store", ids.join(" / "))))
    }

    /// The platform and work ids of `link`, following it first when it is
    /// a short link (once: where it leads must be a full link).
    async fn work_of(&self, link: &str) -> Result<(&'static str, Vec<String>), ServiceError> {
        let mut current = link.to_owned();
        for followed in [false, true] {
            match share_link::recognize(&current) {
                Recognized::Work { platform, ids } => return Ok((platform, ids)),
                Recognized::Short { platform } if !followed => {
                    let is_short = |url: &str| matches!(share_link::recognize(url), Recognized::Short { .. });
                    current = mediaops_connectors::share_link::resolve_short(&self.fetcher, &current, is_short)
                        .await
                        .map_err(|e| e.to_service_error(&format!("the {platform} short link"), Some("url")))?;
                }
                Recognized::Short { platform } => {
                    return Err(ServiceError::invalid_field(
                        "url",
                        format!("url: the {platform} short link {link:?} leads to {current:?}, not to a work"),
                    ));
                }
                Recognized::NoWork { platform, looked_for } => {
                    let via = if followed { format!(" (reached from {link:?})") } else { String::new() };
                    return Err(ServiceError::invalid_field(
                        "url",
                        format!(
                            "url: {current:?}{via} is a {platform} link without a work id; work links look like {looked_for}"
                        ),
                    ));
                }
                Recognized::Unknown { host } => {
                    let covered = share_link::platforms().collect::<Vec<_>>().join(", ");
                    let what = if host.is_empty() { "is not a link".to_owned() } else { format!("is on {host}") };
                    return Err(ServiceError::invalid_field(
                        "url",
                        format!("url: {current:?} {what}, which is no platform this service covers ({covered})"),
                    ));
                }
            }
        }
        unreachable!("the second pass returns")
    }
}
