//! SQL of the boards ranked in the database from the per-day aggregates
//! (store/days.rs; docs/rankings.md "Store"), for both backends: per entity
//! the row holding its last snapshot inside the window (alias `e`: a row of
//! the window's last day, or an earlier one followed by a gap past it) gives
//! the level of a counter; the baseline of its gain is, for a one-day
//! window, `e`'s `prev_*` (the day before) or `first_*`, and for a longer
//! one the day before's row (alias `b`, a key lookup) or else the first row
//! inside the window (a subquery run only then); the database filters,
//! orders (value descending, then name in code-point order, then row id)
//! and limits, so only the board's rows come back.

use crate::StoreResult;
use crate::days::{ACCOUNT_DAYS, DayTable, WORK_DAYS};
use crate::listing::{Conditions, Dialect, MatchFilter, Param};
use crate::model::{BoardQuery, Counter, Measure};
use crate::rules::times::{day_end, day_start};
use crate::sql;

/// Whether a keyword board ranks its matches' values before looking up
/// their works ([`Dialect::values_then_works`]): with the index-ordered
/// shapes, when no filter of the board reads a work or its author (no
/// category, publish time, work type or followers bound; a request's
/// category and publish time are its matches' own, docs/rankings.md
/// "Keyword boards").
fn ranks_before_works(q: &BoardQuery) -> bool {
    crate::plans::index_ordered() && !filters_works(q)
}

/// Whether a filter of `q` reads a work or its author: a category, a
/// publish time, a work type or a followers bound.
fn filters_works(q: &BoardQuery) -> bool {
    q.category.is_some()
        || q.published_from.is_some()
        || q.published_to.is_some()
        || !q.work_types.is_empty()
        || q.author_fans_below.is_some()
}

/// The works' per-day aggregate table.
const WORK_DAYS_NAME: &str = WORK_DAYS.days;

/// The rows of a window and how to read values out of them.
struct WindowRows {
    /// `FROM … e [LEFT JOIN … b]` of the aggregate table.
    from: String,
    /// How the baseline is found.
    baseline: Baseline,
}

enum Baseline {
    /// A one-day window: `e` is also the first row inside it, its `prev_*`
    /// the day before.
    OneDay { day_before: String },
    /// A longer window: `b` is the row of the day before (a key lookup),
    /// else the first row inside the window (looked up only then).
    Joined { days: &'static str, key: &'static str, first: String },
}

impl WindowRows {
    /// The level or gain of `counter` (a column of the aggregate).
    fn value(&self, counter: &str, measure: Measure) -> String {
        let level = format!("e.last_{counter}");
        let base = match &self.baseline {
            Baseline::OneDay { day_before } => {
                format!("CASE WHEN e.prev_day = {day_before} THEN e.prev_{counter} ELSE e.first_{counter} END")
            }
            Baseline::Joined { days, key, first } => format!(
                "CASE WHEN b.{key} IS NOT NULL THEN b.last_{counter} ELSE (SELECT x.first_{counter} FROM {days} x \
                 WHERE x.{key} = e.{key} AND x.day >= {first} ORDER BY x.day LIMIT 1) END"
            ),
        };
        match measure {
            Measure::Level => level,
            Measure::Gain => format!("({level} - {base})"),
        }
    }
}

impl Dialect {
    /// `expr` compared by code point (as Rust compares `str`).
    fn binary(self, expr: &str) -> String {
        match self {
            Dialect::Sqlite => expr.to_owned(),
            Dialect::Postgres => format!("{expr} COLLATE \"C\""),
        }
    }

    /// The window's rows of `table` for `q`, their conditions added to `c`;
    /// with `matches` (a statement of entity ids, `match_id`), only those
    /// entities' rows, looked up by entity (keyword boards).
    fn window_rows(self, c: &mut Conditions, table: &DayTable, q: &BoardQuery, matches: Option<&str>) -> WindowRows {
        let (days, key) = (table.days, table.key);
        let platform = c.bind(Param::Text(q.platform.clone()));
        let first = c.bind(Param::Date(q.first));
        let last = c.bind(Param::Date(q.last));
        let day_before = c.bind(Param::Date(q.first.pred_opt().unwrap_or(q.first)));
        if let Some(matches) = matches {
            if q.first >= q.last && crate::plans::index_ordered() {
                // One day: per entity, its row of that day, one probe of
                // the primary key (platform, day, entity).
                let rows = format!(
                    "(SELECT r.* FROM ({matches}) m CROSS JOIN {days} r WHERE r.platform = {platform} \
                     AND r.day = {last} AND r.{key} = m.match_id AND r.day >= {first})"
                );
                return WindowRows { from: format!("{rows} e"), baseline: Baseline::OneDay { day_before } };
            }
            let rows = if crate::plans::index_ordered() {
                self.last_row_inside(days, key, matches, [&platform, &first, &last])
            } else {
                // Per entity, its rows inside the window (index (entity,
                // day)): the one holding its last snapshot there is the
                // one whose next snapshot comes after the window.
                format!(
                    "(SELECT r.* FROM ({matches}) m CROSS JOIN {days} r{} WHERE r.{key} = m.match_id \
                     AND r.platform = {platform} AND r.day >= {first} AND r.day <= {last} AND r.next_day > {last})",
                    self.entity_index(days, key)
                )
            };
            if q.first >= q.last {
                return WindowRows { from: format!("{rows} e"), baseline: Baseline::OneDay { day_before } };
            }
            return WindowRows {
                from: format!(
                    "{rows} e LEFT JOIN {days} b ON b.platform = {platform} AND b.day = {day_before} AND b.{key} = e.{key}"
                ),
                baseline: Baseline::Joined { days, key, first },
            };
        }
        if q.first >= q.last {
            c.push(format!("e.platform = {platform} AND e.day = {last} AND e.day >= {first}"));
            return WindowRows { from: format!("{days} e"), baseline: Baseline::OneDay { day_before } };
        }
        // The rows of the last day, and the rows before it whose next
        // snapshot comes after the window (the gap index).
        let rows = format!(
            "(SELECT * FROM {days} r WHERE r.platform = {platform} AND r.day = {last} UNION ALL \
             SELECT * FROM {days} r{} WHERE r.platform = {platform} AND r.day >= {first} AND r.day < {last} \
             AND {} AND r.next_day > {last})",
            self.gap_index(days),
            self.gap_after("r.")
        );
        WindowRows {
            from: format!(
                "{rows} e LEFT JOIN {days} b ON b.platform = {platform} AND b.day = {day_before} AND b.{key} = e.{key}"
            ),
            baseline: Baseline::Joined { days, key, first },
        }
    }

