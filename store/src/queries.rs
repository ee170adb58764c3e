//! The [`ContentStore`] of both backends, implemented once for
//! [`SqlStore`]: every read is the same statement for both, written with
//! `$n` placeholders ([`super::sql`], [`super::listing`]) and turned into
//! the backend's form by its [`Dialect`](super::listing::Dialect); rows are
//! decoded by [`super::rows`], writes go through [`super::writes`], and
//! what differs (bulk path, pruning, schema check) is the [`Backend`]'s.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Pool, Row, Type};

use super::backend::{Backend, SqlStore};
use super::bulk::BulkReport;
use super::listing::{Listing, bind_params};
use super::model::{
    AccountQuery, AccountRecord, AccountSeries, AccountSnapshot, AuthorGains, BoardAccount, BoardQuery, BoardWork,
    Comment, Counts, HotListEntry, HotListQuery, KeywordMatches, Record, SearchPage, SeriesQuery, Work, WorkQuery,
    WorkRecord, WorkSeries, WorkSnapshot, WorkTotals,
};
use super::point_cache;
use super::retention::PruneReport;
use super::rows::{
    account_of, account_record, author_of, comment_record, counts_record, hot_list_record, work_of, work_record,
    work_snapshot_record, work_totals_record,
};
use super::{ContentStore, StoreError, StoreResult, sql, writes};
use crate::rankings::board_tables::{BoardSql, BoardTables};

/// `statement`'s rows, planned under `setting` (a `SET LOCAL …` of the
/// [`Dialect`](super::listing::Dialect), e.g.
/// [`newest_walk_setting`](super::listing::Dialect::newest_walk_setting))
/// in a transaction of its own when there is one, so that the setting holds
/// for that statement alone; on `pool` directly when there is none.
async fn fetch_all_under<'q, DB>(
    pool: &Pool<DB>,
    setting: Option<&'static str>,
    statement: sqlx::query::Query<'q, DB, DB::Arguments<'q>>,
) -> StoreResult<Vec<DB::Row>>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments<'q>: IntoArguments<'q, DB>,
{
    let Some(setting) = setting else { return Ok(statement.fetch_all(pool).await?) };
    let mut tx = pool.begin().await?;
    sqlx::query(setting).execute(&mut *tx).await?;
    let rows = statement.fetch_all(&mut *tx).await?;
    tx.commit().await?;
    Ok(rows)
}

/// Runs a [`Listing`] on `pool`: the count, then the page, each row
/// decoded by `decode`; a capped relevance listing in one statement
/// ([`Listing::counted_page`]) with the index-ordered shapes; an
/// uncounted one ([`Listing::uncounted`]) its page alone, with a total of 0
/// flagged as a lower bound. A statement that reads the window of newest
/// matches is planned under [`Listing::window_setting`] in a transaction
/// of its own when there is one.
async fn run_listing<DB, T, F>(pool: &Pool<DB>, listing: Listing, decode: F) -> StoreResult<SearchPage<T>>
where
    DB: Database + sqlx::database::HasStatementCache,
    F: Fn(&DB::Row) -> Result<T, sqlx::Error>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    usize: ColumnIndex<DB::Row>,
    for<'a> &'a str: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
    DateTime<Utc>: Type<DB> + for<'q> Encode<'q, DB>,
    Option<DateTime<Utc>>: Type<DB> + for<'q> Encode<'q, DB>,
    NaiveDate: Type<DB> + for<'q> Encode<'q, DB>,
{
    if listing.uncounted {
        // The window's page is planned per call, as the counted page below.
        let windowed = listing.page_past_cap.is_some();
        let statement = bind_params(sqlx::query(listing.uncounted_page()), &listing.params).persistent(!windowed);
        let rows = fetch_all_under(pool, listing.window_setting, statement).await?;
        let items = rows.iter().map(&decode).collect::<Result<Vec<_>, _>>()?;
        return Ok(SearchPage { total: 0, total_is_lower_bound: true, items });
    }
    if let Some(counted_page) = listing.counted_page.as_deref().filter(|_| super::plans::index_ordered()) {
        // Planned per call: PostgreSQL's generic plan of a prepared
        // statement (chosen after five calls) read a deep page of a capped
        // window in 270 ms against 32 ms for the plan of its own values
        // (docs/data-apis.md "Search at scale").
        let statement = bind_params(sqlx::query(counted_page), &listing.params).persistent(false);
        let rows = fetch_all_under(pool, listing.window_setting, statement).await?;
        let mut counted = 0;
        let mut items = Vec::with_capacity(rows.len());
        for row in &rows {
            counted = row.try_get("listing_total")?;
            if row.try_get::<Option<i64>, _>("listing_page")?.is_some() {
                items.push(decode(row)?);
            }
        }
        return Ok(listing.page_of(counted, items));
    }
    let n = listing.params.len() - 2;
    let counted: i64 =
        bind_params(sqlx::query(&listing.count), &listing.params[..n]).fetch_one(pool).await?.try_get(0)?;
    let rows = bind_params(sqlx::query(listing.page_for(counted)), &listing.params).fetch_all(pool).await?;
    let mut items = Vec::with_capacity(rows.len());
    for row in &rows {
        items.push(decode(row)?);
    }
    Ok(listing.page_of(counted, items))
}

