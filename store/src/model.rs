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
    /// The spec's `accountId`: the display id or handle (lifestyle,
    /// shortvideo, articles).
    pub account_id: Option<String>,
    /// The spec's `secUid`: shortvideo's encrypted user id (spec 4.4
    /// `query-account`).
    pub sec_uid: Option<String>,
    /// The spec's `uid`: a user id as the platform's search or lookup
    /// answers it (shortvideo's numeric UID; articles, videosite).
    pub uid: Option<String>,
    /// The spec's `mid`: videosite's uploader id, also its `platform_id`.
    pub mid: Option<String>,
    /// The spec's `redId`: lifestyle's public account number (spec 4.3).
    pub red_id: Option<String>,
    /// The spec's `kwaiId`: clipapp's account id (spec 4.10), which may be
    /// empty upstream.
    pub kwai_id: Option<String>,
    /// The spec's `uniqueId`: intlshort's handle (spec 4.8).
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
    /// The other id forms the account is found by.
    pub ids: AccountIds,
    /// The name the platform shows (`accountName`, `nickname`); an empty one
    /// on upsert keeps the stored name.
    pub nickname: String,
    /// The profile's self-description (bio, intro).
    pub signature: Option<String>,
    /// Followers.
    pub fans: Option<i64>,
    /// Accounts it follows.
    pub following: Option<i64>,
    /// Number of works published.
    pub works: Option<i64>,
    /// Likes received over all its works, as the platform counts them.
    pub likes: Option<i64>,
    /// Collects (favorites) received over all its works.
    pub collects: Option<i64>,
    /// Region the platform shows (e.g. the IP location 北京).
    pub region: Option<String>,
    /// Category or track (赛道).
    pub category: Option<String>,
    /// Avatar (or cover) image URL.
    pub avatar: Option<String>,
}

/// An account's counters at one moment; one row per (account, captured_at).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountSnapshot {
    /// When the counters were read (UTC); with the account, the key.
    pub captured_at: DateTime<Utc>,
    /// Followers at that moment.
    pub fans: Option<i64>,
    /// Likes received over all its works at that moment.
    pub likes: Option<i64>,
    /// Works published by then.
    pub works: Option<i64>,
    /// Reads over all its works (articles) at that moment.
    pub reads: Option<i64>,
}

/// The id forms of a work the spec uses; any of them finds the work.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkIds {
    /// The spec's `workId`: the platform's generic work id (shortvideo's
    /// numeric id; videosite: the `aid`).
    pub work_id: Option<String>,
    /// The spec's `noteId`: lifestyle's note id (spec 4.3).
    pub note_id: Option<String>,
    /// The spec's `videoId`: shortvideo's numeric work id or channels'
    /// encrypted one (spec 4.4, 4.9).
    pub video_id: Option<String>,
    /// The spec's `bvId`: videosite's `BV…` id, also its `platform_id`
    /// (spec 4.7).
    pub bv_id: Option<String>,
    /// The spec's `photoId`: clipapp's encrypted work id (spec 4.10).
    pub photo_id: Option<String>,
    /// The spec's `workUuid`: an article's id (spec 4.5).
    pub work_uuid: Option<String>,
}

/// A work: note, video, article, clip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Work {
    /// Platform token (spec part 1).
    pub platform: String,
    /// The platform's primary id; with `platform`, the natural key.
    pub platform_id: String,
    /// The other id forms the work is found by.
    pub ids: WorkIds,
    /// The title; an empty one on upsert keeps the stored title.
    pub title: String,
    /// Description or caption.
    pub description: Option<String>,
    /// The author's `platform_id` (an [`Account`] of the same platform,
    /// which need not be stored yet).
    pub author_id: Option<String>,
    /// When it was published (UTC; shown as `YYYY-MM-DD HH:mm:ss`
    /// Asia/Shanghai).
    pub published_at: Option<DateTime<Utc>>,
    /// Its page on the platform.
    pub url: Option<String>,
    /// Cover image URL.
    pub cover: Option<String>,
    /// URL of the video file or player, for video works.
    pub video_url: Option<String>,
    /// `video`, `note`, `article`, … as the platform says.
    pub work_type: Option<String>,
    /// Category as the platform files it (videosite `tname`; the spec 4.2
    /// lists for the boards).
    pub category: Option<String>,
    /// Tags or topics, in the platform's order.
    pub tags: Vec<String>,
    /// Seconds.
    pub duration_secs: Option<i64>,
}