    /// Per entity of `matches` (a statement of ids, `match_id`), its row of
    /// `days` holding its last snapshot inside the window `[first, last]`
    /// (placeholders `[platform, first, last]`): the row of its latest day
    /// there, whose next snapshot is by definition after the window. One
    /// row read per entity: SQLite takes the latest day from the `(entity,
    /// day)` index alone (`max`, which the index answers with one seek; in
    /// a table without row ids the index also holds the key) and probes the
    /// primary key `(platform, day, entity)`; PostgreSQL walks the same
    /// index backward and stops at the first row (`LATERAL … LIMIT 1`). The
    /// replaced shape read every row of the window of each entity (7 for a
    /// week) to keep the one whose `next_day` is past it (docs/rankings.md
    /// "Keyword boards").
    fn last_row_inside(self, days: &str, key: &str, matches: &str, [platform, first, last]: [&str; 3]) -> String {
        match self {
            Dialect::Sqlite => format!(
                "(SELECT r.* FROM ({matches}) m CROSS JOIN {days} r WHERE r.platform = {platform} \
                 AND r.{key} = m.match_id AND r.day = (SELECT max(x.day) FROM {days} x{} \
                 WHERE x.{key} = m.match_id AND x.day >= {first} AND x.day <= {last}))",
                self.entity_index(days, key)
            ),
            Dialect::Postgres => format!(
                "(SELECT r.* FROM ({matches}) m CROSS JOIN LATERAL (SELECT * FROM {days} x WHERE x.{key} = m.match_id \
                 AND x.platform = {platform} AND x.day >= {first} AND x.day <= {last} ORDER BY x.day DESC LIMIT 1) r)"
            ),
        }
    }

    /// How a query names the `(entity, day)` index of `days` (SQLite is
    /// told; PostgreSQL chooses).
    fn entity_index(self, days: &str, key: &str) -> String {
        match self {
            Dialect::Sqlite => format!(" INDEXED BY {days}_{key}"),
            Dialect::Postgres => String::new(),
        }
    }

    /// The works matching `q.text` ([`Dialect::capped_matches`]):
    /// `Ok(None)` without a text, `Err(())` when the text has no terms.
    fn board_matches(self, c: &mut Conditions, q: &BoardQuery) -> Result<Option<String>, ()> {
        let Some(text) = &q.text else { return Ok(None) };
        let filter = MatchFilter {
            platform: &q.platform,
            text,
            category: q.category.as_deref(),
            published_from: q.published_from,
            published_to: q.published_to,
            matched: q.matched.as_deref(),
            by_likes: false,
        };
        self.capped_matches(c, &filter).map(Some).ok_or(())
    }

    /// `value IS NOT NULL [AND value >= min]`.
    fn value_filter(self, c: &mut Conditions, value: &str, q: &BoardQuery) {
        c.push(format!("{value} IS NOT NULL"));
        if let Some(min) = q.at_least {
            let ph = c.bind(Param::Int(min));
            c.push(format!("{value} >= {ph}"));
        }
    }

    /// A limited board: `value` descending, `name` (code points), `id`;
    /// every entry (no limit): by `id`, the rows' stored order.
    fn board_order(self, q: &BoardQuery, value: &str, name: &str, id: &str) -> String {
        match q.limit {
            Some(_) => format!("{value} DESC, {}, {id}", self.binary(name)),
            None => id.to_owned(),
        }
    }

    fn limit(self, c: &mut Conditions, q: &BoardQuery) -> String {
        match q.limit {
            Some(n) => format!(" LIMIT {}", c.bind(Param::Int(i64::from(n)))),
            None => String::new(),
        }
    }

    /// [`crate::ContentStore::work_board`]: rows of [`sql::WORK_COLUMNS`],
    /// [`sql::AUTHOR_COLUMNS`] and `board_value`, in board order; `None`
    /// when the board's text has no terms (an empty board).
    pub fn work_board(self, q: &BoardQuery) -> StoreResult<Option<(String, Vec<Param>)>> {
        let counter = work_counter(q.counter)?;
        let mut c = Conditions::default();
        let Ok(matches) = self.board_matches(&mut c, q) else { return Ok(None) };
        if level_walk(q)
            && let Some(limit) = q.limit
        {
            return Ok(Some(self.level_board(c, q, counter, limit)));
        }
        let (from, value) = if let (Some(board), Some(matches)) = (q.stored_values, matches.as_deref()) {
            self.stored_values(&mut c, board, matches)
        } else if q.counter == Counter::Interactions {
            self.snapshot_rows(&mut c, q, matches.as_deref())
        } else {
            let rows = self.window_rows(&mut c, &WORK_DAYS, q, matches.as_deref());
            let value = rows.value(counter, q.measure);
            (rows.from, value)
        };
        let order = |value: &str| self.board_order(q, value, "w.title", "w.id");
        if let Some(size) = q.limit.filter(|_| matches.is_some() && ranks_before_works(q)) {
            let statement = self.values_then_works(&mut c, q, &from, &value, size);
            return Ok(Some((self.placeholders(statement), c.params)));
        }
        let inner = {
            let author_join = self.work_board_filters(&mut c, q, &value);
            let limit = self.limit(&mut c, q);
            let works = self.candidate_works(matches.is_some(), "e.work");
            format!(
                "SELECT w.id AS board_id, {value} AS board_value FROM {from}{works}{author_join}{} ORDER BY {}{limit}",
                c.where_sql(),
                order(&value)
            )
        };
        let statement = format!(
            "SELECT {}, {}, p.board_value FROM ({inner}) p JOIN works w ON w.id = p.board_id \
             LEFT JOIN accounts au ON au.platform = w.platform AND au.platform_id = w.author_id ORDER BY {}",
            sql::WORK_COLUMNS,
            sql::AUTHOR_COLUMNS,
            order("p.board_value")
        );
        Ok(Some((self.placeholders(statement), c.params)))
    }

