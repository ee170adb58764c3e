//! The skills of spec 4.14 that are analytics over the store's data:
//! `articles-similar-account`, `articles-account-analyzer`,
//! `articles-fastest-growing`, `articles-search`, `lifestyle-viral-notes`,
//! `playlet-articles-feed`, `channels-ai-feed`. Formulas: docs/rankings.md
//! "Skills".

use std::collections::BTreeMap;
use std::sync::Arc;

use mediaops_proto::mediaops::common::v1::KeywordFeedRequest;
use mediaops_proto::mediaops::skills::v1 as pb;

use super::articles::recent_articles;
use super::series::{gain, level, round, top};
use super::{
    BOARD_SIZE, account_by_id_or_name, most_followed, series_query, today, warn_if_empty, window_or_warn, works,
};
use crate::data_api::feeds::{FeedQuery, feed_page};
use crate::data_api::keyword::{fans, work_items};
use crate::data_api::paging::PageRequest;
use crate::data_api::{DataApi, count, list, required, store_error};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::{WorkOrder, WorkQuery, WorkRecord};
use mediaops_store::rankings::rules::{self as rules, Period};
use mediaops_store::topic::Topic;

const ARTICLES: &str = crate::data_api::articles::PLATFORM;

/// `articles-search` keeps articles with more reads than this (spec 4.14).
pub const SEARCH_MIN_READS: i64 = 5_000;

/// How many items the list skills without paging return.
pub const SKILL_LIST_SIZE: u32 = 20;

/// Tiers of `articles-similar-account` by 30-day average reads, highest
/// first: 头部 ≥ 100,000 (10万+), 腰部 ≥ 10,000, 尾部 below.
pub const TIERS: [(&str, i64); 3] = [("头部", 100_000), ("腰部", 10_000), ("尾部", 0)];

/// The `topic` value of `channels-ai-feed` items.
pub const AI_TOPIC: &str = "AI";

/// The tier of a 30-day average read count, and its position (0 = highest).
pub fn tier(average_reads: i64) -> (usize, &'static str) {
    let i = TIERS.iter().position(|(_, floor)| average_reads >= *floor).unwrap_or(TIERS.len() - 1);
    (i, TIERS[i].0)
}

/// min/max closeness of two non-negative figures (0 when both are 0).
fn closeness(a: i64, b: i64) -> f64 {
    let (lo, hi) = (a.min(b).max(0), a.max(b).max(0));
    if hi == 0 { 0.0 } else { lo as f64 / hi as f64 }
}

/// `matchScore` of the `articles-similar-account` skill, 0–100 (1
/// decimal), three weighted layers (spec 4.14): core basics 40 % = same
/// category (1 or 0); operations and monetization 35 % = closeness of the
/// 30-day article counts (publishing cadence); data features 25 % =
/// closeness of the 30-day average reads. Closeness = min / max.
pub fn match_score(same_category: bool, articles: (u64, u64), reads: (i64, i64)) -> f64 {
    let core = f64::from(u8::from(same_category));
    let operations = closeness(articles.0 as i64, articles.1 as i64);
    let data = closeness(reads.0, reads.1);
    round(100.0 * (0.40 * core + 0.35 * operations + 0.25 * data), 1)
}

/// `articles-similar-account` (skill): `{items[{accountName, matchScore,
/// tier}]}`: the account `accountName` (exact name or id; unknown = 404),
/// then the 50 most followed accounts of its category, kept when their
/// tier is the same or higher, scored by [`match_score`], 20 best, ties by
/// name. Without `accountName` (optional, spec 4.14): an empty list with a
/// warning ([`super::no_account_given`]).
pub async fn similar_account(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ArticlesSimilarAccountRequest,
) -> Result<Answer<pb::ArticlesSimilarAccountResponse>, ServiceError> {
    if req.account_name.trim().is_empty() {
        return Ok(super::no_account_given(&ctx, "accountName"));
    }
    let name = required(&req.account_name, "accountName")?;
    let Some(target) = account_by_id_or_name(&api, ARTICLES, name).await? else {
        return Ok(Answer::NotFound(format!("no articles account named {name}")));
    };
    let category = target.account.category.clone().filter(|c| !c.is_empty());
    let mut candidates = most_followed(&api, ARTICLES, category.clone()).await?;
    candidates.retain(|c| c.account.platform_id != target.account.platform_id);
    // The target's articles first, then each candidate's.
    let ids: Vec<String> = std::iter::once(target.account.platform_id.clone())
        .chain(candidates.iter().map(|c| c.account.platform_id.clone()))
        .collect();
    let mut recent = recent_articles(&api, &ids).await?.into_iter();
    let (target_articles, target_reads) = recent.next().unwrap_or((0, 0));
    let (target_tier, _) = tier(target_reads);
    let mut scored = Vec::new();
    for (candidate, (articles, reads)) in candidates.into_iter().zip(recent) {
        let (position, tier_name) = tier(reads);
        if position > target_tier {
            continue;
        }
        let same = category.is_some() && candidate.account.category == category;
        let score = match_score(same, (target_articles, articles), (target_reads, reads));
        scored.push((candidate.account.nickname, score, tier_name));
    }
    let items: Vec<pb::SimilarAccount> = top(scored, SKILL_LIST_SIZE as usize, |e| e.1, |e| &e.0)
        .into_iter()
        .map(|(account_name, match_score, tier)| pb::SimilarAccount { account_name, match_score, tier: tier.into() })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ArticlesSimilarAccountResponse { items }, empty))
}

