//! `trend/hot-keywords` (spec 4.11): the keywords of every hot list's
//! titles in a window, each with the lists (`plats`) it appeared on.
//! Window rules per [`mediaops_store::rules::window`] (spec 4.1); extraction and scoring
//! per [`super::keywords`]; at most [`HOT_KEYWORDS`] keywords, best first.

use std::sync::Arc;

use mediaops_proto::mediaops::trend::v1 as pb;

use super::keywords::rank_keywords;
use super::{Trends, entries};
use crate::data_api::list;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::rules::window::{HotWindow, hot_window};

/// Keywords in one answer.
pub const HOT_KEYWORDS: usize = 50;

/// `{items[{keyword, plats[]}]}`; `plats` are list names (`weibo`, `douyin`,
/// …) in list-number order.
pub async fn hot_keywords(
    trends: Arc<Trends>,
    req: pb::HotKeywordsRequest,
) -> Result<Answer<pb::HotKeywordsResponse>, ServiceError> {
    let window = hot_window(&req.start_date, "startDate", &req.end_date, "endDate", trends.clock())?;
    if window == HotWindow::Nothing {
        return Ok(Answer::Empty(pb::HotKeywordsResponse::default()));
    }
    let found = trends.entries(window.query(Vec::new())).await?;
    let docs = entries::documents(&found);
    let terms = trends.terms.terms_of_async(docs.iter().map(|(_, title)| *title)).await;
    let docs: Vec<_> = docs.iter().map(|(source, _)| *source).zip(terms).collect();
    let background = trends.background().await?;
    let items: Vec<pb::HotKeywordItem> = rank_keywords(&docs, &background, HOT_KEYWORDS)
        .into_iter()
        .map(|k| pb::HotKeywordItem {
            keyword: k.keyword,
            plats: k.lists.iter().map(|s| s.name().to_owned()).collect(),
        })
        .collect();
    let empty = items.is_empty();
    Ok(list(pb::HotKeywordsResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trend::fixtures::{answered, trends};

    fn request(start: &str, end: &str) -> pb::HotKeywordsRequest {
        pb::HotKeywordsRequest { start_date: start.into(), end_date: end.into() }
    }

    fn plats_of<'a>(items: &'a [pb::HotKeywordItem], keyword: &str) -> Option<&'a [String]> {
        items.iter().find(|k| k.keyword == keyword).map(|k| k.plats.as_slice())
    }

    #[tokio::test]
    async fn a_window_gives_its_titles_keywords_with_their_lists() {
        let (_dir, trends) = trends().await;
        let answer = hot_keywords(trends.clone(), request("2024-06-10 00:00:00", "2024-06-16 23:59:59")).await.unwrap();
        let (response, found) = answered(answer);
        assert!(found);
        let items = response.items;
        assert_eq!(plats_of(&items, "国足"), Some(&["douyin".to_owned(), "weibo".to_owned()][..]), "{items:?}");
        assert_eq!(plats_of(&items, "董宇辉"), Some(&["weibo".to_owned()][..]));
        assert!(plats_of(&items, "高温").is_none(), "a 2024-06-21 word is outside the window");
        assert!(plats_of(&items, "网友").is_none() && plats_of(&items, "称").is_none(), "stop words");
        let two_lists = ["douyin".to_owned(), "weibo".to_owned()];
        assert!(items[..6].iter().all(|k| k.plats == two_lists), "on two lists first: {items:?}");
        assert!(items[6..].iter().all(|k| k.plats.len() == 1));
    }

    #[tokio::test]
    async fn spec_window_rules_apply() {
        let (_dir, trends) = trends().await;
        let (response, found) =
            answered(hot_keywords(trends.clone(), request("2024-06-10", "2024-06-16")).await.unwrap());
        assert!(!found && response.items.is_empty(), "date-only: silently nothing");
        let old = request("2024-05-01 00:00:00", "2024-05-25 23:59:59");
        let (response, found) = answered(hot_keywords(trends.clone(), old).await.unwrap());
        assert!(!found && response.items.is_empty(), "older than three weeks");
        let err = hot_keywords(trends.clone(), request("2024-06-10 00:00", "")).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("startDate"));

        let (latest, _) = answered(hot_keywords(trends, request("", "")).await.unwrap());
        assert_eq!(plats_of(&latest.items, "董宇辉"), Some(&["douyin".to_owned(), "weibo".to_owned()][..]));
        assert_eq!(plats_of(&latest.items, "高温"), Some(&["douyin".to_owned(), "weibo".to_owned()][..]));
        assert!(plats_of(&latest.items, "国足").is_none(), "the latest batch is 2024-06-21's");
    }
}
