//! SQL text for the store's listings (works, accounts, comments, hot-list
//! entries), built once for both backends: filters become `$n`
//! placeholders with their [`Param`]s, and the few places where the
//! backends differ (full-text match and rank, the newest account snapshot)
//! come from the [`Dialect`]. Each backend binds the params and maps rows.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{Database, Encode, Type};

use super::model::{
    AccountOrder, AccountQuery, BoardQuery, HotListQuery, SearchPage, SeriesQuery, Total, WorkOrder, WorkQuery,
};
use super::{StoreResult, paging, segment, sql};
use crate::rules::platforms::PLATFORM_ORDER;
use crate::text::exact_char;

/// A query of backend `DB` with its arguments.
pub(crate) type DbQuery<'q, DB> = sqlx::query::Query<'q, DB, <DB as Database>::Arguments<'q>>;

/// Which backend a statement is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// One `ORDER BY` key: an expression and its direction (`""`, `" DESC"`,
/// `" DESC NULLS LAST"`, …).
type Key = (String, &'static str);

/// The join that gives a work (alias `w`) its newest snapshot (alias `s`).
const WORK_SNAPSHOT_JOIN: &str =
    " LEFT JOIN work_snapshots s ON s.work = w.id AND s.captured_at = w.latest_captured_at";

/// What [`Dialect::capped_matches`] filters works by.
pub(super) struct MatchFilter<'a> {
    pub(super) platform: &'a str,
    /// Full-text query, segmented like the index.
    pub(super) text: &'a str,
    pub(super) category: Option<&'a str>,
    pub(super) published_from: Option<DateTime<Utc>>,
    pub(super) published_to: Option<DateTime<Utc>>,
    /// The matches already found ([`crate::model::BoardQuery::matched`]):
    /// the statement then reads these ids instead of matching `text`.
    pub(super) matched: Option<&'a [i64]>,
    /// SQLite: walk the platform's works most liked first and keep the
    /// matches ([`Dialect::keyword_matches_by_likes`]) instead of looking up
    /// and sorting every match.
    pub(super) by_likes: bool,
}

/// What [`Dialect::text_match`] gives its caller.
struct TextMatch {
    /// The FROM clause of the match.
    from: String,
    /// The relevance key.
    rank: Key,
    /// SQLite: `<table>_fts WHERE <table>_fts MATCH $n`, the full-text
    /// index alone, when its matches are exactly the rows of the table with
    /// the text and the platform (the query names the platform's term,
    /// [`segment::platform_term`]), so that a count with no other filter
    /// reads the index without a row lookup per match. `None` on
    /// PostgreSQL.
    index_only: Option<String>,
    /// SQLite's works: the FROM clause reading each match's row through
    /// `works_score_keys` (migration 0026), the index of the columns a
    /// relevance search reads (`platform`, `fts_tokens`, `latest_likes`,
    /// `published_at`), for a search that reads no other column of its
    /// matches. SQLite's planner would look each match's whole row up by
    /// its rowid instead. `None` elsewhere, and in the replaced shape.
    from_score_keys: Option<String>,
}

/// How [`Dialect::two_step`] caps a listing (docs/data-apis.md "Search at
/// scale").
struct Cap {
    /// How the caller counts the matches.
    total: Total,
    /// For a relevance order: the expression that orders the rows newest
    /// stored first (the window past the cap).
    window: Option<String>,
    /// [`TextMatch::index_only`] when the listing has no filter but the
    /// text and the platform: the count then reads the full-text index
    /// alone.
    index_only: Option<String>,
}

/// A value bound to a placeholder.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Text(String),
    Int(i64),
    Time(DateTime<Utc>),
    Date(NaiveDate),
}

/// A counting statement and a page statement sharing one param list (the
/// page statement binds two more at the end: limit, offset).
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// Counts the matches, at most `cap + 1` of them when capped.
    pub count: String,
    pub page: String,
    /// The page statement when the count passed the cap, for an order that
    /// is scored per match (relevance): it ranks only the `cap` most
    /// recently stored matches (docs/data-apis.md "Search at scale").
    pub page_past_cap: Option<String>,
    /// For a capped relevance listing, the count and the page in one
    /// statement that reads the newest `cap + 1` matches once (instead of
    /// the count reading them and the page reading them again): the
    /// count is column `listing_total` of every row, and a row whose
    /// `listing_page` is `NULL` carries no item (an empty page still
    /// answers one row). The same count and page as [`Listing::count`]
    /// then [`Listing::page_for`]: the matches are all ranked when they
    /// are `cap` or fewer, else the `cap` newest (docs/data-apis.md
    /// "Search at scale"). On SQLite, when the listing has no filter but
    /// the text and the platform ([`TextMatch::index_only`]), the count
    /// reads the full-text index alone and the page the newest `cap`
    /// matches, without the materialized window. Run with the
    /// index-ordered shapes ([`super::plans`]).
    pub counted_page: Option<String>,
    /// The setting a statement that reads the window of newest matches
    /// ([`Listing::counted_page`], [`Listing::page_past_cap`]) is planned
    /// under, in a transaction of its own
    /// ([`Dialect::newest_walk_setting`]); `None`: the server's.
    pub window_setting: Option<&'static str>,
    pub params: Vec<Param>,
    /// The count's cap ([`crate::TOTAL_CAP`]), `None` = exact.
    pub cap: Option<u64>,
    /// The caller shows no total ([`Total::Uncounted`]): no count is run,
    /// only [`Listing::uncounted_page`].
    pub uncounted: bool,
}

impl Listing {
    /// The page statement of an [`Listing::uncounted`] listing: the page
    /// past the cap when there is one (it ranks the newest `cap` matches,
    /// which are every match when there are no more), else the page.
    pub fn uncounted_page(&self) -> &str {
        self.page_past_cap.as_deref().unwrap_or(&self.page)
    }

    /// The page statement to run after [`Listing::count`] gave `counted`.
    pub fn page_for(&self, counted: i64) -> &str {
        match (&self.page_past_cap, self.cap) {
            (Some(past), Some(cap)) if u64::try_from(counted).unwrap_or(0) > cap => past,
            _ => &self.page,
        }
    }

