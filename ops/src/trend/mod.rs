//! Trends from the hot lists and the stored works (spec 4.1, 4.11,
//! 4.14; docs/trends.md): the `trend` data operations (`hot-topics`,
//! `hot-keywords`, `shortvideo-hot-trend`, `trending-hub-keyword`) and the
//! skills `trend-radar` and `cn-last30days`, all answered from the content
//! store through the operation's source chain ([`mediaops_platform::source`]).
//!
//! Shared pieces: the window rules of spec 4.1 ([`mediaops_store::rules::window`]), the hot-list
//! numbers ([`numbering`]), title words and keyword scoring ([`keywords`]),
//! grouping of captured entries ([`entries`]), the fastest-rising works of
//! platforms without a public list ([`rising`]), story merging across lists
//! ([`stories`]) and the lexicon sentiment ([`sentiment`]).

pub mod entries;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod hot_keywords;
pub mod hot_topics;
pub mod hub;
pub mod keywords;
pub mod last30days;
pub mod numbering;
pub mod radar;
pub mod rising;
pub mod sentiment;
pub mod stories;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::data_api::{DataApi, store_error};
use keywords::{Corpus, TermCache};
use mediaops_connectors::hotlists::Source;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_store::clock::Clock;
use mediaops_store::model::{HotListEntry, HotListQuery};

/// Titles the shared [`TermCache`] keeps before it starts over (about 20 MB
/// at most; the June 2024 archive has about 15,000 distinct titles).
pub const TERM_CACHE_TITLES: usize = 200_000;

/// How long the background corpus of the keyword scoring is reused before
/// it is read again (it also changes when the covered span moves to a new
/// day). Collectors add a batch every few minutes; a corpus this old scores
/// as well.
pub const BACKGROUND_TTL: Duration = Duration::from_secs(600);

/// A platform of `hot-topics`, `trend-radar` and `cn-last30days` (spec 4.11,
/// 4.14: `shortvideo`, `lifestyle`, `articles`) and where its hot topics
/// come from: its public hot list, or, with none, its fastest-rising stored
/// works ([`rising`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicPlatform {
    /// The spec's platform token (also the token of its stored works).
    pub token: &'static str,
    /// Its public hot list (shortvideo: the Douyin hot search).
    pub list: Option<Source>,
}

/// The three platforms, in the spec's default order.
pub const TOPIC_PLATFORMS: [TopicPlatform; 3] = [
    TopicPlatform { token: "shortvideo", list: Some(Source::Douyin) },
    TopicPlatform { token: "lifestyle", list: None },
    TopicPlatform { token: "articles", list: None },
];

/// The distinct platforms of a `platforms` field in the order given; all
/// three when empty (spec: "default all three"). An unknown token is a 400
/// naming `platforms[i]` (the pipeline's pricing refuses it first).
pub fn topic_platforms(values: &[String], field: &str) -> Result<Vec<TopicPlatform>, ServiceError> {
    if values.is_empty() {
        return Ok(TOPIC_PLATFORMS.to_vec());
    }
    let mut out: Vec<TopicPlatform> = Vec::new();
    for (i, value) in values.iter().enumerate() {
        let value = value.trim();
        let platform = TOPIC_PLATFORMS.iter().find(|p| p.token == value).ok_or_else(|| {
            ServiceError::invalid_field(
                format!("{field}[{i}]"),
                format!("{field}[{i}] is {}; allowed: shortvideo, lifestyle, articles", excerpt(value)),
            )
        })?;
        if !out.contains(platform) {
            out.push(*platform);
        }
    }
    Ok(out)
}

/// What the trend operations share: the data operations' store and clock,
/// the cut titles and the background corpus.
pub struct Trends {
    /// The content store and the service clock.
    pub api: Arc<DataApi>,
    /// Segmented titles, kept for the next window (most recent
    /// `TERM_CACHE_TITLES`).
    pub terms: TermCache,
    background: Mutex<Option<Background>>,
}

/// A built background corpus and what it was built for.
struct Background {
    from: DateTime<Utc>,
    built: Instant,
    corpus: Arc<Corpus>,
}

impl Trends {
    /// The trend operations over `api`, with an empty term cache and no
    /// background corpus yet (built on first use).
    pub fn new(api: Arc<DataApi>) -> Arc<Trends> {
        Arc::new(Trends { api, terms: TermCache::new(TERM_CACHE_TITLES), background: Mutex::new(None) })
    }

    /// The as-of clock (`MEDIAOPS_NOW`).
    pub fn clock(&self) -> &Clock {
        &self.api.clock
    }

    /// The hot-list entries of `query` (none for `None`: a window with
    /// nothing to read).
    pub async fn entries(&self, query: Option<HotListQuery>) -> Result<Vec<HotListEntry>, ServiceError> {
        match query {
            Some(query) => self.api.store.hot_list_entries(&query).await.map_err(store_error),
            None => Ok(Vec::new()),
        }
    }

    /// The background corpus of the keyword scoring ([`keywords`]): every
    /// distinct (list, title) captured in the covered span
    /// ([`mediaops_store::rules::window::coverage_start`] .. now), rebuilt after
    /// [`BACKGROUND_TTL`] or when the span moves.
    pub async fn background(&self) -> Result<Arc<Corpus>, ServiceError> {
        let from = mediaops_store::rules::window::coverage_start(self.clock());
        {
            let cached = self.background.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(b) = cached.as_ref()
                && b.from == from
                && b.built.elapsed() < BACKGROUND_TTL
            {
                return Ok(b.corpus.clone());
            }
        }
        let query =
            HotListQuery { sources: Vec::new(), from: Some(from), to: Some(self.clock().now()), latest_only: false };
        let entries = self.entries(Some(query)).await?;
        let docs = entries::documents(&entries);
        let terms = self.terms.terms_of_async(docs.iter().map(|(_, title)| *title)).await;
        let corpus = Arc::new(Corpus::of(terms.iter().map(|t| t.as_ref())));
        *self.background.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Background { from, built: Instant::now(), corpus: corpus.clone() });
        Ok(corpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms_default_to_all_three_and_are_distinct() {
        let tokens = |v: &[&str]| {
            let values: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            topic_platforms(&values, "platforms").map(|p| p.iter().map(|p| p.token).collect::<Vec<_>>())
        };
        assert_eq!(tokens(&[]).unwrap(), ["shortvideo", "lifestyle", "articles"]);
        assert_eq!(tokens(&["articles", "articles", "shortvideo"]).unwrap(), ["articles", "shortvideo"]);
        assert_eq!(tokens(&["articles", "weibo"]).unwrap_err().field.as_deref(), Some("platforms[1]"));
    }
}