    /// The matches' rows of a board of keyword values (`FROM … e`, one per
    /// match holding a value, columns `work` and `value`) and its value:
    /// per match one probe of `board_values`' key `(board, work)`, the
    /// matches the outer loop: SQLite is told so (`CROSS JOIN` keeps the
    /// order written; at 1,000,000 works, left to choose, it walked the
    /// board's 333,000 rows and looked each up among the matches), and
    /// PostgreSQL looks each up in its own subquery (`LATERAL … OFFSET 0`),
    /// so that no plan reads the whole board to join it (as for the works,
    /// [`Dialect::candidate_works`]).
    fn stored_values(self, c: &mut Conditions, board: i64, matches: &str) -> (String, String) {
        let board = c.bind(Param::Int(board));
        let probe = match self {
            Dialect::Sqlite => format!("CROSS JOIN board_values s ON s.board = {board} AND s.work = m.match_id"),
            Dialect::Postgres => format!(
                "CROSS JOIN LATERAL (SELECT x.value FROM board_values x WHERE x.board = {board} \
                 AND x.work = m.match_id OFFSET 0) s"
            ),
        };
        (format!("(SELECT m.match_id AS work, s.value FROM ({matches}) m {probe}) e"), "e.value".to_owned())
    }

    /// [`crate::rankings::board_tables::BoardTables::put_values`]'s
    /// statement: `INSERT INTO board_values (board, work, value)` of every
    /// work of `q`'s platform whose value of `q`'s counter and measure over
    /// `q`'s window is known (and at least `q.at_least`) and which passes
    /// `q`'s filters on works and authors (e.g. a followers bound),
    /// computed by the expressions and conditions a keyword board applies
    /// per match ([`Dialect::work_board`]; `q`'s text and limit are not
    /// read), so a match's stored value is the one it would be given at
    /// read time.
    ///
    /// # Errors
    /// [`crate::StoreError::Invalid`] for a counter works do not have.
    pub fn work_values(self, q: &BoardQuery, board: i64) -> StoreResult<(String, Vec<Param>)> {
        let counter = work_counter(q.counter)?;
        let mut c = Conditions::default();
        let board = c.bind(Param::Int(board));
        let (from, value) = if q.counter == Counter::Interactions {
            self.snapshot_rows(&mut c, q, None)
        } else {
            let rows = self.window_rows(&mut c, &WORK_DAYS, q, None);
            let value = rows.value(counter, q.measure);
            (rows.from, value)
        };
        let author_join = self.work_board_filters(&mut c, q, &value);
        let works =
            if filters_works(q) { format!(" JOIN works w ON w.id = e.work{author_join}") } else { String::new() };
        let statement = format!(
            "INSERT INTO board_values (board, work, value) SELECT {board}, e.work, {value} FROM {from}{works}{}",
            c.where_sql()
        );
        Ok((self.placeholders(statement), c.params))
    }

    /// A keyword board's statement (the columns of
    /// [`crate::ContentStore::work_board`], in board order) ranked by value
    /// before any work is looked up: the matches' values (`v`, with the
    /// value's own conditions), then the board's rows
    /// ([`Dialect::rows_at_or_above_cut`]). The same rows as the general
    /// shape, which looks up every match's work first. Only for a board
    /// whose filters need no work ([`ranks_before_works`]). The shape before
    /// it returned the ids in board order and looked the works up again
    /// around them, with their authors (500 works twice for 点赞TOP500).
    fn values_then_works(self, c: &mut Conditions, q: &BoardQuery, from: &str, value: &str, size: u32) -> String {
        self.value_filter(c, value, q);
        let filter = c.where_sql();
        c.clauses.clear();
        let (cut, rows) = self.rows_at_or_above_cut(c, q, "v", size, true);
        format!(
            "WITH v AS MATERIALIZED (SELECT e.work AS work, {value} AS board_value FROM {from}{filter}), {cut} {rows}"
        )
    }

    /// One board's rows out of the values `values` (a `WITH` entry of the
    /// statement, columns `work` and `board_value`, the board's own
    /// conditions applied), ranked before any work is looked up: the
    /// board's `size`-th highest value (the `WITH` entry `cut_<values>`,
    /// returned first); only the rows at or above it joined to their works
    /// (for the title that orders equal values, and the columns returned)
    /// and, with `authors`, their authors, once each, in board order,
    /// `size` of them: [`sql::WORK_COLUMNS`], [`sql::AUTHOR_COLUMNS`] with
    /// `authors`, and `board_value`. Every row of the board is at or above
    /// the cut, and every row tied with it is kept for the title to order
    /// (fewer than `size` rows: no cut, all kept).
    fn rows_at_or_above_cut(
        self,
        c: &mut Conditions,
        q: &BoardQuery,
        values: &str,
        size: u32,
        authors: bool,
    ) -> (String, String) {
        let skip = c.bind(Param::Int(i64::from(size.saturating_sub(1))));
        let limit = c.bind(Param::Int(i64::from(size)));
        let works = self.candidate_works(true, "v.work");
        let cut = format!(
            "cut_{values} AS (SELECT board_value FROM {values} ORDER BY board_value DESC LIMIT 1 OFFSET {skip})"
        );
        let (author_columns, author_join) =
            if authors { (format!(", {}", sql::AUTHOR_COLUMNS), self.author_lookup()) } else { (String::new(), "") };
        let rows = format!(
            "SELECT {}{author_columns}, v.board_value FROM {values} v{works}{author_join} \
             WHERE v.board_value >= COALESCE((SELECT board_value FROM cut_{values}), v.board_value) \
             ORDER BY {} LIMIT {limit}",
            sql::WORK_COLUMNS,
            self.board_order(q, "v.board_value", "w.title", "w.id")
        );
        (cut, rows)
    }