/// A work's counters at one moment; one row per (work, captured_at).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkSnapshot {
    /// When the counters were read (UTC); with the work, the key.
    pub captured_at: DateTime<Utc>,
    /// Likes at that moment.
    pub likes: Option<i64>,
    /// Collects (favorites) at that moment.
    pub collects: Option<i64>,
    /// Comments at that moment.
    pub comments: Option<i64>,
    /// Shares (forwards) at that moment.
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
    /// Platform token (spec part 1) of the work.
    pub platform: String,
    /// The platform's id of the comment; with `platform`, the natural key.
    pub platform_id: String,
    /// The work's `platform_id`.
    pub work_id: String,
    /// The comment's text.
    pub text: String,
    /// Likes of the comment.
    pub likes: Option<i64>,
    /// The commenter's `platform_id` (an account that need not be stored).
    pub author_id: Option<String>,
    /// The commenter's name as shown with the comment.
    pub author_name: Option<String>,
    /// When it was posted (UTC).
    pub published_at: Option<DateTime<Utc>>,
    /// The parent comment's `platform_id` for replies.
    pub parent_id: Option<String>,
}

/// One entry of a hot list as captured at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HotListEntry {
    /// Which hot list, by the source's stored name (docs/hotlists.md):
    /// `weibo`, `douyin`, `bilibili`, `kuaishou`, `zhihu`, `toutiao` or
    /// `baidu`; it never changes (the trend operations and imports rely on it).
    pub source: String,
    /// When the list was read (UTC); with `source` and `rank`, the key.
    pub captured_at: DateTime<Utc>,
    /// 1-based.
    pub rank: i64,
    /// The entry's text (a search word, a topic, a video's title).
    pub title: String,
    /// The heat the list shows for it; `None` when it shows none.
    pub hot_value: Option<i64>,
    /// The entry's page.
    pub url: Option<String>,
    /// Anything else the list carries, a JSON object.
    pub extra: Option<serde_json::Value>,
}

/// A stored account with its most recent snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRecord {
    /// The stored account.
    pub account: Account,
    /// Its newest snapshot; `None` when it has none.
    pub latest: Option<AccountSnapshot>,
}

/// A stored work with its most recent snapshot and what the store knows
/// of its author (the account `(platform, author_id)`, when stored).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkRecord {
    /// The stored work.
    pub work: Work,
    /// Its newest snapshot; `None` when it has none.
    pub latest: Option<WorkSnapshot>,
    /// Its author's columns; `None` when the author is not stored.
    pub author: Option<AuthorBrief>,
}

/// The author columns a work listing carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorBrief {
    /// The author account's [`Account::nickname`].
    pub nickname: String,
    /// Its [`Account::fans`] (the account row's, not a snapshot's).
    pub fans: Option<i64>,
    /// Its [`Account::avatar`].
    pub avatar: Option<String>,
}

/// Rows per table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Rows of `accounts`.
    pub accounts: u64,
    /// Rows of `account_snapshots`.
    pub account_snapshots: u64,
    /// Rows of `works`.
    pub works: u64,
    /// Rows of `work_snapshots`.
    pub work_snapshots: u64,
    /// Rows of `comments`.
    pub comments: u64,
    /// Rows of `hot_list_entries`.
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
    /// This page's items, in the query's order (at most its page size).
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
    /// An account upsert.
    Account(Account),
    /// An account's counters; the account (`platform`, `platform_id`) must be
    /// stored (earlier in the batch is enough).
    AccountSnapshot {
        /// The account's platform token.
        platform: String,
        /// The account's `platform_id` (not another id form).
        platform_id: String,
        /// The counters.
        snapshot: AccountSnapshot,
    },
    /// A work upsert.
    Work(Work),
    /// A work's counters; the work must be stored (earlier in the batch is
    /// enough).
    WorkSnapshot {
        /// The work's platform token.
        platform: String,
        /// The work's `platform_id` (not another id form).
        platform_id: String,
        /// The counters.
        snapshot: WorkSnapshot,
    },
    /// A comment upsert.
    Comment(Comment),
    /// A hot-list entry, replacing the one at `(source, captured_at, rank)`.
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
    /// The order of the results.
    pub order: WorkOrder,
    /// 1-based.
    pub page: u32,
    /// 1..=[`crate::MAX_PAGE_SIZE`].
    pub page_size: u32,
    /// How the matches are counted for [`SearchPage::total`].
    pub total: Total,
}

