//! Exact item windows over the store's page-based listings: a request that
//! says "start at item N" (shortvideo `query-work-list` `offset`, lifestyle
//! `comments` `cursor`) gets items `[N, N + size)`, even when N is not a
//! multiple of the page size.

use std::future::Future;

use super::store_error;
use mediaops_proto::error::ServiceError;
use mediaops_store::StoreResult;
use mediaops_store::model::SearchPage;

/// Items `[offset, offset + size)` of a listing that `fetch(page, size)`
/// serves one 1-based page at a time, with the listing's total; at most two
/// reads. `size` must be a valid store page size (1..=50); an offset beyond
/// what pages can address is a 400 naming `field`.
pub async fn at_offset<T, F, Fut>(offset: u64, size: u32, field: &str, fetch: F) -> Result<SearchPage<T>, ServiceError>
where
    F: Fn(u32, u32) -> Fut,
    Fut: Future<Output = StoreResult<SearchPage<T>>>,
{
    let size64 = u64::from(size.max(1));
    let page = u32::try_from(offset / size64 + 1)
        .map_err(|_| ServiceError::invalid_field(field, format!("{field} is too large")))?;
    let skip = (offset % size64) as usize;
    let first = fetch(page, size).await.map_err(store_error)?;
    let (total, lower_bound) = (first.total, first.total_is_lower_bound);
    let mut items = first.items;
    if skip > 0 && (lower_bound || (offset + size64 - skip as u64) < total) {
        let next =
            page.checked_add(1).ok_or_else(|| ServiceError::invalid_field(field, format!("{field} is too large")))?;
        items.extend(fetch(next, size).await.map_err(store_error)?.items);
    }
    let items = items.into_iter().skip(skip).take(size as usize).collect();
    Ok(SearchPage { total, total_is_lower_bound: lower_bound, items })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing of `0..total` served by page, counting reads.
    async fn window(offset: u64, size: u32, total: u64) -> (Vec<u64>, u64, usize) {
        let reads = std::sync::atomic::AtomicUsize::new(0);
        let fetch = |page: u32, size: u32| {
            reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let start = u64::from(page - 1) * u64::from(size);
            let items = (start..total.min(start + u64::from(size))).collect();
            async move { Ok(SearchPage::exact(total, items)) }
        };
        let page = at_offset(offset, size, "offset", fetch).await.unwrap();
        (page.items, page.total, reads.into_inner())
    }

    #[tokio::test]
    async fn windows_start_at_the_exact_item() {
        assert_eq!(window(0, 3, 10).await, (vec![0, 1, 2], 10, 1));
        assert_eq!(window(4, 3, 10).await, (vec![4, 5, 6], 10, 2));
        assert_eq!(window(6, 3, 10).await, (vec![6, 7, 8], 10, 1));
        assert_eq!(window(8, 3, 10).await, (vec![8, 9], 10, 2));
        assert_eq!(window(7, 3, 9).await, (vec![7, 8], 9, 1), "the next page is past the end: not read");
        assert_eq!(window(10, 3, 10).await, (vec![], 10, 1));
        assert_eq!(window(25, 20, 30).await, ((25..30).collect(), 30, 1));
    }
}