    /// The page of `items` with the total `counted` by [`Listing::count`]:
    /// past the cap, the cap flagged as a lower bound.
    pub fn page_of<T>(&self, counted: i64, items: Vec<T>) -> SearchPage<T> {
        let counted = u64::try_from(counted).unwrap_or(0);
        match self.cap {
            Some(cap) if counted > cap => SearchPage { total: cap, total_is_lower_bound: true, items },
            _ => SearchPage::exact(counted, items),
        }
    }
}

/// `SELECT count(*)` of the rows of `from_where` (`FROM … WHERE …`),
/// reading at most `cap + 1` of them when capped: the count stops there
/// instead of visiting every match.
fn count_statement(from_where: &str, cap: Option<u64>) -> String {
    match cap {
        Some(cap) => format!("SELECT count(*) FROM (SELECT 1 AS one FROM {from_where} LIMIT {}) capped", cap + 1),
        None => format!("SELECT count(*) FROM {from_where}"),
    }
}

/// Conditions joined by `AND`, with their params numbered in order.
#[derive(Default)]
pub(super) struct Conditions {
    pub(super) clauses: Vec<String>,
    pub(super) params: Vec<Param>,
}

impl Conditions {
    /// The placeholder for a new param.
    pub(super) fn bind(&mut self, param: Param) -> String {
        self.params.push(param);
        format!("${}", self.params.len())
    }

    /// Adds the condition `<left> <placeholder>` with `param` bound, e.g.
    /// `compare("w.category =", Param::Text(…))`.
    pub(super) fn compare(&mut self, left: &str, param: Param) {
        let ph = self.bind(param);
        self.push(format!("{left} {ph}"));
    }

    pub(super) fn push(&mut self, clause: String) {
        self.clauses.push(clause);
    }

    pub(super) fn where_sql(&self) -> String {
        if self.clauses.is_empty() { String::new() } else { format!(" WHERE {}", self.clauses.join(" AND ")) }
    }
}

impl Dialect {
    /// Writes `$n` placeholders in this backend's form.
    pub fn placeholders(self, statement: String) -> String {
        match self {
            Dialect::Sqlite => sql::for_sqlite(&statement),
            Dialect::Postgres => statement,
        }
    }

    /// (FROM clause, rank key, [`TextMatch::index_only`]) of a full-text
    /// match of `terms` on `table` (`works` alias `w`, `accounts` alias `a`)
    /// of `platform`; adds the match condition (the caller adds the
    /// platform's condition, [`Dialect::platform_condition`]).
    /// SQLite's FROM starts at the FTS table with `CROSS JOIN`, which makes
    /// it the outer loop: left to itself the planner walks every row of the
    /// platform and probes the FTS table once per row. SQLite's works query
    /// names the platform's term too ([`segment::fts5_work_query`]), so the
    /// FTS table yields only that platform's matches; its column weighs 0 in
    /// the score, so relevance is the title's and body's alone. SQLite's
    /// score is `mediaops_bm25` ([`crate::fts5_bm25`]): `bm25` that neither
    /// counts nor scores the platform's phrase.
    fn text_match(
        self,
        c: &mut Conditions,
        (table, alias): (&str, &str),
        platform: &str,
        terms: &[String],
    ) -> TextMatch {
        match self {
            Dialect::Sqlite => {
                // The replaced shape (for the bench's before and after):
                // FTS5's own `bm25`, and accounts matched on every platform.
                let replaced = !super::plans::index_ordered();
                let (query, names_platform) = match table {
                    "works" => (segment::fts5_work_query(terms, platform), true),
                    _ if replaced => (segment::fts5_query(terms), false),
                    _ => (segment::fts5_account_query(terms, platform), true),
                };
                let ph = c.bind(Param::Text(query.unwrap_or_default()));
                let matched = format!("{table}_fts MATCH {ph}");
                // The platform's term stands for `platform = …` only for a
                // platform of spec 1's list (lower-case letters, which
                // `segment::platform_term` keeps as they are).
                let index_only = (names_platform && PLATFORM_ORDER.contains(&platform))
                    .then(|| format!("{table}_fts WHERE {matched}"));
                c.push(matched);
                // The terms' phrases come first; the platform's, last, only
                // filters; the row's token count is read beside it
                // ([`crate::fts5_bm25`]).
                let scored = segment::query_terms(terms);
                let rows = Self::term_rows(table, scored);
                let rank = match replaced {
                    true => format!("bm25({table}_fts, 3.0, 1.0, 0.0)"),
                    false => format!(
                        "{}({table}_fts, {}, {alias}.fts_tokens, {rows}3.0, 1.0, 0.0)",
                        crate::fts5_bm25::NAME,
                        scored.len()
                    ),
                };
                let from = |indexed: &str| {
                    format!("{table}_fts CROSS JOIN {table} {alias}{indexed} ON {alias}.id = {table}_fts.rowid")
                };
                TextMatch {
                    from: from(""),
                    rank: (rank, ""),
                    index_only,
                    from_score_keys: (table == "works" && !replaced).then(|| from(" INDEXED BY works_score_keys")),
                }
            }
            Dialect::Postgres => {
                let ph = c.bind(Param::Text(segment::tsquery_literal(terms).unwrap_or_default()));
                c.push(format!("{alias}.search_vector @@ {ph}::tsquery"));
                TextMatch {
                    from: format!("{table} {alias}"),
                    rank: (format!("ts_rank({alias}.search_vector, {ph}::tsquery)"), " DESC"),
                    index_only: None,
                    from_score_keys: None,
                }
            }
        }
    }

    /// The row-count arguments of `mediaops_bm25` ([`crate::fts5_bm25`]) for
    /// the `scored` terms of a search of `table`, each followed by `, `:
    /// with two or more terms, a works search reads each term's count of
    /// works from `work_term_rows` (migration 0024) instead of having FTS5
    /// walk the term's doclist; a term FTS5 may fold
    /// ([`crate::text::exact_char`]; it is not counted apart there), a
    /// lone term (whose count the score does not read) and an accounts
    /// search pass NULL. A counted term is made of letters, digits and CJK
    /// ideographs only, so it is written as a literal: the statement binds
    /// no more params than before.
    fn term_rows(table: &str, scored: &[String]) -> String {
        let counted = |term: &String| table == "works" && scored.len() > 1 && term.chars().all(exact_char);
        scored
            .iter()
            .map(|term| match counted(term) {
                true => format!("coalesce((SELECT rows FROM work_term_rows WHERE term = '{term}'), 0), "),
                false => "NULL, ".to_owned(),
            })
            .collect()
    }

