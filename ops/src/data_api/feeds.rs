//! The topic feeds (spec 4.3, 4.4, 4.5, 4.7, 4.9, 4.10, 4.12): every
//! `*-ai-feed`, every `*-playlet-feed` and `multi/playlet-feed`.
//!
//! A feed is the works of one platform that the topic classifier put in the
//! topic ([`mediaops_store::topic`]: AI or 短剧), matching the keyword(s),
//! most liked first (newest snapshot's likes, then newest published), one
//! page of `pageNum`/`pageSize` ([`PageRequest`]). Every operation is one
//! row of the table in `register` over one generic handler; what differs
//! per request message is read through [`FeedInput`].
//!
//! Keywords (docs/data/feeds.md): a work matches a keyword when it holds
//! every term of it (the store's full-text rule). With a `keywords[]` list
//! (videosite, clipapp) a work matches when it matches ANY of them; the
//! matches are merged, deduplicated and ordered by likes, and such a feed
//! reaches at most [`MAX_MERGE_DEPTH`] items deep.

use std::cmp::Reverse;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use mediaops_proto::mediaops::common::v1::{KeywordFeedRequest, TitleLikeItem, TitleLikeList};
use mediaops_proto::mediaops::{articles, clipapp, lifestyle, multi as multi_pb, shortvideo, videosite};

use super::paging::{MAX_SIZE, PageRequest};
use super::{DataApi, count, list, required, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::ContentStore;
use mediaops_store::model::{WorkOrder, WorkQuery, WorkRecord};
use mediaops_store::rules::times::datetime_window;
use mediaops_store::topic::Topic;

/// (number, platform token) of the spec's platform numbers (part 1).
pub const PLATFORM_NUMBERS: [(i32, &str); 4] = [(0, "articles"), (1, "shortvideo"), (3, "lifestyle"), (6, "videosite")];

/// The platform token of a platform number; 400 naming `field` for a
/// number that is not in [`PLATFORM_NUMBERS`].
pub fn platform_of(number: i32, field: &str) -> Result<&'static str, ServiceError> {
    PLATFORM_NUMBERS.iter().find(|(n, _)| *n == number).map(|(_, token)| *token).ok_or_else(|| {
        ServiceError::invalid_field(
            field,
            format!("{field}: {number} is not a platform number (0 articles, 1 shortvideo, 3 lifestyle, 6 videosite)"),
        )
    })
}

/// Most keywords a `keywords[]` feed takes (more is a 400 naming `keywords`).
pub const MAX_KEYWORDS: usize = 10;

/// How deep (`pageNum × pageSize`) a feed over several keywords reaches;
/// a page beyond it is a 400 naming `pageNum`.
pub const MAX_MERGE_DEPTH: u64 = 1000;

/// What the feed request messages share: keyword(s), paging and, for some,
/// a publish window.
pub trait FeedInput: prost::Message + prost::Name + Default + 'static {
    /// The keyword field's JSON name (`keyword` or `keywords`) and its values.
    fn keywords(&self) -> (&'static str, Vec<&str>);
    /// (`pageNum`, `pageSize`).
    fn paging(&self) -> (i32, i32);
    /// (`startTime`, `endTime`) when the message has them.
    fn window(&self) -> Option<(&str, &str)> {
        None
    }
}

/// `FeedInput` for messages with `keyword`, `page_num`, `page_size` and,
/// after `with_window`, `start_time`/`end_time`.
macro_rules! keyword_feed_input {
    ($($ty:ty),+) => {$(
        impl FeedInput for $ty {
            fn keywords(&self) -> (&'static str, Vec<&str>) {
                ("keyword", vec![self.keyword.as_str()])
            }
            fn paging(&self) -> (i32, i32) {
                (self.page_num, self.page_size)
            }
        }
    )+};
    (with_window $($ty:ty),+) => {$(
        impl FeedInput for $ty {
            fn keywords(&self) -> (&'static str, Vec<&str>) {
                ("keyword", vec![self.keyword.as_str()])
            }
            fn paging(&self) -> (i32, i32) {
                (self.page_num, self.page_size)
            }
            fn window(&self) -> Option<(&str, &str)> {
                Some((self.start_time.as_str(), self.end_time.as_str()))
            }
        }
    )+};
}

/// `FeedInput` for messages with `keywords[]`, `page_num`, `page_size`.
macro_rules! keywords_feed_input {
    ($($ty:ty),+) => {$(
        impl FeedInput for $ty {
            fn keywords(&self) -> (&'static str, Vec<&str>) {
                ("keywords", self.keywords.iter().map(String::as_str).collect())
            }
            fn paging(&self) -> (i32, i32) {
                (self.page_num, self.page_size)
            }
        }
    )+};
}

keyword_feed_input!(KeywordFeedRequest);
keyword_feed_input!(with_window
    lifestyle::v1::LifestyleAiFeedRequest,
    shortvideo::v1::ShortvideoAiFeedRequest,
    articles::v1::ArticlesAiFeedRequest
);
keywords_feed_input!(videosite::v1::VideositeAiFeedRequest, clipapp::v1::ClipappAiFeedRequest);

