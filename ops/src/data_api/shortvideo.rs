//! shortvideo (short-video platform) data operations answered from the
//! store (spec 4.4): `query-account`, `search-user`, `query-work-list`,
//! `search-work`, `realtime-search`, `comments`, `shortvideo-user-works`,
//! `shortvideo-work-list`, `query-work`. Request values and id forms:
//! docs/data/shortvideo.md.
//!
//! Ids: an account's `platform_id` is its `sec_uid`; `uid` (numeric) and
//! `unique_id` (the handle, 抖音号) find it too. A work's `platform_id` is
//! its numeric id (aweme id, also `video_id`). Lookups also take links:
//! `https://www.douyin.com/user/<sec_uid>`, `…/video/<id>`, `…/note/<id>`,
//! `?modal_id=<id>`, `https://www.iesdouyin.com/share/user|video/<id>`.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use mediaops_proto::mediaops::shortvideo::v1 as pb;

use super::choice::choose;
use super::keyword::{self, account_named, fans, works_query};
use super::links::{id_or_link, query_param, segment_after};
use super::paging::{DEFAULT_SIZE, PageRequest};
use super::{DataApi, author_works_query, comments, count, list, store_error, window};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::model::{AccountRecord, WorkOrder, WorkQuery, WorkRecord};
use mediaops_store::rules::times::{date_window, datetime_window, format_time};

/// The platform token.
pub const PLATFORM: &str = "shortvideo";

const DOMAIN: &str = "douyin.com";
const SHARE_DOMAIN: &str = "iesdouyin.com";

/// An account id (sec_uid, uid or handle) or a profile link holding a
/// sec_uid (`…douyin.com/user/<sec_uid>`, `…iesdouyin.com/share/user/<sec_uid>`,
/// or a `sec_uid=`/`sec_user_id=` query parameter).
pub fn account_id_of(input: &str, field: &str) -> Result<String, ServiceError> {
    id_or_link(input, field, "sec_uid", |link| {
        segment_after(link, DOMAIN, &["user"])
            .or_else(|| segment_after(link, SHARE_DOMAIN, &["share", "user"]))
            .or_else(|| ["sec_uid", "sec_user_id"].into_iter().find_map(|name| query_param(link, DOMAIN, name)))
            .or_else(|| ["sec_uid", "sec_user_id"].into_iter().find_map(|name| query_param(link, SHARE_DOMAIN, name)))
    })
}

/// A numeric work id or a work link (`…/video/<id>`, `…/note/<id>`,
/// `?modal_id=<id>`, `…iesdouyin.com/share/video/<id>`); anything that is
/// not digits is a 400 naming `field`.
pub fn video_id_of(input: &str, field: &str) -> Result<String, ServiceError> {
    let id = id_or_link(input, field, "work id", |link| {
        segment_after(link, DOMAIN, &["video"])
            .or_else(|| segment_after(link, DOMAIN, &["note"]))
            .or_else(|| query_param(link, DOMAIN, "modal_id"))
            .or_else(|| segment_after(link, SHARE_DOMAIN, &["share", "video"]))
    })?;
    if !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(ServiceError::invalid_field(
            field,
            format!("{field} must be a numeric work id, not {}", excerpt(&id)),
        ));
    }
    Ok(id)
}

/// The stored account `input` names: an id form or profile link (any of
/// sec_uid, uid, handle), or, when `by_nickname`, an exact nickname (the
/// one with most fans when several share it).
async fn find_account(
    api: &DataApi,
    input: &str,
    field: &str,
    by_nickname: bool,
) -> Result<Option<AccountRecord>, ServiceError> {
    let id = account_id_of(input, field)?;
    if let Some(record) = api.store.get_account(PLATFORM, &id).await.map_err(store_error)? {
        return Ok(Some(record));
    }
    if !by_nickname {
        return Ok(None);
    }
    account_named(api, PLATFORM, &id).await
}

