//! lifestyle (note-sharing platform) data operations answered from the store
//! (spec 4.3): `search-note`, `search-user`, `query-account`, `search-work`,
//! `crawl-work`, `comments`. Request values and id forms: docs/data/lifestyle.md.
//!
//! Ids: an account's `platform_id` is its user id (`accountUserid`, also
//! kept as `account_id`), its display id (小红书号) is `red_id`; a note's
//! `platform_id` is its note id (`note_id`). Lookups also take the page
//! links (`https://www.xiaohongshu.com/user/profile/<userid>`,
//! `…/explore/<noteId>`, `…/discovery/item/<noteId>`).

use std::sync::Arc;

use mediaops_proto::mediaops::lifestyle::v1 as pb;
use serde_json::json;

use super::choice::choose;
use super::keyword::{self, fans, works_query};
use super::links::{id_or_link, segment_after};
use super::paging::{MAX_SIZE, PageRequest};
use super::{DataApi, comments, count, list, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::model::{WorkOrder, WorkQuery, WorkRecord, WorkSnapshot};
use mediaops_store::rules::times::{date_window, format_time};

/// The platform token.
pub const PLATFORM: &str = "lifestyle";

/// The `source` a store answer of `search-note` carries.
pub const SOURCE: &str = "store";

const DOMAIN: &str = "xiaohongshu.com";

/// A note id or a note link (`…/explore/<id>`, `…/discovery/item/<id>`).
pub fn note_id_of(input: &str, field: &str) -> Result<String, ServiceError> {
    id_or_link(input, field, "note id", |link| {
        segment_after(link, DOMAIN, &["explore"]).or_else(|| segment_after(link, DOMAIN, &["discovery", "item"]))
    })
}

/// A display id, a user id or a profile link (`…/user/profile/<userid>`).
pub fn account_id_of(input: &str, field: &str) -> Result<String, ServiceError> {
    id_or_link(input, field, "user id", |link| segment_after(link, DOMAIN, &["user", "profile"]))
}

/// `totalScore` of `search-work` (our formula, docs/data/lifestyle.md):
/// likes + 2 × collects + 3 × comments + 4 × shares of the newest snapshot,
/// unknown counters counting 0.
pub fn total_score(s: &WorkSnapshot) -> f64 {
    (count(s.likes) + 2 * count(s.collects) + 3 * count(s.comments) + 4 * count(s.shares)) as f64
}

/// The author nickname a listing joined to a note ("" when the author is
/// not stored).
fn author_nickname(record: &WorkRecord) -> String {
    record.author.as_ref().map(|a| a.nickname.clone()).unwrap_or_default()
}

/// One `search-note` item: every counter from the newest snapshot
/// (`workReadedCount` = views), `accountUserid` = the author's user id.
fn note_item(record: WorkRecord) -> pb::NoteSearchItem {
    let account_nickname = author_nickname(&record);
    let s = record.latest.unwrap_or_default();
    let w = record.work;
    pb::NoteSearchItem {
        work_id: w.ids.note_id.unwrap_or(w.platform_id),
        work_title: w.title,
        work_desc: w.description.unwrap_or_default(),
        account_nickname,
        account_userid: w.author_id.unwrap_or_default(),
        work_liked_count: count(s.likes),
        work_collected_count: count(s.collects),
        work_comments_count: count(s.comments),
        work_shared_count: count(s.shares),
        work_readed_count: count(s.views),
        work_publish_time: format_time(w.published_at),
        work_url: w.url.unwrap_or_default(),
        cover_url: w.cover.unwrap_or_default(),
        work_type: w.work_type.unwrap_or_default(),
    }
}

/// `search-note`: `{source, keyword, offset, total, items[14 fields], raw}`.
/// By relevance; an empty `keyword` lists the newest notes. `offset` is the
/// index of the page's first item; `raw` is `{page, pageSize, backend,
/// order}` (the store's own paging facts).
pub async fn search_note(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::SearchNoteRequest,
) -> Result<Answer<pb::SearchNoteResponse>, ServiceError> {
    let keyword = req.keyword.trim();
    let page = PageRequest::page(req.page, "page")?;
    let text = (!keyword.is_empty()).then_some(keyword);
    let query = match text {
        Some(keyword) => works_query(PLATFORM, keyword, page)?,
        None => WorkQuery { platform: PLATFORM.into(), page: page.page, page_size: page.size, ..WorkQuery::default() },
    };
    let found = keyword::works(&api, &query).await?;
    let items: Vec<pb::NoteSearchItem> = found.items.into_iter().map(note_item).collect();
    let raw = json!({
        "page": page.page,
        "pageSize": page.size,
        "backend": api.store.backend(),
        "order": if text.is_some() { "relevance" } else { "newest" },
    });
    let empty = items.is_empty();
    Ok(list(
        pb::SearchNoteResponse {
            source: SOURCE.into(),
            keyword: keyword.into(),
            offset: page.first_index() as i64,
            total: keyword::shown_total(&ctx, found.total, found.total_is_lower_bound),
            items,
            raw: Some(mediaops_platform::structs::to_struct(raw)),
        },
        empty,
    ))
}

/// `search-user`: `{items[{accountName, accountFans, accountId}]}`;
/// `accountId` is the display id when stored, else the user id (both work
/// in `query-account`). `sortType`: empty or `general` = relevance, `fans`
/// = most fans first.
pub async fn search_user(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::SearchUserRequest,
) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
    let page = PageRequest::page(req.page, "page")?;
    let order = keyword::relevance_or_fans(&req.sort_type, ("general", "fans"))?;
    let found = keyword::account_items(&api, PLATFORM, (&req.keyword, keyword::KEYWORD), (page, order), |r| {
        pb::UserSearchItem {
            account_fans: fans(&r),
            account_name: r.account.nickname,
            account_id: r.account.ids.red_id.unwrap_or(r.account.platform_id),
        }
    })
    .await?;
    let empty = found.items.is_empty();
    Ok(list(pb::SearchUserResponse { items: found.items }, empty))
}

