//! lifestyle rankings (spec 4.3): `lifestyle-top-account`,
//! `lifestyle-hit-data`, `lifestyle-daily-top`, `lifestyle-low-fans-top`,
//! `lifestyle-weekly-top`, `lifestyle-account-analyzer`. Formulas:
//! docs/rankings.md "lifestyle".

use std::sync::Arc;

use chrono::Days;
use mediaops_proto::mediaops::lifestyle::v1 as pb;

use super::boards::{self, kinds::Kind};
pub use super::formulas::LOW_FANS;
use super::series::{gain, interactions, top};
use super::{
    BOARD_SIZE, account_board_answer, board_query, keyword_matches, series_query, today, warn_if_empty, warn_opt,
    window_or_warn, work_board, work_values, works,
};
use crate::data_api::lifestyle::{PLATFORM, account_id_of};
use crate::data_api::{DataApi, count, list, required, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::service::Answer;
use mediaops_store::model::{AuthorBrief, BoardQuery, BoardWork, Counter, Measure, SeriesQuery, Work};
use mediaops_store::rankings::board_tables::NamedRow;
use mediaops_store::rankings::rules::{self as rules, CategoryList, OutOfList, Period, Window};
use mediaops_store::rules::times::{day_start, format_time};

/// A low-fan note is a hit from this many likes (低粉爆文 board).
pub const HIT_LIKES: i64 = 1_000;

/// The 点赞TOP500 board's size.
pub const LIKES_TOP: usize = 500;

/// Board names of `lifestyle-hit-data`, in answer order.
pub const HIT_BOARDS: [&str; 4] = ["低粉爆文", "点赞TOP500", "单日互动", "七日增长"];

/// At most this many ids per `lifestyle-account-analyzer` call.
pub const MAX_IDS: usize = 50;

/// `lifestyle-top-account`: `{items[{rank, nickname, fansCount}]}`, the
/// accounts of the track `type` (LIST_LIFESTYLE; 综合全部 or empty = all;
/// 综合 = 3203; another out-of-list value = the all-track ranking with a
/// warning) by **fansCount = followers in the last account snapshot of the
/// period**, most first, ties by nickname; 50 entries. Period rules:
/// [`rules::LIFESTYLE_TOP_ACCOUNT`] (daily look-back 85 days).
pub async fn top_account(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::LifestyleTopAccountRequest,
) -> Result<Answer<pb::LifestyleTopAccountResponse>, ServiceError> {
    let period = Period::parse(&req.period, "period")?;
    let date = rules::date_field(&req.rank_date, "rankDate")?;
    let (category, warning) =
        rules::category(CategoryList::Lifestyle, &req.r#type, "type", true, OutOfList::AllInstead)?;
    warn_opt(&ctx, warning);
    let checked = rules::LIFESTYLE_TOP_ACCOUNT.check(today(&api), period, date, "rankDate")?;
    let board = (Kind::LifestyleFans, category.filter(), "lifestyle account snapshots");
    let item = |rank, a: NamedRow| pb::TopAccountItem { rank, nickname: a.name, fans_count: a.value };
    account_board_answer((&api, &ctx), (checked, None), board, item, |items| pb::LifestyleTopAccountResponse { items })
        .await
}

fn author_fans(author: &Option<AuthorBrief>) -> Option<i64> {
    author.as_ref().and_then(|a| a.fans)
}

fn hit_note(work: Work, use_like_count: i64) -> pb::HitNote {
    pb::HitNote { title: work.title, cover_url: work.cover.unwrap_or_default(), use_like_count }
}

/// 单日互动's board in the store: the notes of the keyword series `query`
/// by interactions gained on `on_day`, above 0, 50 best (from the stored
/// values of the board `stored_values`, else computed).
fn interactions_query(query: &SeriesQuery, on_day: Window, stored_values: Option<i64>) -> BoardQuery {
    BoardQuery {
        text: query.text.clone(),
        matched: query.matched.clone(),
        published_from: query.published_from,
        stored_values,
        ..board_query(PLATFORM, None, on_day, (Counter::Interactions, Measure::Gain), Some(1), Some(BOARD_SIZE))
    }
}

/// 单日互动 of `lifestyle-hit-data`: the notes of `query` (a keyword series
/// of the day `on_day`, at most [`mediaops_store::KEYWORD_MATCH_CAP`]
/// matches) by interactions gained on the day, above 0, 50 best. The
/// per-day aggregates keep likes and views only, so this board reads the
/// capped matches' snapshots of the day and the day before: ranked in the
/// store ([`Counter::Interactions`], two primary-key probes per match, 50
/// rows back), or, with the replaced statement shapes
/// (`mediaops_store::plans`, for the rankings bench), every
/// snapshot read here and ranked by the series rules; both give the same
/// board (docs/rankings.md "Keyword boards").
async fn interactions_board(
    api: &DataApi,
    query: &SeriesQuery,
    on_day: Window,
    stored_values: Option<i64>,
) -> Result<Vec<(Work, i64)>, ServiceError> {
    if mediaops_store::plans::index_ordered() {
        let board = interactions_query(query, on_day, stored_values);
        return Ok(work_values(work_board(api, &board).await?));
    }
    let notes = works(api, query).await?;
    let gained: Vec<(Work, i64)> = notes
        .into_iter()
        .filter_map(|w| gain(&w.snapshots, on_day, interactions).filter(|g| *g > 0).map(|g| (w.work, g)))
        .collect();
    Ok(top(gained, BOARD_SIZE, |e| e.1, |e| &e.0.title))
}

/// `lifestyle-hit-data`: `{items[{rank, item{title, coverUrl,
/// useLikeCount}}]}`, four boards over the notes matching `keyword`
/// (published on or after `startDate` when given), on the newest ranked
/// day D = today − 2, `rank` naming the board:
///
/// - 低粉爆文: author followers < 10,000 and likes ≥ 1,000 on D; by likes;
/// - 点赞TOP500: by likes on D, 500 entries;
/// - 单日互动: by interactions (likes + collects + comments + shares) gained on D;
/// - 七日增长: by likes gained over D−6..D.
///
/// `useLikeCount` is the figure the board ranks by. Boards other than
/// TOP500 hold 50 entries; ties by title. A keyword matching more than
/// [`mediaops_store::KEYWORD_MATCH_CAP`] notes ranks the most liked of them
/// (docs/rankings.md "Keyword boards"); the likes boards are ranked in the
/// store from the per-day aggregates, 单日互动 from the capped matches'
/// snapshots (`interactions_board`); the four run at once. Once the board
/// builder has stored the newest day's keyword values (docs/rankings.md
/// "Keyword values"), each match's value is read from them instead, and
/// with all four boards' values stored the four are ranked in one
/// statement (`ContentStore::value_boards`).
pub async fn hit_data(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::LifestyleHitDataRequest,
) -> Result<Answer<pb::LifestyleHitDataResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?;
    let published_from = rules::date_field(&req.start_date, "startDate")?.map(day_start);
    let day = rules::newest_day(today(&api));
    let week = Window { first: day - Days::new(6), last: day };
    let on_day = Window::day(day);
    let board = |window: Window, measure: Measure, at_least: Option<i64>, size: usize| BoardQuery {
        text: Some(keyword.to_owned()),
        published_from,
        ..board_query(PLATFORM, None, window, (Counter::Likes, measure), at_least, Some(size))
    };
    let mut low_fans =
        BoardQuery { author_fans_below: Some(LOW_FANS), ..board(on_day, Measure::Level, Some(HIT_LIKES), BOARD_SIZE) };
    let mut day_series =
        SeriesQuery { text: Some(keyword.to_owned()), published_from, ..series_query(PLATFORM, None, on_day) };
    let mut likes_top = board(on_day, Measure::Level, None, LIKES_TOP);
    let mut growth = board(week, Measure::Gain, Some(1), BOARD_SIZE);
    // The keyword is matched once, for the four boards (they share its
    // filters), while the stored values of their windows are looked up.
    let (matched, low_fan_likes, likes, interactions, gained) = tokio::try_join!(
        keyword_matches(&api, &likes_top),
        boards::stored_values(&api, Kind::LifestyleKeywordLowFansLikes, on_day),
        boards::stored_values(&api, Kind::LifestyleKeywordLikes, on_day),
        boards::stored_values(&api, Kind::LifestyleKeywordInteractions, on_day),
        boards::stored_values(&api, Kind::LifestyleKeywordGrowth, week),
    )?;
    for (query, stored) in [(&mut low_fans, low_fan_likes), (&mut likes_top, likes), (&mut growth, gained)] {
        query.matched.clone_from(&matched);
        query.stored_values = stored;
    }
    if low_fan_likes.is_some() {
        // The stored values are only those of low-fan authors' notes.
        low_fans.author_fans_below = None;
    }
    day_series.matched = matched;
    // With every board's values stored, the four are ranked in one
    // statement that reads each match's four values at once (never with the
    // replaced statement shapes, which rank 单日互动 from the series read:
    // `interactions_board`).
    let by_interactions = interactions_query(&day_series, on_day, interactions);
    let queries = [&low_fans, &likes_top, &by_interactions, &growth];
    let boards = match api.store.value_boards(&queries).await.map_err(store_error)? {
        Some(boards) => boards,
        None => {
            let (low_fans, likes_top, interactions, growth) = tokio::try_join!(
                work_board(&api, &low_fans),
                work_board(&api, &likes_top),
                interactions_board(&api, &day_series, on_day, interactions),
                work_board(&api, &growth),
            )?;
            vec![work_values(low_fans), work_values(likes_top), interactions, work_values(growth)]
        }
    };
    let mut items = Vec::new();
    for (name, entries) in HIT_BOARDS.iter().zip(boards) {
        for (work, value) in entries {
            items.push(pb::HitBoardEntry { rank: (*name).to_owned(), item: Some(hit_note(work, value)) });
        }
    }
    warn_if_empty(&ctx, items.is_empty(), &format!("lifestyle note snapshots matching {}", excerpt(keyword)), week);
    let empty = items.is_empty();
    Ok(list(pb::LifestyleHitDataResponse { items }, empty))
}

/// The notes of a day or week board: rule check, category, likes gained
/// (above 0), optionally only authors below [`LOW_FANS`]; 50 by likes
/// gained, ties by title (a stored board, else ranked in the store;
/// docs/rankings.md "Boards as data", "Store").
async fn note_board(
    api: &DataApi,
    ctx: &CallContext,
    req: &pb::LifestyleRankRequest,
    period: Period,
    low_fans_only: bool,
) -> Result<Vec<BoardWork>, ServiceError> {
    let date = rules::date_field(&req.rank_date, "rankDate")?;
    let (category, warning) =
        rules::category(CategoryList::Lifestyle, &req.category, "category", true, OutOfList::Empty)?;
    if let Some(warning) = warning {
        ctx.warn(warning);
        return Ok(Vec::new());
    }
    let checked = rules::PLAIN.check(today(api), period, date, "rankDate")?;
    let Some(window) = window_or_warn(ctx, checked) else { return Ok(Vec::new()) };
    let kind = if low_fans_only { Kind::LifestyleLowFansNotes } else { Kind::LifestyleNotes };
    let board = boards::works(api, kind, window, category.filter()).await?;
    warn_if_empty(ctx, board.is_empty(), "lifestyle notes gaining likes", window);
    Ok(board)
}

fn ranked_note(w: BoardWork) -> pb::RankedNote {
    pb::RankedNote {
        fans: count(author_fans(&w.author)),
        title: w.work.title,
        cover_url: w.work.cover.unwrap_or_default(),
        use_like_count: w.value,
    }
}

/// `lifestyle-daily-top`: `{items[{title, coverUrl, fans, publicTime,
/// useLikeCount}]}`, the notes of `category` (LIST_LIFESTYLE; out of list
/// = empty; 综合 = 3203) by **useLikeCount = likes gained on `rankDate`**
/// (default the newest day, today − 2); `fans` = the author's followers,
/// `publicTime` the publish time.
pub async fn daily_top(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::LifestyleRankRequest,
) -> Result<Answer<pb::LifestyleDailyTopResponse>, ServiceError> {
    let board = note_board(&api, &ctx, &req, Period::Day, false).await?;
    let items: Vec<pb::DailyTopNote> = board
        .into_iter()
        .map(|w| pb::DailyTopNote {
            fans: count(author_fans(&w.author)),
            public_time: format_time(w.work.published_at),
            title: w.work.title,
            cover_url: w.work.cover.unwrap_or_default(),
            use_like_count: w.value,
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::LifestyleDailyTopResponse { items }, empty))
}

/// `lifestyle-low-fans-top`: as `lifestyle-daily-top`, only notes whose
/// author has fewer than 10,000 followers; `{items[{title, coverUrl, fans,
/// useLikeCount}]}`.
pub async fn low_fans_top(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::LifestyleRankRequest,
) -> Result<Answer<pb::LifestyleRankResponse>, ServiceError> {
    let items: Vec<pb::RankedNote> =
        note_board(&api, &ctx, &req, Period::Day, true).await?.into_iter().map(ranked_note).collect();
    let empty = items.is_empty();
    Ok(list(pb::LifestyleRankResponse { items }, empty))
}

/// `lifestyle-weekly-top`: the week board: `rankDate` must be the Monday of
/// a finished week (default the last one); useLikeCount = likes gained
/// over Monday..Sunday.
pub async fn weekly_top(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::LifestyleRankRequest,
) -> Result<Answer<pb::LifestyleRankResponse>, ServiceError> {
    let items: Vec<pb::RankedNote> =
        note_board(&api, &ctx, &req, Period::Week, false).await?.into_iter().map(ranked_note).collect();
    let empty = items.is_empty();
    Ok(list(pb::LifestyleRankResponse { items }, empty))
}

/// `lifestyle-account-analyzer`: `{items[{userId, nickname, fansCount}]}`
/// for each of `userIds` (user id, display id or profile link; at most 50)
/// the store knows, in the order asked; an unknown id is left out with a
/// warning. `fansCount` = the profile's followers, else the newest
/// snapshot's.
pub async fn account_analyzer(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::LifestyleAccountAnalyzerRequest,
) -> Result<Answer<pb::LifestyleAccountAnalyzerResponse>, ServiceError> {
    if req.user_ids.is_empty() || req.user_ids.len() > MAX_IDS {
        return Err(ServiceError::invalid_field("userIds", format!("userIds must hold 1 to {MAX_IDS} ids")));
    }
    let mut items = Vec::new();
    for (i, asked) in req.user_ids.iter().enumerate() {
        let id = account_id_of(asked, &format!("userIds[{i}]"))?;
        match api.store.get_account(PLATFORM, &id).await.map_err(store_error)? {
            Some(record) => items.push(pb::AnalyzedAccount {
                fans_count: count(record.account.fans.or(record.latest.as_ref().and_then(|s| s.fans))),
                user_id: record.account.platform_id,
                nickname: record.account.nickname,
            }),
            None => ctx.warn(format!("userIds[{i}] {} is not in the store", excerpt(&id))),
        }
    }
    let empty = items.is_empty();
    Ok(list(pb::LifestyleAccountAnalyzerResponse { items }, empty))
}