    /// [`crate::ContentStore::value_boards`]' statement: keyword boards
    /// over the same matches, each reading a built board of keyword values
    /// (`BoardQuery::stored_values`), ranked together. Each match's rows of
    /// `board_values` are read with one descent of its key `(work, board)`
    /// (migration 0021; `r`: the match's values of every board, side by
    /// side in the key), where a statement per board probed each match once
    /// per board; each board then takes its own from them (`v<i>`, with its
    /// conditions) and ranks them as a single board does
    /// ([`Dialect::rows_at_or_above_cut`]), without authors. The rows:
    /// `board_no` (the board's index in `queries`), [`sql::WORK_COLUMNS`]
    /// and `board_value`, each board's in board order, in no order between
    /// boards. `None` unless there are at least two boards and every one
    /// has stored values, the same matches, a limit and no filter that
    /// reads a work ([`ranks_before_works`]).
    pub fn value_boards(self, queries: &[&BoardQuery]) -> Option<(String, Vec<Param>)> {
        let first = queries.first()?;
        let matched = first.matched.as_deref()?;
        let fits = |q: &&BoardQuery| {
            q.stored_values.is_some()
                && q.limit.is_some()
                && q.matched.as_deref() == Some(matched)
                && ranks_before_works(q)
        };
        if queries.len() < 2 || !queries.iter().all(fits) {
            return None;
        }
        let mut c = Conditions::default();
        let matches = self.board_matches(&mut c, first).ok()??;
        // One descent per match, the matches the outer loop: SQLite is told
        // so (`CROSS JOIN`, as `Dialect::stored_values`), PostgreSQL reads
        // each match's rows in a subquery of its own.
        let probe = match self {
            Dialect::Sqlite => "CROSS JOIN board_values s ON s.work = m.match_id",
            Dialect::Postgres => {
                "CROSS JOIN LATERAL (SELECT x.board, x.value FROM board_values x WHERE x.work = m.match_id OFFSET 0) s"
            }
        };
        let mut ctes =
            vec![format!("r AS MATERIALIZED (SELECT m.match_id AS work, s.board, s.value FROM ({matches}) m {probe})")];
        let mut boards = Vec::new();
        for (i, q) in queries.iter().enumerate() {
            let board = c.bind(Param::Int(q.stored_values?));
            c.push(format!("r.board = {board}"));
            self.value_filter(&mut c, "r.value", q);
            ctes.push(format!("v{i} AS MATERIALIZED (SELECT r.work, r.value AS board_value FROM r{})", c.where_sql()));
            c.clauses.clear();
            let (cut, rows) = self.rows_at_or_above_cut(&mut c, q, &format!("v{i}"), q.limit?, false);
            ctes.push(cut);
            boards.push(format!("SELECT CAST({i} AS BIGINT) AS board_no, b{i}.* FROM ({rows}) b{i}"));
        }
        let statement = format!("WITH {} {}", ctes.join(", "), boards.join(" UNION ALL "));
        Some((self.placeholders(statement), c.params))
    }