/// Whether a feed's `startTime`/`endTime` must be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Times {
    /// Both must be given (400 naming the missing one).
    Required,
    /// Either may be left empty (an open window on that side).
    Optional,
}

/// One feed operation: which RPC, which platform, which topic.
#[derive(Debug, Clone, Copy)]
pub struct Feed {
    method: &'static str,
    platform: &'static str,
    topic: Topic,
    times: Times,
}

impl Feed {
    /// The feed of `method` (`mediaops.<platform>.v1.<Service>.<Rpc>`, the
    /// constant the generated service module has for the RPC), whose
    /// platform token is the package's segment after `mediaops`.
    pub fn new(method: &'static str, topic: Topic, times: Times) -> Feed {
        let platform = method.strip_prefix("mediaops.").unwrap_or(method).split('.').next().unwrap_or_default();
        Feed { method, platform, topic, times }
    }
}

/// The handler of every `*-ai-feed` and `*-playlet-feed`:
/// `{items[{title, likeCount}]}`.
pub async fn topic_feed<Req: FeedInput>(
    api: Arc<DataApi>,
    feed: Feed,
    req: Req,
) -> Result<Answer<TitleLikeList>, ServiceError> {
    let (field, given) = req.keywords();
    let keywords = keyword_list(&given, field)?;
    let (page_num, page_size) = req.paging();
    let page = PageRequest::new(page_num, "pageNum", page_size, "pageSize")?;
    let (published_from, published_to) = match req.window() {
        Some((start, end)) => {
            if feed.times == Times::Required {
                required(start, "startTime")?;
                required(end, "endTime")?;
            }
            datetime_window(start, "startTime", end, "endTime")?
        }
        None => (None, None),
    };
    tracing::debug!(method = feed.method, keywords = keywords.len(), "topic feed");
    let query = FeedQuery {
        platform: feed.platform,
        topic: Some(feed.topic),
        keywords: &keywords,
        published_from,
        published_to,
        page,
    };
    let items: Vec<TitleLikeItem> = feed_page(api.store.as_ref(), &query).await?.into_iter().map(title_like).collect();
    let empty = items.is_empty();
    Ok(list(TitleLikeList { items }, empty))
}

/// `multi/playlet-feed`: the 短剧 feed of the platform numbered `platform`
/// ([`platform_of`]; unset is 0 = articles), no keyword:
/// `{items[{title, platform}]}`.
pub async fn multi_playlet_feed(
    api: Arc<DataApi>,
    req: multi_pb::v1::PlayletFeedRequest,
) -> Result<Answer<multi_pb::v1::PlayletFeedResponse>, ServiceError> {
    let platform = platform_of(req.platform, "platform")?;
    let page = PageRequest::new(req.page_num, "pageNum", req.page_size, "pageSize")?;
    let query = FeedQuery {
        platform,
        topic: Some(Topic::Playlet),
        keywords: &[],
        published_from: None,
        published_to: None,
        page,
    };
    let items: Vec<multi_pb::v1::PlayletFeedItem> = feed_page(api.store.as_ref(), &query)
        .await?
        .into_iter()
        .map(|r| multi_pb::v1::PlayletFeedItem { title: r.work.title, platform: req.platform })
        .collect();
    let empty = items.is_empty();
    Ok(list(multi_pb::v1::PlayletFeedResponse { items }, empty))
}

/// A work as a feed item: `{title, likeCount}` (unknown likes are 0).
pub fn title_like(record: WorkRecord) -> TitleLikeItem {
    TitleLikeItem { like_count: count(record.latest.and_then(|s| s.likes)), title: record.work.title }
}

/// The keyword values checked: each trimmed and not blank, at least one,
/// at most [`MAX_KEYWORDS`], duplicates dropped; 400 naming `field`.
fn keyword_list(given: &[&str], field: &str) -> Result<Vec<String>, ServiceError> {
    if given.is_empty() {
        return Err(ServiceError::invalid_field(field, format!("{field} must hold at least one keyword")));
    }
    if given.len() > MAX_KEYWORDS {
        return Err(ServiceError::invalid_field(field, format!("{field} holds at most {MAX_KEYWORDS} keywords")));
    }
    let mut keywords: Vec<String> = Vec::with_capacity(given.len());
    for keyword in given {
        let keyword = required(keyword, field)?;
        if !keywords.iter().any(|k| k == keyword) {
            keywords.push(keyword.to_owned());
        }
    }
    Ok(keywords)
}

/// What a feed page is drawn from: works of `platform` (in `topic` when
/// set) matching any of `keywords` (all works when empty), published in
/// the window, most liked first.
#[derive(Debug, Clone)]
pub struct FeedQuery<'a> {
    /// The platform token (`lifestyle`, `shortvideo`, …).
    pub platform: &'a str,
    /// The topic (AI, 短剧) the works must be in, when set.
    pub topic: Option<Topic>,
    /// Words of which a work's text must hold one (empty: any work).
    pub keywords: &'a [String],
    /// Earliest publication time, inclusive.
    pub published_from: Option<DateTime<Utc>>,
    /// Latest publication time, inclusive.
    pub published_to: Option<DateTime<Utc>>,
    /// The page asked for.
    pub page: PageRequest,
}

