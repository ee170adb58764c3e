//! The canonical content model: one shape for every
//! platform token of spec part 1 (`lifestyle`, `shortvideo`, `articles`,
//! `videosite`, `intlshort`, `channels`, `clipapp`, …).
//!
//! Each account and work has a natural key, `(platform, platform_id)`:
//! `platform_id` is the platform's primary id (videosite: `mid` for
//! accounts, `bvId` for works); the other id forms the spec uses are kept
//! beside it so a lookup by any of them finds the row. Counters are
//! `Option<i64>`: `None` means "not known", never 0. Times are UTC; the
//! operations render them as the spec's `YYYY-MM-DD HH:mm:ss` in
//! Asia/Shanghai.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// The id forms of an account the spec uses; any of them finds the account.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountIds {
    pub account_id: Option<String>,
    pub sec_uid: Option<String>,
    pub uid: Option<String>,
    pub mid: Option<String>,
    pub red_id: Option<String>,
    pub kwai_id: Option<String>,
    pub unique_id: Option<String>,
    /// WeChat official-account English id.
    pub wechat_id: Option<String>,
}

/// An account (creator, uploader, official account).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// Platform token (spec part 1), e.g. `videosite`.
    pub platform: String,
    /// The platform's primary id; with `platform`, the natural key.
    pub platform_id: String,
    pub ids: AccountIds,
    pub nickname: String,
    pub signature: Option<String>,
    pub fans: Option<i64>,
    pub following: Option<i64>,
    /// Number of works published.
    pub works: Option<i64>,
    pub likes: Option<i64>,
    pub collects: Option<i64>,
    pub region: Option<String>,
    /// Category or track (赛道).
    pub category: Option<String>,
    /// Avatar (or cover) image URL.
    pub avatar: Option<String>,
}

/// An account's counters at one moment; one row per (account, captured_at).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountSnapshot {
    pub captured_at: DateTime<Utc>,
    pub fans: Option<i64>,
    pub likes: Option<i64>,
    pub works: Option<i64>,
    pub reads: Option<i64>,
}

/// The id forms of a work the spec uses; any of them finds the work.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkIds {
    pub work_id: Option<String>,
    pub note_id: Option<String>,
    pub video_id: Option<String>,
    pub bv_id: Option<String>,
    pub photo_id: Option<String>,
    pub work_uuid: Option<String>,
}

/// A work: note, video, article, clip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Work {
    /// Platform token (spec part 1).
    pub platform: String,
    /// The platform's primary id; with `platform`, the natural key.
    pub platform_id: String,
    pub ids: WorkIds,
    pub title: String,
    /// Description or caption.
    pub description: Option<String>,
    /// The author's `platform_id` (an [`Account`] of the same platform,
    /// which need not be stored yet).
    pub author_id: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub url: Option<String>,
    pub cover: Option<String>,
    pub video_url: Option<String>,
    /// `video`, `note`, `article`, … as the platform says.
    pub work_type: Option<String>,
    pub category: Option<String>,
    /// Tags or topics, in the platform's order.
    pub tags: Vec<String>,
    /// Seconds.
    pub duration_secs: Option<i64>,
}

/// A work's counters at one moment; one row per (work, captured_at).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkSnapshot {
    pub captured_at: DateTime<Utc>,
    pub likes: Option<i64>,
    pub collects: Option<i64>,
    pub comments: Option<i64>,
    pub shares: Option<i64>,
    /// Plays, reads or views, whichever the platform counts.
    pub views: Option<i64>,
    /// "在看" (articles).
    pub watch: Option<i64>,
    /// Platform-specific counters (videosite: `coin`, `danmaku`), a JSON object.
    pub extra: Option<serde_json::Value>,
}

/// A comment on a work.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comment {
    pub platform: String,
    pub platform_id: String,
    /// The work's `platform_id`.
    pub work_id: String,
    pub text: String,
    pub likes: Option<i64>,
    pub author_id: Option<String>,
    pub author_name: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    /// The parent comment's `platform_id` for replies.
    pub parent_id: Option<String>,
}