    /// The join of each row's stored author `au` (of its work `w`), looked
    /// up once per row: on PostgreSQL in a subquery of its own (`LATERAL …
    /// LIMIT 1` by the unique key), so that no estimate turns it into a hash
    /// of the whole `accounts` table.
    fn author_lookup(self) -> &'static str {
        match self {
            Dialect::Sqlite => " LEFT JOIN accounts au ON au.platform = w.platform AND au.platform_id = w.author_id",
            Dialect::Postgres => {
                " LEFT JOIN LATERAL (SELECT * FROM accounts x WHERE x.platform = w.platform \
                 AND x.platform_id = w.author_id LIMIT 1) au ON true"
            }
        }
    }

    /// The join of each candidate row to its work `w` (`work`: the row's
    /// work id, e.g. `e.work`). Over a
    /// keyword's matches on PostgreSQL with the index-ordered shapes
    /// ([`crate::plans`]), a lookup per row (`LATERAL … OFFSET 0`, which the
    /// planner cannot turn into another join): left to itself, given about
    /// 2,000 rows, it hashed the whole `works` table (`Hash` over a `Seq Scan
    /// on works`, 120 ms at 100,000 works; docs/rankings.md "Keyword
    /// boards").
    fn candidate_works(self, matched: bool, work: &str) -> String {
        match self {
            Dialect::Postgres if matched && crate::plans::index_ordered() => {
                format!(" CROSS JOIN LATERAL (SELECT * FROM works x WHERE x.id = {work} OFFSET 0) w")
            }
            _ => format!(" JOIN works w ON w.id = {work}"),
        }
    }

    /// The rows of a board of [`Counter::Interactions`] (`FROM … e`, one
    /// per candidate work, column `work`) and its value: read from the
    /// snapshots, as the series computation does ("Levels and gains"): the
    /// level is the last snapshot captured from the window's first
    /// midnight to its last day's 23:59:59, the baseline the last one
    /// captured on the day before, else the first inside the window; each
    /// is one range of the snapshots' primary key `(work, captured_at)` per
    /// work, a few rows. The candidates are the keyword's capped matches
    /// (`matches`), else every work of the platform.
    fn snapshot_rows(self, c: &mut Conditions, q: &BoardQuery, matches: Option<&str>) -> (String, String) {
        let from = c.bind(Param::Time(day_start(q.first.pred_opt().unwrap_or(q.first))));
        let start = c.bind(Param::Time(day_start(q.first)));
        let to = c.bind(Param::Time(day_end(q.last)));
        let candidates = match matches {
            Some(matches) => format!("SELECT m.match_id AS work FROM ({matches}) m"),
            None => {
                let platform = c.bind(Param::Text(q.platform.clone()));
                format!("SELECT x.id AS work FROM works x WHERE x.platform = {platform}")
            }
        };
        let sum = "CASE WHEN s.likes IS NULL AND s.collects IS NULL AND s.comments IS NULL AND s.shares IS NULL \
                   THEN NULL ELSE COALESCE(s.likes, 0) + COALESCE(s.collects, 0) + COALESCE(s.comments, 0) \
                   + COALESCE(s.shares, 0) END";
        let snapshot = |since: &str, order: &str| {
            format!(
                "(SELECT {sum} FROM work_snapshots s WHERE s.work = k.work AND s.captured_at >= {since} \
                 AND s.captured_at <= {to} ORDER BY {order} LIMIT 1)"
            )
        };
        let level = snapshot(&start, "s.captured_at DESC");
        let before = format!("CASE WHEN s.captured_at < {start} THEN");
        let base = snapshot(&from, &format!("{before} 0 ELSE 1 END, {before} s.captured_at END DESC, s.captured_at"));
        let columns = match q.measure {
            Measure::Level => format!("{level} AS level"),
            Measure::Gain => format!("{level} AS level, {base} AS base"),
        };
        let value = match q.measure {
            Measure::Level => "e.level",
            Measure::Gain => "(e.level - e.base)",
        };
        let fence = self.evaluated_once();
        (format!("(SELECT k.work, {columns} FROM ({candidates}) k{fence}) e"), value.to_owned())
    }

    /// The clause that keeps a subquery in `FROM` from being merged into
    /// the statement around it, so that its columns are computed once per
    /// row: an `OFFSET` (PostgreSQL does not pull up a subquery with one;
    /// SQLite does not flatten one, and writes it after `LIMIT -1`, no
    /// limit). Merged, a column that is a correlated subquery is copied
    /// into every place that names it: 单日互动's level and baseline, named
    /// by the value's two conditions and its order, each ran three times per
    /// match (`EXPLAIN` showed three copies of each on both backends;
    /// docs/rankings.md "Keyword boards: each snapshot read once").
    fn evaluated_once(self) -> &'static str {
        match self {
            Dialect::Sqlite => " LIMIT -1 OFFSET 0",
            Dialect::Postgres => " OFFSET 0",
        }
    }

    /// A limited level board over a window longer than a day, in board
    /// order from an index: a work's level is its row holding the last
    /// snapshot inside the window, a row of the last day or a row before it
    /// followed by a gap past the window. The last day's rows are read by
    /// `(platform, day, last_<counter>)` (`work_days_views` for reads)
    /// highest first, filtered, and stop at `limit`; the gap rows (the gap
    /// index, read first on their own) are all read; the board is the best `limit` of both. Without a
    /// baseline, no day-before row is looked up. The same rows and order as
    /// [`Dialect::work_board`]'s general shape, which reads and sorts every
    /// row of the window.
    fn level_board(self, mut c: Conditions, q: &BoardQuery, counter: &str, limit: u32) -> (String, Vec<Param>) {
        let platform = c.bind(Param::Text(q.platform.clone()));
        let first = c.bind(Param::Date(q.first));
        let last = c.bind(Param::Date(q.last));
        // One category: its own rows, by the copy of the works' category in
        // `work_days` (migration 0022), so the walk passes no row of another
        // category. The works' own `category` is then not compared again:
        // PostgreSQL took the two conditions for independent, expected 1 in
        // 56 of the category's rows to pass the join, and sorted them all
        // instead of walking them (docs/rankings.md "Index-ordered boards").
        let category = q.category.as_ref().map(|category| c.bind(Param::Text(category.clone())));
        let index = self.level_index(counter, category.is_some());
        let of_category = category.as_ref().map_or(String::new(), |ph| format!(" AND e.category = {ph}"));
        let value = format!("e.last_{counter}");
        let author_join = self.work_board_filters(&mut c, &BoardQuery { category: None, ..q.clone() }, &value);
        let filters = c.clauses.join(" AND ");
        let limit = format!(" LIMIT {}", c.bind(Param::Int(i64::from(limit))));
        let order = |value: &str| self.board_order(q, value, "w.title", "w.id");
        let select = format!("SELECT w.id AS board_id, {value} AS board_value FROM {WORK_DAYS_NAME} e");
        let join = format!(" JOIN works w ON w.id = e.work{author_join}");
        let last_day = format!(
            "{select}{index}{join} WHERE e.platform = {platform} AND e.day = {last}{of_category} AND {filters} \
             ORDER BY {}{limit}",
            order(&value)
        );
        // The gap rows first, on their own (their partial index): joined
        // to the works inside the statement, PostgreSQL chose to look up
        // the window's rows of every work of the category instead. Their
        // category is compared after: inside, PostgreSQL read the category's
        // rows of every day of the window (136,359 at 1,000,000 works).
        let gap_rows = format!(
            "WITH gap_rows AS MATERIALIZED (SELECT g.work, g.last_{counter}, g.category FROM {WORK_DAYS_NAME} g{} \
             WHERE g.platform = {platform} AND g.day >= {first} AND g.day < {last} AND {} AND g.next_day > {last})",
            self.gap_index(WORK_DAYS_NAME),
            self.gap_after("g.")
        );
        let gaps = format!(
            "SELECT w.id AS board_id, {value} AS board_value FROM gap_rows e{join} WHERE {filters}{of_category}"
        );
        let statement = format!(
            "{gap_rows} SELECT {}, {}, p.board_value FROM (SELECT * FROM ({last_day}) d UNION ALL \
             SELECT * FROM ({gaps}) g) p JOIN works w ON w.id = p.board_id LEFT JOIN accounts au \
             ON au.platform = w.platform AND au.platform_id = w.author_id ORDER BY {}{limit}",
            sql::WORK_COLUMNS,
            sql::AUTHOR_COLUMNS,
            order("p.board_value")
        );
        (self.placeholders(statement), c.params)
    }

    /// The setting a level board's walk ([`level_walk`]) is planned
    /// under, in a transaction of its own: on PostgreSQL the same
    /// `random_page_cost = 1.1` as a capped relevance search
    /// ([`Dialect::newest_walk_setting`]). With the default cost, on a store
    /// whose `work_days` rows lie in the heap by work rather than by day (the
    /// bench's, and every store after migration 0022 rewrote its rows), the
    /// planner read the window's gap rows by a sequential scan of the whole
    /// table (1.3 s at 1,000,000 works, where the gap index finds them in
    /// 0.1 ms) and sorted a category's rows instead of walking them
    /// (docs/rankings.md "Index-ordered boards"). `None` on SQLite.
    pub fn level_walk_setting(self) -> Option<&'static str> {
        self.newest_walk_setting()
    }

    /// How a level board names the index of a day's rows in its counter's
    /// order: SQLite is told for reads (`work_days_views`, migration 0014;
    /// of one category, `work_days_category_views`, migration 0022);
    /// PostgreSQL chooses.
    fn level_index(self, counter: &str, of_category: bool) -> String {
        match (self, counter) {
            (Dialect::Sqlite, "views") if of_category => {
                format!(" INDEXED BY {}", crate::days::WORK_DAYS_CATEGORY_INDEX)
            }
            (Dialect::Sqlite, "views") => " INDEXED BY work_days_views".to_owned(),
            _ => String::new(),
        }
    }

    /// The conditions of a work board ranking by `value`: the value known
    /// (and at least `q.at_least`), the author's followers, the works'
    /// filters; returns the join of the author (`au`) they need, if any.
    fn work_board_filters(self, c: &mut Conditions, q: &BoardQuery, value: &str) -> &'static str {
        self.value_filter(c, value, q);
        self.work_filters(c, q);
        let Some(below) = q.author_fans_below else { return "" };
        c.compare("au.fans <", Param::Int(below));
        " JOIN accounts au ON au.platform = w.platform AND au.platform_id = w.author_id"
    }

    /// Category, publish time and work type conditions on works (`w`).
    fn work_filters(self, c: &mut Conditions, q: &BoardQuery) {
        if let Some(category) = &q.category {
            c.compare("w.category =", Param::Text(category.clone()));
        }
        if let Some(from) = q.published_from {
            c.compare("w.published_at >=", Param::Time(from));
        }
        if let Some(to) = q.published_to {
            c.compare("w.published_at <=", Param::Time(to));
        }
        if !q.work_types.is_empty() {
            let phs: Vec<String> = q.work_types.iter().map(|t| c.bind(Param::Text(t.clone()))).collect();
            c.push(format!("w.work_type IN ({})", phs.join(", ")));
        }
    }

    /// [`crate::ContentStore::account_board`]: rows of
    /// [`sql::ACCOUNT_COLUMNS`], `board_value` and `board_likes_gained`, in
    /// board order.
    pub fn account_board(self, q: &BoardQuery) -> StoreResult<(String, Vec<Param>)> {
        let counter = account_counter(q.counter)?;
        let mut c = Conditions::default();
        let rows = self.window_rows(&mut c, &ACCOUNT_DAYS, q, None);
        let value = rows.value(counter, q.measure);
        let likes_gained = rows.value("likes", Measure::Gain);
        self.value_filter(&mut c, &value, q);
        if let Some(category) = &q.category {
            c.compare("a.category =", Param::Text(category.clone()));
        }
        let limit = self.limit(&mut c, q);
        let order = |value: &str| self.board_order(q, value, "a.nickname", "a.id");
        let inner = format!(
            "SELECT a.id AS board_id, {value} AS board_value, {likes_gained} AS board_likes_gained FROM {} \
             JOIN accounts a ON a.id = e.account{} ORDER BY {}{limit}",
            rows.from,
            c.where_sql(),
            order(&value)
        );
        let statement = format!(
            "SELECT {}, p.board_value, p.board_likes_gained FROM ({inner}) p JOIN accounts a ON a.id = p.board_id \
             ORDER BY {}",
            sql::ACCOUNT_COLUMNS,
            order("p.board_value")
        );
        Ok((self.placeholders(statement), c.params))
    }

    /// [`crate::ContentStore::author_gains`]: `author, name, views,
    /// likes` per author of the window's works, by `author` (code points).
    pub fn author_gains(self, q: &BoardQuery) -> (String, Vec<Param>) {
        let mut c = Conditions::default();
        let rows = self.window_rows(&mut c, &WORK_DAYS, q, None);
        let positive = |counter: &str| {
            let gain = rows.value(counter, Measure::Gain);
            format!("CAST(COALESCE(sum(CASE WHEN {gain} > 0 THEN {gain} ELSE 0 END), 0) AS BIGINT)")
        };
        let (views, likes) = (positive("views"), positive("likes"));
        self.work_filters(&mut c, q);
        let platform = c.params[0].clone();
        let ph = c.bind(platform);
        let statement = format!(
            "SELECT g.author, COALESCE(au.nickname, g.author) AS name, g.views, g.likes FROM (\
             SELECT COALESCE(w.author_id, '') AS author, {views} AS views, {likes} AS likes FROM {} \
             JOIN works w ON w.id = e.work{} GROUP BY COALESCE(w.author_id, '')) g \
             LEFT JOIN accounts au ON au.platform = {ph} AND au.platform_id = g.author ORDER BY {}",
            rows.from,
            c.where_sql(),
            self.binary("g.author")
        );
        (self.placeholders(statement), c.params)
    }
}

