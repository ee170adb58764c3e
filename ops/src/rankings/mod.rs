//! Rankings, boards and account analytics computed from the content
//! store's snapshots (issue 6; spec 4.1–4.5, 4.14, 8). The window and
//! category rules are in [`rules`]; reading levels and gains out of
//! snapshot series in [`series`]; one module per platform token. Each
//! formula is written on its function and in docs/rankings.md.
//!
//! An empty ranking is a success with `items: []` (charged like any
//! success, spec 4.1); the reason goes to the envelope's `warnings`
//! ([`mediaops_platform::registry::Warnings`]) without changing `data`.

pub mod articles;
pub mod boards;
pub mod formulas;
pub mod lifestyle;
pub mod series;
pub mod shortvideo;
pub mod skills;

use chrono::NaiveDate;

use crate::data_api::{DataApi, store_error};
use mediaops_platform::error::ServiceError;
use mediaops_platform::registry::CallContext;
pub use mediaops_store::rules::rankings as rules;
use mediaops_store::store::model::{
    AccountSeries, BoardAccount, BoardQuery, BoardWork, Counter, KeywordMatches, Measure, SeriesQuery, WorkSeries,
};
use rules::{Checked, Window};

/// How many entries an account or work board holds (spec 4.4: "each of the
/// 28 values yields 50 entries"; the same size for every board unless its
/// name says otherwise, like 点赞TOP500).
pub const BOARD_SIZE: usize = 50;

/// Today in Asia/Shanghai from the service clock.
pub fn today(api: &DataApi) -> NaiveDate {
    api.clock.today()
}

/// The window to rank, or `None` after adding the rule's reason to the
/// call's warnings.
pub fn window_or_warn(ctx: &CallContext, checked: Checked<Window>) -> Option<Window> {
    match checked {
        Checked::Rank(window) => Some(window),
        Checked::Empty(why) => {
            ctx.warn(why);
            None
        }
    }
}

/// The answer of a similar-account search given no account (every field
/// optional, spec 4.4/4.5/4.14): an empty list with a warning naming
/// `fields`, the ones to give (docs/data-apis.md "Empty requests").
pub fn no_account_given<T: Default>(ctx: &CallContext, fields: &str) -> mediaops_platform::source::Answer<T> {
    ctx.warn(format!("no account given: give {fields} to find similar accounts"));
    mediaops_platform::source::Answer::Empty(T::default())
}

/// Adds `warning` to the call's warnings when there is one.
pub fn warn_opt(ctx: &CallContext, warning: Option<String>) {
    if let Some(warning) = warning {
        ctx.warn(warning);
    }
}

/// The works of `query` with their snapshots ([`mediaops_store::store::ContentStore::work_series`]).
pub async fn works(api: &DataApi, query: &SeriesQuery) -> Result<Vec<WorkSeries>, ServiceError> {
    api.store.work_series(query).await.map_err(store_error)
}

/// The accounts of `query` with their snapshots.
pub async fn accounts(api: &DataApi, query: &SeriesQuery) -> Result<Vec<AccountSeries>, ServiceError> {
    api.store.account_series(query).await.map_err(store_error)
}

/// A board of works ranked in the store from its per-day aggregates
/// ([`mediaops_store::store::ContentStore::work_board`]).
pub async fn work_board(api: &DataApi, query: &BoardQuery) -> Result<Vec<BoardWork>, ServiceError> {
    api.store.work_board(query).await.map_err(store_error)
}

/// The works matching `query`'s keyword, matched once for the boards and
/// series of one request to share (`BoardQuery::matched`,
/// [`mediaops_store::store::ContentStore::keyword_matches`]; docs/rankings.md
/// "Keyword boards"); `None` without a text or where the backend matches
/// in each statement.
pub async fn keyword_matches(api: &DataApi, query: &BoardQuery) -> Result<Option<KeywordMatches>, ServiceError> {
    api.store.keyword_matches(query).await.map_err(store_error)
}

/// A board of accounts ranked in the store ([`mediaops_store::store::ContentStore::account_board`]).
pub async fn account_board(api: &DataApi, query: &BoardQuery) -> Result<Vec<BoardAccount>, ServiceError> {
    api.store.account_board(query).await.map_err(store_error)
}

/// A board query of `platform` over `window` by `measure` of `counter`:
/// every entry when `limit` is `None`, values of at least `at_least`.
pub fn board_query(
    platform: &str,
    category: Option<&str>,
    window: Window,
    (counter, measure): (Counter, Measure),
    at_least: Option<i64>,
    limit: Option<usize>,
) -> BoardQuery {
    BoardQuery {
        platform: platform.into(),
        category: category.map(str::to_owned),
        first: window.first,
        last: window.last,
        counter,
        measure,
        at_least,
        limit: limit.map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        ..BoardQuery::default()
    }
}

/// A series query of `platform` reading `window` (and its baseline day).
pub fn series_query(platform: &str, category: Option<&str>, window: Window) -> SeriesQuery {
    let (captured_from, captured_to) = series::read_span(window);
    SeriesQuery {
        platform: platform.into(),
        category: category.map(str::to_owned),
        captured_from,
        captured_to,
        ..SeriesQuery::default()
    }
}

/// Warns that a ranking came out empty because the store holds nothing
/// for it (so an empty answer always says why).
pub fn warn_if_empty(ctx: &CallContext, empty: bool, what: &str, window: Window) {
    if empty {
        ctx.warn(format!("the store has no {what} for {}..{}", window.first, window.last));
    }
}

/// The stored account an id (any id form) or, failing that, an exact
/// nickname names (`accountNames` of the analyzers: "ids or names").
pub async fn account_by_id_or_name(
    api: &DataApi,
    platform: &str,
    value: &str,
) -> Result<Option<mediaops_store::store::model::AccountRecord>, ServiceError> {
    if let Some(found) = api.store.get_account(platform, value).await.map_err(store_error)? {
        return Ok(Some(found));
    }
    crate::data_api::keyword::account_named(api, platform, value).await
}
