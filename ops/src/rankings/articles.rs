//! articles rankings and account analytics (spec 4.5): `category-time-hot`,
//! `articles-index-rank`, `articles-raise-rank`, `articles-hit-cover`,
//! `articles-account-analyzer`, `articles-similar-account`. "Reads" are a
//! snapshot's `views` (as in docs/data/articles.md). Formulas:
//! docs/rankings.md "articles".

use std::sync::Arc;

use chrono::Days;
use mediaops_proto::mediaops::articles::v1 as pb;

use super::boards::{self, kinds::Kind};
pub use super::formulas::{HUNDRED_K, ORIGINAL_TYPES, gains_by_author, index_score};
use super::series::{round, top};
use super::{
    BOARD_SIZE, account_board_answer, account_by_id_or_name, accounts_asked, board_query, keyword_matches,
    most_followed, today, warn_if_empty, window_or_warn, work_board, work_values,
};
use crate::data_api::articles::PLATFORM;
use crate::data_api::{DataApi, list, required, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::model::{BoardQuery, BoardWork, Counter, Measure};
use mediaops_store::rankings::board_tables::NamedRow;
use mediaops_store::rankings::rules::{self as rules, CategoryList, OutOfList, Period};
use mediaops_store::rules::times::{day_end, day_start};

/// Board names of `articles-hit-cover`, in answer order.
pub const HIT_COVER_BOARDS: [&str; 2] = ["10万+爆文", "阅读增长"];

/// How many days of articles the analyzers look at, ending on the newest day.
pub const ANALYSIS_DAYS: u64 = 30;

/// At most this many names per `articles-account-analyzer` call.
pub const MAX_ACCOUNTS: usize = 20;

/// How many similar accounts `articles-similar-account` returns.
pub const SIMILAR_SIZE: usize = 20;

/// The stored author's nickname, else the work's `author_id`.
fn author_name(w: BoardWork) -> String {
    w.author.map(|a| a.nickname).unwrap_or_else(|| w.work.author_id.unwrap_or_default())
}

/// Adds the list's note for `category` (民生资讯: no upstream data) when a
/// board came out empty.
fn note_if_empty(ctx: &CallContext, empty: bool, category: Option<&str>) {
    if let (true, Some(category)) = (empty, category)
        && let Some(note) = CategoryList::Articles.note(category)
    {
        ctx.warn(format!("{category}: {note}"));
    }
}

/// `category-time-hot`: `{items[{title, accountName, readCount}]}`, two
/// boards one after the other over the articles of track `type`
/// (LIST_ARTICLES; a short form like 科技 = empty) published from
/// `startDate` to `endDate`: first the **10万+ board** (reads ≥ 100,000 in
/// the last snapshot of the window), then the **original-content board**
/// (work type 原创/original), each by reads, 50, ties by title. Window:
/// about the last 60 days (older = 日期格式错误), the end cut at today − 2,
/// a start within the lag = empty.
pub async fn category_time_hot(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::CategoryTimeHotRequest,
) -> Result<Answer<pb::CategoryTimeHotResponse>, ServiceError> {
    let empty = || Ok(Answer::Empty(pb::CategoryTimeHotResponse::default()));
    let (category, warning) = rules::category(CategoryList::Articles, &req.r#type, "type", true, OutOfList::Empty)?;
    let start = rules::date_field(&req.start_date, "startDate")?;
    let end = rules::date_field(&req.end_date, "endDate")?;
    let Some(start) = start else { return Err(ServiceError::invalid_field("startDate", "startDate is required")) };
    if end.is_some_and(|e| e < start) {
        return Err(ServiceError::invalid_field("endDate", "endDate is before startDate"));
    }
    let checked = rules::ARTICLE_HOT.check(today(&api), start, end, "startDate")?;
    if let Some(warning) = warning {
        ctx.warn(warning);
        return empty();
    }
    let Some(window) = window_or_warn(&ctx, checked) else { return empty() };
    let mut items = Vec::new();
    for kind in [Kind::ArticlesHundredK, Kind::ArticlesOriginal] {
        for w in boards::works(&api, kind, window, category.filter()).await? {
            items.push(pb::CategoryHotArticle {
                title: w.work.title.clone(),
                read_count: w.value,
                account_name: author_name(w),
            });
        }
    }
    warn_if_empty(&ctx, items.is_empty(), "10万+ or original articles", window);
    note_if_empty(&ctx, items.is_empty(), category.filter());
    let none = items.is_empty();
    Ok(list(pb::CategoryTimeHotResponse { items }, none))
}

/// `articles-index-rank`: `{items[{rank, accountName, indexScore}]}`, the
/// accounts whose articles of `category` (LIST_ARTICLES; empty = all; out of
/// list = empty) gained reads or likes over the period, by [`index_score`],
/// 50, ties by name. `rankType` day/week/month; `rankDate` required (else
/// 接口执行异常); day T-2..T-7, week and month the last 3 finished (older =
/// 接口执行异常); a mid-period or unfinished date = empty.
pub async fn index_rank(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ArticlesIndexRankRequest,
) -> Result<Answer<pb::ArticlesIndexRankResponse>, ServiceError> {
    let period = Period::parse(&req.rank_type, "rankType")?;
    let date = rules::date_field(&req.rank_date, "rankDate")?;
    let checked = rules::ARTICLES_INDEX.check(today(&api), period, date, "rankDate")?;
    let (category, warning) =
        rules::category(CategoryList::Articles, &req.category, "category", true, OutOfList::Empty)?;
    let board = (Kind::ArticlesIndex, category.filter(), "articles gaining reads");
    let item =
        |rank, a: NamedRow| pb::IndexRankItem { rank, account_name: a.name, index_score: a.score.unwrap_or_default() };
    let response = |items: Vec<_>| {
        note_if_empty(&ctx, items.is_empty(), category.filter());
        pb::ArticlesIndexRankResponse { items }
    };
    account_board_answer((&api, &ctx), (checked, warning), board, item, response).await
}

/// `articles-raise-rank`: `{items[{rank, accountName, readRaise}]}`, the
/// accounts by **readRaise = reads their articles gained on `rankDate`**
/// (above 0), 50, ties by name. `rankDate` required; the last 29 days,
/// newest today − 2; older or missing = 接口执行异常, within the lag = empty.
pub async fn raise_rank(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ArticlesRaiseRankRequest,
) -> Result<Answer<pb::ArticlesRaiseRankResponse>, ServiceError> {
    let date = rules::date_field(&req.rank_date, "rankDate")?;
    let checked = rules::ARTICLES_RAISE.check(today(&api), Period::Day, date, "rankDate")?;
    let board = (Kind::ArticlesRaise, None, "articles gaining reads");
    let item = |rank, a: NamedRow| pb::RaiseRankItem { rank, account_name: a.name, read_raise: a.value };
    account_board_answer((&api, &ctx), (checked, None), board, item, |items| pb::ArticlesRaiseRankResponse { items })
        .await
}

/// `articles-hit-cover`: `{items[{rank, item{title, coverUrl,
/// clicksCount}}]}`, two boards over the articles matching `keyword` from
/// `startDate` (default: the 7 days ending today − 2) to today − 2:
/// `10万+爆文` = reads ≥ 100,000 at the window's end, by reads; `阅读增长`
/// = by reads gained over the window (above 0). `clicksCount` is the
/// figure the board ranks by; 50 each, ties by title. A start older than
/// about 60 days = 日期格式错误. Both boards are ranked in the store from
/// the per-day aggregates, over at most [`mediaops_store::KEYWORD_MATCH_CAP`]
/// matches (the most liked when more match; docs/rankings.md "Keyword
/// boards"); over the default window, once the board builder has stored
/// its keyword values, each match's value is read from them
/// ("Keyword values"), both boards in one statement
/// (`ContentStore::value_boards`).
pub async fn hit_cover(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ArticlesHitCoverRequest,
) -> Result<Answer<pb::ArticlesHitCoverResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?;
    let today = today(&api);
    let start =
        rules::date_field(&req.start_date, "startDate")?.unwrap_or_else(|| rules::newest_day(today) - Days::new(6));
    let Some(window) = window_or_warn(&ctx, rules::ARTICLE_HOT.check(today, start, None, "startDate")?) else {
        return Ok(Answer::Empty(pb::ArticlesHitCoverResponse::default()));
    };
    let board = |measure: Measure, at_least: i64| BoardQuery {
        text: Some(keyword.to_owned()),
        ..board_query(PLATFORM, None, window, (Counter::Views, measure), Some(at_least), Some(BOARD_SIZE))
    };
    let (mut by_reads, mut by_gain) = (board(Measure::Level, HUNDRED_K), board(Measure::Gain, 1));
    // The keyword is matched once, for both boards (they share its
    // filters), while the stored values of the window are looked up (the
    // default window's, docs/rankings.md "Keyword values").
    let (matched, reads, gained) = tokio::try_join!(
        keyword_matches(&api, &by_reads),
        boards::stored_values(&api, Kind::ArticlesKeywordReads, window),
        boards::stored_values(&api, Kind::ArticlesKeywordReadsGained, window),
    )?;
    (by_reads.matched, by_gain.matched) = (matched.clone(), matched);
    (by_reads.stored_values, by_gain.stored_values) = (reads, gained);
    // With both boards' values stored, the two are ranked in one statement
    // that reads each match's two values at once.
    let boards = match api.store.value_boards(&[&by_reads, &by_gain]).await.map_err(store_error)? {
        Some(boards) => boards,
        None => {
            let (hundred_k, gained) = tokio::try_join!(work_board(&api, &by_reads), work_board(&api, &by_gain))?;
            vec![work_values(hundred_k), work_values(gained)]
        }
    };
    let mut items = Vec::new();
    for (name, board) in HIT_COVER_BOARDS.iter().zip(boards) {
        for (work, clicks_count) in board {
            items.push(pb::HitCoverBoardEntry {
                rank: (*name).to_owned(),
                item: Some(pb::HitCoverArticle {
                    title: work.title,
                    cover_url: work.cover.unwrap_or_default(),
                    clicks_count,
                }),
            });
        }
    }
    warn_if_empty(&ctx, items.is_empty(), &format!("article snapshots matching {}", excerpt(keyword)), window);
    let empty = items.is_empty();
    Ok(list(pb::ArticlesHitCoverResponse { items }, empty))
}

/// What the analyzers know of each account of `author_ids` (accounts'
/// `platform_id`s), in the order given: how many articles it published in
/// the [`ANALYSIS_DAYS`] days ending on the newest day, and their average
/// newest reads (0 when none). One store read for every account
/// ([`mediaops_store::ContentStore::published_totals`]).
pub async fn recent_articles(api: &DataApi, author_ids: &[String]) -> Result<Vec<(u64, i64)>, ServiceError> {
    let newest = rules::newest_day(today(api));
    let (from, to) = (day_start(newest - Days::new(ANALYSIS_DAYS - 1)), day_end(newest));
    let totals = api.store.published_totals(PLATFORM, author_ids, from, to).await.map_err(store_error)?;
    Ok(totals
        .into_iter()
        .map(|t| (u64::try_from(t.works).unwrap_or(0), if t.works > 0 { t.views / t.works } else { 0 }))
        .collect())
}

/// `healthScore` of `articles-account-analyzer`, 0–100 (1 decimal):
/// `100 × (0.5 × min(1, articles in 30 days / 20) + 0.5 × min(1, average
/// reads / 10,000))`: a daily-ish cadence and 10,000 reads an article are
/// full marks.
pub fn article_health(articles: u64, average_reads: i64) -> f64 {
    let cadence = (articles as f64 / 20.0).min(1.0);
    let reach = (average_reads.max(0) as f64 / 10_000.0).min(1.0);
    round(100.0 * (0.5 * cadence + 0.5 * reach), 1)
}

/// `articles-account-analyzer` (data API): `{items[{accountName,
/// avgReadCount, healthScore}]}` for each of `accountNames` (any id form,
/// else an exact name; at most 20) the store knows, in the order asked;
/// unknown ones are warned about. avgReadCount and [`article_health`] over
/// the articles published in the last 30 days (ending today − 2).
pub async fn account_analyzer(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ArticlesAccountAnalyzerRequest,
) -> Result<Answer<pb::ArticlesAccountAnalyzerResponse>, ServiceError> {
    let records = accounts_asked(&api, &ctx, PLATFORM, &req.account_names, MAX_ACCOUNTS).await?;
    let ids: Vec<String> = records.iter().map(|r| r.account.platform_id.clone()).collect();
    let items = records
        .into_iter()
        .zip(recent_articles(&api, &ids).await?)
        .map(|(record, (articles, average))| pb::AnalyzedArticleAccount {
            account_name: record.account.nickname,
            avg_read_count: average,
            health_score: article_health(articles, average),
        })
        .collect::<Vec<_>>();
    let empty = items.is_empty();
    Ok(list(pb::ArticlesAccountAnalyzerResponse { items }, empty))
}

/// `similarity` of `articles-similar-account`, 0–1 (4 decimals): `0.6 ×
/// [same type] + 0.4 × min(R₁, R₂) / max(R₁, R₂)`, R = average reads (0
/// when both are 0).
pub fn read_similarity(same_type: bool, a: i64, b: i64) -> f64 {
    let (lo, hi) = (a.min(b).max(0), a.max(b).max(0));
    let closeness = if hi == 0 { 0.0 } else { lo as f64 / hi as f64 };
    round(0.6 * f64::from(u8::from(same_type)) + 0.4 * closeness, 4)
}

/// `articles-similar-account` (data API): `{items[{accountName,
/// avgReadCount, similarity}]}`: the account named `accountName` (exact
/// name or id) and its type (its category, or `accountType` when given),
/// then the 50 most followed accounts of that type scored by
/// [`read_similarity`] on 30-day average reads; 20 best, ties by name. With
/// only `accountType`, the accounts of that type against an average of 0
/// are ranked by type alone. Neither given: an empty list with a warning
/// ([`super::no_account_given`]); an unknown name a 404.
pub async fn similar_account(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ArticlesSimilarAccountRequest,
) -> Result<Answer<pb::ArticlesSimilarAccountResponse>, ServiceError> {
    let name = req.account_name.trim();
    let asked_type = req.account_type.trim();
    if name.is_empty() && asked_type.is_empty() {
        return Ok(super::no_account_given(&ctx, "accountName or accountType"));
    }
    let target = if name.is_empty() { None } else { account_by_id_or_name(&api, PLATFORM, name).await? };
    if !name.is_empty() && target.is_none() {
        return Ok(Answer::NotFound(format!("no articles account named {name}")));
    }
    let kind = if asked_type.is_empty() {
        target.as_ref().and_then(|t| t.account.category.clone())
    } else {
        Some(asked_type.to_owned())
    };
    let target_id = target.as_ref().map(|t| t.account.platform_id.clone());
    let mut candidates = most_followed(&api, PLATFORM, kind.clone()).await?;
    candidates.retain(|c| target_id.as_ref() != Some(&c.account.platform_id));
    // The target's reads first (0 without one), then each candidate's.
    let ids: Vec<String> =
        target_id.iter().cloned().chain(candidates.iter().map(|c| c.account.platform_id.clone())).collect();
    let mut reads = recent_articles(&api, &ids).await?.into_iter().map(|(_, average)| average);
    let target_reads = if target_id.is_some() { reads.next().unwrap_or(0) } else { 0 };
    let mut scored = Vec::new();
    for (candidate, reads) in candidates.into_iter().zip(reads) {
        let same = kind.is_some() && candidate.account.category == kind;
        scored.push((candidate.account.nickname, reads, read_similarity(same, target_reads, reads)));
    }
    let items: Vec<pb::SimilarArticleAccount> = top(scored, SIMILAR_SIZE, |e| e.2, |e| &e.0)
        .into_iter()
        .map(|(account_name, avg_read_count, similarity)| pb::SimilarArticleAccount {
            account_name,
            avg_read_count,
            similarity,
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ArticlesSimilarAccountResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_store::rankings::rules::Checked;

    #[test]
    fn scores_are_hand_computable() {
        assert_eq!(index_score(9_999, 99), 50.0);
        assert_eq!(index_score(0, 0), 0.0);
        assert_eq!(article_health(10, 5_000), 50.0);
        assert_eq!(article_health(40, 20_000), 100.0);
        assert_eq!(read_similarity(true, 5_000, 10_000), 0.8);
        assert!(matches!(
            rules::ARTICLE_HOT.check(
                chrono::NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
                chrono::NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
                None,
                "startDate"
            ),
            Ok(Checked::Rank(_))
        ));
    }
}
