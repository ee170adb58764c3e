//! videosite data operations answered from the store (spec 4.7):
//! `search-work`, `search-user`, `query-account`, `query-work`,
//! `videosite-user-works`. Works are keyed by `bvId`, accounts by `mid`;
//! both lookups also take a link (`https://www.bilibili.com/video/BV…`,
//! `https://space.bilibili.com/<mid>`). The feeds live in
//! [`crate::data_api::feeds`].

use std::sync::Arc;

use mediaops_proto::mediaops::common::v1::TitleLikeItem;
use mediaops_proto::mediaops::videosite::v1 as pb;

use super::paging::PageRequest;
use super::{DataApi, author_works_query, count, list, required, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::model::{AccountOrder, AccountQuery, WorkOrder, WorkQuery};

/// The platform token.
pub const PLATFORM: &str = "videosite";

/// The `order` values of `search-work` (spec 4.7 shows `time`; the other
/// names are ours, docs/data-apis.md): empty or `totalrank` = relevance,
/// `pubdate`/`time` = newest, `click`/`play` = plays, `like`, `comment`/
/// `reply`, `stow`/`favorite` = favorites.
fn work_order(order: &str) -> Result<WorkOrder, ServiceError> {
    Ok(match order.trim() {
        "" | "totalrank" => WorkOrder::Relevance,
        "time" | "pubdate" => WorkOrder::Newest,
        "click" | "play" => WorkOrder::Views,
        "like" => WorkOrder::Likes,
        "comment" | "reply" => WorkOrder::Comments,
        "stow" | "favorite" => WorkOrder::Collects,
        other => {
            return Err(ServiceError::invalid_field(
                "order",
                format!("order {} is not one of totalrank, time, pubdate, click, like, comment, stow", excerpt(other)),
            ));
        }
    })
}

/// `search-work`: `{items[{title, likeCount}], total}`.
pub async fn search_work(
    api: Arc<DataApi>,
    ctx: mediaops_platform::registry::CallContext,
    req: pb::SearchWorkRequest,
) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?;
    let page = PageRequest::new(req.page, "page", req.page_size, "pageSize")?;
    let query = WorkQuery {
        platform: PLATFORM.into(),
        text: Some(keyword.into()),
        order: work_order(&req.order)?,
        page: page.page,
        page_size: page.size,
        ..WorkQuery::default()
    };
    let found = api.store.find_works(&query).await.map_err(store_error)?;
    let items: Vec<TitleLikeItem> = found
        .items
        .into_iter()
        .map(|r| TitleLikeItem { title: r.work.title, like_count: count(r.latest.and_then(|s| s.likes)) })
        .collect();
    let empty = items.is_empty();
    Ok(list(
        pb::SearchWorkResponse {
            items,
            total: super::keyword::shown_total(&ctx, found.total, found.total_is_lower_bound),
        },
        empty,
    ))
}

/// `search-user`: `{items[{uid, fansNum}]}`; `order` empty/`totalrank` =
/// relevance, `fans`/`follower` = most fans first.
pub async fn search_user(
    api: Arc<DataApi>,
    _: mediaops_platform::registry::CallContext,
    req: pb::SearchUserRequest,
) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?;
    let page = PageRequest::new(req.page, "page", req.page_size, "pageSize")?;
    let order = match req.order.trim() {
        "" | "totalrank" => AccountOrder::Relevance,
        "fans" | "follower" => AccountOrder::Fans,
        other => {
            return Err(ServiceError::invalid_field(
                "order",
                format!("order {} is not one of totalrank, follower", excerpt(other)),
            ));
        }
    };
    let query = AccountQuery {
        platform: PLATFORM.into(),
        text: Some(keyword.into()),
        order,
        page: page.page,
        page_size: page.size,
        ..AccountQuery::default()
    };
    let found = api.store.find_accounts(&query).await.map_err(store_error)?;
    let items: Vec<pb::UploaderSearchItem> = found
        .items
        .into_iter()
        .map(|r| pb::UploaderSearchItem { uid: r.account.platform_id, fans_num: count(r.account.fans) })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::SearchUserResponse { items }, empty))
}