/// The works of the author `author_id` (an account's `platform_id`)
/// published within `[from, to]`, in `order`, one `page`.
fn author_query(
    author_id: &str,
    (from, to): (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
    order: WorkOrder,
    page: PageRequest,
) -> WorkQuery {
    WorkQuery { published_from: from, published_to: to, order, ..author_works_query(PLATFORM, author_id.into(), page) }
}

fn missing_account(input: &str) -> String {
    format!("no shortvideo account {} in the store", excerpt(input.trim()))
}

/// `{title, likeCount, workUrl}` of a work.
fn link_item(record: WorkRecord) -> pb::WorkLinkItem {
    pb::WorkLinkItem {
        like_count: count(record.latest.and_then(|s| s.likes)),
        title: record.work.title,
        work_url: record.work.url.unwrap_or_default(),
    }
}

/// The work's numeric id as answered (`video_id`, else `platform_id`).
fn video_id(record: &WorkRecord) -> String {
    record.work.ids.video_id.clone().unwrap_or_else(|| record.work.platform_id.clone())
}

/// The caption: the description when stored, else the title.
fn caption(record: &WorkRecord) -> String {
    record.work.description.clone().filter(|d| !d.trim().is_empty()).unwrap_or_else(|| record.work.title.clone())
}

/// `query-account`: `{profile{nickname, followerCount, followingCount}}` by
/// sec_uid (or profile link; uid and handle work too).
pub async fn query_account(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::QueryAccountRequest,
) -> Result<Answer<pb::QueryAccountResponse>, ServiceError> {
    let Some(record) = find_account(&api, &req.sec_uid, "secUid", false).await? else {
        return Ok(Answer::NotFound(missing_account(&req.sec_uid)));
    };
    Ok(Answer::Found(pb::QueryAccountResponse {
        profile: Some(pb::Profile {
            follower_count: fans(&record),
            nickname: record.account.nickname,
            following_count: count(record.account.following),
        }),
    }))
}

/// `search-user`: `{items[{accountId, uid, followerCount}]}`; `accountId`
/// is the handle when stored, else the sec_uid (both work as the
/// `accountId` of `query-work-list`); `uid` "" when not stored.
/// `sortType`: empty or `0` = relevance, `1` = most fans first.
pub async fn search_user(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::SearchUserRequest,
) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
    let page = PageRequest::page(req.page, "page")?;
    let order = keyword::relevance_or_fans(&req.sort_type, ("0", "1"))?;
    let found = keyword::account_items(&api, PLATFORM, (&req.keyword, keyword::KEYWORD), (page, order), |r| {
        pb::UserSearchItem {
            follower_count: fans(&r),
            account_id: r.account.ids.unique_id.unwrap_or(r.account.platform_id),
            uid: r.account.ids.uid.unwrap_or_default(),
        }
    })
    .await?;
    let empty = found.items.is_empty();
    Ok(list(pb::SearchUserResponse { items: found.items }, empty))
}

/// `query-work-list`: `{items[{workId, title, workUrl}]}`, 20 works of the
/// account starting at item `offset` (0 = the first); `sortType` empty or
/// `0` = newest first, `1` = most liked first.
pub async fn query_work_list(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::QueryWorkListRequest,
) -> Result<Answer<pb::QueryWorkListResponse>, ServiceError> {
    let order = choose(
        &req.sort_type,
        "sortType",
        &[("", WorkOrder::Newest), ("0", WorkOrder::Newest), ("1", WorkOrder::Likes)],
    )?;
    let offset =
        u64::try_from(req.offset).map_err(|_| ServiceError::invalid_field("offset", "offset must be 0 or more"))?;
    let Some(account) = find_account(&api, &req.account_id, "accountId", false).await? else {
        return Ok(Answer::NotFound(missing_account(&req.account_id)));
    };
    let author = account.account.platform_id.as_str();
    let found = window::at_offset(offset, DEFAULT_SIZE, "offset", |page, size| {
        let query = author_query(author, (None, None), order, PageRequest { page, size });
        let store = api.store.clone();
        async move { store.find_works(&query).await }
    })
    .await?;
    let items: Vec<pb::WorkListItem> = found
        .items
        .into_iter()
        .map(|r| pb::WorkListItem {
            work_id: video_id(&r),
            title: r.work.title,
            work_url: r.work.url.unwrap_or_default(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::QueryWorkListResponse { items }, empty))
}

/// `search-work`: `{items[{title, likeCount, workUrl}]}`, the first 20
/// matches by relevance, optionally within `startDate`..`endDate`.
pub async fn search_work(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::SearchWorkRequest,
) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
    let (from, to) = date_window(&req.start_date, "startDate", &req.end_date, "endDate")?;
    let page = PageRequest::page(0, "page")?;
    let query = WorkQuery { published_from: from, published_to: to, ..works_query(PLATFORM, &req.keyword, page)? };
    let found = keyword::work_items(&api, query).await?;
    let items: Vec<pb::WorkLinkItem> = found.into_iter().map(link_item).collect();
    let empty = items.is_empty();
    Ok(list(pb::SearchWorkResponse { items }, empty))
}

