//! The history operations (docs/history.md; ours, not in the spec): an
//! account's counters, a work's counters and a hot-list title's rank over
//! a window of days, read from the content store's snapshots and hot-list
//! archive. Each day (Asia/Shanghai, `YYYY-MM-DD`) that has a snapshot is
//! one point: the last snapshot captured that day (for a title, its best
//! and its last rank of the day). Free; nothing is fetched upstream.

mod buckets;

use std::sync::Arc;

use chrono::NaiveDate;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::mediaops::history::v1 as pb;

use crate::data_api::{DataApi, store_error};
use mediaops_proto::error::ServiceError;
use mediaops_store::model::SeriesQuery;
use mediaops_store::rules::platforms::PLATFORM_ORDER;
use mediaops_store::rules::times::{day_end, day_start, format_time};

pub use buckets::{last_per_day, title_days};

/// `days` when the request leaves it unset (0).
pub const DEFAULT_DAYS: i32 = 30;
/// The longest window, in days.
pub const MAX_DAYS: i32 = 365;

/// The platforms whose accounts and works the store keeps: the tokens of
/// spec 1 but the aggregate ones (`trend`, `tool`, `multi`).
pub fn content_platforms() -> impl Iterator<Item = &'static str> {
    PLATFORM_ORDER.into_iter().filter(|p| !matches!(*p, "trend" | "tool" | "multi"))
}

/// The window `[from, to]` of `days` days (0 = [`DEFAULT_DAYS`]) ending
/// `today`; 400 naming `days` outside 1..=[`MAX_DAYS`].
pub fn window(days: i32, today: NaiveDate) -> Result<(NaiveDate, NaiveDate), ServiceError> {
    let days = if days == 0 { DEFAULT_DAYS } else { days };
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(ServiceError::invalid_field(
            "days",
            format!("days must be 1-{MAX_DAYS} (default {DEFAULT_DAYS}), not {days}"),
        ));
    }
    Ok((today - chrono::Duration::days(i64::from(days - 1)), today))
}

