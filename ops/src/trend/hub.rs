//! The hot-list hub (spec 4.11; docs/trends.md "Hub"):
//!
//! - `trend/trending-hub-keyword`: entries of the numbered lists
//!   ([`super::numbering`]) whose title is about one of `keywords`
//!   ([`super::keywords::KeywordFilter`]) within a `datetime` window
//!   ([`mediaops_store::rules::window::hot_window`]), one per (list, title):
//!   `{platform: <list name>, item: {title, hotCount, index}}`, `index` its
//!   best rank, `hotCount` its highest hot value as text (`""` when the list
//!   gives none). Lists in number order, then by index. A narrower window
//!   holds fewer captures, so fewer entries. Every field is optional (spec
//!   4.11): no (non-blank) keyword = every entry of the window, i.e. the
//!   overall board (docs/data-apis.md "Empty requests").
//! - `trend/shortvideo-hot-trend`: a short-video list (`platform` 1 Douyin,
//!   4 Kuaishou; 0 = 1) over whole days ([`mediaops_store::rules::window::day_window`]; no
//!   dates = the latest batch): `{index, title, hotCount, url}`, one per
//!   title, best rank first (then seen more often, then seen first), `index`
//!   its 1-based position, at most [`TREND_ITEMS`].

use std::sync::Arc;

use mediaops_proto::mediaops::trend::v1 as pb;

use super::Trends;
use super::entries::{Listed, group};
use super::keywords::KeywordFilter;
use super::numbering::{list_order, lists_of, short_video_list};
use crate::data_api::list;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::rules::window::{day_window, hot_window};

/// Entries in one `shortvideo-hot-trend` answer.
pub const TREND_ITEMS: usize = 100;

/// Entries in one `trending-hub-keyword` answer.
pub const HUB_ITEMS: usize = 500;

/// The distinct, non-blank keywords (none: an empty list, which filters
/// nothing out).
pub fn keyword_filters(keywords: &[String]) -> Vec<KeywordFilter> {
    let mut filters: Vec<KeywordFilter> = Vec::new();
    for filter in keywords.iter().filter_map(|k| KeywordFilter::new(k)) {
        if !filters.contains(&filter) {
            filters.push(filter);
        }
    }
    filters
}

/// `trending-hub-keyword` (module docs).
pub async fn hub_keyword(
    trends: Arc<Trends>,
    req: pb::TrendingHubKeywordRequest,
) -> Result<Answer<pb::TrendingHubKeywordResponse>, ServiceError> {
    let lists = lists_of(&req.platforms, "platforms")?;
    let filters = keyword_filters(&req.keywords);
    let window = hot_window(&req.start_date, "startDate", &req.end_date, "endDate", trends.clock())?;
    let found = trends.entries(window.query(lists.iter().map(|s| s.name().to_owned()).collect())).await?;
    let listed = group(&found);
    let terms = trends.terms.terms_of_async(listed.iter().map(|l| l.title)).await;
    let mut hits: Vec<&Listed<'_>> = listed
        .iter()
        .zip(&terms)
        .filter(|(l, t)| filters.is_empty() || filters.iter().any(|f| f.matches(l.title, t)))
        .map(|(l, _)| l)
        .collect();
    hits.sort_by_key(|l| (list_order(l.source), l.best_rank, l.first_seen));
    let items: Vec<pb::HubHotEntry> = hits
        .into_iter()
        .take(HUB_ITEMS)
        .map(|l| pb::HubHotEntry {
            platform: l.source.display_name().to_owned(),
            item: Some(pb::HubHotItem {
                title: l.title.to_owned(),
                hot_count: l.hot.map(|h| h.to_string()).unwrap_or_default(),
                index: i32::try_from(l.best_rank).unwrap_or(i32::MAX),
            }),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::TrendingHubKeywordResponse { items }, empty))
}