/// `articles-account-analyzer` (skill): `{source: "store", accountName,
/// found, account{accountName, fansCount, articleCount}}` for the account
/// named `accountName` (exact name or id). Not stored: `found: false` and
/// `account` still an object of the spec's shape, empty (`accountName: ""`,
/// counts 0), never `null` (spec 4.14; a success: the answer is that it was
/// not found; docs/rankings.md).
/// `articleCount` = the account's stored articles.
pub async fn account_analyzer(
    api: Arc<DataApi>,
    _ctx: CallContext,
    req: pb::ArticlesAccountAnalyzerRequest,
) -> Result<Answer<pb::ArticlesAccountAnalyzerResponse>, ServiceError> {
    let name = required(&req.account_name, "accountName")?;
    let found = account_by_id_or_name(&api, ARTICLES, name).await?;
    let Some(record) = found else {
        return Ok(Answer::Empty(pb::ArticlesAccountAnalyzerResponse {
            source: "store".into(),
            account_name: name.into(),
            found: false,
            account: Some(pb::ArticlesAccount::default()),
        }));
    };
    let totals = api.store.work_totals(ARTICLES, &record.account.platform_id).await.map_err(store_error)?;
    Ok(Answer::Found(pb::ArticlesAccountAnalyzerResponse {
        source: "store".into(),
        account_name: record.account.nickname.clone(),
        found: true,
        account: Some(pb::ArticlesAccount {
            fans_count: fans(&record),
            account_name: record.account.nickname,
            article_count: totals.works,
        }),
    }))
}

/// `articles-fastest-growing`: `{items[{accountName, title,
/// readGrowthRate}]}` for the day `rankDate` (default today − 2; lag and
/// date rules as daily rankings): per author, the article with the most
/// reads at the end of the day; its **readGrowthRate = reads gained that day
/// / reads before** (4 decimals; 0.25 = +25 %), articles with no reads
/// before left out; authors by rate, 50, ties by name.
pub async fn fastest_growing(
    api: Arc<DataApi>,
    ctx: CallContext,
    req: pb::ArticlesFastestGrowingRequest,
) -> Result<Answer<pb::ArticlesFastestGrowingResponse>, ServiceError> {
    let date = rules::date_field(&req.rank_date, "rankDate")?;
    let checked = rules::PLAIN.check(today(&api), Period::Day, date, "rankDate")?;
    let Some(window) = window_or_warn(&ctx, checked) else {
        return Ok(Answer::Empty(pb::ArticlesFastestGrowingResponse::default()));
    };
    let series = works(&api, &series_query(ARTICLES, None, window)).await?;
    // author id → (reads, account name, title, rate) of their most read article
    let mut best: BTreeMap<String, (i64, String, String, Option<f64>)> = BTreeMap::new();
    for w in &series {
        let Some(reads) = level(&w.snapshots, window, |s| s.views) else { continue };
        let gained = gain(&w.snapshots, window, |s| s.views).unwrap_or(0);
        let before = reads - gained;
        let rate = (before > 0).then(|| round(gained as f64 / before as f64, 4));
        let name = w.author.as_ref().map(|a| a.nickname.clone()).unwrap_or_default();
        let author = w.work.author_id.clone().unwrap_or_default();
        let entry = best.entry(author).or_insert((i64::MIN, String::new(), String::new(), None));
        if reads > entry.0 {
            *entry = (reads, name, w.work.title.clone(), rate);
        }
    }
    let entries: Vec<(String, String, f64)> =
        best.into_values().filter_map(|(_, name, title, rate)| rate.map(|r| (name, title, r))).collect();
    let items: Vec<pb::FastestGrowingArticle> = top(entries, BOARD_SIZE, |e| e.2, |e| &e.0)
        .into_iter()
        .map(|(account_name, title, read_growth_rate)| pb::FastestGrowingArticle {
            account_name,
            title,
            read_growth_rate,
        })
        .collect();
    warn_if_empty(&ctx, items.is_empty(), "articles with reads on both days", window);
    let empty = items.is_empty();
    Ok(list(pb::ArticlesFastestGrowingResponse { items }, empty))
}

fn article_item(record: WorkRecord) -> pb::ArticleReadItem {
    pb::ArticleReadItem {
        account_name: record.author.as_ref().map(|a| a.nickname.clone()).unwrap_or_default(),
        read_count: count(record.latest.as_ref().and_then(|s| s.views)),
        title: record.work.title,
    }
}

