//! The `cn-last30days` skill (spec 4.14; docs/trends.md "Last 30 days"):
//! `keyword`, `days`, `platforms` → `trend{keyword, mentions, sentiment,
//! sentimentScore, series[{date, mentions}]}`.
//!
//! - Window: the last `days` Shanghai days, today included, up to the
//!   clock's now (`days` 1..=[`MAX_DAYS`]; 0/unset = 30; anything else is a
//!   400 naming `days`).
//! - A **mention** is a stored work of a requested platform that holds
//!   every word of the keyword (the store's full-text search), counted on its
//!   publish day, or an entry of a requested platform's hot list
//!   (`shortvideo`: Douyin) about the keyword
//!   ([`super::keywords::KeywordFilter`]), counted once per (list, title,
//!   day) it was on the list. `mentions` is their number; `series` has one
//!   point per day of the window, oldest first.
//! - `sentiment` / `sentimentScore`: the lexicon method of
//!   [`super::sentiment`] over the mentions' texts (titles; a work's title
//!   and description).
//! - Works are read [`WORK_PAGES`] pages of 50 per platform at most; beyond
//!   that they count in `mentions` (the search's total) but not in `series`
//!   or the sentiment.
//! - `keyword` is optional (spec 4.14): without one there is nothing to
//!   count, so the answer is an empty trend (`keyword: ""`, `mentions: 0`,
//!   every day of the window at 0, `neutral`) with the warning
//!   [`NO_KEYWORD`] (docs/trends.md "Last 30 days").

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, Days, NaiveDate, Utc};
use mediaops_proto::mediaops::skills::v1 as pb;

use super::entries::group;
use super::keywords::KeywordFilter;
use super::sentiment::sentiment;
use super::{Trends, topic_platforms};
use crate::data_api::{list, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::clock::shanghai;
use mediaops_store::model::{HotListQuery, Total, WorkOrder, WorkQuery};
use mediaops_store::rules::times::day_start;

/// Longest window, in days (spec 4.14 "last 30 days").
pub const MAX_DAYS: i32 = 30;

/// The warning of a call without a keyword.
pub const NO_KEYWORD: &str = "no keyword given: nothing to count, so every day is 0; give keyword to see its trend";

/// Store pages of works read per platform.
pub const WORK_PAGES: u32 = 20;

/// `days`: 0 = [`MAX_DAYS`]; 1..=[`MAX_DAYS`]; else a 400 naming `field`.
pub fn days_of(days: i32, field: &str) -> Result<u64, ServiceError> {
    match days {
        0 => Ok(MAX_DAYS as u64),
        1..=MAX_DAYS => Ok(days as u64),
        _ => Err(ServiceError::invalid_field(field, format!("{field} must be 1..{MAX_DAYS}, not {days}"))),
    }
}

/// The Shanghai day of an instant.
fn day_of(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&shanghai()).date_naive()
}