/// The `publishTime` values of `realtime-search` (the platform's own
/// filter values): empty or `0` = any time, `1` = the last day, `7` = the
/// last 7 days, `180` = the last 180 days, counted back from the service
/// clock (`MEDIAOPS_NOW`).
fn published_since(publish_time: &str, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>, ServiceError> {
    let days = choose(publish_time, "publishTime", &[("", 0), ("0", 0), ("1", 1), ("7", 7), ("180", 180)])?;
    Ok((days > 0).then(|| now - Duration::days(days)))
}

/// `realtime-search`: `{items[{description, likeNum, url, fansNum}]}`, 20
/// per `page`; `sortType` empty or `0` = relevance, `1` = most liked, `2` =
/// newest; `publishTime` per `published_since`; `fansNum` is the
/// author's followers.
pub async fn realtime_search(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::RealtimeSearchRequest,
) -> Result<Answer<pb::RealtimeSearchResponse>, ServiceError> {
    let order = choose(
        &req.sort_type,
        "sortType",
        &[("", WorkOrder::Relevance), ("0", WorkOrder::Relevance), ("1", WorkOrder::Likes), ("2", WorkOrder::Newest)],
    )?;
    let since = published_since(&req.publish_time, api.clock.now())?;
    let page = PageRequest::page(req.page, "page")?;
    let query = WorkQuery { published_from: since, order, ..works_query(PLATFORM, &req.keyword, page)? };
    let found = keyword::work_items(&api, query).await?;
    let items: Vec<pb::RealtimeWorkItem> = found
        .into_iter()
        .map(|r| pb::RealtimeWorkItem {
            description: caption(&r),
            like_num: count(r.latest.as_ref().and_then(|s| s.likes)),
            fans_num: count(r.author.as_ref().and_then(|a| a.fans)),
            url: r.work.url.unwrap_or_default(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::RealtimeSearchResponse { items }, empty))
}

/// `comments`: `{items[{text, likeCount, authorName}], total}`, 20 per
/// `page`, most liked first. A work the store does not know is a miss.
pub async fn video_comments(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::CommentsRequest,
) -> Result<Answer<pb::CommentsResponse>, ServiceError> {
    let video_id = video_id_of(&req.video_id, "videoId")?;
    let page = PageRequest::page(req.page, "page")?;
    let Some(found) = comments::of_work(&api, PLATFORM, &video_id, page.first_index(), "page").await? else {
        return Ok(Answer::NotFound(format!("no shortvideo work with id {video_id}")));
    };
    let items: Vec<pb::CommentItem> = found
        .items
        .into_iter()
        .map(|c| pb::CommentItem {
            text: c.text,
            like_count: count(c.likes),
            author_name: c.author_name.unwrap_or_default(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::CommentsResponse { items, total: found.total as i64 }, empty))
}

/// `shortvideo-user-works`: `{items[{title, likeCount, workUrl}]}`, the
/// account's 20 newest works. `account` is detected in order: an id form
/// or profile link (sec_uid, uid, handle), else an exact nickname (most
/// fans first when several share it).
pub async fn user_works(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::ShortvideoUserWorksRequest,
) -> Result<Answer<pb::ShortvideoUserWorksResponse>, ServiceError> {
    let Some(account) = find_account(&api, &req.account, "account", true).await? else {
        return Ok(Answer::NotFound(missing_account(&req.account)));
    };
    let page = PageRequest::page(0, "page")?;
    let query = author_query(&account.account.platform_id, (None, None), WorkOrder::Newest, page);
    let found = keyword::work_items(&api, query).await?;
    let items: Vec<pb::WorkLinkItem> = found.into_iter().map(link_item).collect();
    let empty = items.is_empty();
    Ok(list(pb::ShortvideoUserWorksResponse { items }, empty))
}

/// `shortvideo-work-list`: `{items[{title, accountName, workUrl}]}`, the
/// account's 20 newest works published within `publishTimeStart`..
/// `publishTimeEnd` (datetimes, Asia/Shanghai, both ends included).
pub async fn work_list(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::ShortvideoWorkListRequest,
) -> Result<Answer<pb::ShortvideoWorkListResponse>, ServiceError> {
    let window = datetime_window(&req.publish_time_start, "publishTimeStart", &req.publish_time_end, "publishTimeEnd")?;
    let Some(account) = find_account(&api, &req.account_id, "accountId", false).await? else {
        return Ok(Answer::NotFound(missing_account(&req.account_id)));
    };
    let page = PageRequest::page(0, "page")?;
    let query = author_query(&account.account.platform_id, window, WorkOrder::Newest, page);
    let found = keyword::work_items(&api, query).await?;
    let items: Vec<pb::AccountWorkItem> = found
        .into_iter()
        .map(|r| pb::AccountWorkItem {
            title: r.work.title,
            account_name: account.account.nickname.clone(),
            work_url: r.work.url.unwrap_or_default(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ShortvideoWorkListResponse { items }, empty))
}

/// `query-work`: the work's flat fields by numeric id (or work link):
/// author name and followers from the stored author, counters from the
/// newest snapshot, `content` = the caption.
pub async fn query_work(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::QueryWorkRequest,
) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
    let id = video_id_of(&req.video_id, "videoId")?;
    let Some(record) = api.store.get_work(PLATFORM, &id).await.map_err(store_error)? else {
        return Ok(Answer::NotFound(format!("no shortvideo work with id {id}")));
    };
    let content = caption(&record);
    let video_id = video_id(&record);
    let author = record.author.unwrap_or_default();
    let s = record.latest.unwrap_or_default();
    let w = record.work;
    Ok(Answer::Found(pb::QueryWorkResponse {
        author_name: author.nickname,
        author_fans_count: count(author.fans),
        content,
        like_count: count(s.likes),
        comment_count: count(s.comments),
        collect_count: count(s.collects),
        share_count: count(s.shares),
        opus_url: w.url.unwrap_or_default(),
        cover_url: w.cover.unwrap_or_default(),
        publish_time: format_time(w.published_at),
        video_id,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_give_ids_and_request_values_are_closed() {
        let profile =
            "https://www.douyin.com/user/MS4wLjABAAAAv7iSuuXDJGDvJkmH_vz1qkDZYo1apxgzaxdBSeIuPiM?from_tab_name=main";
        assert_eq!(
            account_id_of(profile, "accountId").unwrap(),
            "MS4wLjABAAAAv7iSuuXDJGDvJkmH_vz1qkDZYo1apxgzaxdBSeIuPiM"
        );
        assert_eq!(account_id_of("https://www.iesdouyin.com/share/user/MS4wLj?x=1", "accountId").unwrap(), "MS4wLj");
        assert_eq!(account_id_of("https://www.douyin.com/search?sec_user_id=MS4wX", "accountId").unwrap(), "MS4wX");
        assert_eq!(account_id_of("dy_handle_01", "accountId").unwrap(), "dy_handle_01");
        assert_eq!(
            account_id_of("https://v.douyin.com/iRNBho6/", "accountId").unwrap_err().field.as_deref(),
            Some("accountId")
        );
        assert_eq!(
            video_id_of("https://www.douyin.com/video/7301234567890123456", "videoId").unwrap(),
            "7301234567890123456"
        );
        assert_eq!(
            video_id_of("https://www.douyin.com/discover?modal_id=7301234567890123456", "videoId").unwrap(),
            "7301234567890123456"
        );
        assert_eq!(video_id_of("7301234567890123456", "videoId").unwrap(), "7301234567890123456");
        assert_eq!(video_id_of("BV1xx", "videoId").unwrap_err().field.as_deref(), Some("videoId"));
        let now = DateTime::parse_from_rfc3339("2024-06-21T04:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(published_since("", now).unwrap(), None);
        assert_eq!(published_since("0", now).unwrap(), None);
        assert_eq!(published_since("7", now).unwrap(), Some(now - Duration::days(7)));
        assert_eq!(published_since("30", now).unwrap_err().field.as_deref(), Some("publishTime"));
    }
}
