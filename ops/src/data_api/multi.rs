//! Cross-platform data operations answered from the store (spec 4.12):
//! `cn30-multi-search` and `multi-content-export-top`. `playlet-feed` is a
//! topic feed and lives in [`crate::data_api::feeds`].
//!
//! Platform numbers (spec part 1, shown for the playlet feed): 0 =
//! articles, 1 = shortvideo, 3 = lifestyle, 6 = videosite
//! ([`PLATFORM_NUMBERS`]); no other number is accepted.

use std::sync::Arc;

use chrono::{DateTime, Days, NaiveDate, Utc};
use mediaops_proto::mediaops::multi::v1 as pb;

use super::feeds::{FeedQuery, feed_page, title_like};
pub use super::feeds::{PLATFORM_NUMBERS, platform_of};
use super::paging::{DEFAULT_SIZE, MAX_SIZE, PageRequest};
use super::{DataApi, list, required, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::model::{Total, WorkOrder, WorkQuery};
use mediaops_store::rules::times::{day_end, day_start, parse_date, parse_datetime};

/// The platform token.
pub const PLATFORM: &str = "multi";

/// Days `cn30-multi-search` covers, today (Asia/Shanghai) included.
pub const COVERAGE_DAYS: u64 = 30;

/// Hits per platform in `cn30-multi-search`.
pub const SEARCH_HITS: u32 = DEFAULT_SIZE;

/// Works per platform in `multi-content-export-top`.
pub const EXPORT_TOP: u32 = MAX_SIZE;

/// The first and last day `cn30-multi-search` searches: the request's
/// dates clamped to the [`COVERAGE_DAYS`] ending `today` (either may be
/// unset: the coverage's edge). `None` when the window lies wholly before
/// the coverage. 400 naming the field for a bad date, naming `endDate`
/// when it is before `startDate`.
fn cn30_days(start: &str, end: &str, today: NaiveDate) -> Result<Option<(NaiveDate, NaiveDate)>, ServiceError> {
    let (start, end) = (parse_date(start, "startDate")?, parse_date(end, "endDate")?);
    if let (Some(s), Some(e)) = (start, end)
        && e < s
    {
        return Err(ServiceError::invalid_field("endDate", "endDate is before startDate"));
    }
    let first = today.checked_sub_days(Days::new(COVERAGE_DAYS - 1)).unwrap_or(today);
    let start = start.map_or(first, |s| s.max(first));
    let end = end.map_or(today, |e| e.min(today));
    Ok((start <= end).then_some((start, end)))
}

/// `cn30-multi-search`: `{keyword, lifestyleResult[], shortvideoResult[],
/// articlesResult[]}`, each the [`SEARCH_HITS`] most relevant works of
/// that platform published in the covered window, `{title}` each.
pub async fn cn30_multi_search(
    api: Arc<DataApi>,
    req: pb::Cn30MultiSearchRequest,
) -> Result<Answer<pb::Cn30MultiSearchResponse>, ServiceError> {
    let keyword = required(&req.keyword, "keyword")?.to_owned();
    let mut response = pb::Cn30MultiSearchResponse { keyword: keyword.clone(), ..Default::default() };
    let Some((start, end)) = cn30_days(&req.start_date, &req.end_date, api.clock.today())? else {
        return Ok(Answer::Empty(response));
    };
    let search = |platform: &str| {
        let query = WorkQuery {
            platform: platform.to_owned(),
            text: Some(keyword.clone()),
            published_from: Some(day_start(start)),
            published_to: Some(day_end(end)),
            order: WorkOrder::Relevance,
            page: 1,
            page_size: SEARCH_HITS,
            // the answer shows no total
            total: Total::Uncounted,
            ..WorkQuery::default()
        };
        let store = api.store.clone();
        async move {
            let found = store.find_works(&query).await.map_err(store_error)?;
            Ok::<_, ServiceError>(found.items.into_iter().map(|r| pb::Cn30SearchHit { title: r.work.title }).collect())
        }
    };
    (response.lifestyle_result, response.shortvideo_result, response.articles_result) =
        tokio::try_join!(search("lifestyle"), search("shortvideo"), search("articles"))?;
    let empty = response.lifestyle_result.is_empty()
        && response.shortvideo_result.is_empty()
        && response.articles_result.is_empty();
    Ok(list(response, empty))
}

/// Which end of a window a time field is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    Start,
    End,
}

/// A `startTime`/`endTime` of `multi-content-export-top`: a datetime
/// `YYYY-MM-DD HH:mm:ss` or a date `YYYY-MM-DD` (the day's 00:00:00 as a
/// start, 23:59:59 as an end), Asia/Shanghai; empty = open. 400 naming
/// `field` otherwise.
fn time_bound(value: &str, field: &str, edge: Edge) -> Result<Option<DateTime<Utc>>, ServiceError> {
    if value.trim().len() == "YYYY-MM-DD".len() {
        let date = parse_date(value, field).map_err(|_| {
            ServiceError::invalid_field(field, format!("{field} must be YYYY-MM-DD HH:mm:ss or YYYY-MM-DD"))
        })?;
        return Ok(date.map(|d| if edge == Edge::Start { day_start(d) } else { day_end(d) }));
    }
    parse_datetime(value, field)
}

