//! `trend/hot-topics` (spec 4.11): each requested platform's hot topics,
//! `{title, heat, platform, rank}` plus `content`, `hotCount`, `likeCount`,
//! `url`, `share_url` where known (docs/trends.md "Hot topics").
//!
//! - `shortvideo`: the Douyin hot list's latest batch ([`mediaops_store::rules::window`]),
//!   by rank; `heat` and `hotCount` are the list's hot value (0 / absent
//!   when the list gives none), `content` and `share_url` come from the
//!   entry's extra fields when the collector kept them.
//! - `lifestyle`, `articles` (no public list): the fastest-rising stored
//!   works ([`super::rising`]); `heat` is the likes gained per day,
//!   `likeCount` the newest likes, `content` the description, `url` the
//!   work's link.
//!
//! `limit` (default 20, at most 50) caps the whole answer; platforms take
//! turns by rank (every platform's #1, then every #2, …) so each requested
//! platform is shown.

use std::sync::Arc;

use mediaops_proto::mediaops::trend::v1 as pb;

use super::entries::{extra_text, group};
use super::rising::rising_works;
use super::{TopicPlatform, Trends, topic_platforms};
use crate::data_api::list;
use crate::data_api::paging::{DEFAULT_SIZE, MAX_SIZE};
use mediaops_connectors::hotlists::Source;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::rules::window::HotWindow;

/// `limit`: 0 (unset) = [`DEFAULT_SIZE`]; 1..=[`MAX_SIZE`]; else a 400
/// naming `field`.
pub fn limit_of(limit: i32, field: &str) -> Result<usize, ServiceError> {
    match limit {
        0 => Ok(DEFAULT_SIZE as usize),
        1.. if limit as u32 <= MAX_SIZE => Ok(limit as usize),
        _ => Err(ServiceError::invalid_field(field, format!("{field} must be 1..{MAX_SIZE}, not {limit}"))),
    }
}

/// `{items[…]}` (module docs).
pub async fn hot_topics(
    trends: Arc<Trends>,
    req: pb::HotTopicsRequest,
) -> Result<Answer<pb::HotTopicsResponse>, ServiceError> {
    let platforms = topic_platforms(&req.platforms, "platforms")?;
    let limit = limit_of(req.limit, "limit")?;
    let mut per_platform = Vec::new();
    for platform in platforms {
        per_platform.push(match platform.list {
            Some(source) => list_topics(&trends, source, platform, limit).await?,
            None => work_topics(&trends, platform, limit).await?,
        });
    }
    let items = take_turns(per_platform, limit);
    let empty = items.is_empty();
    Ok(list(pb::HotTopicsResponse { items }, empty))
}

/// The list's latest batch, by rank.
async fn list_topics(
    trends: &Trends,
    source: Source,
    platform: TopicPlatform,
    limit: usize,
) -> Result<Vec<pb::HotTopicItem>, ServiceError> {
    let found = trends.entries(HotWindow::latest(trends.clock()).query(vec![source.name().into()])).await?;
    let mut listed = group(&found);
    listed.sort_by_key(|l| l.best_rank);
    Ok(listed
        .into_iter()
        .take(limit)
        .map(|l| pb::HotTopicItem {
            title: l.title.to_owned(),
            heat: l.hot.unwrap_or(0),
            platform: platform.token.into(),
            rank: i32::try_from(l.best_rank).unwrap_or(i32::MAX),
            content: extra_text(l.extra, &["description", "desc", "excerpt", "note"]).map(str::to_owned),
            hot_count: l.hot.map(|h| h.to_string()),
            like_count: None,
            url: l.url.map(str::to_owned),
            share_url: extra_text(l.extra, &["share_url", "shareUrl"]).map(str::to_owned),
        })
        .collect())
}

