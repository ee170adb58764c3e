//! shortvideo rankings and account analytics (spec 4.4):
//! `douyin-rise-fans-rank` (alias path `shortvideo-rise-fans-rank`),
//! `shortvideo-top-account`, `shortvideo-content-surge`,
//! `shortvideo-likes-rank`, `shortvideo-account-diagnosis`,
//! `shortvideo-similar-account`. Formulas: docs/rankings.md "shortvideo".

use std::sync::Arc;

use chrono::{Days, NaiveDate};
use mediaops_proto::mediaops::shortvideo::v1 as pb;

use super::boards::{self, kinds::Kind};
pub use super::formulas::influence_score;
use super::series::{gain, round, top};
use super::{
    account_board_answer, accounts, accounts_asked, most_followed, published_in, series_query, today, warn_if_empty,
    window_or_warn,
};
use crate::data_api::keyword::fans;
use crate::data_api::shortvideo::account_id_of;
use crate::data_api::{DataApi, count, list, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::{AccountRecord, BoardWork};
use mediaops_store::rankings::board_tables::NamedRow;
use mediaops_store::rankings::rules::{self as rules, CategoryList, OutOfList, Period, Window};

/// The platform token.
pub const PLATFORM: &str = "shortvideo";

/// Board names of `shortvideo-content-surge`, in answer order.
pub const SURGE_BOARDS: [&str; 2] = ["dailyRank", "weeklyRank"];

/// At most this many accounts per `shortvideo-account-diagnosis` call.
pub const MAX_ACCOUNTS: usize = 20;

/// The days `shortvideo-account-diagnosis` looks at, ending on the newest day.
pub const DIAGNOSIS_DAYS: u64 = 30;

/// How many similar accounts `shortvideo-similar-account` returns.
pub const SIMILAR_SIZE: usize = 20;

/// `douyin-rise-fans-rank`: `{items[{rank, accountName, riseFans}]}`, the
/// accounts of `category` (LIST_SHORTVIDEO, 全部 = all; out of list =
/// upstream code 3203) by **riseFans = followers gained over the period**
/// (account snapshots, docs/rankings.md "Levels and gains"), only gains
/// above 0, most first, ties by name; 50 entries. Daily look-back 7 days.
pub async fn rise_fans_rank(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::DouyinRiseFansRankRequest,
) -> Result<Answer<pb::DouyinRiseFansRankResponse>, ServiceError> {
    let period = Period::parse(&req.period, "period")?;
    let date = rules::date_field(&req.rank_date, "rankDate")?;
    let (category, _) = rules::category(CategoryList::Shortvideo, &req.category, "category", true, OutOfList::Error)?;
    let checked = rules::SHORTVIDEO_RISE_FANS.check(today(&api), period, date, "rankDate")?;
    let board = (Kind::ShortvideoRiseFans, category.filter(), "shortvideo accounts gaining followers");
    let item = |rank, a: NamedRow| pb::RiseFansItem { rank, account_name: a.name, rise_fans: a.value };
    account_board_answer((&api, &ctx), (checked, None), board, item, |items| pb::DouyinRiseFansRankResponse { items })
        .await
}

/// `shortvideo-top-account`: `{items[{rank, accountName, influenceScore}]}`,
/// the accounts of `category` (LIST_SHORTVIDEO, 全部 = all; out of list =
/// empty ranking with a warning) by [`influence_score`], ties by name; 50
/// entries per category. Period rules: boundaries and lag only.
pub async fn top_account(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ShortvideoTopAccountRequest,
) -> Result<Answer<pb::ShortvideoTopAccountResponse>, ServiceError> {
    let period = Period::parse(&req.period, "period")?;
    let date = rules::date_field(&req.rank_date, "rankDate")?;
    let (category, warning) =
        rules::category(CategoryList::Shortvideo, &req.category, "category", true, OutOfList::Empty)?;
    let checked = rules::PLAIN.check(today(&api), period, date, "rankDate")?;
    let board = (Kind::ShortvideoInfluence, category.filter(), "shortvideo account snapshots");
    let item = |rank, a: NamedRow| pb::TopAccountItem {
        rank,
        account_name: a.name,
        influence_score: a.score.unwrap_or_default(),
    };
    account_board_answer((&api, &ctx), (checked, warning), board, item, |items| pb::ShortvideoTopAccountResponse {
        items,
    })
    .await
}

/// Works of `category` by likes gained over `window` (> 0), 50, ties by
/// title (a stored board, else ranked in the store; docs/rankings.md
/// "Boards as data").
async fn by_likes_gained(
    api: &DataApi,
    category: Option<&str>,
    window: Window,
) -> Result<Vec<BoardWork>, ServiceError> {
    boards::works(api, Kind::ShortvideoLikes, window, category).await
}

/// `shortvideo-content-surge`: `{items[{rank, item{title, category,
/// share_url}}]}`, two boards from the day `startTime`: `dailyRank` = works
/// by likes gained on that day, `weeklyRank` = by likes gained over
/// startTime..startTime+6 (cut at the newest day); 50 each, ties by title.
/// `type` is a LIST_SHORTVIDEO track without 全部 (omitted = all tracks;
/// out of list = empty with a warning). No `startTime` = two empty boards;
/// older than the 100-day retention or within the two-day lag = empty.
pub async fn content_surge(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ShortvideoContentSurgeRequest,
) -> Result<Answer<pb::ShortvideoContentSurgeResponse>, ServiceError> {
    let empty = || Ok(Answer::Empty(pb::ShortvideoContentSurgeResponse::default()));
    let (category, warning) = rules::category(CategoryList::Shortvideo, &req.r#type, "type", false, OutOfList::Empty)?;
    let Some(start) = rules::date_field(&req.start_time, "startTime")? else {
        ctx.warn("startTime is missing; without it both boards are empty");
        return empty();
    };
    if let Some(warning) = warning {
        ctx.warn(warning);
        return empty();
    }
    let checked = rules::SURGE.check(today(&api), start, Some(start + Days::new(6)), "startTime")?;
    let Some(week) = window_or_warn(&ctx, checked) else { return empty() };
    let mut items = Vec::new();
    for (name, window) in SURGE_BOARDS.iter().zip([Window::day(start), week]) {
        for w in by_likes_gained(&api, category.filter(), window).await? {
            items.push(pb::SurgeBoardEntry {
                rank: (*name).to_owned(),
                item: Some(pb::SurgeWork {
                    title: w.work.title,
                    category: w.work.category.unwrap_or_default(),
                    share_url: w.work.url.unwrap_or_default(),
                }),
            });
        }
    }
    warn_if_empty(&ctx, items.is_empty(), "shortvideo works gaining likes", week);
    let none = items.is_empty();
    Ok(list(pb::ShortvideoContentSurgeResponse { items }, none))
}

/// A `startTime`/`endTime` of `shortvideo-likes-rank`: `YYYY-MM-DD` or
/// `YYYY-MM-DD HH:mm:ss` (its day is used).
fn day_of(value: &str, field: &str) -> Result<Option<NaiveDate>, ServiceError> {
    let value = value.trim();
    match value.split_once(' ') {
        Some((date, _)) => {
            mediaops_store::rules::times::parse_datetime(value, field)?;
            rules::date_field(date, field)
        }
        None => rules::date_field(value, field),
    }
}

/// `shortvideo-likes-rank`: `{items[{title, accountName, category,
/// workUrl}]}`, the works of track `type` (LIST_SHORTVIDEO, 全部 or empty =
/// all, out of list = empty) by likes gained from `startTime` to `endTime`
/// (days; default the newest day; the end is cut at the newest day, a start
/// within the lag is empty), 50, ties by title.
pub async fn likes_rank(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ShortvideoLikesRankRequest,
) -> Result<Answer<pb::ShortvideoLikesRankResponse>, ServiceError> {
    let empty = || Ok(Answer::Empty(pb::ShortvideoLikesRankResponse::default()));
    let (category, warning) = rules::category(CategoryList::Shortvideo, &req.r#type, "type", true, OutOfList::Empty)?;
    let start = day_of(&req.start_time, "startTime")?;
    let end = day_of(&req.end_time, "endTime")?;
    if let (Some(s), Some(e)) = (start, end)
        && e < s
    {
        return Err(ServiceError::invalid_field("endTime", "endTime is before startTime"));
    }
    if let Some(warning) = warning {
        ctx.warn(warning);
        return empty();
    }
    let today = today(&api);
    let start = start.unwrap_or_else(|| end.unwrap_or(rules::newest_day(today)).min(rules::newest_day(today)));
    let checked = rules::LAG_ONLY.check(today, start, end, "startTime")?;
    let Some(window) = window_or_warn(&ctx, checked) else { return empty() };
    let items: Vec<pb::LikesRankWork> = by_likes_gained(&api, category.filter(), window)
        .await?
        .into_iter()
        .map(|w| pb::LikesRankWork {
            title: w.work.title,
            account_name: w.author.map(|a| a.nickname).unwrap_or_default(),
            category: w.work.category.unwrap_or_default(),
            work_url: w.work.url.unwrap_or_default(),
        })
        .collect();
    warn_if_empty(&ctx, items.is_empty(), "shortvideo works gaining likes", window);
    let none = items.is_empty();
    Ok(list(pb::ShortvideoLikesRankResponse { items }, none))
}

/// `healthScore` of `shortvideo-account-diagnosis`, 0–100 (1 decimal):
/// `100 × (0.4 g + 0.3 a + 0.3 e)` with, over the 30 days ending on the
/// newest day,
/// - g = min(1, followers gained / followers at the start / 0.10) (10 % a
///   month is full marks; no start figure or a loss = 0);
/// - a = min(1, works published / 8) (two a week is full marks);
/// - e = min(1, average likes of those works / followers / 0.05) (5 % of
///   the followers liking an average work is full marks).
pub fn health_score(gained: Option<(i64, i64)>, works: u64, average_likes: f64, followers: i64) -> f64 {
    let g = match gained {
        Some((start, gained)) if start > 0 && gained > 0 => (gained as f64 / start as f64 / 0.10).min(1.0),
        _ => 0.0,
    };
    let a = (works as f64 / 8.0).min(1.0);
    let e = if followers > 0 { (average_likes / followers as f64 / 0.05).min(1.0) } else { 0.0 };
    round(100.0 * (0.4 * g + 0.3 * a + 0.3 * e), 1)
}

/// `shortvideo-account-diagnosis`: `{items[{accountName, followerCount,
/// healthScore}]}` for each of `accountNames` (any id form, else an exact
/// nickname; at most 20) the store knows, in the order asked; unknown ones
/// are left out with a warning. [`health_score`].
pub async fn account_diagnosis(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ShortvideoAccountDiagnosisRequest,
) -> Result<Answer<pb::ShortvideoAccountDiagnosisResponse>, ServiceError> {
    let asked = accounts_asked(&api, &ctx, PLATFORM, &req.account_names, MAX_ACCOUNTS).await?;
    let newest = rules::newest_day(today(&api));
    let window = Window { first: newest - Days::new(DIAGNOSIS_DAYS - 1), last: newest };
    let mut items = Vec::new();
    for record in asked {
        let score = diagnose(&api, &record, window).await?;
        items.push(pb::DiagnosedAccount {
            follower_count: fans(&record),
            account_name: record.account.nickname,
            health_score: score,
        });
    }
    let empty = items.is_empty();
    Ok(list(pb::ShortvideoAccountDiagnosisResponse { items }, empty))
}

async fn diagnose(api: &DataApi, record: &AccountRecord, window: Window) -> Result<f64, ServiceError> {
    let id = &record.account.platform_id;
    let mut query = series_query(PLATFORM, None, window);
    query.account_id = Some(id.clone());
    let series = accounts(api, &query).await?;
    let own = series.first();
    let gained = own.and_then(|a| {
        let start = a.snapshots.first()?.fans?;
        Some((start, gain(&a.snapshots, window, |s| s.fans)?))
    });
    let published = published_in(api, PLATFORM, id, window).await?;
    let likes: Vec<i64> = published.items.iter().map(|w| count(w.latest.as_ref().and_then(|s| s.likes))).collect();
    let average = if likes.is_empty() { 0.0 } else { likes.iter().sum::<i64>() as f64 / likes.len() as f64 };
    Ok(health_score(gained, published.total, average, fans(record)))
}

/// `similarity` of `shortvideo-similar-account`, 0–1 (4 decimals):
/// `0.6 × [same track] + 0.4 × min(F₁, F₂) / max(F₁, F₂)` (followers; 0
/// when both are unknown).
pub fn similarity(same_track: bool, a: i64, b: i64) -> f64 {
    let (lo, hi) = (a.min(b).max(0), a.max(b).max(0));
    let closeness = if hi == 0 { 0.0 } else { lo as f64 / hi as f64 };
    round(0.6 * f64::from(u8::from(same_track)) + 0.4 * closeness, 4)
}

/// `shortvideo-similar-account`: `{items[{accountName, followerCount,
/// similarity}]}`: the account named by `accountId` (preferred: handle,
/// numeric uid or any stored id; a secUid is refused) or else by its exact
/// `accountName` (low coverage, spec 4.4), then the 50 most followed other
/// accounts of its track scored by [`similarity`], 20 best, ties by name.
/// An unknown account is a miss (404); neither field given, an empty list
/// with a warning ([`super::no_account_given`]).
pub async fn similar_account(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ShortvideoSimilarAccountRequest,
) -> Result<Answer<pb::ShortvideoSimilarAccountResponse>, ServiceError> {
    let id = req.account_id.trim();
    let name = req.account_name.trim();
    let target = if !id.is_empty() {
        if id.starts_with("MS4w") {
            return Err(ServiceError::invalid_field(
                "accountId",
                "accountId takes a handle or numeric UID, not a secUid",
            ));
        }
        let id = account_id_of(id, "accountId")?;
        api.store.get_account(PLATFORM, &id).await.map_err(store_error)?
    } else if !name.is_empty() {
        ctx.warn("matching by accountName has low coverage; accountId is preferred");
        crate::data_api::keyword::account_named(&api, PLATFORM, name).await?
    } else {
        return Ok(super::no_account_given(&ctx, "accountId (preferred) or accountName"));
    };
    let Some(target) = target else {
        return Ok(Answer::NotFound(format!("no shortvideo account {}", if id.is_empty() { name } else { id })));
    };
    let track = target.account.category.clone().filter(|c| !c.is_empty());
    let candidates = most_followed(&api, PLATFORM, track.clone()).await?;
    let target_fans = fans(&target);
    let scored: Vec<(AccountRecord, f64)> = candidates
        .into_iter()
        .filter(|c| c.account.platform_id != target.account.platform_id)
        .map(|c| {
            let same = track.is_some() && c.account.category == track;
            let s = similarity(same, target_fans, fans(&c));
            (c, s)
        })
        .collect();
    let items: Vec<pb::SimilarAccount> = top(scored, SIMILAR_SIZE, |e| e.1, |e| &e.0.account.nickname)
        .into_iter()
        .map(|(c, similarity)| pb::SimilarAccount {
            follower_count: fans(&c),
            account_name: c.account.nickname,
            similarity,
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ShortvideoSimilarAccountResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_store::rankings::rules::Checked;

    #[test]
    fn scores_are_hand_computable() {
        assert_eq!(influence_score(9_999, 999), 36.0);
        assert_eq!(influence_score(99, -5), 12.0);
        // g = 0.05/0.10 = 0.5, a = 4/8 = 0.5, e = 50/1000/0.05 = 1 → 20 + 15 + 30
        assert_eq!(health_score(Some((1_000, 50)), 4, 50.0, 1_000), 65.0);
        assert_eq!(health_score(None, 0, 0.0, 0), 0.0);
        assert_eq!(similarity(true, 500, 1_000), 0.8);
        assert_eq!(similarity(false, 0, 0), 0.0);
    }

    #[test]
    fn surge_rule_is_checked_before_reading() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        let start = NaiveDate::from_ymd_opt(2026, 11, 15).unwrap();
        let Checked::Rank(w) = rules::SURGE.check(today, start, Some(start + Days::new(6)), "startTime").unwrap()
        else {
            panic!()
        };
        assert_eq!(w.last, NaiveDate::from_ymd_opt(2026, 11, 18).unwrap());
    }
}