impl FeedQuery<'_> {
    /// The store query for one keyword (or none), one page.
    fn works(&self, keyword: Option<&String>, page: u32, page_size: u32) -> WorkQuery {
        WorkQuery {
            platform: self.platform.to_owned(),
            text: keyword.cloned(),
            topic: self.topic,
            published_from: self.published_from,
            published_to: self.published_to,
            order: WorkOrder::Likes,
            page,
            page_size,
            ..WorkQuery::default()
        }
    }
}

/// One page of a feed (see [`FeedQuery`]). With one keyword or none it is
/// one store query; with several, each keyword's most liked works down to
/// the page's end are fetched, merged, deduplicated (by the work's
/// `platform_id`) and ordered by likes, then publish time, then
/// `platform_id`. 400 naming `pageNum` when a merged page lies deeper
/// than [`MAX_MERGE_DEPTH`].
pub async fn feed_page(store: &dyn ContentStore, q: &FeedQuery<'_>) -> Result<Vec<WorkRecord>, ServiceError> {
    if q.keywords.len() <= 1 {
        let found = store.find_works(&q.works(q.keywords.first(), q.page.page, q.page.size)).await;
        return Ok(found.map_err(store_error)?.items);
    }
    let depth = q.page.first_index() + u64::from(q.page.size);
    if depth > MAX_MERGE_DEPTH {
        return Err(ServiceError::invalid_field(
            "pageNum",
            format!("a feed over several keywords reaches {MAX_MERGE_DEPTH} items deep; pageNum × pageSize is {depth}"),
        ));
    }
    let mut merged: Vec<WorkRecord> = Vec::new();
    for keyword in q.keywords {
        for record in most_liked(store, q.works(Some(keyword), 1, MAX_SIZE), depth).await? {
            if !merged.iter().any(|m| m.work.platform_id == record.work.platform_id) {
                merged.push(record);
            }
        }
    }
    merged.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.work.platform_id.cmp(&b.work.platform_id)));
    Ok(merged.into_iter().skip(q.page.first_index() as usize).take(q.page.size as usize).collect())
}

/// The feed order's key, best first: likes then publish time, both
/// descending with unknown last (the store's [`WorkOrder::Likes`]).
type Rank = (bool, Reverse<Option<i64>>, bool, Reverse<Option<DateTime<Utc>>>);

fn rank(record: &WorkRecord) -> Rank {
    let likes = record.latest.as_ref().and_then(|s| s.likes);
    let published = record.work.published_at;
    (likes.is_none(), Reverse(likes), published.is_none(), Reverse(published))
}

/// The first `depth` works of `query` (by likes), plus every further work
/// that ties with the last of them, so a merge of several such lists
/// holds the merged list's first `depth` works. Fetches pages of
/// `query.page_size`, at most [`MAX_MERGE_DEPTH`] + one page in all.
async fn most_liked(
    store: &dyn ContentStore,
    mut query: WorkQuery,
    depth: u64,
) -> Result<Vec<WorkRecord>, ServiceError> {
    let mut items: Vec<WorkRecord> = Vec::new();
    let max_pages = MAX_MERGE_DEPTH.div_ceil(u64::from(query.page_size)) + 1;
    loop {
        let found = store.find_works(&query).await.map_err(store_error)?;
        items.extend(found.items);
        let fetched = items.len() as u64;
        let past_ties =
            fetched >= depth && items.last().map(rank) != items.get(depth.saturating_sub(1) as usize).map(rank);
        if fetched >= found.total || past_ties || u64::from(query.page) >= max_pages {
            return Ok(items);
        }
        query.page += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_trimmed_deduplicated_and_bounded() {
        assert_eq!(keyword_list(&[" AI ", "绘画", "AI"], "keywords").unwrap(), vec!["AI", "绘画"]);
        assert_eq!(keyword_list(&[], "keywords").unwrap_err().field.as_deref(), Some("keywords"));
        assert_eq!(keyword_list(&["AI", "  "], "keywords").unwrap_err().field.as_deref(), Some("keywords"));
        assert_eq!(keyword_list(&[""], "keyword").unwrap_err().field.as_deref(), Some("keyword"));
        let many = ["a"; MAX_KEYWORDS + 1];
        assert_eq!(keyword_list(&many, "keywords").unwrap_err().field.as_deref(), Some("keywords"));
    }

    #[test]
    fn the_rank_puts_more_likes_first_and_unknown_last() {
        let work = |likes: Option<i64>| WorkRecord {
            work: Default::default(),
            latest: Some(mediaops_store::model::WorkSnapshot { likes, ..Default::default() }),
            author: None,
        };
        let mut ranks = [rank(&work(None)), rank(&work(Some(3))), rank(&work(Some(30)))];
        ranks.sort();
        assert_eq!(ranks, [rank(&work(Some(30))), rank(&work(Some(3))), rank(&work(None))]);
    }
}
