//! articles (official-account) data operations answered from the store
//! (spec 4.5): `search-article`, `query-user`, `query-work`, `hot-article`,
//! `articles-daily-publish`, `articles-work-list`, `articles-search-user`,
//! `article-metrics`, `article-comments`. The rendering studio of spec 4.15
//! is [`crate::articles`]; the feeds live with the other feeds.
//!
//! Id forms (docs/data/articles.md): an account's `platform_id` is its
//! biz/uid and `wechat_id` its English id; a work is keyed by `work_uuid`.
//! "Reads" (`clicksCount`, `readCount`) are a snapshot's `views`, 在看
//! (`watchCount`) its `watch`; every counter is the work's newest snapshot.

use std::sync::Arc;

use chrono::Days;
use mediaops_proto::mediaops::articles::v1 as pb;

use super::choice::choose;
use super::comments;
use super::keyword::{self, account_named};
use super::paging::{MAX_SIZE, PageRequest};
use super::{DataApi, author_works_query, count, list, required, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::{Account, AccountOrder, AccountRecord, WorkOrder, WorkQuery, WorkRecord};
use mediaops_store::rules::times::{date_window, datetime_window, day_end, day_start, format_time, parse_date};

/// The platform token.
pub const PLATFORM: &str = "articles";

/// Most accounts one `articles-daily-publish` call may name.
pub const MAX_DAILY_ACCOUNTS: usize = 50;

/// The name of a work's account as the store knows it ("" when the author
/// is not stored).
fn account_name(record: &WorkRecord) -> String {
    record.author.as_ref().map(|a| a.nickname.clone()).unwrap_or_default()
}

/// An account's `uid`: the stored `uid` id form, else its `platform_id`
/// (the biz/uid).
fn uid(account: &Account) -> String {
    account.ids.uid.clone().unwrap_or_else(|| account.platform_id.clone())
}

/// A work's reads (the newest snapshot's `views`; 0 when unknown).
fn reads(record: &WorkRecord) -> i64 {
    count(record.latest.as_ref().and_then(|s| s.views))
}

/// An account's English id (or uid) from `field`: blank or anything with a
/// non-ASCII character (a Chinese display name) is a 400 naming `field`
/// that points to `articles-search-user` (spec 4.5: "a Chinese display name
/// does not work").
pub fn english_id<'a>(value: &'a str, field: &str) -> Result<&'a str, ServiceError> {
    let value = required(value, field)?;
    if !value.is_ascii() {
        return Err(ServiceError::invalid_field(
            field,
            format!(
                "{field} takes the account's English id (the uid or id that articles-search-user returns), \
                 not a display name like {value:?}"
            ),
        ));
    }
    Ok(value)
}

/// The account `id` names by any id form (English id, uid/biz).
async fn account_by_id(api: &DataApi, id: &str) -> Result<Option<AccountRecord>, ServiceError> {
    api.store.get_account(PLATFORM, id).await.map_err(store_error)
}

/// The account `name` names: by any id form, else by exact display name.
async fn account_by_id_or_name(api: &DataApi, name: &str) -> Result<Option<AccountRecord>, ServiceError> {
    match account_by_id(api, name).await? {
        Some(found) => Ok(Some(found)),
        None => account_named(api, PLATFORM, name).await,
    }
}

/// The 404 answer for a work the store lacks.
fn missing_work<T>(uuid: &str) -> Answer<T> {
    Answer::NotFound(format!("no articles work with workUuid {uuid}"))
}

/// The work `workUuid` names, or the 404 answer for a miss.
async fn work_by_uuid<T>(api: &DataApi, value: &str) -> Result<Result<WorkRecord, Answer<T>>, ServiceError> {
    let uuid = required(value, "workUuid")?;
    Ok(api.store.get_work(PLATFORM, uuid).await.map_err(store_error)?.ok_or_else(|| missing_work(uuid)))
}