/// `{trend{…}}` (module docs).
pub async fn last30days(
    trends: Arc<Trends>,
    req: pb::CnLast30daysRequest,
) -> Result<Answer<pb::CnLast30daysResponse>, ServiceError> {
    let filter = KeywordFilter::new(&req.keyword);
    let days = days_of(req.days, "days")?;
    let platforms = topic_platforms(&req.platforms, "platforms")?;
    let (today, now) = (trends.clock().today(), trends.clock().now());
    let first = today.checked_sub_days(Days::new(days - 1)).unwrap_or(today);
    let from = day_start(first);

    // (day, text) of every mention read.
    let mut mentions: Vec<(NaiveDate, String)> = Vec::new();
    let sources: Vec<String> = platforms.iter().filter_map(|p| p.list).map(|s| s.name().to_owned()).collect();
    if let Some(filter) = filter.as_ref().filter(|_| !sources.is_empty()) {
        let query = HotListQuery { sources, from: Some(from), to: Some(now), latest_only: false };
        let found = trends.entries(Some(query)).await?;
        let listed = group(&found);
        let terms = trends.terms.terms_of_async(listed.iter().map(|l| l.title)).await;
        let about: HashSet<(&str, &str)> = listed
            .iter()
            .zip(&terms)
            .filter(|(l, t)| filter.matches(l.title, t))
            .map(|(l, _)| (l.source.name(), l.title))
            .collect();
        let mut seen = HashSet::new();
        for entry in &found {
            let key = (entry.source.as_str(), entry.title.trim());
            let day = day_of(entry.captured_at);
            if about.contains(&key) && seen.insert((day, key)) {
                mentions.push((day, key.1.to_owned()));
            }
        }
    }
    let mut unread = 0u64;
    let page_size = mediaops_store::MAX_PAGE_SIZE;
    for platform in platforms.iter().filter(|_| filter.is_some()) {
        let (mut total, mut read) = (None, 0u64);
        for page in 1..=WORK_PAGES {
            let query = WorkQuery {
                platform: platform.token.into(),
                text: Some(req.keyword.trim().into()),
                published_from: Some(from),
                published_to: Some(now),
                order: WorkOrder::Newest,
                page,
                page_size,
                // mentions counts every match past the pages read
                total: Total::Exact,
                ..WorkQuery::default()
            };
            let found = trends.api.store.find_works(&query).await.map_err(store_error)?;
            total.get_or_insert(found.total);
            let short = found.items.len() < page_size as usize;
            read += found.items.len() as u64;
            for record in found.items {
                let Some(published) = record.work.published_at else { continue };
                let text = format!("{} {}", record.work.title, record.work.description.unwrap_or_default());
                mentions.push((day_of(published), text));
            }
            if short {
                break;
            }
        }
        unread += total.unwrap_or(0).saturating_sub(read);
    }

    let series: Vec<pb::DailyMentions> = first
        .iter_days()
        .take_while(|day| *day <= today)
        .map(|day| pb::DailyMentions {
            date: day.format("%Y-%m-%d").to_string(),
            mentions: mentions.iter().filter(|(d, _)| *d == day).count() as i64,
        })
        .collect();
    let (score, label) = sentiment(mentions.iter().map(|(_, text)| text.as_str()));
    let total = mentions.len() as u64 + unread;
    let trend = pb::KeywordTrend {
        keyword: req.keyword.trim().to_owned(),
        mentions: total as i64,
        sentiment: label.to_owned(),
        sentiment_score: score,
        series,
    };
    Ok(list(pb::CnLast30daysResponse { trend: Some(trend) }, total == 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_one_to_thirty_and_zero_means_thirty() {
        assert_eq!(days_of(0, "days").unwrap(), 30);
        assert_eq!(days_of(7, "days").unwrap(), 7);
        assert_eq!(days_of(31, "days").unwrap_err().field.as_deref(), Some("days"));
        assert_eq!(days_of(-1, "days").unwrap_err().field.as_deref(), Some("days"));
    }

    use crate::trend::fixtures::{answered, trends};

    fn request(keyword: &str, days: i32, platforms: &[&str]) -> pb::CnLast30daysRequest {
        pb::CnLast30daysRequest {
            keyword: keyword.into(),
            days,
            platforms: platforms.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[tokio::test]
    async fn mentions_count_per_day_with_a_sentiment() {
        let (_dir, trends) = trends().await;
        let (response, found) = answered(last30days(trends.clone(), request(" 高温 ", 0, &[])).await.unwrap());
        assert!(found);
        let trend = response.trend.unwrap();
        assert_eq!(trend.keyword, "高温");
        assert_eq!(trend.mentions, 4, "one Douyin entry, one note, two articles: {trend:?}");
        assert_eq!(trend.series.len(), 30);
        assert_eq!(trend.series[0].date, "2024-05-24");
        let last: Vec<(&str, i64)> = trend.series[27..].iter().map(|d| (d.date.as_str(), d.mentions)).collect();
        assert_eq!(last, [("2024-06-20", 1), ("2024-06-21", 2), ("2024-06-22", 1)]);
        assert_eq!(trend.series.iter().map(|d| d.mentions).sum::<i64>(), trend.mentions);
        // 预警 (−1) and 事故 (−1) over two scored texts: −2 / 3.
        assert!((trend.sentiment_score + 2.0 / 3.0).abs() < 1e-9, "{trend:?}");
        assert_eq!(trend.sentiment, "negative");

        let (today, _) = answered(last30days(trends.clone(), request("高温", 1, &["lifestyle"])).await.unwrap());
        let today = today.trend.unwrap();
        assert_eq!((today.mentions, today.series.len()), (1, 1));
        let (short, _) = answered(last30days(trends.clone(), request("高温", 0, &["shortvideo"])).await.unwrap());
        assert_eq!(short.trend.unwrap().mentions, 1);
        let (none, found) = answered(last30days(trends.clone(), request("没有这个词", 7, &[])).await.unwrap());
        assert!(!found);
        assert_eq!(none.trend.unwrap().sentiment, "neutral");

        let err = last30days(trends.clone(), request("高温", 31, &[])).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("days"));
        let (blank, found) = answered(last30days(trends, request(" ", 7, &[])).await.unwrap());
        let blank = blank.trend.unwrap();
        assert!(!found, "no keyword: an empty trend");
        assert_eq!((blank.keyword.as_str(), blank.mentions, blank.series.len()), ("", 0, 7));
        assert_eq!(blank.sentiment, "neutral");
    }
}
