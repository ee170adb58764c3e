//! Keyword searches as several platforms answer them (articles, microblog,
//! intlshort): a required `keyword`, a checked page, and the store's full
//! text ([`mediaops_store::ContentStore::find_works`] /
//! [`mediaops_store::ContentStore::find_accounts`]); plus the account
//! counters such searches show, and the shapes of their answers.

use super::choice::choose;
use super::paging::PageRequest;
use super::{DataApi, count, list, required, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::{
    AccountOrder, AccountQuery, AccountRecord, SearchPage, Total, WorkOrder, WorkQuery, WorkRecord,
};

/// The request field every keyword search reads.
pub const KEYWORD: &str = "keyword";

/// A work query over `platform` for the request's `keyword` (blank is a 400
/// naming `keyword`), by relevance, on `page`. Callers set any other filter
/// or order with struct update syntax.
pub fn works_query(platform: &str, keyword: &str, page: PageRequest) -> Result<WorkQuery, ServiceError> {
    Ok(WorkQuery {
        platform: platform.into(),
        text: Some(required(keyword, KEYWORD)?.into()),
        page: page.page,
        page_size: page.size,
        ..WorkQuery::default()
    })
}

/// [`works_query`] for a search whose `keyword` is optional (spec 4.5
/// `search-article`): blank means no text filter, the newest works first
/// (the latest articles; docs/data-apis.md "Empty requests").
pub fn latest_or_matching(platform: &str, keyword: &str, page: PageRequest) -> Result<WorkQuery, ServiceError> {
    if !keyword.trim().is_empty() {
        return works_query(platform, keyword, page);
    }
    Ok(WorkQuery {
        platform: platform.into(),
        order: WorkOrder::Newest,
        page: page.page,
        page_size: page.size,
        ..WorkQuery::default()
    })
}

/// The warning of an answer whose `total` is the store's count cap and
/// more rows match (docs/data-apis.md "Totals").
pub fn lower_bound_warning(total: u64) -> String {
    format!("total {total} is a lower bound: more than {total} match (counting stops there)")
}

/// The `total` a search answer shows for a page's `total` and
/// `total_is_lower_bound` ([`SearchPage`]): the total; past the store's
/// count cap ([`mediaops_store::TOTAL_CAP`]) the cap, with
/// [`lower_bound_warning`] added to the call's warnings.
pub fn shown_total(ctx: &CallContext, total: u64, lower_bound: bool) -> i64 {
    if lower_bound {
        ctx.warn(lower_bound_warning(total));
    }
    i64::try_from(total).unwrap_or(i64::MAX)
}

/// One page of works matching `query`, with its total.
pub async fn works(api: &DataApi, query: &WorkQuery) -> Result<SearchPage<WorkRecord>, ServiceError> {
    api.store.find_works(query).await.map_err(store_error)
}

/// One page of works matching `query`, not counted ([`Total::Uncounted`]):
/// for an answer that shows no total, which then reads the page alone
/// (docs/data-apis.md "Search at scale").
pub async fn work_items(api: &DataApi, query: WorkQuery) -> Result<Vec<WorkRecord>, ServiceError> {
    let query = WorkQuery { total: Total::Uncounted, ..query };
    Ok(api.store.find_works(&query).await.map_err(store_error)?.items)
}

/// One page of `platform`'s accounts matching the request's `keyword`
/// (nickname terms weigh most, then signature and category) in `order`.
pub async fn accounts(
    api: &DataApi,
    platform: &str,
    keyword: &str,
    page: PageRequest,
    order: AccountOrder,
) -> Result<SearchPage<AccountRecord>, ServiceError> {
    accounts_by(api, platform, keyword, KEYWORD, page, order).await
}

/// [`accounts`] for a search text read from the request field `field`
/// (e.g. `accountName`; blank is a 400 naming it).
pub async fn accounts_by(
    api: &DataApi,
    platform: &str,
    text: &str,
    field: &str,
    page: PageRequest,
    order: AccountOrder,
) -> Result<SearchPage<AccountRecord>, ServiceError> {
    let query = AccountQuery {
        platform: platform.into(),
        text: Some(required(text, field)?.into()),
        order,
        page: page.page,
        page_size: page.size,
        ..AccountQuery::default()
    };
    api.store.find_accounts(&query).await.map_err(store_error)
}

/// The items of a user search (`search-user` and the like): one page of
/// `platform`'s accounts matching `text`, read from the request field
/// `field` (blank is a 400 naming it), in `order` ([`accounts_by`]), each
/// built by `item`; the page's total is kept.
pub async fn account_items<T>(
    api: &DataApi,
    platform: &str,
    (text, field): (&str, &str),
    (page, order): (PageRequest, AccountOrder),
    item: impl FnMut(AccountRecord) -> T,
) -> Result<SearchPage<T>, ServiceError> {
    let found = accounts_by(api, platform, text, field, page, order).await?;
    let items = found.items.into_iter().map(item).collect();
    Ok(SearchPage { total: found.total, total_is_lower_bound: found.total_is_lower_bound, items })
}

/// The `sortType` of a user search that ranks by relevance or by fans
/// ([`choose`]): empty or the platform's code `relevance` (e.g. `general`,
/// `0`) = [`AccountOrder::Relevance`], its code `fans` (e.g. `fans`, `1`) =
/// [`AccountOrder::Fans`] (most fans first); anything else is a 400 naming
/// `sortType` that lists the three values.
pub fn relevance_or_fans(sort_type: &str, (relevance, fans): (&str, &str)) -> Result<AccountOrder, ServiceError> {
    choose(
        sort_type,
        "sortType",
        &[("", AccountOrder::Relevance), (relevance, AccountOrder::Relevance), (fans, AccountOrder::Fans)],
    )
}

/// A search answer that shows a `total` (docs/data-apis.md "Totals"):
/// `response(items, total)` with `found`'s items and its [`shown_total`]
/// (warned about when a lower bound), answered per [`list`] (empty without
/// items).
pub fn list_with_total<T, R>(
    ctx: &CallContext,
    found: SearchPage<T>,
    response: impl FnOnce(Vec<T>, i64) -> R,
) -> Answer<R> {
    let empty = found.items.is_empty();
    let total = shown_total(ctx, found.total, found.total_is_lower_bound);
    list(response(found.items, total), empty)
}

/// An account's fans: the account row's figure, else its newest snapshot's,
/// else 0 (unknown).
pub fn fans(record: &AccountRecord) -> i64 {
    count(record.account.fans.or(record.latest.as_ref().and_then(|s| s.fans)))
}

/// The account whose exact nickname is `name` on `platform` (the most
/// followed one when several share it).
pub async fn account_named(api: &DataApi, platform: &str, name: &str) -> Result<Option<AccountRecord>, ServiceError> {
    let query = AccountQuery {
        platform: platform.into(),
        nickname: Some(name.into()),
        order: AccountOrder::Fans,
        page: 1,
        page_size: 1,
        ..AccountQuery::default()
    };
    Ok(api.store.find_accounts(&query).await.map_err(store_error)?.items.into_iter().next())
}