/// One entry of a hot list as captured at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HotListEntry {
    /// Which list, e.g. `microblog-hot`.
    pub source: String,
    pub captured_at: DateTime<Utc>,
    /// 1-based.
    pub rank: i64,
    pub title: String,
    pub hot_value: Option<i64>,
    pub url: Option<String>,
    /// Anything else the list carries, a JSON object.
    pub extra: Option<serde_json::Value>,
}

/// A stored account with its most recent snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRecord {
    pub account: Account,
    pub latest: Option<AccountSnapshot>,
}

/// A stored work with its most recent snapshot and what the store knows
/// of its author (the account `(platform, author_id)`, when stored).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkRecord {
    pub work: Work,
    pub latest: Option<WorkSnapshot>,
    pub author: Option<AuthorBrief>,
}

/// The author columns a work listing carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorBrief {
    pub nickname: String,
    pub fans: Option<i64>,
    pub avatar: Option<String>,
}

/// Rows per table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub accounts: u64,
    pub account_snapshots: u64,
    pub works: u64,
    pub work_snapshots: u64,
    pub comments: u64,
    pub hot_list_entries: u64,
}

/// One page of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage<T> {
    /// All matches, not just this page; a listing counted up to a cap
    /// ([`crate::TOTAL_CAP`]) that has more matches says the cap
    /// here and sets [`SearchPage::total_is_lower_bound`].
    pub total: u64,
    /// `total` is the cap and more rows match (docs/data-apis.md "Totals").
    pub total_is_lower_bound: bool,
    pub items: Vec<T>,
}

impl<T> SearchPage<T> {
    /// A page whose total is exact.
    pub fn exact(total: u64, items: Vec<T>) -> SearchPage<T> {
        SearchPage { total, total_is_lower_bound: false, items }
    }
}

/// One record to write; [`crate::ContentStore::write`] takes a batch
/// of them in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Account(Account),
    /// An account's counters; the account (`platform`, `platform_id`) must be
    /// stored (earlier in the batch is enough).
    AccountSnapshot {
        platform: String,
        platform_id: String,
        snapshot: AccountSnapshot,
    },
    Work(Work),
    /// A work's counters; the work must be stored (earlier in the batch is
    /// enough).
    WorkSnapshot {
        platform: String,
        platform_id: String,
        snapshot: WorkSnapshot,
    },
    Comment(Comment),
    HotListEntry(HotListEntry),
}

/// How a work listing is ordered. Every order ends with the store's row id,
/// so pages are stable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WorkOrder {
    /// With a text query: relevance (title terms weigh 3× body terms), then
    /// newest likes, then publish time. Without one: as [`WorkOrder::Newest`].
    #[default]
    Relevance,
    /// Publish time, newest first (unknown last).
    Newest,
    /// Publish time, oldest first (unknown last).
    Oldest,
    /// Newest snapshot's likes, most first (unknown last).
    Likes,
    /// Newest snapshot's views/plays/reads.
    Views,
    /// Newest snapshot's comments.
    Comments,
    /// Newest snapshot's collects (favorites).
    Collects,
}

/// What [`crate::ContentStore::find_works`] looks for. Every filter
/// that is set must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkQuery {
    /// Platform token.
    pub platform: String,
    /// Full-text query (segmented like the index); a work must hold every
    /// term. `Some` with no terms (e.g. only punctuation) matches nothing.
    pub text: Option<String>,
    /// The author's `platform_id`.
    pub author_id: Option<String>,
    /// Published at or after (UTC).
    pub published_from: Option<DateTime<Utc>>,
    /// Published at or before (UTC).
    pub published_to: Option<DateTime<Utc>>,
    /// Exact category.
    pub category: Option<String>,
    /// Only works the topic classifier put in this topic
    /// ([`crate::topic`]).
    pub topic: Option<crate::topic::Topic>,
    pub order: WorkOrder,
    /// 1-based.
    pub page: u32,
    /// 1..=[`crate::MAX_PAGE_SIZE`].
    pub page_size: u32,
    /// Count every match (the count's cost then grows with the matches);
    /// `false`, the default: count up to [`crate::TOTAL_CAP`]
    /// ([`SearchPage::total_is_lower_bound`]).
    pub exact_total: bool,
}