/// How a listing counts its matches for [`SearchPage::total`]
/// (docs/data-apis.md "Search at scale").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Total {
    /// Up to [`crate::TOTAL_CAP`]: past it the total is the cap, flagged
    /// ([`SearchPage::total_is_lower_bound`]).
    #[default]
    Capped,
    /// Every match (the count's cost then grows with the matches).
    Exact,
    /// Not counted, for an answer that shows no total: only the page is
    /// read, the same page as with [`Total::Capped`] (a relevance order
    /// ranks the newest [`crate::TOTAL_CAP`] matches, all of them when
    /// fewer match). [`SearchPage::total`] is then 0, flagged as a lower
    /// bound.
    Uncounted,
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
    /// Platform token.
    pub platform: String,
    /// Full-text query over nickname (weighted), signature and category.
    pub text: Option<String>,
    /// Exact nickname (case-sensitive, as the platform shows it).
    pub nickname: Option<String>,
    /// Exact category or track.
    pub category: Option<String>,
    /// The order of the results.
    pub order: AccountOrder,
    /// 1-based.
    pub page: u32,
    /// 1..=[`crate::MAX_PAGE_SIZE`].
    pub page_size: u32,
    /// As [`WorkQuery::total`].
    pub total: Total,
}

/// What [`crate::ContentStore::hot_list_entries`] returns: entries
/// captured within `[from, to]` (both optional), of `sources` (all when
/// empty), ordered by capture time then rank.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HotListQuery {
    /// The lists ([`HotListEntry::source`]); empty = every list.
    pub sources: Vec<String>,
    /// Earliest capture time (UTC, included); `None` = no lower bound.
    pub from: Option<DateTime<Utc>>,
    /// Latest capture time (UTC, included); `None` = no upper bound.
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
    /// Stored works of the author.
    pub works: i64,
    /// Sum of their newest views (plays, reads).
    pub views: i64,
    /// Sum of their newest likes.
    pub likes: i64,
    /// Sum of their newest comments.
    pub comments: i64,
    /// Sum of their newest collects.
    pub collects: i64,
    /// Sum of their newest shares.
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
    /// The stored work.
    pub work: Work,
    /// Its author's columns; `None` when the author is not stored.
    pub author: Option<AuthorBrief>,
    /// Its snapshots captured in the window, oldest first (at least one).
    pub snapshots: Vec<WorkSnapshot>,
}

/// An account with its snapshots in a window, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountSeries {
    /// The stored account.
    pub account: Account,
    /// Its snapshots captured in the window, oldest first (at least one).
    pub snapshots: Vec<AccountSnapshot>,
}

/// The counter a board ranks by ([`BoardQuery`]): works keep likes and
/// views (reads of articles), accounts followers and likes
/// (store/days.rs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Counter {
    /// Likes (works and accounts).
    #[default]
    Likes,
    /// Works only: views (plays, reads).
    Views,
    /// Accounts only: followers.
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
    /// The counter ranked by.
    pub counter: Counter,
    /// Its level or its gain over the window.
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
    /// Works only, with `text`: the row id of a built board of keyword
    /// values ([`crate::rankings::board_tables::BoardTables::put_values`])
    /// holding the works' values of this query's counter, measure, window
    /// and platform (every work's, or only those passing the filters it was
    /// built with): each match's value is read from it, one key probe,
    /// instead of computed from the per-day aggregates or the snapshots, and
    /// a match it does not hold is left out (docs/rankings.md "Keyword
    /// values"). `None` = computed.
    pub stored_values: Option<i64>,
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
    /// The stored work.
    pub work: Work,
    /// Its author's columns; `None` when the author is not stored.
    pub author: Option<AuthorBrief>,
    /// The level or gain of the board's counter, as ranked.
    pub value: i64,
}

/// An account on a board: the value it ranks by and the likes it gained
/// over the window (`None` when unknown), for scores that combine both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardAccount {
    /// The stored account.
    pub account: Account,
    /// The level or gain of the board's counter, as ranked.
    pub value: i64,
    /// Likes gained over the window (last snapshot minus the baseline).
    pub likes_gained: Option<i64>,
}

/// Per author (`author_id`, empty for works without one): the views and
/// likes its works gained over a window, each work's gain counted when
/// above 0 ([`crate::ContentStore::author_gains`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorGains {
    /// The author's `platform_id`; empty for works without an author.
    pub author_id: String,
    /// The stored account's nickname, else `author_id`.
    pub name: String,
    /// Views (plays, reads) its works gained, summed.
    pub views: i64,
    /// Likes its works gained, summed.
    pub likes: i64,
}
