//! The read-time computation of each board [`Kind`] from the per-day
//! aggregates (`work_board`, `account_board`, `author_gains`; docs/rankings.md
//! "Store") and the ranking formulas. The operations answer from it when
//! the board is not stored, and the builder stores exactly what it returns,
//! so a stored board is by construction the read-time answer.

use super::kinds::{Kind, Shape};
use crate::data_api::DataApi;
use crate::rankings::formulas::{HUNDRED_K, LOW_FANS, ORIGINAL_TYPES, gains_by_author, index_score, influence_score};
use crate::rankings::series::top;
use crate::rankings::{BOARD_SIZE, account_board, board_query, work_board};
use mediaops_proto::error::ServiceError;
use mediaops_store::model::{BoardQuery, BoardWork, Counter, Measure};
use mediaops_store::rankings::board_tables::{BoardRow, NamedRow};
use mediaops_store::rankings::rules::Window;

/// A board's rows: works, or named accounts and authors.
#[derive(Debug, Clone, PartialEq)]
pub enum Rows {
    /// A board of works (notes, videos, articles), best first.
    Works(Vec<BoardWork>),
    /// A board of accounts or authors by name, best first.
    Named(Vec<NamedRow>),
}

impl Rows {
    /// The rows as stored (the entity's platform id, value, score).
    pub fn stored(&self) -> Vec<BoardRow> {
        match self {
            Rows::Works(works) => works
                .iter()
                .map(|w| BoardRow { entity: w.work.platform_id.clone(), value: w.value, score: None })
                .collect(),
            Rows::Named(named) => named.iter().map(NamedRow::stored).collect(),
        }
    }
}

/// What a board of keyword values of `kind` over `window` holds
/// ([`Shape::Values`]): every work of its platform (of an author under
/// 10,000 followers for the low-fans kind), its value of the kind's
/// counter and measure (no minimum, no limit); `None` for a kind of
/// ranked rows. The builder stores it with `BoardTables::put_values`.
pub fn values_query(kind: Kind, window: Window) -> Option<BoardQuery> {
    let Shape::Values(counter, measure) = kind.shape() else { return None };
    let mut query = board_query(kind.platform(), None, window, (counter, measure), None, None);
    if kind == Kind::LifestyleKeywordLowFansLikes {
        query.author_fans_below = Some(LOW_FANS);
    }
    Some(query)
}

/// The board of `kind` over `window` for `category` (`None` = every
/// category), computed now.
///
/// # Errors
/// An internal error for a kind of keyword values, which holds values,
/// not rows ([`values_query`]); the store's failures.
pub async fn rows(api: &DataApi, kind: Kind, window: Window, category: Option<&str>) -> Result<Rows, ServiceError> {
    Ok(match kind {
        Kind::LifestyleKeywordLikes
        | Kind::LifestyleKeywordLowFansLikes
        | Kind::LifestyleKeywordInteractions
        | Kind::LifestyleKeywordGrowth
        | Kind::ArticlesKeywordReads
        | Kind::ArticlesKeywordReadsGained => {
            return Err(ServiceError::internal(format!("board {} holds keyword values, not rows", kind.name())));
        }
        Kind::LifestyleNotes | Kind::LifestyleLowFansNotes | Kind::ShortvideoLikes => {
            let mut query = board_query(
                kind.platform(),
                category,
                window,
                (Counter::Likes, Measure::Gain),
                Some(1),
                Some(BOARD_SIZE),
            );
            if kind == Kind::LifestyleLowFansNotes {
                query.author_fans_below = Some(LOW_FANS);
            }
            Rows::Works(work_board(api, &query).await?)
        }
        Kind::ArticlesHundredK | Kind::ArticlesOriginal => {
            let reads = (Counter::Views, Measure::Level);
            let published = BoardQuery {
                published_from: Some(mediaops_store::rules::times::day_start(window.first)),
                published_to: Some(mediaops_store::rules::times::day_end(window.last)),
                ..board_query(kind.platform(), category, window, reads, None, Some(BOARD_SIZE))
            };
            let query = if kind == Kind::ArticlesHundredK {
                BoardQuery { at_least: Some(HUNDRED_K), ..published }
            } else {
                BoardQuery { work_types: ORIGINAL_TYPES.map(str::to_owned).to_vec(), ..published }
            };
            Rows::Works(work_board(api, &query).await?)
        }
        Kind::LifestyleFans | Kind::ShortvideoRiseFans => {
            let (measure, at_least) =
                if kind == Kind::LifestyleFans { (Measure::Level, None) } else { (Measure::Gain, Some(1)) };
            let query =
                board_query(kind.platform(), category, window, (Counter::Fans, measure), at_least, Some(BOARD_SIZE));
            let named = account_board(api, &query)
                .await?
                .into_iter()
                .map(|a| NamedRow {
                    entity: a.account.platform_id,
                    name: a.account.nickname,
                    value: a.value,
                    score: None,
                })
                .collect();
            Rows::Named(named)
        }
        Kind::ShortvideoInfluence => {
            // Every account with a follower level, in row order: the score
            // combines two figures, so it is ranked here.
            let followers = (Counter::Fans, Measure::Level);
            let board =
                account_board(api, &board_query(kind.platform(), category, window, followers, None, None)).await?;
            let scored: Vec<NamedRow> = board
                .into_iter()
                .map(|a| NamedRow {
                    score: Some(influence_score(a.value, a.likes_gained.unwrap_or(0))),
                    entity: a.account.platform_id,
                    name: a.account.nickname,
                    value: a.value,
                })
                .collect();
            Rows::Named(top(scored, BOARD_SIZE, |e| e.score, |e| &e.name))
        }
        Kind::ArticlesIndex => {
            let scored: Vec<NamedRow> = gains_by_author(api, category, window)
                .await?
                .into_iter()
                .filter(|a| a.views + a.likes > 0)
                .map(|a| NamedRow {
                    score: Some(index_score(a.views, a.likes)),
                    entity: a.author_id,
                    name: a.name,
                    value: a.views,
                })
                .collect();
            Rows::Named(top(scored, BOARD_SIZE, |e| e.score, |e| &e.name))
        }
        Kind::ArticlesRaise => {
            let raised: Vec<NamedRow> = gains_by_author(api, category, window)
                .await?
                .into_iter()
                .filter(|a| a.views > 0)
                .map(|a| NamedRow { entity: a.author_id, name: a.name, value: a.views, score: None })
                .collect();
            Rows::Named(top(raised, BOARD_SIZE, |e| e.value, |e| &e.name))
        }
    })
}
