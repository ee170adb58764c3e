//! The thresholds and scores that both the per-platform rankings
//! (`articles`, `lifestyle`, `shortvideo`) and the board builder
//! ([`super::boards`]) use, below both (docs/rankings.md); each platform
//! module re-exports its own.

use super::board_query;
use super::series::round;
use crate::data_api::articles::PLATFORM;
use crate::data_api::{DataApi, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_store::model::{AuthorGains, Counter, Measure};
use mediaops_store::rankings::rules::Window;

/// The 10万+ boards: reads of at least this many.
pub const HUNDRED_K: i64 = 100_000;

/// `work_type` values that mark an original article (the original-content board).
pub const ORIGINAL_TYPES: [&str; 2] = ["原创", "original"];

/// Per author (keyed by `author_id`, named by the stored account), the
/// sums of reads and likes gained over `window` by their articles of
/// `category`, each article's gain counted when above 0; by author id
/// (summed in the store, [`mediaops_store::ContentStore::author_gains`]).
pub async fn gains_by_author(
    api: &DataApi,
    category: Option<&str>,
    window: Window,
) -> Result<Vec<AuthorGains>, ServiceError> {
    let query = board_query(PLATFORM, category, window, (Counter::Views, Measure::Gain), None, None);
    api.store.author_gains(&query).await.map_err(store_error)
}

/// `indexScore` of `articles-index-rank`: `10 × log10(1 + R) + 5 × log10(1 +
/// L)`, R and L the reads and likes an account's articles gained over the
/// period, rounded to 2 decimals. E.g. R = 9,999 and L = 99 give 50.
pub fn index_score(reads: i64, likes: i64) -> f64 {
    let log = |v: i64| ((1 + v.max(0)) as f64).log10();
    round(10.0 * log(reads) + 5.0 * log(likes), 2)
}

/// A "low-fan" author has fewer followers than this (`lifestyle-low-fans-top`,
/// the 低粉爆文 board).
pub const LOW_FANS: i64 = 10_000;

/// `influenceScore` of `shortvideo-top-account`:
/// `6 × log10(1 + F) + 4 × log10(1 + max(0, ΔL))`, F = followers at the end
/// of the period, ΔL = the account's likes gained over the period (unknown
/// = 0), rounded to 2 decimals. E.g. F = 9,999 and ΔL = 999 give 36.
pub fn influence_score(followers: i64, likes_gained: i64) -> f64 {
    let log = |v: i64| ((1 + v.max(0)) as f64).log10();
    round(6.0 * log(followers) + 4.0 * log(likes_gained), 2)
}