/// `search-article`: `{items[{title, accountName, publishTime}]}` by
/// relevance, 20 a page. `keyword` is optional (spec 4.5): without it, the
/// newest articles ([`keyword::latest_or_matching`]).
pub async fn search_article(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::SearchArticleRequest,
) -> Result<Answer<pb::SearchArticleResponse>, ServiceError> {
    let query = keyword::latest_or_matching(PLATFORM, &req.keyword, PageRequest::page(req.page, "page")?)?;
    let items: Vec<pb::ArticleSearchItem> = keyword::work_items(&api, query)
        .await?
        .into_iter()
        .map(|r| pb::ArticleSearchItem {
            account_name: account_name(&r),
            publish_time: format_time(r.work.published_at),
            title: r.work.title,
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::SearchArticleResponse { items }, empty))
}

/// `query-user`: `{account{accountName, uid}}` for an English id (or uid);
/// a display name is a 400 naming `account`, a miss a 404.
pub async fn query_user(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::QueryUserRequest,
) -> Result<Answer<pb::QueryUserResponse>, ServiceError> {
    let id = english_id(&req.account, "account")?;
    let Some(record) = account_by_id(&api, id).await? else {
        return Ok(Answer::NotFound(format!("no articles account with English id {id}")));
    };
    let account = pb::ArticleAccount { uid: uid(&record.account), account_name: record.account.nickname };
    Ok(Answer::Found(pb::QueryUserResponse { account: Some(account) }))
}

/// `query-work`: `{item{title, accountName}}`.
pub async fn query_work(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::QueryWorkRequest,
) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
    let record = match work_by_uuid(&api, &req.work_uuid).await? {
        Ok(record) => record,
        Err(missing) => return Ok(missing),
    };
    let item = pb::ArticleWork { account_name: account_name(&record), title: record.work.title };
    Ok(Answer::Found(pb::QueryWorkResponse { item: Some(item) }))
}

/// `hot-article`: the 20 most-read works matching `keyword` published
/// within `[startDate, endDate]` (whole Shanghai days, both optional):
/// `{items[{title, clicksCount, watchCount, likeCount}]}`.
pub async fn hot_article(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::HotArticleRequest,
) -> Result<Answer<pb::HotArticleResponse>, ServiceError> {
    let (from, to) = date_window(&req.start_date, "startDate", &req.end_date, "endDate")?;
    let query = WorkQuery {
        order: WorkOrder::Views,
        published_from: from,
        published_to: to,
        ..keyword::works_query(PLATFORM, &req.keyword, PageRequest::page(1, "page")?)?
    };
    let items: Vec<pb::HotArticleItem> = keyword::work_items(&api, query)
        .await?
        .into_iter()
        .map(|r| {
            let s = r.latest.unwrap_or_default();
            pb::HotArticleItem {
                title: r.work.title,
                clicks_count: count(s.views),
                watch_count: count(s.watch),
                like_count: count(s.likes),
            }
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::HotArticleResponse { items }, empty))
}

/// The names of `articles-daily-publish`, trimmed: at least one, at most
/// [`MAX_DAILY_ACCOUNTS`], none blank (400 naming `accountNames`).
fn daily_names(names: &[String]) -> Result<Vec<&str>, ServiceError> {
    let invalid = |message: String| ServiceError::invalid_field("accountNames", message);
    if names.is_empty() {
        return Err(invalid("accountNames must name at least one account".into()));
    }
    if names.len() > MAX_DAILY_ACCOUNTS {
        return Err(invalid(format!("accountNames may name at most {MAX_DAILY_ACCOUNTS} accounts")));
    }
    names
        .iter()
        .map(|name| {
            let name = name.trim();
            if name.is_empty() { Err(invalid("accountNames must not hold a blank name".into())) } else { Ok(name) }
        })
        .collect()
}

