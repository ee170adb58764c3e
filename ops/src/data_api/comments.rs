//! Comment lists of one work, shared by the platforms' `comments`
//! operations (lifestyle `noteId` + `cursor`, shortvideo `videoId` +
//! `page`): the work is found by any of its id forms, its stored comments
//! come most liked first (then oldest), and a window of them is answered
//! with the total.

use super::{DataApi, store_error, window};
use mediaops_proto::error::ServiceError;
use mediaops_store::model::{Comment, SearchPage};

/// Comments per answer (spec 8's default `size`).
pub const PAGE_SIZE: u32 = super::paging::DEFAULT_SIZE;

/// The comments `[offset, offset + PAGE_SIZE)` of the work `id` (its
/// `platform_id` or any id form) on `platform`, with the total. `None`
/// when the store knows neither the work nor any comment filed under `id`
/// (the caller answers 404). `field` names the offset's request field in
/// errors.
pub async fn of_work(
    api: &DataApi,
    platform: &str,
    id: &str,
    offset: u64,
    field: &str,
) -> Result<Option<SearchPage<Comment>>, ServiceError> {
    let work = api.store.get_work(platform, id).await.map_err(store_error)?;
    let work_id = work.as_ref().map_or(id, |w| w.work.platform_id.as_str());
    let page = window::at_offset(offset, PAGE_SIZE, field, |page, size| {
        api.store.list_comments(platform, work_id, page, size)
    })
    .await?;
    Ok((work.is_some() || page.total > 0).then_some(page))
}