    /// The condition `{alias}.platform = …` of a query on `platform`.
    /// PostgreSQL's full-text searches (`text_searched`) name a platform of
    /// spec 1's list as a literal: its partial GIN index (migration 0013,
    /// `works_search_<platform>`, `accounts_search_<platform>`) holds only
    /// that platform's rows, and only a literal lets the planner pick it for
    /// a cached generic plan too. Anything else is bound as a parameter.
    fn platform_condition(self, c: &mut Conditions, alias: &str, platform: &str, text_searched: bool) {
        let listed = PLATFORM_ORDER.contains(&platform);
        if self == Dialect::Postgres && text_searched && listed {
            // A listed platform is lower-case ASCII letters: nothing to quote.
            c.push(format!("{alias}.platform = '{platform}'"));
        } else {
            c.compare(&format!("{alias}.platform ="), Param::Text(platform.to_owned()));
        }
    }

    /// `SELECT kw.id AS match_id …`: the works matching `f`, at most
    /// [`crate::KEYWORD_MATCH_CAP`] of them, the most liked first
    /// (newest snapshot's likes, unknown last, then row id); its params are
    /// bound on `c`, its conditions kept apart from `c`'s. `None` when the
    /// text has no terms (nothing matches).
    pub(super) fn capped_matches(self, c: &mut Conditions, f: &MatchFilter<'_>) -> Option<String> {
        if let Some(ids) = f.matched {
            return Some(self.id_list(c, ids));
        }
        let terms = crate::text::index_terms(f.text);
        if terms.is_empty() {
            return None;
        }
        let outer = std::mem::take(&mut c.clauses);
        let from = if f.by_likes && self == Dialect::Sqlite {
            let ph = c.bind(Param::Text(segment::fts5_work_query(&terms, f.platform).unwrap_or_default()));
            c.push(format!("kw.id IN (SELECT rowid FROM works_fts WHERE works_fts MATCH {ph})"));
            "works kw INDEXED BY works_likes".to_owned()
        } else {
            self.text_match(c, ("works", "kw"), f.platform, &terms).from
        };
        self.platform_condition(c, "kw", f.platform, true);
        if let Some(category) = f.category {
            c.compare("kw.category =", Param::Text(category.to_owned()));
        }
        if let Some(from) = f.published_from {
            c.compare("kw.published_at >=", Param::Time(from));
        }
        if let Some(to) = f.published_to {
            c.compare("kw.published_at <=", Param::Time(to));
        }
        let statement = format!(
            "SELECT kw.id AS match_id FROM {from}{} ORDER BY kw.latest_likes DESC NULLS LAST, kw.id LIMIT {}",
            c.where_sql(),
            super::KEYWORD_MATCH_CAP
        );
        c.clauses = outer;
        Some(statement)
    }

    /// `SELECT … AS match_id` of the row ids `ids`, bound as one text param
    /// (SQLite: a JSON array read by `json_each`; PostgreSQL: a comma list
    /// cast to `bigint[]` and unnested), so the statement's text does not
    /// change with the number of ids.
    fn id_list(self, c: &mut Conditions, ids: &[i64]) -> String {
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        match self {
            Dialect::Sqlite => {
                let ph = c.bind(Param::Text(format!("[{}]", list.join(","))));
                format!("SELECT value AS match_id FROM json_each({ph})")
            }
            Dialect::Postgres => {
                let ph = c.bind(Param::Text(list.join(",")));
                format!("SELECT unnest(string_to_array({ph}, ',')::bigint[]) AS match_id")
            }
        }
    }

    /// Whether this backend's keyword boards read the matches found once
    /// for a request ([`crate::ContentStore::keyword_matches`]):
    /// SQLite, where matching costs a `works` lookup per full-text match and
    /// a request has up to four boards; PostgreSQL with the index-ordered
    /// shapes ([`super::plans`]), whose one-day boards probe each id's row
    /// by primary key and whose 单日互动 board reads two snapshots per id,
    /// so the matching step (a scan of the full-text index or of
    /// `works_likes`, most of a board's cost at 1,000,000 works) runs once
    /// instead of once per board. The replaced shapes match the keyword in
    /// every statement on PostgreSQL, as before.
    pub fn matches_keywords_once(self) -> bool {
        self == Dialect::Sqlite || super::plans::index_ordered()
    }

    /// The statement of [`crate::ContentStore::keyword_matches`]:
    /// the row ids of the works matching `q.text` with `q`'s platform,
    /// category and publish-time filters, at most
    /// [`crate::KEYWORD_MATCH_CAP`], the most liked first (column
    /// `match_id`); `None` without a text or when it has no terms.
    pub fn keyword_matches(self, q: &BoardQuery) -> Option<(String, Vec<Param>)> {
        self.keyword_matches_shaped(q, false)
    }

    /// [`Dialect::keyword_matches`] as an index walk (SQLite): the
    /// platform's works most liked first (`works_likes`, migration 0014),
    /// each kept when its row id is among the full-text matches (FTS5's
    /// doclist read once into a list, no `works` row read per match), until
    /// the cap. The same ids in the same order; it reads about cap ÷ (the
    /// share of the platform matching) index entries instead of looking up
    /// and sorting every match, so it is chosen when many works match
    /// ([`Dialect::keyword_match_count`], [`crate::plans::KEYWORD_WALK_FROM`]).
    pub fn keyword_matches_by_likes(self, q: &BoardQuery) -> Option<(String, Vec<Param>)> {
        self.keyword_matches_shaped(q, true)
    }

