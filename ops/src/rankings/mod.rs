//! Rankings, boards and account analytics computed from the content
//! store's snapshots (spec 4.1–4.5, 4.14, 8). The window and
//! category rules are in [`mediaops_store::rankings::rules`]; reading levels and gains out of
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

use crate::data_api::{DataApi, list, store_error};
use boards::kinds::Kind;
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::model::{
    AccountOrder, AccountQuery, AccountRecord, AccountSeries, BoardAccount, BoardQuery, BoardWork, Counter,
    KeywordMatches, Measure, SearchPage, SeriesQuery, Total, WorkOrder, WorkQuery, WorkRecord, WorkSeries,
};
use mediaops_store::rankings::board_tables::NamedRow;
use mediaops_store::rankings::rules::{Checked, Window};
use mediaops_store::rules::times::{day_end, day_start};

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
pub fn no_account_given<T: Default>(ctx: &CallContext, fields: &str) -> Answer<T> {
    ctx.warn(format!("no account given: give {fields} to find similar accounts"));
    Answer::Empty(T::default())
}

/// Adds `warning` to the call's warnings when there is one.
pub fn warn_opt(ctx: &CallContext, warning: Option<String>) {
    if let Some(warning) = warning {
        ctx.warn(warning);
    }
}

/// The works of `query` with their snapshots ([`mediaops_store::ContentStore::work_series`]).
pub async fn works(api: &DataApi, query: &SeriesQuery) -> Result<Vec<WorkSeries>, ServiceError> {
    api.store.work_series(query).await.map_err(store_error)
}

/// The accounts of `query` with their snapshots.
pub async fn accounts(api: &DataApi, query: &SeriesQuery) -> Result<Vec<AccountSeries>, ServiceError> {
    api.store.account_series(query).await.map_err(store_error)
}

/// A board of works ranked in the store from its per-day aggregates
/// ([`mediaops_store::ContentStore::work_board`]).
pub async fn work_board(api: &DataApi, query: &BoardQuery) -> Result<Vec<BoardWork>, ServiceError> {
    api.store.work_board(query).await.map_err(store_error)
}

/// A board's works with the values they rank by, its authors left out
/// (the keyword boards' answers show none; as
/// [`mediaops_store::ContentStore::value_boards`] gives them).
pub fn work_values(board: Vec<BoardWork>) -> Vec<(mediaops_store::model::Work, i64)> {
    board.into_iter().map(|b| (b.work, b.value)).collect()
}

/// The works matching `query`'s keyword, matched once for the boards and
/// series of one request to share (`BoardQuery::matched`,
/// [`mediaops_store::ContentStore::keyword_matches`]; docs/rankings.md
/// "Keyword boards"); `None` without a text or where the backend matches
/// in each statement.
pub async fn keyword_matches(api: &DataApi, query: &BoardQuery) -> Result<Option<KeywordMatches>, ServiceError> {
    api.store.keyword_matches(query).await.map_err(store_error)
}

/// A board of accounts ranked in the store ([`mediaops_store::ContentStore::account_board`]).
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

/// The answer of an account-board operation (spec 4.1; docs/rankings.md
/// "Boards as data"). `out_of_list` (the category's out-of-list warning)
/// or a rule check (`checked`) leaving nothing to rank answers
/// `Empty(R::default())` with that reason; else the rows of the board of
/// `kind` over the window for `category` (`None` = every category;
/// [`boards::named`]), in board order, each built by `item(rank, row)` with
/// its 1-based rank, with [`warn_if_empty`]'s warning that the store has no
/// `what` when there are none; `response(items)` builds the message (called
/// only when a window is ranked), answered per [`list`].
pub async fn account_board_answer<T, R: Default>(
    (api, ctx): (&DataApi, &CallContext),
    (checked, out_of_list): (Checked<Window>, Option<String>),
    (kind, category, what): (Kind, Option<&str>, &str),
    mut item: impl FnMut(i32, NamedRow) -> T,
    response: impl FnOnce(Vec<T>) -> R,
) -> Result<Answer<R>, ServiceError> {
    if let Some(warning) = out_of_list {
        ctx.warn(warning);
        return Ok(Answer::Empty(R::default()));
    }
    let Some(window) = window_or_warn(ctx, checked) else { return Ok(Answer::Empty(R::default())) };
    let rows = boards::named(api, kind, window, category).await?;
    let items: Vec<T> = rows.into_iter().enumerate().map(|(i, row)| item(i as i32 + 1, row)).collect();
    warn_if_empty(ctx, items.is_empty(), what, window);
    let empty = items.is_empty();
    Ok(list(response(items), empty))
}

