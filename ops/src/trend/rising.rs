//! The fastest-rising works of a platform without a public hot list
//! (`lifestyle`, `articles`): their hot topics in `hot-topics` and
//! `trend-radar` (spec 4.11; docs/trends.md "Hot topics").
//!
//! Candidates are the platform's works published in the [`RISING_DAYS`]
//! days before now, the [`CANDIDATES`] most liked (by their newest
//! snapshot). Each is rated by its **likes per day since publishing**:
//!
//! ```text
//! rise = likes × 24 / max(1, hours from published_at to the newest snapshot)
//! ```
//!
//! so a note with 5,000 likes three hours after posting outranks one with
//! 20,000 after six days. The store keeps one row per snapshot but lists
//! only the newest with a work, so the rise is measured from publishing, not
//! between two snapshots. Works without a known publish time or likes are
//! not rated. Ties: more likes, then newer.

use chrono::{DateTime, Duration, Utc};

use crate::data_api::store_error;
use mediaops_proto::error::ServiceError;
use mediaops_store::ContentStore;
use mediaops_store::model::{Total, WorkOrder, WorkQuery, WorkRecord};

/// Days before now a rising work may have been published in.
pub const RISING_DAYS: i64 = 7;

/// Most-liked recent works rated per platform (four store pages of 50).
pub const CANDIDATES: u32 = 200;

/// A rated work.
#[derive(Debug, Clone, PartialEq)]
pub struct RisingWork {
    /// The stored work with its author and newest snapshot.
    pub record: WorkRecord,
    /// Likes of the newest snapshot.
    pub likes: i64,
    /// Likes per day since publishing (the module's `rise`).
    pub per_day: f64,
}

/// The rise of one work (see the module docs); `None` without a publish
/// time, a snapshot or likes.
pub fn likes_per_day(record: &WorkRecord) -> Option<f64> {
    let published = record.work.published_at?;
    let latest = record.latest.as_ref()?;
    let likes = latest.likes?;
    let hours = (latest.captured_at - published).num_minutes() as f64 / 60.0;
    Some(likes as f64 * 24.0 / hours.max(1.0))
}

/// The `limit` fastest-rising works of `platform` as of `now`, fastest
/// first.
pub async fn rising_works(
    store: &dyn ContentStore,
    platform: &str,
    now: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<RisingWork>, ServiceError> {
    let page_size = mediaops_store::MAX_PAGE_SIZE;
    let mut rated = Vec::new();
    for page in 1..=CANDIDATES.div_ceil(page_size) {
        let query = WorkQuery {
            platform: platform.into(),
            published_from: Some(now - Duration::days(RISING_DAYS)),
            published_to: Some(now),
            order: WorkOrder::Likes,
            page,
            page_size,
            total: Total::Uncounted,
            ..WorkQuery::default()
        };
        let found = store.find_works(&query).await.map_err(store_error)?;
        let short = found.items.len() < page_size as usize;
        for record in found.items {
            if let (Some(per_day), Some(likes)) = (likes_per_day(&record), record.latest.as_ref().and_then(|s| s.likes))
            {
                rated.push(RisingWork { record, likes, per_day });
            }
        }
        if short {
            break;
        }
    }
    rated.sort_by(|a, b| {
        b.per_day
            .total_cmp(&a.per_day)
            .then(b.likes.cmp(&a.likes))
            .then(b.record.work.published_at.cmp(&a.record.work.published_at))
    });
    rated.truncate(limit);
    Ok(rated)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use mediaops_store::model::{Work, WorkSnapshot};
    use mediaops_store::sqlite::SqliteStore;

    pub fn at(rfc3339: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(rfc3339).unwrap().with_timezone(&Utc)
    }

    /// Stores a `platform` work `id` published at `published` with `likes`
    /// captured at `captured`.
    pub async fn add_work(
        store: &SqliteStore,
        platform: &str,
        id: &str,
        title: &str,
        published: &str,
        captured: &str,
        likes: i64,
    ) {
        let work = Work {
            platform: platform.into(),
            platform_id: id.into(),
            title: title.into(),
            description: Some(format!("{title} 的正文")),
            published_at: Some(at(published)),
            url: Some(format!("https://example.com/{platform}/{id}")),
            ..Work::default()
        };
        store.upsert_work(&work).await.unwrap();
        let snapshot = WorkSnapshot { captured_at: at(captured), likes: Some(likes), ..WorkSnapshot::default() };
        store.add_work_snapshot(platform, id, &snapshot).await.unwrap();
    }

    #[tokio::test]
    async fn recent_fast_works_outrank_older_bigger_ones() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
        let now = at("2024-06-22T04:00:00Z");
        add_work(&store, "lifestyle", "slow", "六天两万赞", "2024-06-16T04:00:00Z", "2024-06-22T04:00:00Z", 20_000)
            .await;
        add_work(&store, "lifestyle", "fast", "三小时五千赞", "2024-06-22T01:00:00Z", "2024-06-22T04:00:00Z", 5_000)
            .await;
        add_work(&store, "lifestyle", "old", "上个月的爆款", "2024-05-01T04:00:00Z", "2024-06-22T04:00:00Z", 900_000)
            .await;
        add_work(&store, "articles", "other", "别的平台", "2024-06-21T04:00:00Z", "2024-06-22T04:00:00Z", 1_000).await;

        let rising = rising_works(&store, "lifestyle", now, 10).await.unwrap();
        let ids: Vec<&str> = rising.iter().map(|r| r.record.work.platform_id.as_str()).collect();
        assert_eq!(ids, ["fast", "slow"], "published in the last 7 days only, fastest first");
        assert!((rising[0].per_day - 40_000.0).abs() < 1e-6, "5000 likes in 3 h = 40000 a day");
        assert!((rising[1].per_day - 20_000.0 / 6.0).abs() < 1e-6);
        assert_eq!(rising_works(&store, "lifestyle", now, 1).await.unwrap().len(), 1);
    }
}