#[async_trait]
impl<DB: Backend> ContentStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
    f64: Type<DB> + for<'r> Decode<'r, DB>,
    Option<f64>: Type<DB> + for<'q> Encode<'q, DB>,
    bool: Type<DB> + for<'r> Decode<'r, DB>,
    NaiveDate: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    DateTime<Utc>: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<DateTime<Utc>>: Type<DB> + for<'q> Encode<'q, DB>,
{
    fn backend(&self) -> &'static str {
        DB::BACKEND
    }

    fn boards(&self) -> Option<Arc<dyn BoardTables>> {
        Some(BoardSql::new(self.pool.clone(), DB::DIALECT))
    }

    async fn check(&self) -> StoreResult<()> {
        DB::ensure_schema(&self.pool).await
    }

    async fn write(&self, records: &[Record]) -> StoreResult<Vec<StoreResult<()>>> {
        self.wrote(writes::write_batch(&self.pool, records).await)
    }

    async fn bulk_work_snapshots(
        &self,
        platform: &str,
        snapshots: &[(String, WorkSnapshot)],
    ) -> StoreResult<BulkReport> {
        self.wrote(DB::bulk_work_snapshots(&self.pool, platform, snapshots).await)
    }

    async fn bulk_account_snapshots(
        &self,
        platform: &str,
        snapshots: &[(String, AccountSnapshot)],
    ) -> StoreResult<BulkReport> {
        self.wrote(DB::bulk_account_snapshots(&self.pool, platform, snapshots).await)
    }

    async fn prune_snapshots(&self, keep_from: NaiveDate, dry_run: bool) -> StoreResult<Option<PruneReport>> {
        self.wrote(DB::prune_snapshots(&self.pool, keep_from, dry_run).await)
    }

    async fn get_account(&self, platform: &str, id: &str) -> StoreResult<Option<AccountRecord>> {
        let missed = match point_cache::look(self.points.as_deref(), |points| points.account(platform, id)) {
            Ok(record) => {
                super::freshness::note(record.latest.as_ref().map(|s| s.captured_at));
                return Ok(Some(record));
            }
            Err(missed) => missed,
        };
        let dialect = DB::DIALECT;
        for filter in ["a.platform = $1 AND a.platform_id = $2", sql::ACCOUNT_BY_ANY_ID.as_str()] {
            let statement = dialect.placeholders(format!("{} WHERE {filter} LIMIT 1", dialect.account_select()));
            let row = sqlx::query(&statement).bind(platform).bind(id).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                let record = account_record(&row)?;
                super::freshness::note(record.latest.as_ref().map(|s| s.captured_at));
                if let (Some(points), Some(missed)) = (&self.points, missed) {
                    points.keep_account(missed, platform, id, &record);
                }
                return Ok(Some(record));
            }
        }
        Ok(None)
    }

    async fn get_work(&self, platform: &str, id: &str) -> StoreResult<Option<WorkRecord>> {
        let missed = match point_cache::look(self.points.as_deref(), |points| points.work(platform, id)) {
            Ok(record) => {
                super::freshness::note(record.latest.as_ref().map(|s| s.captured_at));
                return Ok(Some(record));
            }
            Err(missed) => missed,
        };
        let dialect = DB::DIALECT;
        for filter in ["w.platform = $1 AND w.platform_id = $2", sql::WORK_BY_ANY_ID.as_str()] {
            let statement = dialect.placeholders(format!("{} WHERE {filter} LIMIT 1", dialect.work_select()));
            let row = sqlx::query(&statement).bind(platform).bind(id).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                let record = work_record(&row)?;
                super::freshness::note(record.latest.as_ref().map(|s| s.captured_at));
                if let (Some(points), Some(missed)) = (&self.points, missed) {
                    points.keep_work(missed, platform, id, &record);
                }
                return Ok(Some(record));
            }
        }
        Ok(None)
    }

    async fn counts(&self) -> StoreResult<Counts> {
        let row = sqlx::query(sql::COUNTS).fetch_one(&self.pool).await?;
        Ok(counts_record(&row)?)
    }

    async fn find_works(&self, query: &WorkQuery) -> StoreResult<SearchPage<WorkRecord>> {
        match DB::DIALECT.find_works(query)? {
            Some(listing) => {
                let page = run_listing(&self.pool, listing, work_record).await?;
                page.items.iter().for_each(|r| super::freshness::note(r.latest.as_ref().map(|s| s.captured_at)));
                Ok(page)
            }
            None => Ok(SearchPage::exact(0, Vec::new())),
        }
    }

    async fn find_accounts(&self, query: &AccountQuery) -> StoreResult<SearchPage<AccountRecord>> {
        match DB::DIALECT.find_accounts(query)? {
            Some(listing) => {
                let page = run_listing(&self.pool, listing, account_record).await?;
                page.items.iter().for_each(|r| super::freshness::note(r.latest.as_ref().map(|s| s.captured_at)));
                Ok(page)
            }
            None => Ok(SearchPage::exact(0, Vec::new())),
        }
    }

    async fn list_comments(
        &self,
        platform: &str,
        work_id: &str,
        page: u32,
        page_size: u32,
    ) -> StoreResult<SearchPage<Comment>> {
        run_listing(&self.pool, DB::DIALECT.list_comments(platform, work_id, page, page_size)?, comment_record).await
    }

    async fn work_totals(&self, platform: &str, author_id: &str) -> StoreResult<WorkTotals> {
        let row =
            sqlx::query(&Self::sql(sql::WORK_TOTALS)).bind(platform).bind(author_id).fetch_one(&self.pool).await?;
        Ok(work_totals_record(&row)?)
    }

    async fn published_totals(
        &self,
        platform: &str,
        author_ids: &[String],
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> StoreResult<Vec<WorkTotals>> {
        if author_ids.len() > super::MAX_TOTALS_AUTHORS {
            return Err(StoreError::invalid("authorIds", format!("at most {} at once", super::MAX_TOTALS_AUTHORS)));
        }
        if author_ids.is_empty() {
            return Ok(Vec::new());
        }
        let statement = Self::sql(&sql::published_totals(author_ids.len()));
        let mut query = sqlx::query(&statement).bind(platform).bind(from).bind(to);
        for id in author_ids {
            query = query.bind(id.as_str());
        }
        let mut found = std::collections::HashMap::new();
        for row in query.fetch_all(&self.pool).await? {
            found.insert(row.try_get::<String, _>("author_id")?, work_totals_record(&row)?);
        }
        Ok(author_ids.iter().map(|id| found.get(id).copied().unwrap_or_default()).collect())
    }

    async fn work_series(&self, query: &SeriesQuery) -> StoreResult<Vec<WorkSeries>> {
        let Some((statement, params)) = DB::DIALECT.work_series(query) else { return Ok(Vec::new()) };
        // Unnamed (not cached) statements: PostgreSQL plans each window
        // and filter for its own parameters, instead of switching a cached
        // statement to one generic plan after a few calls, which was 50x
        // slower for some windows (docs/rankings.md "Boards as data"). The
        // window and board reads below do the same.
        let rows = bind_params(sqlx::query(&statement), &params).persistent(false).fetch_all(&self.pool).await?;
        let mut out: Vec<WorkSeries> = Vec::new();
        let mut last_id = None;
        for row in &rows {
            // Rows come by work: the work's columns are decoded once,
            // the following rows of the same work only for their snapshot.
            let id: i64 = row.try_get("id")?;
            if last_id == Some(id) {
                if let (Some(last), Some(snapshot)) = (out.last_mut(), work_snapshot_record(row)?) {
                    last.snapshots.push(snapshot);
                }
                continue;
            }
            let record = work_record(row)?;
            let Some(snapshot) = record.latest else { continue };
            last_id = Some(id);
            out.push(WorkSeries { work: record.work, author: record.author, snapshots: vec![snapshot] });
        }
        Ok(out)
    }

    async fn account_series(&self, query: &SeriesQuery) -> StoreResult<Vec<AccountSeries>> {
        let (statement, params) = DB::DIALECT.account_series(query);
        // Planned per call, as `work_series`.
        let rows = bind_params(sqlx::query(&statement), &params).persistent(false).fetch_all(&self.pool).await?;
        let mut out: Vec<AccountSeries> = Vec::new();
        for row in &rows {
            let record = account_record(row)?;
            let Some(snapshot) = record.latest else { continue };
            match out.last_mut() {
                Some(last) if last.account.platform_id == record.account.platform_id => last.snapshots.push(snapshot),
                _ => out.push(AccountSeries { account: record.account, snapshots: vec![snapshot] }),
            }
        }
        Ok(out)
    }

    async fn work_snapshots(
        &self,
        platform: &str,
        platform_id: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> StoreResult<Vec<WorkSnapshot>> {
        let (statement, params) = DB::DIALECT.work_snapshots(platform, platform_id, from, to);
        let rows = bind_params(sqlx::query(&statement), &params).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.extend(work_snapshot_record(row)?);
        }
        Ok(out)
    }

    async fn hot_title_entries(
        &self,
        title: &str,
        sources: &[String],
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> StoreResult<Vec<HotListEntry>> {
        let (statement, params) = DB::DIALECT.hot_title_entries(title, sources, from, to);
        let rows = bind_params(sqlx::query(&statement), &params).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(hot_list_record(row)?);
        }
        Ok(out)
    }

    async fn work_board(&self, query: &BoardQuery) -> StoreResult<Vec<BoardWork>> {
        let Some((statement, params)) = DB::DIALECT.work_board(query)? else { return Ok(Vec::new()) };
        // Planned per call, as `work_series`, but a level board's walk:
        // kept prepared, since its plan is an index walk whatever the values
        // bound (PostgreSQL's generic plan, after five calls on a
        // connection, is the same walk: 0.7 ms a call against 2.0 ms
        // planned each time at 1,000,000 works), under its setting
        // (`Dialect::level_walk_setting`).
        let walk = crate::rankings::board_statements::level_walk(query);
        let statement = bind_params(sqlx::query(&statement), &params).persistent(walk);
        let setting = walk.then(|| DB::DIALECT.level_walk_setting()).flatten();
        let rows = fetch_all_under(&self.pool, setting, statement).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(BoardWork { work: work_of(row)?, author: author_of(row)?, value: row.try_get("board_value")? });
        }
        Ok(out)
    }

    async fn value_boards(&self, queries: &[&BoardQuery]) -> StoreResult<Option<Vec<Vec<(Work, i64)>>>> {
        let Some((statement, params)) = DB::DIALECT.value_boards(queries) else { return Ok(None) };
        // Prepared once per connection and kept, unlike the other boards'
        // statements: its joins are fixed by its shape (a lookup per match,
        // then per kept row), so no plan depends on the values bound, and
        // PostgreSQL, after its first five calls on a connection, runs a
        // generic plan instead of planning the four boards' statement each
        // time (docs/rankings.md "Keyword values").
        let rows = bind_params(sqlx::query(&statement), &params).persistent(true).fetch_all(&self.pool).await?;
        let mut boards = vec![Vec::new(); queries.len()];
        for row in &rows {
            let board: i64 = row.try_get("board_no")?;
            let entry = (row.try_get::<i64, _>("id")?, work_of(row)?, row.try_get::<i64, _>("board_value")?);
            if let Some(board) = usize::try_from(board).ok().and_then(|i| boards.get_mut(i)) {
                board.push(entry);
            }
        }
        // The statement orders each board's rows, not the boards' rows
        // among each other: board order again (value, title by code
        // points, row id), which a board's rows are already in.
        Ok(Some(
            boards
                .into_iter()
                .map(|mut board| {
                    board.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.title.cmp(&b.1.title)).then(a.0.cmp(&b.0)));
                    board.into_iter().map(|(_, work, value)| (work, value)).collect()
                })
                .collect(),
        ))
    }

    async fn keyword_matches(&self, query: &BoardQuery) -> StoreResult<Option<KeywordMatches>> {
        if query.text.is_none() || !DB::DIALECT.matches_keywords_once() {
            return Ok(None);
        }
        // The list of one of its terms, most liked first, read to the cap
        // (docs/rankings.md "Keyword boards").
        if let Some((statement, params)) =
            DB::DIALECT.term_list_matches(query).filter(|_| crate::plans::index_ordered())
        {
            let walk = bind_params(sqlx::query(&statement), &params).persistent(false);
            // Planned without parallel workers (`Dialect::serial_plan`).
            let rows = fetch_all_under(&self.pool, DB::DIALECT.serial_plan(), walk).await?;
            let ids = rows.iter().map(|row| row.try_get::<i64, _>(0)).collect::<Result<Vec<i64>, _>>()?;
            return Ok(Some(ids.into()));
        }
        // Many matches: walk the platform's works most liked first instead
        // of looking up every match (docs/rankings.md "Index-ordered boards").
        let mut by_likes = false;
        if let Some((count, params)) = DB::DIALECT.keyword_match_count(query) {
            let counted: i64 = bind_params(sqlx::query(&count), &params).fetch_one(&self.pool).await?.try_get(0)?;
            by_likes = counted >= crate::plans::KEYWORD_WALK_FROM;
        }
        let shaped =
            if by_likes { DB::DIALECT.keyword_matches_by_likes(query) } else { DB::DIALECT.keyword_matches(query) };
        let Some((statement, params)) = shaped else { return Ok(Some(Vec::new().into())) };
        let rows = bind_params(sqlx::query(&statement), &params).persistent(false).fetch_all(&self.pool).await?;
        let ids = rows.iter().map(|row| row.try_get::<i64, _>(0)).collect::<Result<Vec<i64>, _>>()?;
        Ok(Some(ids.into()))
    }

    async fn account_board(&self, query: &BoardQuery) -> StoreResult<Vec<BoardAccount>> {
        let (statement, params) = DB::DIALECT.account_board(query)?;
        // Planned per call, as `work_series`.
        let rows = bind_params(sqlx::query(&statement), &params).persistent(false).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(BoardAccount {
                account: account_of(row)?,
                value: row.try_get("board_value")?,
                likes_gained: row.try_get("board_likes_gained")?,
            });
        }
        Ok(out)
    }

    async fn author_gains(&self, query: &BoardQuery) -> StoreResult<Vec<AuthorGains>> {
        let (statement, params) = DB::DIALECT.author_gains(query);
        // Planned per call, as `work_series`.
        let rows = bind_params(sqlx::query(&statement), &params).persistent(false).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(AuthorGains {
                author_id: row.try_get("author")?,
                name: row.try_get("name")?,
                views: row.try_get("views")?,
                likes: row.try_get("likes")?,
            });
        }
        Ok(out)
    }

    async fn hot_list_entries(&self, query: &HotListQuery) -> StoreResult<Vec<HotListEntry>> {
        let (statement, params) = DB::DIALECT.hot_list_entries(query);
        let rows = bind_params(sqlx::query(&statement), &params).fetch_all(&self.pool).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(hot_list_record(row)?);
        }
        Ok(out)
    }
}