/// The stored accounts an analyzer's `accountNames` asks for (spec 4.4,
/// 4.5): 1 to `max` ids (any id form) or exact names, else a 400 naming
/// `accountNames`; each looked up by [`account_by_id_or_name`], in the
/// order asked; one the store does not know is left out with a warning.
pub async fn accounts_asked(
    api: &DataApi,
    ctx: &CallContext,
    platform: &str,
    names: &[String],
    max: usize,
) -> Result<Vec<AccountRecord>, ServiceError> {
    if names.is_empty() || names.len() > max {
        return Err(ServiceError::invalid_field(
            "accountNames",
            format!("accountNames must hold 1 to {max} ids or names"),
        ));
    }
    let mut found = Vec::new();
    for (i, asked) in names.iter().enumerate() {
        let asked = asked.trim();
        match account_by_id_or_name(api, platform, asked).await? {
            Some(record) => found.push(record),
            None => ctx.warn(format!("accountNames[{i}] {} is not in the store", excerpt(asked))),
        }
    }
    Ok(found)
}

/// The accounts of `platform` in `category` (all when `None`), most
/// followed first: one store page of at most
/// [`mediaops_store::MAX_PAGE_SIZE`] (the candidates of the
/// similar-account searches, spec 4.4/4.5).
pub async fn most_followed(
    api: &DataApi,
    platform: &str,
    category: Option<String>,
) -> Result<Vec<AccountRecord>, ServiceError> {
    let query = AccountQuery {
        platform: platform.into(),
        category,
        order: AccountOrder::Fans,
        page: 1,
        page_size: mediaops_store::MAX_PAGE_SIZE,
        total: Total::Uncounted,
        ..AccountQuery::default()
    };
    Ok(api.store.find_accounts(&query).await.map_err(store_error)?.items)
}

/// The works of `author_id` on `platform` published within `window` (from
/// the start of its first day to the end of its last), newest first: one
/// store page of at most [`mediaops_store::MAX_PAGE_SIZE`] with the
/// total (what the account analyzers average over, spec 4.4/4.5).
pub async fn published_in(
    api: &DataApi,
    platform: &str,
    author_id: &str,
    window: Window,
) -> Result<SearchPage<WorkRecord>, ServiceError> {
    let query = WorkQuery {
        platform: platform.into(),
        author_id: Some(author_id.into()),
        published_from: Some(day_start(window.first)),
        published_to: Some(day_end(window.last)),
        order: WorkOrder::Newest,
        page: 1,
        page_size: mediaops_store::MAX_PAGE_SIZE,
        ..WorkQuery::default()
    };
    api.store.find_works(&query).await.map_err(store_error)
}

/// The stored account an id (any id form) or, failing that, an exact
/// nickname names (`accountNames` of the analyzers: "ids or names").
pub async fn account_by_id_or_name(
    api: &DataApi,
    platform: &str,
    value: &str,
) -> Result<Option<AccountRecord>, ServiceError> {
    if let Some(found) = api.store.get_account(platform, value).await.map_err(store_error)? {
        return Ok(Some(found));
    }
    crate::data_api::keyword::account_named(api, platform, value).await
}