/// How an account listing is ordered (ties by row id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AccountOrder {
    /// With a text query: relevance (nickname terms weigh 3× signature and
    /// category), then fans. Without one: as [`AccountOrder::Fans`].
    #[default]
    Relevance,
    /// Fans, most first (unknown last).
    Fans,
}

/// What [`crate::ContentStore::find_accounts`] looks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountQuery {
    pub platform: String,
    /// Full-text query over nickname (weighted), signature and category.
    pub text: Option<String>,
    /// Exact nickname (case-sensitive, as the platform shows it).
    pub nickname: Option<String>,
    /// Exact category or track.
    pub category: Option<String>,
    pub order: AccountOrder,
    /// 1-based.
    pub page: u32,
    /// 1..=[`crate::MAX_PAGE_SIZE`].
    pub page_size: u32,
    /// As [`WorkQuery::exact_total`].
    pub exact_total: bool,
}

/// What [`crate::ContentStore::hot_list_entries`] returns: entries
/// captured within `[from, to]` (both optional), of `sources` (all when
/// empty), ordered by capture time then rank.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HotListQuery {
    pub sources: Vec<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Only each source's newest capture within the window.
    pub latest_only: bool,
}

/// The store side of a hot-list window (the window rules themselves are
/// [`crate::rules::window`], which does not know the store).
impl crate::rules::window::HotWindow {
    /// The store query of this window over `sources` (every list when
    /// empty); `None` for `HotWindow::Nothing`.
    pub fn query(&self, sources: Vec<String>) -> Option<HotListQuery> {
        match *self {
            Self::Nothing => None,
            Self::Captures { from, to, latest_only } => Some(HotListQuery { sources, from, to: Some(to), latest_only }),
        }
    }
}

/// What an author's stored works add up to (newest snapshot of each work;
/// unknown counters count as 0, `works` counts every stored work).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkTotals {
    pub works: i64,
    pub views: i64,
    pub likes: i64,
    pub comments: i64,
    pub collects: i64,
    pub shares: i64,
}

/// Which snapshots a ranking reads ([`crate::ContentStore::work_series`]
/// and [`crate::ContentStore::account_series`]): one platform's
/// entities with snapshots captured in `[captured_from, captured_to]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeriesQuery {
    /// Platform token.
    pub platform: String,
    /// Exact category of the work or account (`None` = every category).
    pub category: Option<String>,
    /// Works only: full-text query (every term must match, like search);
    /// `Some` with no terms matches nothing. At most
    /// [`crate::KEYWORD_MATCH_CAP`] matches are read: the most
    /// liked ones (newest snapshot) when more match.
    pub text: Option<String>,
    /// Works only: the works matching `text`, matched once for a request
    /// ([`BoardQuery::matched`]); `None` = match `text` in the statement.
    pub matched: Option<KeywordMatches>,
    /// Works only: published at or after (UTC).
    pub published_from: Option<DateTime<Utc>>,
    /// Works only: the author's `platform_id`.
    pub author_id: Option<String>,
    /// Accounts only: one account's `platform_id`.
    pub account_id: Option<String>,
    /// First capture time read (UTC, included).
    pub captured_from: DateTime<Utc>,
    /// Last capture time read (UTC, included).
    pub captured_to: DateTime<Utc>,
}

/// A work with its snapshots in a window, oldest first, and its author.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkSeries {
    pub work: Work,
    pub author: Option<AuthorBrief>,
    pub snapshots: Vec<WorkSnapshot>,
}

/// An account with its snapshots in a window, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountSeries {
    pub account: Account,
    pub snapshots: Vec<AccountSnapshot>,
}

