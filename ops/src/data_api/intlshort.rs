//! intlshort data operations answered from the store (spec 4.8):
//! `search-user`. Accounts are keyed by `unique_id` (the @handle; the
//! store's `platform_id` when no handle is stored).

use std::sync::Arc;

use mediaops_proto::mediaops::intlshort::v1 as pb;

use super::DataApi;
use super::keyword;
use super::paging::PageRequest;
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::AccountOrder;

/// The platform token.
pub const PLATFORM: &str = "intlshort";

/// `search-user`: accounts matching `keyword` (nickname, signature,
/// category) by relevance, 20 a page, with the total of all matches:
/// `{items[{uniqueId, fans}], total}`; no continuation marker (spec 4.8).
pub async fn search_user(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::SearchUserRequest,
) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
    let page = PageRequest::page(req.page, "page")?;
    let search = (req.keyword.as_str(), keyword::KEYWORD);
    let found =
        keyword::account_items(&api, PLATFORM, search, (page, AccountOrder::Relevance), |r| pb::UserSearchItem {
            fans: keyword::fans(&r),
            unique_id: r.account.ids.unique_id.unwrap_or(r.account.platform_id),
        })
        .await?;
    Ok(keyword::list_with_total(&ctx, found, |items, total| pb::SearchUserResponse { items, total }))
}