/// `articles-search`: `{items[{title, accountName, readCount}]}`: the
/// articles matching `keyword` (all its terms, as search) with more than
/// 5,000 reads (newest snapshot), most read first, 50 at most.
pub async fn articles_search(
    api: Arc<DataApi>,
    _ctx: CallContext,
    req: pb::ArticlesSearchRequest,
) -> Result<Answer<pb::ArticlesSearchResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?;
    let query = WorkQuery {
        platform: ARTICLES.into(),
        text: Some(keyword.into()),
        order: WorkOrder::Views,
        page: 1,
        page_size: mediaops_store::MAX_PAGE_SIZE,
        ..WorkQuery::default()
    };
    let items: Vec<pb::ArticleReadItem> = work_items(&api, query)
        .await?
        .into_iter()
        .filter(|r| r.latest.as_ref().and_then(|s| s.views).is_some_and(|v| v > SEARCH_MIN_READS))
        .map(article_item)
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ArticlesSearchResponse { items }, empty))
}

/// `lifestyle-viral-notes`: `{items[{workId, workTitle, accountNickname,
/// workLikedCount, workCollectedCount, workCommentsCount}]}`: the most
/// liked notes matching `keyword` (all notes when empty), 20 a page
/// (`page` 1-based).
pub async fn viral_notes(
    api: Arc<DataApi>,
    _ctx: CallContext,
    req: pb::LifestyleViralNotesRequest,
) -> Result<Answer<pb::LifestyleViralNotesResponse>, ServiceError> {
    let page = PageRequest::page(req.page, "page")?;
    let keyword = req.keyword.trim();
    let query = WorkQuery {
        platform: crate::data_api::lifestyle::PLATFORM.into(),
        text: (!keyword.is_empty()).then(|| keyword.to_owned()),
        order: WorkOrder::Likes,
        page: page.page,
        page_size: page.size,
        ..WorkQuery::default()
    };
    let items: Vec<pb::ViralNote> = work_items(&api, query)
        .await?
        .into_iter()
        .map(|r| {
            let s = r.latest.clone().unwrap_or_default();
            pb::ViralNote {
                account_nickname: r.author.as_ref().map(|a| a.nickname.clone()).unwrap_or_default(),
                work_id: r.work.ids.note_id.clone().unwrap_or(r.work.platform_id.clone()),
                work_title: r.work.title,
                work_liked_count: count(s.likes),
                work_collected_count: count(s.collects),
                work_comments_count: count(s.comments),
            }
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::LifestyleViralNotesResponse { items }, empty))
}

/// `playlet-articles-feed`: `{items[{title, accountName, readCount}]}`:
/// the articles the topic classifier put in 短剧 (docs/store.md "Topics"),
/// matching `keyword` when given, most read first, 20.
pub async fn playlet_articles(
    api: Arc<DataApi>,
    _ctx: CallContext,
    req: pb::PlayletArticlesFeedRequest,
) -> Result<Answer<pb::PlayletArticlesFeedResponse>, ServiceError> {
    let keyword = req.keyword.trim();
    let query = WorkQuery {
        platform: ARTICLES.into(),
        text: (!keyword.is_empty()).then(|| keyword.to_owned()),
        topic: Some(Topic::Playlet),
        order: WorkOrder::Views,
        page: 1,
        page_size: SKILL_LIST_SIZE,
        ..WorkQuery::default()
    };
    let items: Vec<pb::ArticleReadItem> = work_items(&api, query).await?.into_iter().map(article_item).collect();
    let empty = items.is_empty();
    Ok(list(pb::PlayletArticlesFeedResponse { items }, empty))
}

/// `channels-ai-feed`: `{items[{title, likeCount, topic}]}`: the channels
/// feed of AI works (the same feed as the `*-ai-feed` data APIs,
/// docs/data/feeds.md: keyword terms AND the AI topic, most liked first,
/// `pageNum`/`pageSize`); `topic` is always `AI`.
pub async fn channels_ai_feed(
    api: Arc<DataApi>,
    _ctx: CallContext,
    req: KeywordFeedRequest,
) -> Result<Answer<pb::ChannelsAiFeedResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?.to_owned();
    let page = PageRequest::new(req.page_num, "pageNum", req.page_size, "pageSize")?;
    let keywords = [keyword];
    let query = FeedQuery {
        platform: crate::data_api::channels::PLATFORM,
        topic: Some(Topic::Ai),
        keywords: &keywords,
        published_from: None,
        published_to: None,
        page,
    };
    let items: Vec<pb::ChannelsAiFeedItem> = feed_page(api.store.as_ref(), &query)
        .await?
        .into_iter()
        .map(|r| pb::ChannelsAiFeedItem {
            like_count: count(r.latest.as_ref().and_then(|s| s.likes)),
            title: r.work.title,
            topic: AI_TOPIC.into(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ChannelsAiFeedResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_and_match_scores_are_hand_computable() {
        assert_eq!(tier(100_000), (0, "头部"));
        assert_eq!(tier(99_999), (1, "腰部"));
        assert_eq!(tier(0), (2, "尾部"));
        // 40 + 35 × 2/4 + 25 × 1/2
        assert_eq!(match_score(true, (4, 2), (10_000, 20_000)), 70.0);
        assert_eq!(match_score(false, (0, 0), (0, 0)), 0.0);
    }
}