/// `query-account`: `{account{accountName, accountFans, accountTotalWorks,
/// intro, likedCount, collectedCount, region}}` by display id, user id or
/// profile link. Counters are the profile's when stored (else its newest
/// snapshot's), otherwise the sum over the account's stored notes.
pub async fn query_account(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::QueryAccountRequest,
) -> Result<Answer<pb::QueryAccountResponse>, ServiceError> {
    let id = account_id_of(&req.account_id, "accountId")?;
    let Some(record) = api.store.get_account(PLATFORM, &id).await.map_err(store_error)? else {
        return Ok(Answer::NotFound(format!("no lifestyle account with id {id}")));
    };
    let totals = api.store.work_totals(PLATFORM, &record.account.platform_id).await.map_err(store_error)?;
    let account_fans = fans(&record);
    let latest = record.latest.unwrap_or_default();
    let a = record.account;
    Ok(Answer::Found(pb::QueryAccountResponse {
        account: Some(pb::Account {
            account_name: a.nickname,
            account_fans,
            account_total_works: a.works.or(latest.works).unwrap_or(totals.works),
            intro: a.signature.unwrap_or_default(),
            liked_count: a.likes.or(latest.likes).unwrap_or(totals.likes),
            collected_count: a.collects.unwrap_or(totals.collects),
            region: a.region.unwrap_or_default(),
        }),
    }))
}

/// `search-work`: `{items[{title, likedCount, authorNickname,
/// totalScore}]}` by relevance, optionally within `startDate`..`endDate`
/// (publish dates, Asia/Shanghai, both ends included); `totalScore` per
/// [`total_score`].
pub async fn search_work(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::SearchWorkRequest,
) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
    let page = PageRequest::new(req.page, "page", req.page_size, "pageSize")?;
    let (from, to) = date_window(&req.start_date, "startDate", &req.end_date, "endDate")?;
    let query = WorkQuery { published_from: from, published_to: to, ..works_query(PLATFORM, &req.keyword, page)? };
    let found = keyword::work_items(&api, query).await?;
    let items: Vec<pb::WorkScoreItem> = found
        .into_iter()
        .map(|r| {
            let author_nickname = author_nickname(&r);
            let s = r.latest.unwrap_or_default();
            pb::WorkScoreItem {
                title: r.work.title,
                liked_count: count(s.likes),
                author_nickname,
                total_score: total_score(&s),
            }
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::SearchWorkResponse { items }, empty))
}

/// The `sortType` values of `crawl-work` (the platform's own search sorts):
/// empty or `general` = relevance, `time_descending` = newest,
/// `popularity_descending` = most liked, `comment_descending` = most
/// commented, `collect_descending` = most collected.
fn crawl_order(sort_type: &str) -> Result<WorkOrder, ServiceError> {
    choose(
        sort_type,
        "sortType",
        &[
            ("", WorkOrder::Relevance),
            ("general", WorkOrder::Relevance),
            ("time_descending", WorkOrder::Newest),
            ("popularity_descending", WorkOrder::Likes),
            ("comment_descending", WorkOrder::Comments),
            ("collect_descending", WorkOrder::Collects),
        ],
    )
}