    fn keyword_matches_shaped(self, q: &BoardQuery, by_likes: bool) -> Option<(String, Vec<Param>)> {
        let mut c = Conditions::default();
        let filter = MatchFilter {
            platform: &q.platform,
            text: q.text.as_deref()?,
            category: q.category.as_deref(),
            published_from: q.published_from,
            published_to: q.published_to,
            matched: None,
            by_likes,
        };
        let statement = self.capped_matches(&mut c, &filter)?;
        Some((self.placeholders(statement), c.params))
    }

    /// SQLite: how many works of `q`'s platform match `q.text` in the
    /// full-text index alone (no `works` row read), counted up to
    /// [`crate::plans::KEYWORD_WALK_FROM`]; `None` on PostgreSQL, without a text, or when
    /// it has no terms.
    pub fn keyword_match_count(self, q: &BoardQuery) -> Option<(String, Vec<Param>)> {
        let terms = crate::text::index_terms(q.text.as_deref()?);
        let query = segment::fts5_work_query(&terms, &q.platform)?;
        (self == Dialect::Sqlite).then(|| {
            let statement = format!(
                "SELECT count(*) FROM (SELECT 1 FROM works_fts WHERE works_fts MATCH $1 LIMIT {})",
                crate::plans::KEYWORD_WALK_FROM
            );
            (self.placeholders(statement), vec![Param::Text(query)])
        })
    }

    /// The order of a full-text match's rows newest stored first, which
    /// each backend reads without sorting: SQLite's FTS5 table by
    /// descending rowid (its own index order), PostgreSQL the primary key
    /// read backwards.
    fn newest_stored(self, table: &str, alias: &str) -> String {
        match self {
            Dialect::Sqlite => format!("{table}_fts.rowid"),
            Dialect::Postgres => format!("{alias}.id"),
        }
    }

