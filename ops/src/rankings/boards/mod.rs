//! Boards as data (docs/rankings.md "Boards as data"): the
//! ranking boards of canonical windows (days, Monday weeks, calendar
//! months, the surge board's seven days) are computed once their days are
//! final and stored ranked in the board tables (`store::boards`), so an
//! operation reads 50 rows through one index instead of ranking every
//! entity of the platform.
//!
//! - [`kinds`]: the catalogue — what each board ranks, for which
//!   categories and windows, and which operation rule reads it;
//! - [`compute`]: the read-time computation of each kind (the same
//!   function answers when no board is stored, and fills the board);
//! - [`builder`]: turns the marks of changed days into boards to rebuild
//!   and builds the complete ones (one builder per store);
//! - [`schedule`]: runs the builder in the core every
//!   `MEDIAOPS_BOARDS_INTERVAL_SECS`.
//!
//! The operations keep every rule (warnings, 400s, empty rankings); only
//! where their rows come from changes: [`works`] and [`named`] answer from
//! the stored board of the exact window and category when it is built,
//! else compute it.

pub mod builder;
pub mod compute;
pub mod kinds;
pub mod schedule;

use compute::Rows;
use kinds::{Kind, Shape};

use crate::data_api::{DataApi, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_store::model::BoardWork;
use mediaops_store::rankings::board_tables::NamedRow;
use mediaops_store::rankings::rules::Window;

/// The stored rows of the board of `kind` over `window` for `category`,
/// when one is built; `None` when the window is not one the kind is built
/// for, or the board is not built (yet, or since its days changed).
async fn stored(
    api: &DataApi,
    kind: Kind,
    window: Window,
    category: Option<&str>,
) -> Result<Option<Rows>, ServiceError> {
    let (Some(tables), Some(span)) = (api.store.boards(), kind.span_of(window)) else { return Ok(None) };
    let key = kind.key(span, window, category);
    let rows = match kind.shape() {
        Shape::Works => tables.stored_works(&key).await.map_err(store_error)?.map(Rows::Works),
        Shape::Named(naming) => tables.stored_named(&key, naming).await.map_err(store_error)?.map(Rows::Named),
        Shape::Values(..) => None,
    };
    Ok(rows)
}

/// The row id of the built board of keyword values of `kind` over `window`
/// (docs/rankings.md "Keyword values"), for
/// [`mediaops_store::model::BoardQuery::stored_values`]; `None` when the
/// window is not one the kind is built for, or the board is not built (yet,
/// or since its days changed): the keyword board then computes its values.
pub async fn stored_values(api: &DataApi, kind: Kind, window: Window) -> Result<Option<i64>, ServiceError> {
    let (Some(tables), Some(span)) = (api.store.boards(), kind.span_of(window)) else { return Ok(None) };
    tables.stored_values(&kind.key(span, window, None)).await.map_err(store_error)
}

/// The board of `kind` (a board of works) over `window` for `category`
/// (`None` = every category): stored, else computed at read time.
pub async fn works(
    api: &DataApi,
    kind: Kind,
    window: Window,
    category: Option<&str>,
) -> Result<Vec<BoardWork>, ServiceError> {
    match board(api, kind, window, category).await? {
        Rows::Works(works) => Ok(works),
        Rows::Named(_) => Err(ServiceError::internal(format!("board {} ranks accounts, not works", kind.name()))),
    }
}

/// The board of `kind` (accounts or authors) over `window` for `category`:
/// stored, else computed at read time.
pub async fn named(
    api: &DataApi,
    kind: Kind,
    window: Window,
    category: Option<&str>,
) -> Result<Vec<NamedRow>, ServiceError> {
    match board(api, kind, window, category).await? {
        Rows::Named(named) => Ok(named),
        Rows::Works(_) => Err(ServiceError::internal(format!("board {} ranks works, not accounts", kind.name()))),
    }
}

async fn board(api: &DataApi, kind: Kind, window: Window, category: Option<&str>) -> Result<Rows, ServiceError> {
    match stored(api, kind, window, category).await? {
        Some(rows) => Ok(rows),
        None => compute::rows(api, kind, window, category).await,
    }
}