/// `shortvideo-hot-trend` (module docs).
pub async fn short_video_trend(
    trends: Arc<Trends>,
    req: pb::ShortvideoHotTrendRequest,
) -> Result<Answer<pb::ShortvideoHotTrendResponse>, ServiceError> {
    let source = short_video_list(req.platform, "platform")?;
    let window = day_window(&req.start_date, "startDate", &req.end_date, "endDate", trends.clock())?;
    let found = trends.entries(window.query(vec![source.name().to_owned()])).await?;
    let mut listed = group(&found);
    listed.sort_by(|a, b| {
        a.best_rank.cmp(&b.best_rank).then(b.captures.cmp(&a.captures)).then(a.first_seen.cmp(&b.first_seen))
    });
    let items: Vec<pb::ShortvideoHotTrendItem> = listed
        .into_iter()
        .take(TREND_ITEMS)
        .enumerate()
        .map(|(i, l)| pb::ShortvideoHotTrendItem {
            index: i as i32 + 1,
            title: l.title.to_owned(),
            hot_count: l.hot.map(|h| h.to_string()).unwrap_or_default(),
            url: l.url.unwrap_or_default().to_owned(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::ShortvideoHotTrendResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trend::fixtures::{answered, trends};

    fn hub(platforms: &[i32], keywords: &[&str], start: &str, end: &str) -> pb::TrendingHubKeywordRequest {
        pb::TrendingHubKeywordRequest {
            platforms: platforms.to_vec(),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            start_date: start.into(),
            end_date: end.into(),
        }
    }

    fn shown(items: &[pb::HubHotEntry]) -> Vec<(String, String, String, i32)> {
        items
            .iter()
            .map(|e| {
                let item = e.item.clone().unwrap();
                (e.platform.clone(), item.title, item.hot_count, item.index)
            })
            .collect()
    }

    #[tokio::test]
    async fn keywords_are_found_in_their_hours_and_narrow_windows_hold_fewer() {
        let (_dir, trends) = trends().await;
        let week = hub(&[2], &["董宇辉"], "2024-06-10 00:00:00", "2024-06-16 23:59:59");
        let (week, _) = answered(hub_keyword(trends.clone(), week).await.unwrap());
        let title = "董宇辉称非常反感被叫网红".to_owned();
        assert_eq!(
            shown(&week.items),
            [("微博热搜".into(), title.clone(), "1200000".into(), 1)],
            "one per title: best rank, top hot"
        );
        let hour = hub(&[2], &["董宇辉"], "2024-06-10 06:00:00", "2024-06-10 06:59:59");
        let (hour, _) = answered(hub_keyword(trends.clone(), hour).await.unwrap());
        assert_eq!(shown(&hour.items), [("微博热搜".into(), title, "800000".into(), 2)]);
        let before = hub(&[2], &["董宇辉"], "2024-06-10 00:00:00", "2024-06-10 00:59:59");
        let (before, found) = answered(hub_keyword(trends.clone(), before).await.unwrap());
        assert!(!found && before.items.is_empty());

        let (latest, _) = answered(hub_keyword(trends.clone(), hub(&[], &["董宇辉", "高温"], "", "")).await.unwrap());
        let lists: Vec<String> = latest.items.iter().map(|e| e.platform.clone()).collect();
        assert_eq!(lists, ["抖音热榜", "抖音热榜", "微博热搜", "微博热搜"], "list-number order: 1 douyin, 2 weibo");
        assert_eq!(shown(&latest.items)[0].2, "", "Douyin gave no hot value");

        let (board, found) = answered(hub_keyword(trends.clone(), hub(&[2], &[" "], "", "")).await.unwrap());
        assert!(found && board.items.len() > 1, "no keyword: the whole Weibo board");
        assert!(board.items.iter().all(|e| e.platform == "微博热搜"));
        let err = hub_keyword(trends.clone(), hub(&[2, 9], &["董宇辉"], "", "")).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("platforms[1]"));
        let (dated, found) =
            answered(hub_keyword(trends, hub(&[2], &["董宇辉"], "2024-06-10", "2024-06-16")).await.unwrap());
        assert!(!found && dated.items.is_empty(), "date-only: silently nothing");
    }

    #[tokio::test]
    async fn short_video_trend_lists_a_short_video_list_over_days() {
        let (_dir, trends) = trends().await;
        let request = |platform: i32, start: &str, end: &str| pb::ShortvideoHotTrendRequest {
            platform,
            start_date: start.into(),
            end_date: end.into(),
        };
        let (days, _) =
            answered(short_video_trend(trends.clone(), request(0, "2024-06-10", "2024-06-21")).await.unwrap());
        let titles: Vec<&str> = days.items.iter().map(|i| i.title.as_str()).collect();
        assert_eq!(titles[..2], ["国足U19战胜韩国夺冠", "多地高温预警持续"], "rank 1s first, seen first first");
        assert_eq!(days.items.len(), 6);
        assert_eq!(days.items.iter().map(|i| i.index).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(days.items[0].url, "https://example.com/douyin/1");
        let (one, _) =
            answered(short_video_trend(trends.clone(), request(1, "2024-06-10", "2024-06-10")).await.unwrap());
        assert_eq!(one.items.len(), 3);
        let (latest, _) = answered(short_video_trend(trends.clone(), request(1, "", "")).await.unwrap());
        assert_eq!(latest.items[0].title, "多地高温预警持续");
        let (kuaishou, found) = answered(short_video_trend(trends.clone(), request(4, "", "")).await.unwrap());
        assert!(!found && kuaishou.items.is_empty());
        let err = short_video_trend(trends.clone(), request(2, "", "")).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("platform"));
        let err = short_video_trend(trends, request(1, "2024-06-10 00:00:00", "")).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("startDate"));
    }
}
