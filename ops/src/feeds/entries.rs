//! What each feed shows (docs/watchlists.md "Feeds"):
//!
//! - **A hot list** (`hotlists/<source>`): the items of its newest capture
//!   at or before the service clock, by rank (a title listed twice once); an entry's `updated` is when
//!   its title first appeared on the list in the 24 hours before that
//!   capture, so a reader shows each item once while its rank moves.
//! - **A watch list** (`watchlists/<id>`): its digest as if it ran now over
//!   the last 24 hours with an empty seen-set ([`crate::watch::digest`]:
//!   its keyword groups, sources, `@N` caps and the radar's order), so the
//!   feed is a pull view of what the watch list matches, whatever its
//!   channels and schedule pushed.
//!
//! A feed with nothing in it is `updated` at the Unix epoch (a fixed value,
//! so its ETag stays put).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};

use super::atom::{FeedEntry, FeedMeta, entry_id};
use super::name::FeedName;
use crate::trend::Trends;
use crate::trend::entries::group;
use crate::watch::rules::{normalize_title, parse_groups};
use mediaops_connectors::hotlists::sources::Source;
use mediaops_proto::error::ServiceError;
use mediaops_store::clock::shanghai;
use mediaops_store::model::HotListQuery;
use mediaops_store::watch::StoredWatchlist;

/// How far back an item's first appearance is looked for, and the window
/// of a watch-list feed.
pub const WINDOW_HOURS: i64 = 24;

/// The hot list's feed at `now`.
///
/// # Errors
/// The store's failures.
pub async fn hotlist(
    trends: &Trends,
    source: Source,
    now: DateTime<Utc>,
) -> Result<(FeedMeta, Vec<FeedEntry>), ServiceError> {
    let name = FeedName::Hotlist(source);
    let newest = HotListQuery { sources: vec![source.name().to_owned()], from: None, to: Some(now), latest_only: true };
    let mut latest = trends.entries(Some(newest)).await?;
    latest.sort_by_key(|e| e.rank);
    let captured = latest.first().map_or(DateTime::UNIX_EPOCH, |e| e.captured_at);
    let window = HotListQuery {
        sources: vec![source.name().to_owned()],
        from: Some(captured - Duration::hours(WINDOW_HOURS)),
        to: Some(captured),
        latest_only: false,
    };
    let earlier = trends.entries(Some(window)).await?;
    let first_seen: HashMap<&str, DateTime<Utc>> = group(&earlier).iter().map(|l| (l.title, l.first_seen)).collect();
    let scope = format!("hotlists:{}", source.name());
    // One entry per title (its best rank): an entry id is the title's.
    let mut titles = HashSet::new();
    let entries = latest
        .iter()
        .filter(|e| !e.title.trim().is_empty() && titles.insert(normalize_title(&e.title)))
        .map(|e| {
            let title = e.title.trim();
            let since = first_seen.get(title).copied().unwrap_or(e.captured_at);
            let mut summary = format!("第 {} 名", e.rank);
            if let Some(hot) = e.hot_value {
                summary.push_str(&format!(" · 热度 {hot}"));
            }
            summary.push_str(&format!(" · 首次上榜 {}", local(since)));
            FeedEntry {
                id: entry_id(&scope, &normalize_title(title)),
                title: title.to_owned(),
                url: e.url.clone(),
                updated: since,
                summary,
                category: source.name().to_owned(),
            }
        })
        .collect();
    let meta = FeedMeta {
        id: format!("urn:mediaops:feed:hotlists:{}", source.name()),
        title: source.display_name().to_owned(),
        subtitle: format!("{}：最新一次采集的条目，按排名（mediaops）", source.display_name()),
        path: name.path(),
        updated: captured,
    };
    Ok((meta, entries))
}

/// The watch list's feed at `now`.
///
/// # Errors
/// A stored keyword group that no longer parses (400), the store's failures.
pub async fn watchlist(
    trends: &Trends,
    watchlist: &StoredWatchlist,
    now: DateTime<Utc>,
) -> Result<(FeedMeta, Vec<FeedEntry>), ServiceError> {
    let spec = &watchlist.spec;
    let groups = parse_groups(&spec.keywords)?;
    let from = now - Duration::hours(WINDOW_HOURS);
    let digest = crate::watch::digest::build(trends, &groups, &spec.sources, &HashSet::new(), from, now).await?;
    let scope = format!("watchlists:{}", watchlist.id);
    let mut updated = DateTime::UNIX_EPOCH;
    let entries = digest
        .items
        .into_iter()
        .map(|item| {
            let since = DateTime::parse_from_rfc3339(&item.first_seen_at).map_or(now, |t| t.with_timezone(&Utc));
            updated = updated.max(since);
            let mut summary = format!("{} 第 {} 名（最高第 {} 名）", item.source, item.rank, item.best_rank);
            if let Some(hot) = item.hot_value {
                summary.push_str(&format!(" · 热度 {hot}"));
            }
            if !item.also_on.is_empty() {
                summary.push_str(&format!(" · 也在 {}", item.also_on.join("、")));
            }
            summary.push_str(&format!(" · 热度分 {} · 首次出现 {}", item.score, local(since)));
            FeedEntry {
                id: entry_id(&scope, &format!("{}\n{}", item.source, normalize_title(&item.title))),
                title: item.title,
                url: item.url,
                updated: since,
                summary,
                category: item.source,
            }
        })
        .collect();
    let meta = FeedMeta {
        id: format!("urn:mediaops:feed:watchlists:{}", watchlist.id),
        title: spec.name.clone(),
        subtitle: format!("关键词监控：最近 {WINDOW_HOURS} 小时的命中，按热度（mediaops）"),
        path: FeedName::Watchlist(watchlist.id.clone()).path(),
        updated,
    };
    Ok((meta, entries))
}

/// `YYYY-MM-DD HH:MM` in Asia/Shanghai.
fn local(at: DateTime<Utc>) -> String {
    at.with_timezone(&shanghai()).format("%Y-%m-%d %H:%M").to_string()
}