/// The counter a board ranks by ([`BoardQuery`]): works keep likes and
/// views (reads of articles), accounts followers and likes
/// (store/days.rs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Counter {
    #[default]
    Likes,
    Views,
    Fans,
    /// Works only: likes + collects + comments + shares of a snapshot,
    /// unknown parts counting 0, unknown when all four are (docs/rankings.md
    /// "Formulas", 单日互动). Not kept by the per-day aggregates: a board of
    /// it reads the snapshots of its candidates (a keyword's capped
    /// matches), two primary-key probes per work.
    Interactions,
}

impl Counter {
    /// The snapshot column (`interactions` is a sum of four columns, not
    /// one: [`Counter::Interactions`]).
    pub fn column(self) -> &'static str {
        match self {
            Counter::Likes => "likes",
            Counter::Views => "views",
            Counter::Fans => "fans",
            Counter::Interactions => "interactions",
        }
    }
}

/// What a board ranks by (docs/rankings.md "Levels and gains").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Measure {
    /// The counter in the last snapshot inside the window.
    Level,
    /// The level minus the baseline (the last snapshot of the day before
    /// the window, else the first inside it).
    #[default]
    Gain,
}

/// A board computed in the database from the per-day aggregates
/// ([`crate::ContentStore::work_board`], `account_board`,
/// `author_gains`): one platform's works or accounts over the Shanghai days
/// `first..=last`, by `measure` of `counter`, entities whose value is
/// unknown left out, most first, ties by title (works) or nickname
/// (accounts) in code-point order, then by row id; without a `limit`,
/// every entry in row-id order (for scores ranked by the caller).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoardQuery {
    /// Platform token.
    pub platform: String,
    /// Exact category of the work or account (`None` = every category).
    pub category: Option<String>,
    /// First Shanghai day of the window.
    pub first: NaiveDate,
    /// Last Shanghai day of the window (included).
    pub last: NaiveDate,
    pub counter: Counter,
    pub measure: Measure,
    /// Only values of at least this.
    pub at_least: Option<i64>,
    /// Works only: only works whose stored author has fewer followers
    /// (an author without a follower count is left out).
    pub author_fans_below: Option<i64>,
    /// Works only: published at or after (UTC).
    pub published_from: Option<DateTime<Utc>>,
    /// Works only: published at or before (UTC).
    pub published_to: Option<DateTime<Utc>>,
    /// Works only: one of these work types (empty = any).
    pub work_types: Vec<String>,
    /// Works only: full-text query (every term must match, like search);
    /// `Some` with no terms matches nothing. At most
    /// [`crate::KEYWORD_MATCH_CAP`] matches are ranked: the most
    /// liked ones when more match.
    pub text: Option<String>,
    /// Works only: the works matching `text`, as
    /// [`crate::ContentStore::keyword_matches`] returned them (row
    /// ids). A request that ranks several boards over one keyword matches
    /// it once and passes the ids to each board, instead of each board
    /// matching it again; `None` = match `text` in the board's statement.
    pub matched: Option<KeywordMatches>,
    /// At most this many entries (`None` = all).
    pub limit: Option<u32>,
}

/// The row ids of the works matching a keyword (at most
/// [`crate::KEYWORD_MATCH_CAP`], the most liked), shared by the
/// boards and series of one request ([`BoardQuery::matched`]).
pub type KeywordMatches = std::sync::Arc<[i64]>;

/// A work on a board, with its stored author and the value it ranks by.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardWork {
    pub work: Work,
    pub author: Option<AuthorBrief>,
    pub value: i64,
}

/// An account on a board: the value it ranks by and the likes it gained
/// over the window (`None` when unknown), for scores that combine both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardAccount {
    pub account: Account,
    pub value: i64,
    pub likes_gained: Option<i64>,
}

/// Per author (`author_id`, empty for works without one): the views and
/// likes its works gained over a window, each work's gain counted when
/// above 0 ([`crate::ContentStore::author_gains`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorGains {
    pub author_id: String,
    /// The stored account's nickname, else `author_id`.
    pub name: String,
    pub views: i64,
    pub likes: i64,
}
