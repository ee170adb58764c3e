//! Following a platform's short share link (`v.douyin.com`, `xhslink.com`,
//! `b23.tv`, …) to the address it stands for (spec 4.6
//! `parse-content-detail`; docs/data/tool.md): through the SSRF-guarded
//! [`GuardedFetcher`], redirects bounded by `max_redirects`, each hop
//! checked, no body read. What a link means (platform, work ids) is the
//! operation's (`mediaops-ops` `data_api::share_link`).

use url::Url;

use crate::outbound::{GuardedFetcher, OutboundError};

/// The first address in `link`'s redirects that `is_short` says is no
/// longer a short link; that address is not requested itself. Within the
/// fetcher's own limits (timeout, redirects).
///
/// # Errors
/// [`OutboundError`]: a refused or malformed address, a hop's failure, too
/// many redirects, the timeout.
pub async fn resolve_short(
    fetcher: &GuardedFetcher,
    link: &str,
    is_short: impl Fn(&str) -> bool + Send + Sync,
) -> Result<String, OutboundError> {
    let target = fetcher.follow_until(link, &fetcher.limits(), |url: &Url| !is_short(url.as_str())).await?;
    Ok(target.to_string())
}