/// A content platform token, or 400 naming `platform`.
fn platform(value: &str) -> Result<&'static str, ServiceError> {
    let value = value.trim();
    content_platforms().find(|p| *p == value).ok_or_else(|| {
        ServiceError::invalid_field(
            "platform",
            format!(
                "unknown platform {}; use one of {}",
                excerpt(value),
                content_platforms().collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// A required id field, trimmed, or 400 naming `field`.
fn required<'a>(value: &'a str, field: &str) -> Result<&'a str, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ServiceError::invalid_field(field, format!("{field} is required")));
    }
    Ok(value)
}

fn day_text(day: NaiveDate) -> String {
    day.format("%Y-%m-%d").to_string()
}

/// `history.account-history`: the account's fans, likes and works per day.
/// 404 when the account (any of its id forms) is not stored.
pub async fn account_history(
    api: Arc<DataApi>,
    request: pb::AccountHistoryRequest,
) -> Result<pb::AccountHistoryResponse, ServiceError> {
    let platform = platform(&request.platform)?;
    let id = required(&request.account_id, "accountId")?;
    let (from, to) = window(request.days, api.clock.today())?;
    let Some(record) = api.store.get_account(platform, id).await.map_err(store_error)? else {
        return Err(ServiceError::not_found(format!("no {platform} account {} in the store", excerpt(id))));
    };
    let account = record.account;
    let query = SeriesQuery {
        platform: platform.to_owned(),
        account_id: Some(account.platform_id.clone()),
        captured_from: day_start(from),
        captured_to: day_end(to),
        ..SeriesQuery::default()
    };
    let series = api.store.account_series(&query).await.map_err(store_error)?;
    let snapshots = series.into_iter().next().map(|s| s.snapshots).unwrap_or_default();
    let points = last_per_day(snapshots, |s| s.captured_at)
        .into_iter()
        .map(|(day, s)| pb::AccountDayPoint {
            day: day_text(day),
            fans: s.fans,
            likes: s.likes,
            works: s.works,
            captured_at: format_time(Some(s.captured_at)),
        })
        .collect();
    Ok(pb::AccountHistoryResponse {
        platform: platform.to_owned(),
        account_id: account.platform_id,
        name: Some(account.nickname).filter(|n| !n.is_empty()),
        from: day_text(from),
        to: day_text(to),
        points,
    })
}

/// `history.work-history`: the work's likes, comments, shares, views (or
/// reads, on `articles`) per day. 404 when the work is not stored.
pub async fn work_history(
    api: Arc<DataApi>,
    request: pb::WorkHistoryRequest,
) -> Result<pb::WorkHistoryResponse, ServiceError> {
    let platform = platform(&request.platform)?;
    let id = required(&request.work_id, "workId")?;
    let (from, to) = window(request.days, api.clock.today())?;
    let Some(record) = api.store.get_work(platform, id).await.map_err(store_error)? else {
        return Err(ServiceError::not_found(format!("no {platform} work {} in the store", excerpt(id))));
    };
    let work = record.work;
    let snapshots = api
        .store
        .work_snapshots(platform, &work.platform_id, day_start(from), day_end(to))
        .await
        .map_err(store_error)?;
    // The store keeps one counter for plays, views and reads; on the
    // official-account platform it counts reads.
    let reads = platform == "articles";
    let points = last_per_day(snapshots, |s| s.captured_at)
        .into_iter()
        .map(|(day, s)| pb::WorkDayPoint {
            day: day_text(day),
            likes: s.likes,
            comments: s.comments,
            shares: s.shares,
            views: if reads { None } else { s.views },
            reads: if reads { s.views } else { None },
            captured_at: format_time(Some(s.captured_at)),
        })
        .collect();
    Ok(pb::WorkHistoryResponse {
        platform: platform.to_owned(),
        work_id: work.platform_id,
        title: Some(work.title).filter(|t| !t.is_empty()),
        from: day_text(from),
        to: day_text(to),
        points,
    })
}

/// `history.hot-title-rank`: the title's best and last rank per day, over
/// the list `source` or every list.
pub async fn hot_title_rank(
    api: Arc<DataApi>,
    request: pb::HotTitleRankRequest,
) -> Result<pb::HotTitleRankResponse, ServiceError> {
    let title = required(&request.title, "title")?;
    let (from, to) = window(request.days, api.clock.today())?;
    let source = request.source.trim();
    let sources = if source.is_empty() { Vec::new() } else { vec![source.to_owned()] };
    let entries =
        api.store.hot_title_entries(title, &sources, day_start(from), day_end(to)).await.map_err(store_error)?;
    let mut listed: Vec<String> = entries.iter().map(|e| e.source.clone()).collect();
    listed.sort();
    listed.dedup();
    let points = title_days(&entries)
        .into_iter()
        .map(|d| pb::HotTitleDayPoint {
            day: day_text(d.day),
            best_rank: clamp(d.best_rank),
            best_source: d.best_source,
            last_rank: clamp(d.last_rank),
            captures: d.captures.try_into().unwrap_or(i32::MAX),
            hot_value: d.hot_value,
        })
        .collect();
    Ok(pb::HotTitleRankResponse {
        title: title.to_owned(),
        from: day_text(from),
        to: day_text(to),
        sources: listed,
        points,
    })
}

fn clamp(rank: i64) -> i32 {
    rank.clamp(0, i64::from(i32::MAX)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_defaults_and_names_days() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
        assert_eq!(window(0, today).unwrap(), (NaiveDate::from_ymd_opt(2026, 10, 30).unwrap(), today));
        assert_eq!(window(1, today).unwrap(), (today, today));
        assert_eq!(window(365, today).unwrap().0, NaiveDate::from_ymd_opt(2025, 11, 29).unwrap());
        for bad in [-1, 366] {
            assert_eq!(window(bad, today).unwrap_err().field.as_deref(), Some("days"));
        }
    }

    #[test]
    fn platform_is_a_content_token() {
        assert_eq!(platform(" lifestyle ").unwrap(), "lifestyle");
        for bad in ["trend", "weibo", ""] {
            assert_eq!(platform(bad).unwrap_err().field.as_deref(), Some("platform"));
        }
    }
}