/// The platform's fastest-rising works.
async fn work_topics(
    trends: &Trends,
    platform: TopicPlatform,
    limit: usize,
) -> Result<Vec<pb::HotTopicItem>, ServiceError> {
    let rising = rising_works(trends.api.store.as_ref(), platform.token, trends.clock().now(), limit).await?;
    Ok(rising
        .into_iter()
        .enumerate()
        .map(|(i, r)| pb::HotTopicItem {
            title: r.record.work.title,
            heat: r.per_day.round() as i64,
            platform: platform.token.into(),
            rank: i as i32 + 1,
            content: r.record.work.description.filter(|d| !d.trim().is_empty()),
            hot_count: None,
            like_count: Some(r.likes),
            url: r.record.work.url,
            share_url: None,
        })
        .collect())
}

/// Every list's first item, then every second, …, at most `limit` in all.
fn take_turns<T>(lists: Vec<Vec<T>>, limit: usize) -> Vec<T> {
    let mut iters: Vec<_> = lists.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::new();
    while out.len() < limit {
        let before = out.len();
        for it in &mut iters {
            if out.len() == limit {
                break;
            }
            out.extend(it.next());
        }
        if out.len() == before {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_turns() {
        assert_eq!(limit_of(0, "limit").unwrap(), 20);
        assert_eq!(limit_of(50, "limit").unwrap(), 50);
        assert_eq!(limit_of(51, "limit").unwrap_err().field.as_deref(), Some("limit"));
        assert_eq!(limit_of(-1, "limit").unwrap_err().field.as_deref(), Some("limit"));
        assert_eq!(take_turns(vec![vec![1, 2, 3], vec![], vec![10, 20]], 4), [1, 10, 2, 20]);
        assert_eq!(take_turns(vec![vec![1, 2, 3], vec![10]], 10), [1, 10, 2, 3]);
    }

    use crate::trend::fixtures::{answered, trends};

    fn request(platforms: &[&str], limit: i32) -> pb::HotTopicsRequest {
        pb::HotTopicsRequest { platforms: platforms.iter().map(|p| p.to_string()).collect(), limit }
    }

    #[tokio::test]
    async fn platforms_take_turns_from_the_list_and_the_rising_works() {
        let (_dir, trends) = trends().await;
        let (all, found) = answered(hot_topics(trends.clone(), request(&[], 0)).await.unwrap());
        assert!(found);
        let shown: Vec<(&str, i32, &str)> =
            all.items.iter().map(|i| (i.platform.as_str(), i.rank, i.title.as_str())).collect();
        assert_eq!(
            shown[..4],
            [
                ("shortvideo", 1, "多地高温预警持续"),
                ("lifestyle", 1, "三小时五千赞的高温防晒笔记"),
                ("articles", 1, "高温天气下的防暑指南"),
                ("shortvideo", 2, "毕业季拍照大赛"),
            ]
        );
        assert_eq!(all.items.len(), 7, "3 Douyin entries of the latest batch, 2 + 2 works");
        let note = &all.items[1];
        assert_eq!((note.heat, note.like_count), (40_000, Some(5_000)), "5000 likes in 3 hours = 40000 a day");
        assert_eq!(note.url.as_deref(), Some("https://example.com/lifestyle/n1"));
        assert!(note.content.as_deref().is_some_and(|c| c.ends_with("正文")));
        let video = &all.items[0];
        assert_eq!(
            (video.heat, video.hot_count.as_deref(), video.like_count),
            (0, None, None),
            "no hot value on the list"
        );
        assert_eq!(video.url.as_deref(), Some("https://example.com/douyin/1"));

        let (two, _) = answered(hot_topics(trends.clone(), request(&[], 2)).await.unwrap());
        assert_eq!(two.items.iter().map(|i| i.platform.as_str()).collect::<Vec<_>>(), ["shortvideo", "lifestyle"]);
        let (articles, _) = answered(hot_topics(trends.clone(), request(&["articles"], 0)).await.unwrap());
        assert_eq!(articles.items.iter().map(|i| (i.rank, i.heat)).collect::<Vec<_>>(), [(1, 2_400), (2, 50)]);
        let err = hot_topics(trends, request(&["articles"], 51)).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("limit"));
    }
}
