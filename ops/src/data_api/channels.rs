//! channels data operations answered from the store (spec 4.9):
//! `search-work`, `search-user`, `query-work`, `user-works`. Works are
//! keyed by the encrypted `videoId` (the work's `video_id`, else its
//! `platform_id`); accounts by `uid` and, for `user-works`, by their exact
//! nickname. The AI feed lives elsewhere.
//!
//! Field sources (docs/data/channels.md): `description` is the work's
//! description, else its title; `nickname` is the stored author's;
//! `likeCount`/`favCount`/`commentCount`/`forwardCount` are the newest
//! snapshot's likes/collects/comments/shares (unknown = 0); `headUrl` is the
//! account's avatar. The store keeps no profile cover for accounts, so
//! `coverImgUrl` is always `""`.

use std::sync::Arc;

use mediaops_proto::mediaops::channels::v1 as pb;

use super::paging::PageRequest;
use super::{DataApi, author_works_query, count, keyword, list, required, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::{AccountOrder, AccountRecord, WorkQuery, WorkRecord};
use mediaops_store::rules::times::format_time;

/// The platform token.
pub const PLATFORM: &str = "channels";

/// The one place a stored work becomes a channels work item (`search-work`,
/// `user-works`, and the base of `query-work`).
fn work_item(record: WorkRecord) -> pb::ChannelsWorkItem {
    let s = record.latest.unwrap_or_default();
    let w = record.work;
    pb::ChannelsWorkItem {
        description: w.description.filter(|d| !d.trim().is_empty()).unwrap_or(w.title),
        nickname: record.author.map(|a| a.nickname).unwrap_or_default(),
        like_count: count(s.likes),
        fav_count: count(s.collects),
        comment_count: count(s.comments),
        forward_count: count(s.shares),
        publish_time: format_time(w.published_at),
        video_id: w.ids.video_id.unwrap_or(w.platform_id),
        cover_url: w.cover.unwrap_or_default(),
        video_url: w.video_url.unwrap_or_default(),
    }
}

/// One page of works as list items, with the total of all matches
/// ([`keyword::shown_total`]).
async fn work_page(
    api: &DataApi,
    ctx: &CallContext,
    query: &WorkQuery,
) -> Result<(Vec<pb::ChannelsWorkItem>, i64), ServiceError> {
    let found = api.store.find_works(query).await.map_err(store_error)?;
    let total = keyword::shown_total(ctx, found.total, found.total_is_lower_bound);
    Ok((found.items.into_iter().map(work_item).collect(), total))
}

/// A duration in seconds as `videoDuration` shows it: `MM:SS` under an
/// hour (`95` → `01:35`), `H:MM:SS` from an hour on (`3725` → `1:02:05`);
/// unknown (or negative) is `""`.
pub fn duration_text(seconds: Option<i64>) -> String {
    match seconds {
        Some(s) if s >= 3600 => format!("{}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60),
        Some(s) if s >= 0 => format!("{:02}:{:02}", s / 60, s % 60),
        _ => String::new(),
    }
}

/// `search-work`: `{items[ChannelsWorkItem], total}` for `keyword`, by
/// relevance; `size` default 20, max 50 (spec 8).
pub async fn search_work(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::SearchWorkRequest,
) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?;
    let page = PageRequest::new(req.page, "page", req.size, "size")?;
    let query = keyword::works_query(PLATFORM, keyword, page)?;
    let (items, total) = work_page(&api, &ctx, &query).await?;
    let empty = items.is_empty();
    Ok(list(pb::SearchWorkResponse { items, total }, empty))
}

/// `search-user`: `{items[{nickname, signature, uid, headUrl,
/// coverImgUrl}], total}` for `accountName` over nickname (weighted),
/// signature and category, by relevance then fans. `uid` is the account's
/// `uid`, else its `platform_id`; `coverImgUrl` is `""` (not stored).
pub async fn search_user(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::SearchUserRequest,
) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
    let page = PageRequest::new(req.page, "page", req.page_size, "pageSize")?;
    let search = (req.account_name.as_str(), "accountName");
    let found = keyword::account_items(&api, PLATFORM, search, (page, AccountOrder::Relevance), user_item).await?;
    Ok(keyword::list_with_total(&ctx, found, |items, total| pb::SearchUserResponse { items, total }))
}

/// A `search-user` item: `uid` is the stored `uid`, else the `platform_id`.
fn user_item(record: AccountRecord) -> pb::ChannelsUserItem {
    let a = record.account;
    pb::ChannelsUserItem {
        nickname: a.nickname,
        signature: a.signature.unwrap_or_default(),
        uid: a.ids.uid.unwrap_or(a.platform_id),
        head_url: a.avatar.unwrap_or_default(),
        cover_img_url: String::new(),
    }
}

/// `query-work`: the work `videoId` (encrypted id; `platform_id` or any id
/// form), flat, with `videoDuration` per [`duration_text`]; a miss is 404.
pub async fn query_work(
    api: Arc<DataApi>,
    req: pb::QueryWorkRequest,
) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
    let video_id = required(&req.video_id, "videoId")?;
    let Some(record) = api.store.get_work(PLATFORM, video_id).await.map_err(store_error)? else {
        return Ok(Answer::NotFound(format!("no channels work with videoId {video_id}")));
    };
    let video_duration = duration_text(record.work.duration_secs);
    let item = work_item(record);
    Ok(Answer::Found(pb::QueryWorkResponse {
        description: item.description,
        nickname: item.nickname,
        like_count: item.like_count,
        fav_count: item.fav_count,
        comment_count: item.comment_count,
        forward_count: item.forward_count,
        publish_time: item.publish_time,
        video_duration,
        cover_url: item.cover_url,
        video_url: item.video_url,
    }))
}

/// `user-works`: `{items[ChannelsWorkItem], total}` of the account whose
/// nickname is exactly `nickname` (case-sensitive, surrounding blanks
/// ignored), newest first, 20 per page. No such account is an empty list
/// (never a near match); when several stored accounts share the nickname,
/// the one with the most fans is listed.
pub async fn user_works(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::UserWorksRequest,
) -> Result<Answer<pb::UserWorksResponse>, ServiceError> {
    let nickname = required(&req.nickname, "nickname")?;
    let page = PageRequest::page(req.page, "page")?;
    let Some(author) = keyword::account_named(&api, PLATFORM, nickname).await? else {
        return Ok(list(pb::UserWorksResponse { items: Vec::new(), total: 0 }, true));
    };
    let query = author_works_query(PLATFORM, author.account.platform_id, page);
    let (items, total) = work_page(&api, &ctx, &query).await?;
    let empty = items.is_empty();
    Ok(list(pb::UserWorksResponse { items, total }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_clock_text() {
        assert_eq!(duration_text(Some(95)), "01:35");
        assert_eq!(duration_text(Some(0)), "00:00");
        assert_eq!(duration_text(Some(3599)), "59:59");
        assert_eq!(duration_text(Some(3725)), "1:02:05");
        assert_eq!(duration_text(None), "");
        assert_eq!(duration_text(Some(-3)), "");
    }
}
