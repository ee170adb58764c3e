//! Ids given as platform links (docs/data/*.md "Link forms"): a request
//! field that takes an id usually also takes the page link holding it, e.g.
//! `https://www.douyin.com/user/<sec_uid>?from=…`. These helpers read such
//! links without fetching anything; a short link that only a redirect would
//! resolve (`https://v.douyin.com/…`) is a 400 naming the field.

use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

/// A link's host (lower-cased, without port) and path segments (query and
/// fragment removed, empty segments skipped); `None` when `input` is not
/// shaped like an `http(s)` link or a bare `host/path`.
fn host_and_segments(input: &str) -> Option<(String, Vec<&str>)> {
    let rest = input.split_once("://").map_or(input, |(scheme, rest)| {
        if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") { rest } else { "" }
    });
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.split(':').next().unwrap_or_default().to_ascii_lowercase();
    if host.is_empty() || !host.contains('.') {
        return None;
    }
    Some((host, path.split('/').filter(|s| !s.is_empty()).collect()))
}

/// Whether `host` is `domain` or one of its subdomains.
fn on_domain(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|prefix| prefix.ends_with('.'))
}

/// The path segment right after the segments `marker` (e.g. `["user",
/// "profile"]`) in a link on `domain` or a subdomain; `None` when the link
/// is elsewhere or has no such segment.
pub fn segment_after<'a>(link: &'a str, domain: &str, marker: &[&str]) -> Option<&'a str> {
    let (host, segments) = host_and_segments(link)?;
    if !on_domain(&host, domain) || marker.is_empty() {
        return None;
    }
    segments.windows(marker.len() + 1).find(|w| w[..marker.len()] == *marker).map(|w| w[marker.len()])
}

/// The value of the query parameter `name` in a link on `domain` (e.g.
/// `modal_id` in `https://www.douyin.com/discover?modal_id=73…`).
pub fn query_param<'a>(link: &'a str, domain: &str, name: &str) -> Option<&'a str> {
    let (host, _) = host_and_segments(link)?;
    if !on_domain(&host, domain) {
        return None;
    }
    let query = link.split_once('?')?.1.split('#').next().unwrap_or_default();
    query.split('&').find_map(|pair| pair.split_once('=').filter(|(k, _)| *k == name).map(|(_, v)| v))
}

/// A required id field that may also be a link: text without `/` is the id
/// itself (trimmed); a link goes through `extract`, and a link it finds
/// nothing in is a 400 naming `field` that says `what` was looked for. Either
/// follows [`mediaops_platform::fields::identifier`] (one line, no control character, at
/// most [`mediaops_platform::fields::MAX_ID_CHARS`] characters).
pub fn id_or_link(
    input: &str,
    field: &str,
    what: &str,
    extract: impl Fn(&str) -> Option<&str>,
) -> Result<String, ServiceError> {
    let input = mediaops_platform::fields::identifier(input, field, mediaops_platform::fields::MAX_ID_CHARS)?;
    if !input.contains('/') {
        return Ok(input.to_owned());
    }
    extract(input)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| ServiceError::invalid_field(field, format!("{field}: no {what} in the link {}", excerpt(input))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_params_are_read_from_links_on_the_right_domain() {
        let link = "https://www.douyin.com/user/MS4wLjABAAAA-x_Y?from_tab_name=main#top";
        assert_eq!(segment_after(link, "douyin.com", &["user"]), Some("MS4wLjABAAAA-x_Y"));
        assert_eq!(segment_after(link, "douyin.com", &["video"]), None);
        assert_eq!(segment_after(link, "notdouyin.com", &["user"]), None);
        assert_eq!(segment_after("https://evildouyin.com/user/x", "douyin.com", &["user"]), None);
        assert_eq!(segment_after("douyin.com/user/abc", "douyin.com", &["user"]), Some("abc"));
        let profile = "https://www.xiaohongshu.com/user/profile/5f1e2d3c4b5a000001?xsec=1";
        assert_eq!(segment_after(profile, "xiaohongshu.com", &["user", "profile"]), Some("5f1e2d3c4b5a000001"));
        assert_eq!(segment_after("ftp://douyin.com/user/abc", "douyin.com", &["user"]), None);
        let modal = "https://www.douyin.com/discover?modal_id=7301234567890123456&x=1";
        assert_eq!(query_param(modal, "douyin.com", "modal_id"), Some("7301234567890123456"));
        assert_eq!(query_param(modal, "douyin.com", "vid"), None);
        fn pick(link: &str) -> Option<&str> {
            segment_after(link, "douyin.com", &["user"])
        }
        assert_eq!(id_or_link(" abc ", "secUid", "sec_uid", pick).unwrap(), "abc");
        assert_eq!(id_or_link(link, "secUid", "sec_uid", pick).unwrap(), "MS4wLjABAAAA-x_Y");
        let err = id_or_link("https://v.douyin.com/iRNBho6/", "secUid", "sec_uid", pick).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("secUid"));
        assert_eq!(id_or_link("  ", "secUid", "sec_uid", pick).unwrap_err().field.as_deref(), Some("secUid"));
    }
}