/// A `mid` or a space link (`https://space.bilibili.com/<mid>[/…]`);
/// 400 naming `field` when a link holds no mid.
pub fn mid_of(input: &str, field: &str) -> Result<String, ServiceError> {
    let input = required(input, field)?;
    if !input.contains('/') {
        return Ok(input.to_owned());
    }
    input
        .split(['/', '?', '#'])
        .skip_while(|part| !part.ends_with("space.bilibili.com"))
        .nth(1)
        .filter(|mid| !mid.is_empty() && mid.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .ok_or_else(|| ServiceError::invalid_field(field, format!("{field}: no mid in the link {}", excerpt(input))))
}

/// A `bvId` or a video link holding one (`…/video/BV…`); 400 naming
/// `field` when a link holds none.
pub fn bv_id_of(input: &str, field: &str) -> Result<String, ServiceError> {
    let input = required(input, field)?;
    if !input.contains('/') {
        return Ok(input.to_owned());
    }
    input
        .split(['/', '?', '#', '&'])
        .find(|part| part.len() > 2 && part[..2].eq_ignore_ascii_case("bv") && part.chars().all(char::is_alphanumeric))
        .map(str::to_owned)
        .ok_or_else(|| ServiceError::invalid_field(field, format!("{field}: no BV id in the link {}", excerpt(input))))
}

/// `query-account`: `{account{name, mid, follower, nickname,
/// certification, category, totalPlayCount, totalLikeCount}}`; the totals
/// add up the stored works of the account (their newest snapshots).
pub async fn query_account(
    api: Arc<DataApi>,
    req: pb::QueryAccountRequest,
) -> Result<Answer<pb::QueryAccountResponse>, ServiceError> {
    let mid = mid_of(&req.mid, "mid")?;
    let Some(record) = api.store.get_account(PLATFORM, &mid).await.map_err(store_error)? else {
        return Ok(Answer::NotFound(format!("no videosite account with mid {mid}")));
    };
    let totals = api.store.work_totals(PLATFORM, &record.account.platform_id).await.map_err(store_error)?;
    let a = record.account;
    let fans = a.fans.or(record.latest.and_then(|s| s.fans));
    Ok(Answer::Found(pb::QueryAccountResponse {
        account: Some(pb::UploaderAccount {
            name: a.nickname.clone(),
            mid: a.platform_id,
            follower: count(fans),
            nickname: a.nickname,
            certification: a.signature.unwrap_or_default(),
            category: a.category.unwrap_or_default(),
            total_play_count: totals.views,
            total_like_count: a.likes.unwrap_or(totals.likes),
        }),
    }))
}

/// `query-work`: `{item{bvId, title, playCount, coverUrl, authorName,
/// likeCount, commentCount, favoriteCount, shareCount, tags}}`.
pub async fn query_work(
    api: Arc<DataApi>,
    req: pb::QueryWorkRequest,
) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
    let bv_id = bv_id_of(&req.bv_id, "bvId")?;
    let Some(record) = api.store.get_work(PLATFORM, &bv_id).await.map_err(store_error)? else {
        return Ok(Answer::NotFound(format!("no videosite work with bvId {bv_id}")));
    };
    let author = match &record.work.author_id {
        Some(id) => api.store.get_account(PLATFORM, id).await.map_err(store_error)?.map(|a| a.account.nickname),
        None => None,
    };
    let s = record.latest.unwrap_or_default();
    let w = record.work;
    Ok(Answer::Found(pb::QueryWorkResponse {
        item: Some(pb::VideoDetail {
            bv_id: w.ids.bv_id.unwrap_or(w.platform_id),
            title: w.title,
            play_count: count(s.views),
            cover_url: w.cover.unwrap_or_default(),
            author_name: author.unwrap_or_default(),
            like_count: count(s.likes),
            comment_count: count(s.comments),
            favorite_count: count(s.collects),
            share_count: count(s.shares),
            tags: w.tags,
        }),
    }))
}

/// `videosite-user-works`: `{items[{title, url, categoryName}]}`, newest
/// first by default; `order` as in `search-work` (`pubdate` default).
pub async fn user_works(
    api: Arc<DataApi>,
    req: pb::VideositeUserWorksRequest,
) -> Result<Answer<pb::VideositeUserWorksResponse>, ServiceError> {
    let mid = mid_of(&req.mid, "mid")?;
    let page = PageRequest::new(req.page, "page", req.page_size, "pageSize")?;
    let order = match work_order(&req.order)? {
        WorkOrder::Relevance => WorkOrder::Newest,
        other => other,
    };
    let query = WorkQuery { order, ..author_works_query(PLATFORM, mid, page) };
    let items: Vec<pb::UploaderWorkItem> = super::keyword::work_items(&api, query)
        .await?
        .into_iter()
        .map(|r| pb::UploaderWorkItem {
            title: r.work.title,
            url: r.work.url.unwrap_or_default(),
            category_name: r.work.category.unwrap_or_default(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::VideositeUserWorksResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_give_their_ids_and_bad_links_name_the_field() {
        assert_eq!(mid_of("546195", "mid").unwrap(), "546195");
        assert_eq!(mid_of("https://space.bilibili.com/546195/video?tid=0", "mid").unwrap(), "546195");
        assert_eq!(mid_of("https://example.com/x", "mid").unwrap_err().field.as_deref(), Some("mid"));
        assert_eq!(bv_id_of("https://www.bilibili.com/video/BV1GJ411x7h7/?p=1", "bvId").unwrap(), "BV1GJ411x7h7");
        assert_eq!(bv_id_of("BV1GJ411x7h7", "bvId").unwrap(), "BV1GJ411x7h7");
        assert_eq!(bv_id_of("https://b23.tv/abc", "bvId").unwrap_err().field.as_deref(), Some("bvId"));
        assert!(work_order("views").is_err());
        assert_eq!(work_order("time").unwrap(), WorkOrder::Newest);
    }
}
