//! microblog data operations answered from the store (spec 4.13 names
//! them; the shapes are ours): `search` and `detail`. Posts are works keyed
//! by their numeric post id (`platform_id` = `work_id`, the mid); authors
//! are accounts keyed by `uid`. `detail` also takes a post link, whose
//! base62 post code (`https://weibo.com/<uid>/<code>`) is turned into the
//! mid (docs/data/microblog.md).

use std::sync::Arc;

use mediaops_proto::mediaops::microblog::v1 as pb;

use super::keyword;
use super::paging::PageRequest;
use super::{DataApi, count, list, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::model::WorkRecord;
use mediaops_store::rules::times::format_time;

/// The platform token.
pub const PLATFORM: &str = "microblog";

/// One post as both operations answer it: `text` is the stored description
/// (the full post) when there is one, else the title; `repostCount` is the
/// newest snapshot's shares; `url` is the stored link or "".
fn post(record: WorkRecord) -> pb::MicroblogPost {
    let s = record.latest.unwrap_or_default();
    let w = record.work;
    let text = w.description.filter(|d| !d.trim().is_empty()).unwrap_or(w.title);
    pb::MicroblogPost {
        post_id: w.ids.work_id.unwrap_or(w.platform_id),
        text,
        author_name: record.author.map(|a| a.nickname).unwrap_or_default(),
        author_id: w.author_id.unwrap_or_default(),
        like_count: count(s.likes),
        repost_count: count(s.shares),
        comment_count: count(s.comments),
        publish_time: format_time(w.published_at),
        url: w.url.unwrap_or_default(),
    }
}

/// `search`: posts holding every term of `keyword`, by relevance, 20 a
/// page, with the total: `{items[post], total}`.
pub async fn search(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::SearchRequest,
) -> Result<Answer<pb::SearchResponse>, ServiceError> {
    let query = keyword::works_query(PLATFORM, &req.keyword, PageRequest::page(req.page, "page")?)?;
    let found = keyword::works(&api, &query).await?;
    let items: Vec<pb::MicroblogPost> = found.items.into_iter().map(post).collect();
    let empty = items.is_empty();
    Ok(list(
        pb::SearchResponse { items, total: keyword::shown_total(&ctx, found.total, found.total_is_lower_bound) },
        empty,
    ))
}

/// base62 digits of post codes.
const BASE62: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The numeric post id (mid) of a base62 post code (`z0JH2lOMb` →
/// `3501756485200075`): the code is cut into 4-character groups from the
/// right, each group is a base62 number written as 7 decimal digits (the
/// leftmost without padding). `None` when `code` is not base62.
pub fn mid_of_code(code: &str) -> Option<String> {
    if code.is_empty() || !code.is_ascii() {
        return None;
    }
    let bytes = code.as_bytes();
    let first = bytes.len() % 4;
    let mut groups: Vec<&[u8]> = Vec::new();
    if first > 0 {
        groups.push(&bytes[..first]);
    }
    groups.extend(bytes[first..].chunks(4));
    let mut mid = String::new();
    for (i, group) in groups.iter().enumerate() {
        let mut value: u64 = 0;
        for digit in *group {
            value = value * 62 + BASE62.iter().position(|d| d == digit)? as u64;
        }
        if i == 0 {
            mid.push_str(&value.to_string());
        } else {
            mid.push_str(&format!("{value:07}"));
        }
    }
    Some(mid.trim_start_matches('0').to_owned()).filter(|m| !m.is_empty())
}

/// The post a link points at: the last of at least two path segments of a
/// `weibo.com` / `weibo.cn` link (`https://weibo.com/<uid>/<code>`,
/// `https://m.weibo.cn/detail/<mid>`, `https://m.weibo.cn/status/<code>`).
/// 400 naming `url` for any other link.
pub fn post_of_url(url: &str) -> Result<String, ServiceError> {
    let invalid = || ServiceError::invalid_field("url", format!("url {} is not a microblog post link", excerpt(url)));
    let rest = url.trim().split_once("://").map_or(url.trim(), |(_, rest)| rest);
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    let [host, path @ ..] = parts.as_slice() else { return Err(invalid()) };
    let host = host.to_ascii_lowercase();
    let host_ok = ["weibo.com", "weibo.cn"].iter().any(|h| host == *h || host.ends_with(&format!(".{h}")));
    match path {
        [.., _, last] if host_ok && last.chars().all(|c| c.is_ascii_alphanumeric()) => Ok((*last).to_owned()),
        _ => Err(invalid()),
    }
}

/// `detail`: one post by `postId` (a mid or a post code) or, when that is
/// empty, by `url`; `{item: post}`. Neither given is a 400 naming
/// `postId`; a post the store lacks is a 404.
pub async fn detail(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::DetailRequest,
) -> Result<Answer<pb::DetailResponse>, ServiceError> {
    let id = match (req.post_id.trim(), req.url.trim()) {
        ("", "") => return Err(ServiceError::invalid_field("postId", "give postId or url")),
        ("", url) => post_of_url(url)?,
        (id, _) => id.to_owned(),
    };
    let mut candidates = vec![id.clone()];
    if !id.chars().all(|c| c.is_ascii_digit())
        && let Some(mid) = mid_of_code(&id)
    {
        candidates.push(mid);
    }
    for candidate in &candidates {
        if let Some(record) = api.store.get_work(PLATFORM, candidate).await.map_err(store_error)? {
            return Ok(Answer::Found(pb::DetailResponse { item: Some(post(record)) }));
        }
    }
    Ok(Answer::NotFound(format!("no microblog post {id}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_codes_and_links_give_the_mid() {
        assert_eq!(mid_of_code("z0JH2lOMb").as_deref(), Some("3501756485200075"));
        assert_eq!(mid_of_code("z0J-2lOMb"), None);
        assert_eq!(post_of_url("https://weibo.com/2803301701/z0JH2lOMb?from=page").unwrap(), "z0JH2lOMb");
        assert_eq!(post_of_url("https://m.weibo.cn/detail/3501756485200075").unwrap(), "3501756485200075");
        assert_eq!(post_of_url("https://example.com/a/b").unwrap_err().field.as_deref(), Some("url"));
        assert_eq!(post_of_url("https://weibo.com/").unwrap_err().field.as_deref(), Some("url"));
        assert_eq!(post_of_url("https://weibo.com/2803301701").unwrap_err().field.as_deref(), Some("url"));
    }
}
