//! clipapp data operations answered from the store (spec 4.10):
//! `search-work`, `search-user`, `query-work`, `user-works`. Works are
//! keyed by the encrypted `photoId` (the work's `photo_id`, else its
//! `platform_id`); accounts by `kwaiId` (the account's `kwai_id`; its
//! `platform_id`, the user id, is accepted too). The AI feed lives
//! elsewhere.
//!
//! Field sources (docs/data/clipapp.md): `caption` is the work's
//! description, else its title; `nickname`/`authorFans` are the stored
//! author's nickname and fans; `likeCount`/`commentCount`/`viewCount` are
//! the newest snapshot's likes/comments/views (unknown = 0); `headUrl` is
//! the account's avatar. The store keeps no profile cover for accounts, so
//! `coverImgUrl` is always `""`. Work lists carry no total (spec 4.10):
//! page until an empty list.

use std::sync::Arc;

use mediaops_proto::mediaops::clipapp::v1 as pb;

use super::choice::choose;
use super::paging::PageRequest;
use super::{DataApi, author_works_query, count, keyword, list, required, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::{AccountOrder, AccountRecord, WorkOrder, WorkQuery, WorkRecord};
use mediaops_store::rules::times::format_time;

/// The platform token.
pub const PLATFORM: &str = "clipapp";

/// The `sort` values of `search-work` (spec 4.10's select): empty or
/// `综合` = relevance, `最新` = newest, `最多点赞` = most likes, `最多收藏` =
/// most collects; anything else is a 400 naming `sort`.
fn sort_order(sort: &str) -> Result<WorkOrder, ServiceError> {
    choose(
        sort,
        "sort",
        &[
            ("", WorkOrder::Relevance),
            ("综合", WorkOrder::Relevance),
            ("最新", WorkOrder::Newest),
            ("最多点赞", WorkOrder::Likes),
            ("最多收藏", WorkOrder::Collects),
        ],
    )
}

/// The one place a stored work becomes a clipapp work item (`search-work`,
/// `user-works`, and the base of `query-work`).
fn work_item(record: WorkRecord) -> pb::ClipWorkItem {
    let s = record.latest.unwrap_or_default();
    let w = record.work;
    let author = record.author.unwrap_or_default();
    pb::ClipWorkItem {
        caption: w.description.filter(|d| !d.trim().is_empty()).unwrap_or(w.title),
        nickname: author.nickname,
        author_fans: count(author.fans),
        like_count: count(s.likes),
        comment_count: count(s.comments),
        view_count: count(s.views),
        publish_time: format_time(w.published_at),
        photo_id: w.ids.photo_id.unwrap_or(w.platform_id),
        cover_url: w.cover.unwrap_or_default(),
        video_url: w.video_url.unwrap_or_default(),
    }
}

/// One page of works as list items (no total: spec 4.10, so not counted).
async fn work_page(api: &DataApi, query: WorkQuery) -> Result<Vec<pb::ClipWorkItem>, ServiceError> {
    Ok(super::keyword::work_items(api, query).await?.into_iter().map(work_item).collect())
}

/// `search-work`: `{items[ClipWorkItem]}` for `keyword` in `sort` order;
/// `size` default 20, max 50 (spec 8); no total.
pub async fn search_work(
    api: Arc<DataApi>,
    req: pb::SearchWorkRequest,
) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?;
    let page = PageRequest::new(req.page, "page", req.size, "size")?;
    let query = WorkQuery { order: sort_order(&req.sort)?, ..keyword::works_query(PLATFORM, keyword, page)? };
    let items = work_page(&api, query).await?;
    let empty = items.is_empty();
    Ok(list(pb::SearchWorkResponse { items }, empty))
}

/// `search-user`: `{items[{nickname, kwaiId, signature, headUrl,
/// coverImgUrl}], total}` for `accountName` over nickname (weighted),
/// signature and category, by relevance then fans. `kwaiId` is `""` when
/// the account has none; `coverImgUrl` is `""` (not stored).
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

/// A `search-user` item: `kwaiId` "" when not stored.
fn user_item(record: AccountRecord) -> pb::ClipUserItem {
    let a = record.account;
    pb::ClipUserItem {
        nickname: a.nickname,
        kwai_id: a.ids.kwai_id.unwrap_or_default(),
        signature: a.signature.unwrap_or_default(),
        head_url: a.avatar.unwrap_or_default(),
        cover_img_url: String::new(),
    }
}

/// `query-work`: the work `photoId` (encrypted id; `platform_id` or any id
/// form), flat; a miss is 404.
pub async fn query_work(
    api: Arc<DataApi>,
    req: pb::QueryWorkRequest,
) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
    let photo_id = required(&req.photo_id, "photoId")?;
    let Some(record) = api.store.get_work(PLATFORM, photo_id).await.map_err(store_error)? else {
        return Ok(Answer::NotFound(format!("no clipapp work with photoId {photo_id}")));
    };
    let item = work_item(record);
    Ok(Answer::Found(pb::QueryWorkResponse {
        caption: item.caption,
        nickname: item.nickname,
        author_fans: item.author_fans,
        like_count: item.like_count,
        comment_count: item.comment_count,
        view_count: item.view_count,
        publish_time: item.publish_time,
        cover_url: item.cover_url,
        video_url: item.video_url,
    }))
}

/// `user-works`: `{items[ClipWorkItem]}` of the account `kwaiId`, newest
/// first, 20 per page, no total. An empty `kwaiId` is a 400 naming it; an
/// unknown one is an empty list.
pub async fn user_works(
    api: Arc<DataApi>,
    req: pb::UserWorksRequest,
) -> Result<Answer<pb::UserWorksResponse>, ServiceError> {
    let kwai_id = required(&req.kwai_id, "kwaiId")?;
    let page = PageRequest::page(req.page, "page")?;
    let Some(author) = api.store.get_account(PLATFORM, kwai_id).await.map_err(store_error)? else {
        return Ok(list(pb::UserWorksResponse { items: Vec::new() }, true));
    };
    let query = author_works_query(PLATFORM, author.account.platform_id, page);
    let items = work_page(&api, query).await?;
    let empty = items.is_empty();
    Ok(list(pb::UserWorksResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_takes_the_four_choices_and_names_the_field_otherwise() {
        assert_eq!(sort_order("").unwrap(), WorkOrder::Relevance);
        assert_eq!(sort_order("综合").unwrap(), WorkOrder::Relevance);
        assert_eq!(sort_order("最新").unwrap(), WorkOrder::Newest);
        assert_eq!(sort_order("最多点赞").unwrap(), WorkOrder::Likes);
        assert_eq!(sort_order("最多收藏").unwrap(), WorkOrder::Collects);
        assert_eq!(sort_order("likes").unwrap_err().field.as_deref(), Some("sort"));
    }
}
