//! What a watch list's run pushes (docs/watchlists.md "What is pushed"):
//! the entries of a [`Digest`] and its counts, as every channel sends them
//! (the webhook's JSON is these structs, camelCase). The run that finds them
//! is `mediaops-ops`' `watch::digest`.

use serde::Serialize;

/// One pushed item (JSON as the webhook sends it, camelCase).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DigestItem {
    /// The list (`weibo`, …) or store platform (`lifestyle`, `articles`).
    pub source: String,
    /// The item's title as its list shows it.
    pub title: String,
    /// Its link, when the list gives one.
    pub url: Option<String>,
    /// Rank at its latest capture before the run (1-based).
    pub rank: i64,
    /// Best rank over the radar's window.
    pub best_rank: i64,
    /// The list's own heat figure at that capture, when it gives one.
    pub hot_value: Option<i64>,
    /// RFC 3339 UTC of its first capture in the radar's window.
    pub first_seen_at: String,
    /// Its ranks on its list, capture by capture, oldest first.
    pub trajectory: Vec<i64>,
    /// The other lists where its story is hot, hottest first.
    pub also_on: Vec<String>,
    /// The story's trend-radar heat: the digest's order.
    pub score: i64,
    /// The line of the keyword group it matched.
    pub group_line: usize,
}

/// What one run found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    /// The pushed entries, hottest first.
    pub items: Vec<DigestItem>,
    /// Stories with a matching item in the window (pushed, deduplicated or
    /// left over by `@N` or the digest's size).
    pub matched: usize,
    /// Matching stories not pushed because they were pushed before.
    pub deduplicated: usize,
    /// The seen-set keys the delivered digest adds: every matching item of
    /// the pushed stories.
    #[serde(skip)]
    pub seen_keys: Vec<(String, String)>,
}