/// The platforms of `multi-content-export-top`, in request order without
/// repeats; empty = all four of [`PLATFORM_NUMBERS`].
fn export_platforms(numbers: &[i32]) -> Result<Vec<(i32, &'static str)>, ServiceError> {
    if numbers.is_empty() {
        return Ok(PLATFORM_NUMBERS.to_vec());
    }
    let mut platforms: Vec<(i32, &'static str)> = Vec::new();
    for &number in numbers {
        let token = platform_of(number, "platforms")?;
        if !platforms.iter().any(|(n, _)| *n == number) {
            platforms.push((number, token));
        }
    }
    Ok(platforms)
}

/// `multi-content-export-top`: `{items[{platform, list[{title,
/// likeCount}]}]}`, one group per requested platform (empty list when it
/// has nothing), each the [`EXPORT_TOP`] most liked works of the platform
/// published in the window and matching `keyword` (all works when empty).
pub async fn export_top(
    api: Arc<DataApi>,
    req: pb::MultiContentExportTopRequest,
) -> Result<Answer<pb::MultiContentExportTopResponse>, ServiceError> {
    let platforms = export_platforms(&req.platforms)?;
    let published_from = time_bound(&req.start_time, "startTime", Edge::Start)?;
    let published_to = time_bound(&req.end_time, "endTime", Edge::End)?;
    if let (Some(s), Some(e)) = (published_from, published_to)
        && e < s
    {
        return Err(ServiceError::invalid_field("endTime", "endTime is before startTime"));
    }
    let keyword: Vec<String> =
        Some(req.keyword.trim()).filter(|k| !k.is_empty()).map(str::to_owned).into_iter().collect();
    let mut items = Vec::with_capacity(platforms.len());
    for (number, platform) in platforms {
        let query = FeedQuery {
            platform,
            topic: None,
            keywords: &keyword,
            published_from,
            published_to,
            page: PageRequest { page: 1, size: EXPORT_TOP },
        };
        let list = feed_page(api.store.as_ref(), &query).await?.into_iter().map(title_like).collect();
        items.push(pb::PlatformContentGroup { platform: number, list });
    }
    let empty = items.iter().all(|group| group.list.is_empty());
    Ok(list(pb::MultiContentExportTopResponse { items }, empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn platform_numbers_follow_the_spec() {
        assert_eq!(platform_of(0, "platform").unwrap(), "articles");
        assert_eq!(platform_of(6, "platform").unwrap(), "videosite");
        assert_eq!(platform_of(2, "platform").unwrap_err().field.as_deref(), Some("platform"));
        let platforms = export_platforms(&[3, 1, 3]).unwrap();
        assert_eq!(platforms, vec![(3, "lifestyle"), (1, "shortvideo")]);
        assert_eq!(export_platforms(&[]).unwrap().len(), 4);
        assert_eq!(export_platforms(&[9]).unwrap_err().field.as_deref(), Some("platforms"));
    }

    #[test]
    fn the_cn30_window_is_clamped_to_the_last_30_days() {
        let today = date("2024-06-30");
        assert_eq!(cn30_days("", "", today).unwrap(), Some((date("2024-06-01"), today)));
        assert_eq!(
            cn30_days("2024-01-01", "2024-06-10", today).unwrap(),
            Some((date("2024-06-01"), date("2024-06-10")))
        );
        assert_eq!(cn30_days("2024-06-20", "2024-07-20", today).unwrap(), Some((date("2024-06-20"), today)));
        assert_eq!(cn30_days("2024-01-01", "2024-02-01", today).unwrap(), None);
        assert_eq!(cn30_days("2024-06-20", "2024-06-10", today).unwrap_err().field.as_deref(), Some("endDate"));
        assert_eq!(cn30_days("2024/06/20", "", today).unwrap_err().field.as_deref(), Some("startDate"));
    }

    #[test]
    fn export_times_take_a_datetime_or_a_date() {
        let start = time_bound("2024-06-01", "startTime", Edge::Start).unwrap();
        assert_eq!(mediaops_store::rules::times::format_time(start), "2024-06-01 00:00:00");
        let end = time_bound("2024-06-01", "endTime", Edge::End).unwrap();
        assert_eq!(mediaops_store::rules::times::format_time(end), "2024-06-01 23:59:59");
        let at = time_bound("2024-06-01 08:30:00", "startTime", Edge::Start).unwrap();
        assert_eq!(mediaops_store::rules::times::format_time(at), "2024-06-01 08:30:00");
        assert_eq!(time_bound("", "endTime", Edge::End).unwrap(), None);
        assert_eq!(time_bound("06/01/2024", "endTime", Edge::End).unwrap_err().field.as_deref(), Some("endTime"));
        assert_eq!(time_bound("2024-6-1 8:00", "endTime", Edge::End).unwrap_err().field.as_deref(), Some("endTime"));
    }
}