/// `crawl-work`: `{items[{title, likedCount, authorNickname}]}`, the first
/// [`MAX_SIZE`] matches (the request has no paging) within
/// `startDate`..`endDate`, in `crawl_order`.
pub async fn crawl_work(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::CrawlWorkRequest,
) -> Result<Answer<pb::CrawlWorkResponse>, ServiceError> {
    let (from, to) = date_window(&req.start_date, "startDate", &req.end_date, "endDate")?;
    let order = crawl_order(&req.sort_type)?;
    let page = PageRequest { page: 1, size: MAX_SIZE };
    let query =
        WorkQuery { published_from: from, published_to: to, order, ..works_query(PLATFORM, &req.keyword, page)? };
    let found = keyword::work_items(&api, query).await?;
    let items: Vec<pb::CrawlWorkItem> = found
        .into_iter()
        .map(|r| pb::CrawlWorkItem {
            author_nickname: author_nickname(&r),
            liked_count: count(r.latest.and_then(|s| s.likes)),
            title: r.work.title,
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::CrawlWorkResponse { items }, empty))
}

/// The `cursor` of `comments`: how many comments earlier calls returned,
/// as an integer string; empty = 0.
pub fn cursor_offset(cursor: &str) -> Result<u64, ServiceError> {
    let cursor = cursor.trim();
    if cursor.is_empty() {
        return Ok(0);
    }
    cursor.parse::<u64>().map_err(|_| {
        ServiceError::invalid_field(
            "cursor",
            format!("cursor must be empty or a count of comments, not {}", excerpt(cursor)),
        )
    })
}

/// `comments`: `{items[{content, likeCount}], total}`, 20 at a time most
/// liked first, starting after the `cursor` comments already returned
/// (the answer carries no cursor: the next one is the old one plus the
/// items received). A note the store does not know is a miss.
pub async fn note_comments(
    api: Arc<DataApi>,
    req: pb::CommentsRequest,
) -> Result<Answer<pb::CommentsResponse>, ServiceError> {
    let note_id = note_id_of(&req.note_id, "noteId")?;
    let offset = cursor_offset(&req.cursor)?;
    let Some(found) = comments::of_work(&api, PLATFORM, &note_id, offset, "cursor").await? else {
        return Ok(Answer::NotFound(format!("no lifestyle note with id {note_id}")));
    };
    let items: Vec<pb::CommentItem> =
        found.items.into_iter().map(|c| pb::CommentItem { content: c.text, like_count: count(c.likes) }).collect();
    let empty = items.is_empty();
    Ok(list(pb::CommentsResponse { items, total: found.total as i64 }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sorts_scores_and_cursors() {
        assert_eq!(
            note_id_of("https://www.xiaohongshu.com/explore/64f1a2b3c4d5e6f7a8b9c0d1?xsec_token=x", "noteId").unwrap(),
            "64f1a2b3c4d5e6f7a8b9c0d1"
        );
        assert_eq!(note_id_of("https://www.xiaohongshu.com/discovery/item/64f1a2b3", "noteId").unwrap(), "64f1a2b3");
        assert_eq!(note_id_of("http://xhslink.com/a/AbCd", "noteId").unwrap_err().field.as_deref(), Some("noteId"));
        assert_eq!(account_id_of("https://www.xiaohongshu.com/user/profile/5ff0", "accountId").unwrap(), "5ff0");
        assert_eq!(account_id_of("9527001", "accountId").unwrap(), "9527001");
        assert_eq!(crawl_order("time_descending").unwrap(), WorkOrder::Newest);
        assert_eq!(crawl_order("likes").unwrap_err().field.as_deref(), Some("sortType"));
        let s = WorkSnapshot {
            likes: Some(100),
            collects: Some(10),
            comments: Some(5),
            shares: None,
            ..Default::default()
        };
        assert_eq!(total_score(&s), 135.0);
        assert_eq!(cursor_offset("").unwrap(), 0);
        assert_eq!(cursor_offset(" 40 ").unwrap(), 40);
        assert_eq!(cursor_offset("-1").unwrap_err().field.as_deref(), Some("cursor"));
        assert_eq!(cursor_offset("abc").unwrap_err().field.as_deref(), Some("cursor"));
    }
}
