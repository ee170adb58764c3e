//! Matching and dedup (docs/watchlists.md "What is pushed"): the digest
//! of one run of a watch list ([`Digest`], sent by
//! [`mediaops_connectors::notify`]).
//!
//! 1. Items are read as `trend-radar` reads them ([`crate::trend::radar`]):
//!    every hot list's captures of the `RADAR_HOURS` before the run,
//!    folded per (list, title) ([`crate::trend::entries::group`]), plus the
//!    fastest-rising stored works of the store platforms the watch list
//!    names. They are merged into stories and scored by
//!    [`crate::trend::stories::merge`]: the digest's order is the radar's
//!    heat, computed once, there.
//! 2. A candidate is an item of one of the watch list's sources, seen in
//!    the run's window (captured after the previous run), whose title
//!    matches a keyword group ([`super::rules::KeywordGroup`]).
//! 3. One entry per story: its strongest candidate, with the story's other
//!    lists as `alsoOn`. A story any of whose candidates is in the seen-set
//!    (source + normalized title) is *deduplicated*, not pushed again.
//! 4. Entries hottest first; a group's `@N` caps its entries in one push;
//!    at most [`MAX_DIGEST_ITEMS`] in all. The pushed stories' candidates
//!    join the seen-set once the digest is delivered.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, SecondsFormat, Utc};

use super::rules::{KeywordGroup, LIST_SOURCES, WORK_SOURCES, normalize_title};
use crate::trend::Trends;
use crate::trend::entries::group;
use crate::trend::radar::{RADAR_WORKS, window_query};
use crate::trend::rising::rising_works;
use crate::trend::stories::{StoryItem, merge};
use mediaops_connectors::notify::{Digest, DigestItem};
use mediaops_proto::error::ServiceError;

/// Most entries in one digest.
pub const MAX_DIGEST_ITEMS: usize = 50;

/// The digest of a run at `at` over the window `(from, at]`.
///
/// # Errors
/// The store's failures.
pub async fn build(
    trends: &Trends,
    groups: &[KeywordGroup],
    sources: &[String],
    seen: &HashSet<(String, String)>,
    from: DateTime<Utc>,
    at: DateTime<Utc>,
) -> Result<Digest, ServiceError> {
    let entries = trends.entries(Some(window_query(at))).await?;
    // Per (list, title): its captures' (time, rank), oldest first.
    let mut captures: HashMap<(&str, &str), Vec<Capture>> = HashMap::new();
    for e in &entries {
        captures.entry((e.source.as_str(), e.title.trim())).or_default().push((e.captured_at, e.rank));
    }
    let listed = group(&entries);
    let terms = trends.terms.terms_of_async(listed.iter().map(|l| l.title)).await;
    let mut items: Vec<StoryItem> = Vec::with_capacity(listed.len());
    let mut details: Vec<Detail> = Vec::with_capacity(listed.len());
    for (l, terms) in listed.iter().zip(terms) {
        let seen_at = captures.get(&(l.source.name(), l.title)).map(Vec::as_slice).unwrap_or_default();
        details.push(Detail {
            url: l.url.map(str::to_owned),
            rank: seen_at.last().map_or(l.best_rank, |c| c.1),
            first_seen: l.first_seen,
            last_seen: seen_at.last().map_or(l.first_seen, |c| c.0),
            trajectory: seen_at.iter().map(|c| c.1).collect(),
        });
        items.push(StoryItem {
            origin: l.source.name(),
            title: l.title.to_owned(),
            rank: l.best_rank,
            captures: l.captures,
            hot: l.hot,
            terms,
        });
    }
    for token in WORK_SOURCES.iter().filter(|t| sources.iter().any(|s| s == *t)) {
        let rising = rising_works(trends.api.store.as_ref(), token, at, RADAR_WORKS).await?;
        let terms = trends.terms.terms_of_async(rising.iter().map(|r| r.record.work.title.as_str())).await;
        for (i, (r, terms)) in rising.into_iter().zip(terms).enumerate() {
            let rank = i as i64 + 1;
            details.push(Detail {
                url: r.record.work.url.clone(),
                rank,
                first_seen: r.record.work.published_at.unwrap_or(at),
                last_seen: at,
                trajectory: vec![rank],
            });
            items.push(StoryItem { origin: token, title: r.record.work.title, rank, captures: 1, hot: None, terms });
        }
    }
    let wanted = |origin: &str| {
        if sources.is_empty() { LIST_SOURCES.contains(&origin) } else { sources.iter().any(|s| s == origin) }
    };

    let mut digest = Digest::default();
    let mut per_group: HashMap<usize, usize> = HashMap::new();
    for story in merge(&items) {
        // The story's matching items of the watch list's sources, seen in
        // the window, strongest first (members are in that order).
        let candidates: Vec<(usize, usize)> = story
            .members
            .iter()
            .filter(|&&i| wanted(items[i].origin) && details[i].last_seen > from)
            .filter_map(|&i| groups.iter().position(|g| g.matches(&items[i].title)).map(|g| (i, g)))
            .collect();
        let Some(&(best, group_at)) = candidates.first() else { continue };
        digest.matched += 1;
        let keys: Vec<(String, String)> =
            candidates.iter().map(|&(i, _)| (items[i].origin.to_owned(), normalize_title(&items[i].title))).collect();
        if keys.iter().any(|k| seen.contains(k)) {
            digest.deduplicated += 1;
            continue;
        }
        let group = &groups[group_at];
        let count = per_group.entry(group_at).or_insert(0);
        if group.max_items.is_some_and(|max| *count >= max) || digest.items.len() >= MAX_DIGEST_ITEMS {
            continue;
        }
        *count += 1;
        let d = &details[best];
        digest.items.push(DigestItem {
            source: items[best].origin.to_owned(),
            title: items[best].title.clone(),
            url: d.url.clone(),
            rank: d.rank,
            best_rank: items[best].rank,
            hot_value: items[best].hot,
            first_seen_at: d.first_seen.to_rfc3339_opts(SecondsFormat::Secs, true),
            trajectory: d.trajectory.clone(),
            also_on: story.origins.iter().filter(|o| **o != items[best].origin).map(|o| (*o).to_owned()).collect(),
            score: story.heat,
            group_line: group.line,
        });
        digest.seen_keys.extend(keys);
    }
    Ok(digest)
}

/// One capture of an item: when, at which rank.
type Capture = (DateTime<Utc>, i64);

/// What the digest shows of an item beside its story fields.
struct Detail {
    url: Option<String>,
    rank: i64,
    first_seen: DateTime<Utc>,
    last_seen: DateTime<Utc>,
    trajectory: Vec<i64>,
}