    /// The setting a capped relevance listing ([`Listing::counted_page`])
    /// is planned under, in a transaction of its own: on PostgreSQL
    /// `random_page_cost = 1.1` (the default is 4.0). Its window, the
    /// platform's newest matches, is a backward walk of `works (platform,
    /// id)` (migration 0017) reading the platform's rows only; with the
    /// default cost the planner judged that walk's heap reads random (the
    /// platforms' rows interleave in the heap) and walked the primary key
    /// instead, past every newer row of the other platforms: 363 ms against
    /// 8 ms at 1,000,000 works (docs/data-apis.md "Search at scale"). `None`
    /// on SQLite.
    pub fn newest_walk_setting(self) -> Option<&'static str> {
        match self {
            Dialect::Postgres => Some("SET LOCAL random_page_cost = 1.1"),
            Dialect::Sqlite => None,
        }
    }

    /// A join whose left side the plan must read first: SQLite's planner
    /// keeps `CROSS JOIN` in the written order; PostgreSQL's plain join
    /// (it has no `CROSS JOIN … ON`) is ordered by its statistics.
    pub(super) fn outer_first(self) -> &'static str {
        match self {
            Dialect::Sqlite => "CROSS JOIN",
            Dialect::Postgres => "JOIN",
        }
    }

    fn extra_as_text(self) -> &'static str {
        match self {
            Dialect::Sqlite => "s.extra",
            Dialect::Postgres => "s.extra::text",
        }
    }

    /// The join that gives an account (alias `a`) its newest snapshot (alias `s`).
    pub fn latest_account_snapshot(self) -> &'static str {
        match self {
            Dialect::Sqlite => {
                "LEFT JOIN account_snapshots s ON s.account = a.id AND s.captured_at = \
                 (SELECT max(captured_at) FROM account_snapshots WHERE account = a.id)"
            }
            Dialect::Postgres => {
                "LEFT JOIN LATERAL (SELECT * FROM account_snapshots WHERE account = a.id \
                 ORDER BY captured_at DESC LIMIT 1) s ON true"
            }
        }
    }

    /// (select list, joins after the table) of works (alias `w`) with their
    /// newest snapshot (`s`) and author (`au`).
    fn work_parts(self) -> (String, String) {
        (
            format!(
                "{}, {}, {} AS s_extra, {}",
                sql::WORK_COLUMNS,
                sql::WORK_SNAPSHOT_COLUMNS,
                self.extra_as_text(),
                sql::AUTHOR_COLUMNS
            ),
            format!(
                "{WORK_SNAPSHOT_JOIN} LEFT JOIN accounts au ON au.platform = w.platform AND au.platform_id = w.author_id"
            ),
        )
    }

    /// (select list, joins after the table) of accounts (alias `a`) with
    /// their newest snapshot (`s`).
    fn account_parts(self) -> (String, String) {
        (
            format!("{}, {}", sql::ACCOUNT_COLUMNS, sql::ACCOUNT_SNAPSHOT_COLUMNS),
            format!(" {}", self.latest_account_snapshot()),
        )
    }

    /// `SELECT` of works with their newest snapshot, before any join or filter.
    pub fn work_select(self) -> String {
        let (columns, joins) = self.work_parts();
        format!("SELECT {columns} FROM works w{joins}")
    }

    /// `SELECT` of accounts with their newest snapshot, before any join or filter.
    pub fn account_select(self) -> String {
        let (columns, joins) = self.account_parts();
        format!("SELECT {columns} FROM accounts a{joins}")
    }

    /// A count and a two-step page: the inner query filters `from` (with
    /// `inner_joins`), orders by `keys` then the row id and keeps one page
    /// of ids with the keys as `k0…`; the outer one joins just those rows to
    /// `parts` (select list, joins) of `table` alias `alias` in the same
    /// order. Joining snapshots and authors for one page instead of for
    /// every match keeps a common term's search from doing a lookup per
    /// match. With a `cap` and a `window` (the expression that orders rows
    /// newest stored first, for a relevance order), a second page statement
    /// orders only the `cap` newest matches ([`Listing::page_past_cap`]).
    #[allow(clippy::too_many_arguments)]
    fn two_step(
        self,
        c: Conditions,
        (table, alias): (&str, &str),
        from: &str,
        inner_joins: &str,
        keys: &[Key],
        (columns, joins): (String, String),
        (limit, offset): (i64, i64),
        Cap { total, window, index_only }: Cap,
    ) -> Listing {
        let cap = total_cap(total);
        let filter = c.where_sql();
        let n = c.params.len();
        let mut key_columns = String::new();
        let mut inner_order = String::new();
        let mut outer_order = String::new();
        for (i, (expr, direction)) in keys.iter().enumerate() {
            key_columns.push_str(&format!(", {expr} AS k{i}"));
            inner_order.push_str(&format!("k{i}{direction}, "));
            outer_order.push_str(&format!("p.k{i}{direction}, "));
        }
        let keyed = format!("SELECT {alias}.id AS page_id{key_columns} FROM {from}{inner_joins}{filter}");
        let paged = format!("LIMIT ${} OFFSET ${}", n + 1, n + 2);
        let outer = |inner: &str| {
            self.placeholders(format!(
                "SELECT {columns} FROM ({inner}) p JOIN {table} {alias} ON {alias}.id = p.page_id{joins} \
                 ORDER BY {outer_order}{alias}.id"
            ))
        };
        // The page of the `cap` newest matches, ranked.
        let newest_ranked = |cap: u64, window: &str| {
            format!(
                "SELECT * FROM ({keyed} ORDER BY {window} DESC LIMIT {cap}) win ORDER BY {inner_order}page_id {paged}"
            )
        };
        let page_past_cap = cap.zip(window.as_deref()).map(|(cap, window)| outer(&newest_ranked(cap, window)));
        // The count's row (`c`) with the page's rows (`p`) and their
        // parts. Every join of `parts` is a LEFT JOIN, so an empty page
        // keeps the count's row.
        let counted_with = |head: &str, counted: &str, page: &str| {
            self.placeholders(format!(
                "{head}SELECT c.listing_total, p.page_id AS listing_page, {columns} FROM {counted} c \
                 LEFT JOIN {page} p ON 1 = 1 \
                 LEFT JOIN {table} {alias} ON {alias}.id = p.page_id{joins} ORDER BY {outer_order}{alias}.id"
            ))
        };
        let counted_page = cap.zip(window.as_deref()).map(|(cap, window)| match &index_only {
            // The count reads the full-text index alone (no row lookup per
            // match) and the page reads the newest `cap` matches once,
            // ranked as they are read: SQLite's materialized window (below)
            // cost more than the second read of the index (docs/data-apis.md
            // "Search at scale").
            Some(index_only) => counted_with(
                "",
                &format!("(SELECT count(*) AS listing_total FROM (SELECT 1 FROM {index_only} LIMIT {}))", cap + 1),
                &format!("({})", newest_ranked(cap, window)),
            ),
            None => {
                let newest = format!(
                    "SELECT {alias}.id AS page_id{key_columns}, {window} AS newest FROM {from}{inner_joins}{filter} \
                     ORDER BY {window} DESC LIMIT {}",
                    cap + 1
                );
                let head = format!(
                    "WITH win AS MATERIALIZED ({newest}), counted AS (SELECT count(*) AS listing_total FROM win), \
                     paged AS (SELECT * FROM (SELECT * FROM win ORDER BY newest DESC LIMIT {cap}) kept \
                     ORDER BY {inner_order}page_id {paged}) "
                );
                counted_with(&head, "counted", "paged")
            }
        });
        Listing {
            count: self.placeholders(count_statement(&format!("{from}{filter}"), cap)),
            page: outer(&format!("{keyed} ORDER BY {inner_order}{alias}.id {paged}")),
            window_setting: page_past_cap.as_ref().and(self.newest_walk_setting()),
            page_past_cap,
            counted_page,
            params: with_paging(c.params, limit, offset),
            cap,
            uncounted: total == Total::Uncounted,
        }
    }

    /// The statements of [`crate::ContentStore::find_works`]; `None`
    /// when a text query has no terms (nothing can match).
    pub fn find_works(self, q: &WorkQuery) -> StoreResult<Option<Listing>> {
        let paging = paging(q.page, q.page_size)?;
        let mut c = Conditions::default();
        let mut from = "works w".to_owned();
        let mut rank = None;
        let mut index_only = None;
        let mut terms = Vec::new();
        if let Some(text) = &q.text {
            terms = crate::text::index_terms(text);
            if terms.is_empty() {
                return Ok(None);
            }
        }
        if let Some(topic) = q.topic {
            terms.push(topic.marker().to_owned());
        }
        if !terms.is_empty() {
            let matched = self.text_match(&mut c, ("works", "w"), &q.platform, &terms);
            // A topic alone is a filter, not a relevance.
            rank = q.text.is_some().then_some(matched.rank);
            // A relevance search filtered at most by platform and publish
            // time reads only the score's keys of each match.
            let keys_only =
                rank.is_some() && q.order == WorkOrder::Relevance && q.author_id.is_none() && q.category.is_none();
            from = match matched.from_score_keys {
                Some(indexed) if keys_only => indexed,
                _ => matched.from,
            };
            let unfiltered =
                q.author_id.is_none() && q.published_from.is_none() && q.published_to.is_none() && q.category.is_none();
            index_only = matched.index_only.filter(|_| unfiltered);
        }
        self.platform_condition(&mut c, "w", &q.platform, !terms.is_empty());
        if let Some(author) = &q.author_id {
            c.compare("w.author_id =", Param::Text(author.clone()));
        }
        if let Some(from) = q.published_from {
            c.compare("w.published_at >=", Param::Time(from));
        }
        if let Some(to) = q.published_to {
            c.compare("w.published_at <=", Param::Time(to));
        }
        if let Some(category) = &q.category {
            c.compare("w.category =", Param::Text(category.clone()));
        }
        let key = |expr: &str, direction| (expr.to_owned(), direction);
        let mut window = None;
        let newest = key("w.published_at", " DESC NULLS LAST");
        let likes = key("w.latest_likes", " DESC NULLS LAST");
        let (keys, snapshot_join) = match (q.order, rank) {
            (WorkOrder::Relevance, Some(rank)) => {
                window = Some(self.newest_stored("works", "w"));
                (vec![rank, likes, newest], "")
            }
            (WorkOrder::Relevance | WorkOrder::Newest, _) => (vec![newest], ""),
            (WorkOrder::Oldest, _) => (vec![key("w.published_at", " ASC NULLS LAST")], ""),
            (WorkOrder::Likes, _) => (vec![likes, newest], ""),
            (WorkOrder::Views, _) => (vec![key("s.views", " DESC NULLS LAST"), newest], WORK_SNAPSHOT_JOIN),
            (WorkOrder::Comments, _) => (vec![key("s.comments", " DESC NULLS LAST"), newest], WORK_SNAPSHOT_JOIN),
            (WorkOrder::Collects, _) => (vec![key("s.collects", " DESC NULLS LAST"), newest], WORK_SNAPSHOT_JOIN),
        };
        let cap = Cap { total: q.total, window, index_only };
        Ok(Some(self.two_step(c, ("works", "w"), &from, snapshot_join, &keys, self.work_parts(), paging, cap)))
    }

    /// The statements of [`crate::ContentStore::find_accounts`];
    /// `None` when a text query has no terms.
    pub fn find_accounts(self, q: &AccountQuery) -> StoreResult<Option<Listing>> {
        let paging = paging(q.page, q.page_size)?;
        let mut c = Conditions::default();
        let mut from = "accounts a".to_owned();
        let mut rank = None;
        let mut index_only = None;
        if let Some(text) = &q.text {
            let terms = crate::text::index_terms(text);
            if terms.is_empty() {
                return Ok(None);
            }
            let matched = self.text_match(&mut c, ("accounts", "a"), &q.platform, &terms);
            from = matched.from;
            rank = Some(matched.rank);
            index_only = matched.index_only.filter(|_| q.nickname.is_none() && q.category.is_none());
        }
        self.platform_condition(&mut c, "a", &q.platform, q.text.is_some());
        if let Some(nickname) = &q.nickname {
            c.compare("a.nickname =", Param::Text(nickname.clone()));
        }
        if let Some(category) = &q.category {
            c.compare("a.category =", Param::Text(category.clone()));
        }
        let fans = ("a.fans".to_owned(), " DESC NULLS LAST");
        let (keys, window) = match (q.order, rank) {
            (AccountOrder::Relevance, Some(rank)) => (vec![rank, fans], Some(self.newest_stored("accounts", "a"))),
            _ => (vec![fans], None),
        };
        let cap = Cap { total: q.total, window, index_only };
        Ok(Some(self.two_step(c, ("accounts", "a"), &from, "", &keys, self.account_parts(), paging, cap)))
    }

    /// The statements of [`crate::ContentStore::list_comments`]:
    /// top-level and replies of one work, most liked first, then oldest.
    pub fn list_comments(self, platform: &str, work_id: &str, page: u32, page_size: u32) -> StoreResult<Listing> {
        let (limit, offset) = paging(page, page_size)?;
        let filter = " WHERE platform = $1 AND work_id = $2";
        Ok(Listing {
            count: self.placeholders(format!("SELECT count(*) FROM comments{filter}")),
            page: self.placeholders(format!(
                "SELECT platform, platform_id, work_id, text, likes, author_id, author_name, published_at, parent_id \
                 FROM comments{filter} ORDER BY likes DESC NULLS LAST, published_at ASC NULLS LAST, id \
                 LIMIT $3 OFFSET $4"
            )),
            page_past_cap: None,
            counted_page: None,
            window_setting: None,
            uncounted: false,
            params: with_paging(vec![Param::Text(platform.into()), Param::Text(work_id.into())], limit, offset),
            cap: None,
        })
    }

    /// The statement of [`crate::ContentStore::work_series`]: one row
    /// per snapshot in the window, with the work (`w`), the snapshot (`s`)
    /// and the author (`au`), ordered by work then capture time; `None` when
    /// a text query has no terms.
    pub fn work_series(self, q: &SeriesQuery) -> Option<(String, Vec<Param>)> {
        let mut c = Conditions::default();
        let mut from = "works w".to_owned();
        if let Some(text) = &q.text {
            let filter = MatchFilter {
                platform: &q.platform,
                text,
                category: q.category.as_deref(),
                published_from: q.published_from,
                published_to: None,
                matched: q.matched.as_deref(),
                by_likes: false,
            };
            let matches = self.capped_matches(&mut c, &filter)?;
            from = format!("({matches}) m {} works w ON w.id = m.match_id", self.outer_first());
        }
        c.compare("w.platform =", Param::Text(q.platform.clone()));
        if let Some(category) = &q.category {
            c.compare("w.category =", Param::Text(category.clone()));
        }
        if let Some(published) = q.published_from {
            c.compare("w.published_at >=", Param::Time(published));
        }
        if let Some(author) = &q.author_id {
            c.compare("w.author_id =", Param::Text(author.clone()));
        }
        self.captured_between(&mut c, q);
        let statement = format!(
            "SELECT {}, {}, {} AS s_extra, {} FROM {from} JOIN work_snapshots s ON s.work = w.id \
             LEFT JOIN accounts au ON au.platform = w.platform AND au.platform_id = w.author_id{} \
             ORDER BY w.id, s.captured_at",
            sql::WORK_COLUMNS,
            sql::WORK_SNAPSHOT_COLUMNS,
            self.extra_as_text(),
            sql::AUTHOR_COLUMNS,
            c.where_sql()
        );
        Some((self.placeholders(statement), c.params))
    }

    /// The statement of [`crate::ContentStore::account_series`]: one
    /// row per account snapshot in the window, ordered by account then
    /// capture time.
    pub fn account_series(self, q: &SeriesQuery) -> (String, Vec<Param>) {
        let mut c = Conditions::default();
        c.compare("a.platform =", Param::Text(q.platform.clone()));
        if let Some(category) = &q.category {
            c.compare("a.category =", Param::Text(category.clone()));
        }
        if let Some(account) = &q.account_id {
            c.compare("a.platform_id =", Param::Text(account.clone()));
        }
        self.captured_between(&mut c, q);
        let statement = format!(
            "SELECT {}, {} FROM accounts a JOIN account_snapshots s ON s.account = a.id{} \
             ORDER BY a.id, s.captured_at",
            sql::ACCOUNT_COLUMNS,
            sql::ACCOUNT_SNAPSHOT_COLUMNS,
            c.where_sql()
        );
        (self.placeholders(statement), c.params)
    }

    fn captured_between(self, c: &mut Conditions, q: &SeriesQuery) {
        c.compare("s.captured_at >=", Param::Time(q.captured_from));
        c.compare("s.captured_at <=", Param::Time(q.captured_to));
    }

    /// The statement of [`crate::ContentStore::hot_list_entries`]
    /// and its params.
    pub fn hot_list_entries(self, q: &HotListQuery) -> (String, Vec<Param>) {
        let mut c = Conditions::default();
        if !q.sources.is_empty() {
            let phs: Vec<String> = q.sources.iter().map(|s| c.bind(Param::Text(s.clone()))).collect();
            c.push(format!("h.source IN ({})", phs.join(", ")));
        }
        if let Some(from) = q.from {
            c.compare("h.captured_at >=", Param::Time(from));
        }
        if let Some(to) = q.to {
            c.compare("h.captured_at <=", Param::Time(to));
        }
        let filter = c.where_sql();
        if q.latest_only {
            let inner = if filter.is_empty() { " WHERE".to_owned() } else { format!("{filter} AND") };
            c.clauses.clear();
            let newest = format!(
                "(SELECT max(l.captured_at) FROM hot_list_entries l WHERE l.source = h.source{})",
                filter.replace("h.", "l.").replacen(" WHERE", " AND", 1)
            );
            let statement = format!(
                "SELECT h.source, h.captured_at, h.rank, h.title, h.hot_value, h.url, {} AS extra \
                 FROM hot_list_entries h{inner} h.captured_at = {newest} ORDER BY h.captured_at, h.source, h.rank",
                self.hot_extra()
            );
            return (self.placeholders(statement), c.params);
        }
        let statement = format!(
            "SELECT h.source, h.captured_at, h.rank, h.title, h.hot_value, h.url, {} AS extra \
             FROM hot_list_entries h{filter} ORDER BY h.captured_at, h.source, h.rank",
            self.hot_extra()
        );
        (self.placeholders(statement), c.params)
    }

    fn hot_extra(self) -> &'static str {
        match self {
            Dialect::Sqlite => "h.extra",
            Dialect::Postgres => "h.extra::text",
        }
    }
}

