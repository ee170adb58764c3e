//! The `trend-radar` skill (spec 4.14; docs/trends.md "Stories and heat"):
//! `keyword`, `platforms` → `topics[{title, heat, platforms[]}]`.
//!
//! 1. Items: every hot list's entries of the last [`RADAR_HOURS`] hours (up
//!    to the clock's now), one per (list, title) ([`super::entries`]), plus
//!    the [`RADAR_WORKS`] fastest-rising works ([`super::rising`]) of each
//!    requested platform without a public list (`lifestyle`, `articles`).
//! 2. Items are merged into stories across lists and heat is computed per
//!    [`super::stories`] (a hot value is weighed against the top of its
//!    whole list, whatever the keyword).
//! 3. A story is on the radar when one of its items comes from a requested
//!    platform (`shortvideo` = the Douyin hot list, `lifestyle` / `articles`
//!    = their rising works) and, with a `keyword`, when one of its items is
//!    about it ([`super::keywords::KeywordFilter`]; so a wording on another
//!    list without the keyword still joins its story). The other lists
//!    (Weibo, Bilibili, Kuaishou, Zhihu, Toutiao, Baidu) add heat and show
//!    where else the story is hot.
//! 4. `platforms[]` of a topic names where it is hot, hottest first: list
//!    names (`douyin`, `weibo`, …) and platform tokens for works
//!    (`lifestyle`, `articles`). At most [`RADAR_TOPICS`] topics, hottest
//!    first.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use mediaops_proto::mediaops::skills::v1 as pb;

use super::entries::group;
use super::keywords::KeywordFilter;
use super::rising::rising_works;
use super::stories::{StoryItem, merge};
use super::{Trends, topic_platforms};
use crate::data_api::list;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::HotListQuery;

/// Hours of captures the radar reads.
pub const RADAR_HOURS: i64 = 72;

/// Every hot list's captures of the [`RADAR_HOURS`] up to `at`: what the
/// radar reads, and the watch lists' digests with it.
pub fn window_query(at: DateTime<Utc>) -> HotListQuery {
    HotListQuery {
        sources: Vec::new(),
        from: Some(at - Duration::hours(RADAR_HOURS)),
        to: Some(at),
        latest_only: false,
    }
}

/// Rising works read per platform without a list.
pub const RADAR_WORKS: usize = 50;

/// Topics in one answer.
pub const RADAR_TOPICS: usize = 20;

/// `{topics[…]}` (module docs).
pub async fn radar(
    trends: Arc<Trends>,
    req: pb::TrendRadarRequest,
) -> Result<Answer<pb::TrendRadarResponse>, ServiceError> {
    let platforms = topic_platforms(&req.platforms, "platforms")?;
    let filter = KeywordFilter::new(&req.keyword);
    let now = trends.clock().now();
    let found = trends.entries(Some(window_query(now))).await?;
    let listed = group(&found);
    let terms = trends.terms.terms_of_async(listed.iter().map(|l| l.title)).await;
    let mut items: Vec<StoryItem> = listed
        .iter()
        .zip(terms)
        .map(|(l, terms)| StoryItem {
            origin: l.source.name(),
            title: l.title.to_owned(),
            rank: l.best_rank,
            captures: l.captures,
            hot: l.hot,
            terms,
        })
        .collect();
    for platform in platforms.iter().filter(|p| p.list.is_none()) {
        let rising = rising_works(trends.api.store.as_ref(), platform.token, now, RADAR_WORKS).await?;
        let terms = trends.terms.terms_of_async(rising.iter().map(|r| r.record.work.title.as_str())).await;
        items.extend(rising.into_iter().zip(terms).enumerate().map(|(i, (r, terms))| StoryItem {
            origin: platform.token,
            title: r.record.work.title,
            rank: i as i64 + 1,
            captures: 1,
            hot: None,
            terms,
        }));
    }
    let wanted: Vec<&str> = platforms.iter().map(|p| p.list.map_or(p.token, |s| s.name())).collect();
    let topics: Vec<pb::RadarTopic> = merge(&items)
        .into_iter()
        .filter(|story| story.origins.iter().any(|o| wanted.contains(o)))
        .filter(|story| {
            filter.as_ref().is_none_or(|f| story.members.iter().any(|&i| f.matches(&items[i].title, &items[i].terms)))
        })
        .take(RADAR_TOPICS)
        .map(|story| pb::RadarTopic {
            title: story.title,
            heat: story.heat,
            platforms: story.origins.into_iter().map(str::to_owned).collect(),
        })
        .collect();
    let empty = topics.is_empty();
    Ok(list(pb::TrendRadarResponse { topics }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trend::fixtures::{answered, trends};

    fn request(keyword: &str, platforms: &[&str]) -> pb::TrendRadarRequest {
        pb::TrendRadarRequest { keyword: keyword.into(), platforms: platforms.iter().map(|p| p.to_string()).collect() }
    }

    #[tokio::test]
    async fn stories_merge_across_lists_and_requested_platforms_choose_them() {
        let (_dir, trends) = trends().await;
        let (all, found) = answered(radar(trends.clone(), request("", &[])).await.unwrap());
        assert!(found);
        let heat = all.topics.iter().find(|t| t.title.contains("高温") && t.platforms.len() == 2).unwrap();
        let mut lists = heat.platforms.clone();
        lists.sort();
        assert_eq!(lists, ["douyin", "weibo"], "one story on two lists, worded differently: {all:?}");
        assert!(all.topics.windows(2).all(|w| w[0].heat >= w[1].heat));
        assert!(all.topics.iter().any(|t| t.platforms == ["lifestyle"]));
        assert!(!all.topics.iter().any(|t| t.title.contains("国足")), "older than the radar's 72 hours");

        let (star, _) = answered(radar(trends.clone(), request("董宇辉", &[])).await.unwrap());
        assert_eq!(star.topics.len(), 1, "{star:?}");
        assert_eq!(star.topics[0].platforms.len(), 2);
        // weibo rank 2 with the lower of two hot values: (0.98 + 1/3) / 2; douyin rank 3: 0.96.
        let expected = (1000.0f64 * ((0.98 + 1.0 / 3.0) / 2.0 + 0.96)).round() as i64;
        assert_eq!(star.topics[0].heat, expected);

        let (articles, _) = answered(radar(trends.clone(), request("", &["articles"])).await.unwrap());
        assert!(!articles.topics.is_empty());
        assert!(articles.topics.iter().all(|t| t.platforms.contains(&"articles".to_owned())), "{articles:?}");
        let (none, found) = answered(radar(trends, request("没有这个词", &[])).await.unwrap());
        assert!(!found && none.topics.is_empty());
    }
}