/// Whether [`Dialect::work_board`] reads `q` by the walk of its last day's
/// rows in board order (`Dialect::level_board`, docs/rankings.md
/// "Index-ordered boards"): a level board of a window longer than a day,
/// with a limit and no keyword.
pub(crate) fn level_walk(q: &BoardQuery) -> bool {
    q.text.is_none()
        && q.limit.is_some()
        && q.measure == Measure::Level
        && q.counter != Counter::Interactions
        && q.first < q.last
        && crate::plans::index_ordered()
}

fn work_counter(counter: Counter) -> StoreResult<&'static str> {
    match counter {
        Counter::Likes | Counter::Views | Counter::Interactions => Ok(counter.column()),
        Counter::Fans => Err(crate::StoreError::invalid("counter", "works keep likes, views and interactions")),
    }
}

fn account_counter(counter: Counter) -> StoreResult<&'static str> {
    match counter {
        Counter::Fans | Counter::Likes => Ok(counter.column()),
        Counter::Views | Counter::Interactions => {
            Err(crate::StoreError::invalid("counter", "accounts keep fans and likes"))
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::test_support::sqlite_plan;

    fn query(first: u32, last: u32) -> BoardQuery {
        let day = |d| NaiveDate::from_ymd_opt(2026, 11, d).unwrap();
        BoardQuery {
            platform: "shortvideo".into(),
            category: Some("美食".into()),
            first: day(first),
            last: day(last),
            limit: Some(50),
            ..BoardQuery::default()
        }
    }

    #[test]
    fn one_day_windows_read_one_row_per_entity() {
        let (statement, params) = Dialect::Postgres.work_board(&query(18, 18)).unwrap().unwrap();
        assert!(!statement.contains("JOIN work_days b"));
        assert!(statement.contains("(e.last_likes - CASE WHEN e.prev_day = $4 THEN e.prev_likes ELSE e.first_likes"));
        assert!(statement.contains("w.title COLLATE \"C\""));
        assert_eq!(params[3], Param::Date(NaiveDate::from_ymd_opt(2026, 11, 17).unwrap()));
        assert_eq!(params.last(), Some(&Param::Int(50)));
        let (week, _) = Dialect::Sqlite.work_board(&query(12, 18)).unwrap().unwrap();
        assert!(week.contains("LEFT JOIN work_days b ON b.platform = ?1 AND b.day = ?4 AND b.work = e.work"));
        assert!(week.contains("ELSE (SELECT x.first_likes FROM work_days x WHERE x.work = e.work AND x.day >= ?2"));
        assert!(!week.contains('$'));
        let level = BoardQuery { counter: Counter::Views, measure: Measure::Level, ..query(12, 18) };
        let (sqlite, params) = Dialect::Sqlite.work_board(&level).unwrap().unwrap();
        // One category: its own rows (migration 0022), not the works' column.
        let walk = "FROM work_days e INDEXED BY work_days_category_views JOIN works w ON w.id = e.work WHERE";
        assert!(sqlite.contains(walk), "{sqlite}");
        assert!(sqlite.contains("e.day = ?3 AND e.category = ?4 AND e.last_views IS NOT NULL ORDER BY"));
        assert!(!sqlite.contains("w.category ="), "{sqlite}");
        assert!(
            sqlite.starts_with(
                "WITH gap_rows AS MATERIALIZED (SELECT g.work, g.last_views, g.category FROM work_days g INDEXED BY \
                 work_days_gaps"
            ),
            "gap rows apart"
        );
        let every_category = BoardQuery { category: None, ..level.clone() };
        let (sqlite, _) = Dialect::Sqlite.work_board(&every_category).unwrap().unwrap();
        assert!(sqlite.contains("FROM work_days e INDEXED BY work_days_views JOIN works w ON w.id = e.work WHERE"));
        assert!(!sqlite.contains("e.category"), "{sqlite}");
        assert!(!sqlite.contains("work_days b"), "a level looks up no day-before row");
        assert_eq!(params.last(), Some(&Param::Int(50)));
        let (postgres, _) = Dialect::Postgres.work_board(&level).unwrap().unwrap();
        assert!(postgres.contains("ORDER BY e.last_views DESC, w.title COLLATE \"C\", w.id LIMIT $5) d UNION ALL"));
        let keyword = BoardQuery { text: Some("火锅".into()), matched: Some(vec![3, 1].into()), ..query(18, 18) };
        let (sqlite, _) = Dialect::Sqlite.work_board(&keyword).unwrap().unwrap();
        assert!(
            sqlite.contains("CROSS JOIN work_days r WHERE r.platform = ?2 AND r.day = ?4 AND r.work = m.match_id"),
            "a one-day keyword board probes the day's row by primary key: {sqlite}"
        );
        let keyword_week = BoardQuery { first: query(12, 18).first, ..keyword.clone() };
        let (sqlite, _) = Dialect::Sqlite.work_board(&keyword_week).unwrap().unwrap();
        assert!(
            sqlite.contains(
                "AND r.work = m.match_id AND r.day = (SELECT max(x.day) FROM work_days x INDEXED BY work_days_work"
            ),
            "a week's keyword board reads each work's last row of the window alone: {sqlite}"
        );
        let (postgres, _) = Dialect::Postgres.work_board(&keyword_week).unwrap().unwrap();
        assert!(postgres.contains("CROSS JOIN LATERAL (SELECT * FROM work_days x WHERE x.work = m.match_id"));
        assert!(postgres.contains("ORDER BY x.day DESC LIMIT 1) r) e LEFT JOIN work_days b"));
        let interactions = BoardQuery { counter: Counter::Interactions, ..keyword };
        let (postgres, params) = Dialect::Postgres.work_board(&interactions).unwrap().unwrap();
        assert!(postgres.contains("FROM work_snapshots s WHERE s.work = k.work AND s.captured_at >= $3"));
        assert!(postgres.contains("ORDER BY CASE WHEN s.captured_at < $3 THEN 0 ELSE 1 END"));
        assert!(postgres.contains("ORDER BY (e.level - e.base) DESC, w.title COLLATE \"C\", w.id"));
        assert_eq!(params[1], Param::Time(day_start(NaiveDate::from_ymd_opt(2026, 11, 17).unwrap())));
        let fans = BoardQuery { counter: Counter::Fans, ..query(18, 18) };
        assert!(Dialect::Sqlite.work_board(&fans).is_err(), "works keep no followers");
        assert!(Dialect::Sqlite.account_board(&fans).unwrap().0.contains("e.last_fans"));
    }

    /// 单日互动's level and baseline are read once per match: SQLite's plan
    /// holds each of the two snapshot reads once (merged into the
    /// statement around them, each was copied three times).
    #[tokio::test]
    async fn the_interactions_board_reads_each_snapshot_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
        let board = BoardQuery {
            text: Some("火锅".into()),
            matched: Some(vec![3, 1].into()),
            counter: Counter::Interactions,
            ..query(17, 18)
        };
        let (statement, params) = Dialect::Sqlite.work_board(&board).unwrap().unwrap();
        let plan = sqlite_plan(&store, &statement, &params).await;
        let reads = plan.iter().filter(|step| step.starts_with("CORRELATED SCALAR SUBQUERY")).count();
        assert_eq!(reads, 2, "{plan:#?}");
    }

    /// A keyword board over stored values (`board` 7 of `query`'s week).
    fn stored_board(board: i64) -> BoardQuery {
        BoardQuery {
            text: Some("火锅".into()),
            matched: Some(vec![3, 1].into()),
            stored_values: Some(board),
            category: None,
            ..query(12, 18)
        }
    }

    /// A store holding boards 7 and 8 of keyword values, 5,000 values each,
    /// with the statistics a store gathers.
    async fn store_with_values(dir: &std::path::Path) -> crate::sqlite::SqliteStore {
        let store = crate::sqlite::SqliteStore::open(&dir.join("store.sqlite")).await.unwrap();
        for statement in [
            "INSERT INTO boards (id, platform, kind, period, first_day, last_day, category) \
             VALUES (7, 'shortvideo', 'k', '7days', '2026-11-12', '2026-11-18', ''), \
             (8, 'shortvideo', 'g', '7days', '2026-11-12', '2026-11-18', '')",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) \
             INSERT INTO board_values (board, work, value) SELECT b.id, i, i FROM n, boards b",
            "ANALYZE",
        ] {
            sqlx::query(statement).execute(&store.pool).await.unwrap();
        }
        store
    }

    /// A keyword board over stored values loops over the matches and
    /// probes each one's value by the key `(work, board)`: SQLite's plan
    /// scans the matches first (left to choose, it walked the whole board
    /// and looked each row up among the matches).
    #[tokio::test]
    async fn stored_values_are_probed_per_match() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with_values(dir.path()).await;
        let board = stored_board(7);
        let (statement, params) = Dialect::Sqlite.work_board(&board).unwrap().unwrap();
        let plan = sqlite_plan(&store, &statement, &params).await;
        let step = |prefix: &str| plan.iter().position(|s| s.starts_with(prefix));
        let (matches, probe) = (
            plan.iter().position(|s| s.contains("VIRTUAL TABLE")),
            step("SEARCH s USING PRIMARY KEY (work=? AND board=?)"),
        );
        assert!(matches.is_some() && probe.is_some() && matches < probe, "{plan:#?}");
        assert!(!statement.contains("work_days"), "no value is computed: {statement}");
    }

    /// Boards of keyword values ranked together read each match's values
    /// of both boards with one search of the key by its work, from the
    /// matches on, and compute none.
    #[tokio::test]
    async fn value_boards_read_a_match_once_for_every_board() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with_values(dir.path()).await;
        let (by_level, by_gain) = (stored_board(7), BoardQuery { measure: Measure::Gain, ..stored_board(8) });
        let (statement, params) = Dialect::Sqlite.value_boards(&[&by_level, &by_gain]).unwrap();
        let plan = sqlite_plan(&store, &statement, &params).await;
        let probes: Vec<usize> =
            plan.iter().enumerate().filter(|(_, s)| s.contains(" s USING ")).map(|(i, _)| i).collect();
        let matches = plan.iter().position(|s| s.contains("VIRTUAL TABLE"));
        assert_eq!(probes.len(), 1, "{plan:#?}");
        assert!(plan[probes[0]].starts_with("SEARCH s USING PRIMARY KEY (work=?)"), "{plan:#?}");
        assert!(matches.is_some_and(|m| m < probes[0]), "{plan:#?}");
        assert!(!statement.contains("work_days"), "no value is computed: {statement}");
        let without_values = BoardQuery { stored_values: None, ..by_gain.clone() };
        let published = BoardQuery { published_from: Some(day_start(by_gain.first)), ..by_gain.clone() };
        for other in [&without_values, &published] {
            assert!(Dialect::Sqlite.value_boards(&[&by_level, other]).is_none(), "{other:?}");
        }
        assert!(Dialect::Sqlite.value_boards(&[&by_level]).is_none(), "one board is read alone");
    }
}