/// The count cap of a listing: [`crate::TOTAL_CAP`] unless the
/// caller asks for an exact total (an uncounted listing keeps the cap for
/// its window of newest matches).
fn total_cap(total: Total) -> Option<u64> {
    (total != Total::Exact).then_some(super::TOTAL_CAP)
}

fn with_paging(mut params: Vec<Param>, limit: i64, offset: i64) -> Vec<Param> {
    params.push(Param::Int(limit));
    params.push(Param::Int(offset));
    params
}

/// Binds [`Param`]s to a sqlx query of either backend, in order.
pub(crate) fn bind_params<'q, DB: Database>(mut query: DbQuery<'q, DB>, params: &[Param]) -> DbQuery<'q, DB>
where
    String: Type<DB> + Encode<'q, DB>,
    Option<String>: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + Encode<'q, DB>,
    Option<i64>: Type<DB> + Encode<'q, DB>,
    DateTime<Utc>: Type<DB> + Encode<'q, DB>,
    Option<DateTime<Utc>>: Type<DB> + Encode<'q, DB>,
    NaiveDate: Type<DB> + Encode<'q, DB>,
{
    for param in params {
        query = match param {
            Param::Text(v) => query.bind(v.clone()),
            Param::Int(v) => query.bind(*v),
            Param::Time(v) => query.bind(*v),
            Param::Date(v) => query.bind(*v),
        };
    }
    query
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_listing_numbers_params_in_order() {
        let q = WorkQuery {
            platform: "videosite".into(),
            text: Some("美食".into()),
            author_id: Some("42".into()),
            page: 2,
            page_size: 10,
            ..WorkQuery::default()
        };
        let listing = Dialect::Postgres.find_works(&q).unwrap().unwrap();
        assert!(
            listing.page.contains("w.search_vector @@ $1::tsquery AND w.platform = 'videosite' AND w.author_id = $2")
        );
        assert!(listing.page.contains("LIMIT $3 OFFSET $4) p JOIN works w ON w.id = p.page_id"));
        assert_eq!(listing.params[2..], [Param::Int(10), Param::Int(10)]);
        let unlisted =
            Dialect::Postgres.find_works(&WorkQuery { platform: "x'y".into(), ..q.clone() }).unwrap().unwrap();
        assert!(unlisted.page.contains("w.platform = $2 AND w.author_id = $3"), "an unlisted platform is bound");
        let sqlite = Dialect::Sqlite.find_works(&q).unwrap().unwrap();
        assert!(sqlite.page.contains("works_fts MATCH ?1") && !sqlite.page.contains('$'));
        assert!(sqlite.count.contains("SELECT 1 AS one FROM works_fts CROSS JOIN works w"), "FTS drives");
        assert!(Dialect::Sqlite.find_works(&WorkQuery { text: Some("，".into()), ..q }).unwrap().is_none());
    }

    #[test]
    fn every_listed_platform_has_its_partial_search_indexes() {
        let migration = include_str!("migrations/postgres/0013_search_by_platform.sql");
        for platform in PLATFORM_ORDER {
            for table in ["works", "accounts"] {
                let index = format!(
                    "CREATE INDEX {table}_search_{platform} ON {table} USING GIN (search_vector) \
                     WHERE platform = '{platform}';"
                );
                assert!(migration.contains(&index), "missing: {index}");
            }
            assert!(platform.bytes().all(|b| b.is_ascii_lowercase()), "{platform} is written as a literal");
        }
    }

    /// A relevance search filtered at most by platform and publish time
    /// reads each match's keys from `works_score_keys` (migration 0026),
    /// not its row; one that reads another column of its matches (an
    /// author or category filter, another order), and an accounts search,
    /// read the rows.
    #[tokio::test]
    async fn relevance_reads_its_matches_keys_from_their_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
        let q = WorkQuery {
            platform: "lifestyle".into(),
            text: Some("露营 装备".into()),
            published_from: Some(chrono::DateTime::UNIX_EPOCH),
            page: 1,
            page_size: 20,
            ..WorkQuery::default()
        };
        let covered = "SEARCH w USING COVERING INDEX works_score_keys (id=? AND platform=?)";
        let listing = Dialect::Sqlite.find_works(&q).unwrap().unwrap();
        // The count binds no paging (as `queries.rs` runs it).
        let (all, unpaged) = (&listing.params[..], &listing.params[..listing.params.len() - 2]);
        let checked = [
            (&listing.count, unpaged),
            (listing.counted_page.as_ref().unwrap(), all),
            (listing.page_past_cap.as_ref().unwrap(), all),
        ];
        for (statement, params) in checked {
            let plan = crate::test_support::sqlite_plan(&store, statement, params).await;
            assert!(plan.iter().any(|step| step == covered), "{plan:#?}");
        }
        let others = [
            WorkQuery { author_id: Some("a1".into()), ..q.clone() },
            WorkQuery { category: Some("旅行".into()), ..q.clone() },
            WorkQuery { order: WorkOrder::Views, ..q.clone() },
        ];
        for other in &others {
            let listing = Dialect::Sqlite.find_works(other).unwrap().unwrap();
            assert!(!listing.page.contains("works_score_keys"), "{other:?}: {}", listing.page);
        }
        let accounts = AccountQuery {
            platform: "lifestyle".into(),
            text: Some("露营".into()),
            page: 1,
            page_size: 20,
            ..AccountQuery::default()
        };
        assert!(!Dialect::Sqlite.find_accounts(&accounts).unwrap().unwrap().page.contains("INDEXED BY"));
        assert!(!Dialect::Postgres.find_works(&q).unwrap().unwrap().page.contains("INDEXED BY"));
    }

    #[test]
    fn counts_stop_at_the_cap_and_relevance_past_it_ranks_the_newest_matches() {
        let q = WorkQuery {
            platform: "lifestyle".into(),
            text: Some("露营".into()),
            page: 1,
            page_size: 20,
            ..WorkQuery::default()
        };
        let sqlite = Dialect::Sqlite.find_works(&q).unwrap().unwrap();
        assert!(sqlite.count.ends_with("LIMIT 10001) capped"), "{}", sqlite.count);
        let past = sqlite.page_past_cap.as_deref().unwrap();
        assert!(past.contains("ORDER BY works_fts.rowid DESC LIMIT 10000) win ORDER BY k0, k1 DESC NULLS LAST"));
        assert_eq!(sqlite.page_for(10_000), sqlite.page);
        assert_eq!(sqlite.page_for(10_001), past);
        assert_eq!(
            sqlite.page_of(10_001, vec![()]),
            SearchPage { total: 10_000, total_is_lower_bound: true, items: vec![()] }
        );
        let postgres = Dialect::Postgres.find_works(&q).unwrap().unwrap();
        assert!(postgres.page_past_cap.unwrap().contains("ORDER BY w.id DESC LIMIT 10000) win"));
        // No filter but the text and the platform: the count reads the
        // full-text index alone, the page the newest 10,000 matches.
        let counted = sqlite.counted_page.as_deref().unwrap();
        assert!(
            counted.contains("FROM (SELECT count(*) AS listing_total FROM (SELECT 1 FROM works_fts WHERE works_fts MATCH ?1 LIMIT 10001)) c"),
            "{counted}"
        );
        assert!(counted.contains("ORDER BY works_fts.rowid DESC LIMIT 10000) win ORDER BY k0"), "{counted}");
        assert!(!counted.contains("MATERIALIZED"), "{counted}");
        // With a filter the window is read once, materialized.
        let filtered = WorkQuery { category: Some("旅行".into()), ..q.clone() };
        let filtered = Dialect::Sqlite.find_works(&filtered).unwrap().unwrap();
        let counted = filtered.counted_page.as_deref().unwrap();
        assert!(counted.starts_with("WITH win AS MATERIALIZED (SELECT w.id AS page_id, mediaops_bm25("), "{counted}");
        assert!(counted.contains("works_fts.rowid AS newest FROM works_fts CROSS JOIN works w"), "{counted}");
        assert!(counted.contains("ORDER BY works_fts.rowid DESC LIMIT 10001), counted AS"), "{counted}");
        assert!(counted.contains("FROM win ORDER BY newest DESC LIMIT 10000) kept ORDER BY k0, k1 DESC NULLS LAST"));
        let exact = Dialect::Sqlite.find_works(&WorkQuery { total: Total::Exact, ..q.clone() }).unwrap().unwrap();
        assert!(!exact.count.contains("LIMIT") && exact.page_past_cap.is_none() && exact.counted_page.is_none());
        assert_eq!(exact.page_of(10_001, Vec::<()>::new()).total, 10_001);
        // Not counted: the page past the cap alone (every match when there
        // are no more), planned as the window is.
        let uncounted = WorkQuery { total: Total::Uncounted, ..q.clone() };
        let uncounted = Dialect::Postgres.find_works(&uncounted).unwrap().unwrap();
        assert!(uncounted.uncounted && !postgres.uncounted);
        assert_eq!(Some(uncounted.uncounted_page()), uncounted.page_past_cap.as_deref());
        assert_eq!(uncounted.window_setting, Dialect::Postgres.newest_walk_setting());
        let newest = Dialect::Sqlite.find_works(&WorkQuery { order: WorkOrder::Newest, ..q }).unwrap().unwrap();
        assert!(newest.page_past_cap.is_none(), "a stored key is not windowed");
        let newest = Listing { uncounted: true, ..newest };
        assert_eq!(newest.uncounted_page(), newest.page);
    }

    #[test]
    fn latest_hot_list_batch_repeats_the_window_inside() {
        let q = HotListQuery { sources: vec!["weibo".into()], latest_only: true, ..HotListQuery::default() };
        let (statement, params) = Dialect::Postgres.hot_list_entries(&q);
        assert_eq!(params.len(), 1);
        assert!(statement.contains("WHERE h.source IN ($1) AND h.captured_at = (SELECT max(l.captured_at)"));
        assert!(statement.contains("WHERE l.source = h.source AND l.source IN ($1))"));
    }
}