/// `articles-daily-publish`: what the named accounts published on `date`
/// (a Shanghai day; default yesterday by the service clock, the newest
/// whole day): `{items[{accountName, title, clicksCount}]}`, accounts in
/// the order named (each once), each account's works in publishing order,
/// at most 50 per account. A name is an account's display name or any of
/// its ids; names the store does not know add nothing.
pub async fn daily_publish(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::ArticlesDailyPublishRequest,
) -> Result<Answer<pb::ArticlesDailyPublishResponse>, ServiceError> {
    let date = match parse_date(&req.date, "date")? {
        Some(date) => date,
        None => api.clock.today().checked_sub_days(Days::new(1)).unwrap_or(api.clock.today()),
    };
    let mut seen = Vec::new();
    let mut items = Vec::new();
    for name in daily_names(&req.account_names)? {
        let Some(record) = account_by_id_or_name(&api, name).await? else { continue };
        if seen.contains(&record.account.platform_id) {
            continue;
        }
        let query = WorkQuery {
            platform: PLATFORM.into(),
            author_id: Some(record.account.platform_id.clone()),
            published_from: Some(day_start(date)),
            published_to: Some(day_end(date)),
            order: WorkOrder::Oldest,
            page: 1,
            page_size: MAX_SIZE,
            ..WorkQuery::default()
        };
        items.extend(keyword::work_items(&api, query).await?.into_iter().map(|r| pb::DailyPublishItem {
            account_name: record.account.nickname.clone(),
            clicks_count: reads(&r),
            title: r.work.title,
        }));
        seen.push(record.account.platform_id);
    }
    let empty = items.is_empty();
    Ok(list(pb::ArticlesDailyPublishResponse { items }, empty))
}

/// `articles-work-list`: an account's works published within
/// `[publishTimeStart, publishTimeEnd]` (both optional), newest first, 20 a
/// page: `{items[{title, publishTime, clicksCount}]}`. `account` is the
/// English id or uid; when the store knows neither, an exact `accountName`
/// finds the account; else 404.
pub async fn work_list(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::ArticlesWorkListRequest,
) -> Result<Answer<pb::ArticlesWorkListResponse>, ServiceError> {
    let id = required(&req.account, "account")?;
    let page = PageRequest::page(req.page, "page")?;
    let (from, to) =
        datetime_window(&req.publish_time_start, "publishTimeStart", &req.publish_time_end, "publishTimeEnd")?;
    let record = match account_by_id(&api, id).await? {
        Some(record) => Some(record),
        None if !req.account_name.trim().is_empty() => account_named(&api, PLATFORM, req.account_name.trim()).await?,
        None => None,
    };
    let Some(record) = record else {
        return Ok(Answer::NotFound(format!("no articles account with id {id}")));
    };
    let query = WorkQuery {
        published_from: from,
        published_to: to,
        ..author_works_query(PLATFORM, record.account.platform_id, page)
    };
    let items: Vec<pb::AccountArticleItem> = keyword::work_items(&api, query)
        .await?
        .into_iter()
        .map(|r| pb::AccountArticleItem {
            clicks_count: reads(&r),
            publish_time: format_time(r.work.published_at),
            title: r.work.title,
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ArticlesWorkListResponse { items }, empty))
}

/// The `sortType` values of `articles-search-user` (ours, docs/data/articles.md):
/// empty, `0` or `general` = relevance; `1` or `fans` = most fans first (the
/// values of shortvideo's and lifestyle's account searches).
const SORT_TYPES: [(&str, AccountOrder); 5] = [
    ("", AccountOrder::Relevance),
    ("0", AccountOrder::Relevance),
    ("general", AccountOrder::Relevance),
    ("1", AccountOrder::Fans),
    ("fans", AccountOrder::Fans),
];

/// `articles-search-user`: `{items[{accountName, description, uid}]}`,
/// 20 a page; `description` is the account's signature.
pub async fn search_user(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::ArticlesSearchUserRequest,
) -> Result<Answer<pb::ArticlesSearchUserResponse>, ServiceError> {
    let page = PageRequest::page(req.page, "page")?;
    let order = choose(&req.sort_type, "sortType", &SORT_TYPES)?;
    let found = keyword::account_items(&api, PLATFORM, (&req.keyword, keyword::KEYWORD), (page, order), |r| {
        pb::ArticleUserSearchItem {
            uid: uid(&r.account),
            description: r.account.signature.unwrap_or_default(),
            account_name: r.account.nickname,
        }
    })
    .await?;
    let empty = found.items.is_empty();
    Ok(list(pb::ArticlesSearchUserResponse { items: found.items }, empty))
}

/// `article-metrics` (shape ours): the newest snapshot's counters,
/// `{workUuid, readCount, likeCount, shareCount, watchCount, commentCount}`.
pub async fn article_metrics(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::ArticleMetricsRequest,
) -> Result<Answer<pb::ArticleMetricsResponse>, ServiceError> {
    let record = match work_by_uuid(&api, &req.work_uuid).await? {
        Ok(record) => record,
        Err(missing) => return Ok(missing),
    };
    let s = record.latest.unwrap_or_default();
    let w = record.work;
    Ok(Answer::Found(pb::ArticleMetricsResponse {
        work_uuid: w.ids.work_uuid.unwrap_or(w.platform_id),
        read_count: count(s.views),
        like_count: count(s.likes),
        share_count: count(s.shares),
        watch_count: count(s.watch),
        comment_count: count(s.comments),
    }))
}

/// `article-comments` (shape ours): the stored comments of a work, most
/// liked first, 20 a page, with the total stored ([`comments::of_work`]):
/// `{items[{content, likeCount, authorName, commentTime}], total}`.
pub async fn article_comments(
    api: Arc<DataApi>,
    _: CallContext,
    req: pb::ArticleCommentsRequest,
) -> Result<Answer<pb::ArticleCommentsResponse>, ServiceError> {
    let uuid = required(&req.work_uuid, "workUuid")?;
    let page = PageRequest::page(req.page, "page")?;
    let Some(found) = comments::of_work(&api, PLATFORM, uuid, page.first_index(), "page").await? else {
        return Ok(missing_work(uuid));
    };
    let items: Vec<pb::ArticleCommentItem> = found
        .items
        .into_iter()
        .map(|c| pb::ArticleCommentItem {
            content: c.text,
            like_count: count(c.likes),
            author_name: c.author_name.unwrap_or_default(),
            comment_time: format_time(c.published_at),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ArticleCommentsResponse { items, total: found.total as i64 }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_names_and_sort_types_are_checked() {
        assert_eq!(english_id(" rmrbwx ", "account").unwrap(), "rmrbwx");
        let err = english_id("人民日报", "account").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("account"));
        assert!(err.message.contains("articles-search-user"), "{}", err.message);
        assert_eq!(english_id(" ", "account").unwrap_err().field.as_deref(), Some("account"));
        assert_eq!(choose("general", "sortType", &SORT_TYPES).unwrap(), AccountOrder::Relevance);
        assert_eq!(choose("1", "sortType", &SORT_TYPES).unwrap(), AccountOrder::Fans);
        assert_eq!(choose("hot", "sortType", &SORT_TYPES).unwrap_err().field.as_deref(), Some("sortType"));
        assert_eq!(daily_names(&["a".into(), " b ".into()]).unwrap(), vec!["a", "b"]);
        assert_eq!(daily_names(&[]).unwrap_err().field.as_deref(), Some("accountNames"));
        assert_eq!(daily_names(&[" ".into()]).unwrap_err().field.as_deref(), Some("accountNames"));
        let many = vec!["x".to_owned(); MAX_DAILY_ACCOUNTS + 1];
        assert_eq!(daily_names(&many).unwrap_err().field.as_deref(), Some("accountNames"));
    }
}
