//! Per-day aggregates of the snapshots (migration 0006, docs/rankings.md
//! "Store"): `work_days` and `account_days`, one row per entity and
//! Asia/Shanghai day with
//!
//! - the first and the last snapshot of that day (`first_*`, `last_*`),
//! - the last snapshot of the previous day that has one (`prev_day`,
//!   `prev_*`; `NULL` when none),
//! - the next day that has one (`next_day`, `9999-12-31` when none); a
//!   partial index holds the rows followed by a gap (no snapshot the next
//!   day), the only rows before a window's last day that can hold an
//!   entity's last snapshot inside it.
//!
//! Triggers on the snapshot tables keep the rows in the snapshot's own
//! transaction, whatever writes it (the store's write path, an import, a
//! bulk insert); the migration backfills them from the stored snapshots.
//! The store's bulk path on PostgreSQL switches the triggers off for its
//! transactions ([`BULK_SETTING`], migration 0012) and recomputes the
//! touched days set-based instead (`Dialect::bulk_days`); retention
//! deletes the rows of pruned days ([`crate::retention`]).
//! With these links a ranking window `[F, L]` reads, per entity, the row
//! that holds its last snapshot inside the window (`day` in `[F, L]` and
//! `next_day > L`) and, for the baseline, the first row inside the window:
//! its `prev_*` when `prev_day = F − 1`, else its `first_*` — exactly the
//! level and gain of `rankings::series`. The SQL text is built here for
//! both backends from one template per table, so the two tables and the
//! two backends cannot drift apart.

use super::listing::Dialect;

/// One aggregated snapshot table.
#[derive(Debug, Clone, Copy)]
pub struct DayTable {
    /// The aggregate table.
    pub days: &'static str,
    /// The snapshot table it follows.
    pub snapshots: &'static str,
    /// The entity table (`id`, `platform`).
    pub parent: &'static str,
    /// The entity id column of both tables.
    pub key: &'static str,
    /// The counters kept (snapshot column names).
    pub counters: [&'static str; 2],
    /// The entity's own columns each row copies (migration 0022): set when
    /// the row is made, and kept up by a trigger on the entity table when
    /// the entity's value changes.
    pub copied: &'static [&'static str],
}

/// Works: likes and views (reads of articles).
pub const WORK_DAYS: DayTable = DayTable {
    days: "work_days",
    snapshots: "work_snapshots",
    parent: "works",
    key: "work",
    counters: ["likes", "views"],
    copied: &["category"],
};

/// Accounts: followers and likes.
pub const ACCOUNT_DAYS: DayTable = DayTable {
    days: "account_days",
    snapshots: "account_snapshots",
    parent: "accounts",
    key: "account",
    counters: ["fans", "likes"],
    copied: &[],
};

/// The `next_day` of an entity's newest day.
pub const NO_NEXT_DAY: &str = "9999-12-31";

impl Dialect {
    /// The Asia/Shanghai date of the time `expr`.
    pub(super) fn shanghai_day(self, expr: &str) -> String {
        match self {
            // Shanghai has kept UTC+8 without daylight saving since 1991.
            Dialect::Sqlite => format!("date({expr}, '+8 hours')"),
            Dialect::Postgres => format!("(({expr}) AT TIME ZONE 'Asia/Shanghai')::date"),
        }
    }

    /// A row's next day with a snapshot is not the following day: the
    /// condition of the gap index and of the queries that use it, which
    /// must spell it the same way (`alias` = `""` or `"r."`).
    pub(super) fn gap_after(self, alias: &str) -> String {
        match self {
            Dialect::Sqlite => format!("{alias}next_day > date({alias}day, '+1 day')"),
            Dialect::Postgres => format!("{alias}next_day > {alias}day + 1"),
        }
    }

    /// How a query names the gap index of `days` (SQLite, without
    /// statistics, is told; PostgreSQL chooses it).
    pub(super) fn gap_index(self, days: &str) -> String {
        match self {
            Dialect::Sqlite => format!(" INDEXED BY {days}_gaps"),
            Dialect::Postgres => String::new(),
        }
    }

    pub(super) fn no_next_day(self) -> String {
        match self {
            Dialect::Sqlite => format!("'{NO_NEXT_DAY}'"),
            Dialect::Postgres => format!("DATE '{NO_NEXT_DAY}'"),
        }
    }

    /// (id, day, time, counter) column types.
    fn day_types(self) -> [&'static str; 4] {
        match self {
            Dialect::Sqlite => ["INTEGER", "TEXT", "TEXT", "INTEGER"],
            Dialect::Postgres => ["BIGINT", "DATE", "TIMESTAMPTZ", "BIGINT"],
        }
    }

    /// Migration 0006: both aggregate tables, their backfill and triggers.
    pub fn days_migration(self) -> String {
        [WORK_DAYS, ACCOUNT_DAYS].iter().map(|t| self.day_table_sql(t)).collect::<Vec<_>>().join("\n")
    }

    /// Migration 0006's text for `t`, as it was applied: without the
    /// copied columns, which migration 0022 adds (sqlx checks an applied
    /// migration's text by its checksum).
    fn day_table_sql(self, t: &DayTable) -> String {
        let t = &DayTable { copied: &[], ..*t };
        let DayTable { days, parent, key, counters: [c1, c2], .. } = *t;
        let [id, day, time, counter] = self.day_types();
        let without_rowid = if self == Dialect::Sqlite { " WITHOUT ROWID" } else { "" };
        let table = format!(
            "CREATE TABLE {days} (\n    platform TEXT NOT NULL,\n    day {day} NOT NULL,\n    \
             {key} {id} NOT NULL REFERENCES {parent} (id) ON DELETE CASCADE,\n    \
             first_at {time} NOT NULL, first_{c1} {counter}, first_{c2} {counter},\n    \
             last_at {time} NOT NULL, last_{c1} {counter}, last_{c2} {counter},\n    \
             prev_day {day}, prev_{c1} {counter}, prev_{c2} {counter},\n    \
             next_day {day} NOT NULL,\n    PRIMARY KEY (platform, day, {key})\n){without_rowid};\n\
             CREATE INDEX {days}_{key} ON {days} ({key}, day);\n\
             CREATE INDEX {days}_gaps ON {days} (platform, day) WHERE {};\n",
            self.gap_after("")
        );
        let backfill = self.days_backfill(t);
        format!("-- {days}: docs/rankings.md \"Store\", store/days.rs.\n{table}{backfill}{}", self.day_triggers(t))
    }

    /// The statement that fills `t`'s aggregates from the stored snapshots
    /// (window functions; migration 0006's backfill). Tests run it on an
    /// emptied table to check the aggregates the store keeps.
    pub fn days_backfill(self, t: &DayTable) -> String {
        let DayTable { days, snapshots, parent, key, counters: [c1, c2], copied } = *t;
        let snapshot_day = self.shanghai_day("captured_at");
        let columns = format!(
            "platform, day, {key}, {}first_at, first_{c1}, first_{c2}, last_at, last_{c1}, last_{c2}, \
             prev_day, prev_{c1}, prev_{c2}, next_day",
            copied_list(copied, "")
        );
        let no_next = self.no_next_day();
        let ranked = |order: &str| {
            format!(
                "SELECT {key}, {snapshot_day} AS day, captured_at, {c1}, {c2}, row_number() OVER \
                 (PARTITION BY {key}, {snapshot_day} ORDER BY captured_at{order}) AS n FROM {snapshots}"
            )
        };
        format!(
            "INSERT INTO {days} ({columns})\nSELECT platform, day, {key}, {}first_at, first_{c1}, first_{c2}, last_at, \
             last_{c1}, last_{c2}, lag(day) OVER by_day, lag(last_{c1}) OVER by_day, lag(last_{c2}) OVER by_day, \
             COALESCE(lead(day) OVER by_day, {no_next})\nFROM (SELECT o.platform, f.day, f.{key}, {}\
             f.captured_at AS first_at, f.{c1} AS first_{c1}, f.{c2} AS first_{c2}, l.captured_at AS last_at, \
             l.{c1} AS last_{c1}, l.{c2} AS last_{c2}\n  FROM ({}) f\n  JOIN ({}) l ON l.{key} = f.{key} AND \
             l.day = f.day AND l.n = 1\n  JOIN {parent} o ON o.id = f.{key}\n  WHERE f.n = 1) d\n\
             WINDOW by_day AS (PARTITION BY {key} ORDER BY day);\n",
            copied_list(copied, ""),
            copied_list(copied, "o."),
            ranked(""),
            ranked(" DESC")
        )
    }

    /// The statements run for each inserted or replaced snapshot `NEW`:
    /// upsert its day's row (first and last snapshot of the day; a new row
    /// links to its neighbours), then point the previous day's `next_day`
    /// and the next day's `prev_*` at this day.
    fn day_trigger_body(self, t: &DayTable) -> String {
        let DayTable { days, parent, key, counters: [c1, c2], copied, .. } = *t;
        let d = self.shanghai_day("NEW.captured_at");
        let no_next = self.no_next_day();
        let before = format!("(SELECT max(b.day) FROM {days} b WHERE b.{key} = NEW.{key} AND b.day < {d})");
        let after = format!("(SELECT min(a.day) FROM {days} a WHERE a.{key} = NEW.{key} AND a.day > {d})");
        let keep = |edge: &str, cmp: &str, column: &str| {
            format!(
                "{edge}_{column} = CASE WHEN excluded.{edge}_at {cmp} {days}.{edge}_at THEN excluded.{edge}_{column} \
                 ELSE {days}.{edge}_{column} END"
            )
        };
        let set: Vec<String> = ["first", "last"]
            .iter()
            .zip(["<=", ">="])
            .flat_map(|(edge, cmp)| ["at", c1, c2].map(|c| keep(edge, cmp, c)))
            .collect();
        let current = |c: &str| format!("(SELECT c.last_{c} FROM {days} c WHERE c.{key} = NEW.{key} AND c.day = {d})");
        format!(
            "INSERT INTO {days} (platform, day, {key}, {}first_at, first_{c1}, first_{c2}, last_at, last_{c1}, \
             last_{c2}, prev_day, prev_{c1}, prev_{c2}, next_day)\n  SELECT o.platform, {d}, NEW.{key}, {}\
             NEW.captured_at, NEW.{c1}, NEW.{c2}, NEW.captured_at, NEW.{c1}, NEW.{c2}, p.day, p.last_{c1}, \
             p.last_{c2}, COALESCE({after}, {no_next})\n  FROM {parent} o LEFT JOIN {days} p ON p.{key} = NEW.{key} \
             AND p.day = {before}\n  WHERE o.id = NEW.{key}\n  ON CONFLICT (platform, day, {key}) DO UPDATE SET {};\n\
             UPDATE {days} SET next_day = {d} WHERE {key} = NEW.{key} AND day = {before} AND next_day > {d};\n\
             UPDATE {days} SET prev_day = {d}, prev_{c1} = {}, prev_{c2} = {}\n  WHERE {key} = NEW.{key} AND \
             day = {after};\n",
            copied_list(copied, ""),
            copied_list(copied, "o."),
            set.join(", "),
            current(c1),
            current(c2)
        )
    }

    fn day_triggers(self, t: &DayTable) -> String {
        let body = self.day_trigger_body(t);
        let (days, snapshots) = (t.days, t.snapshots);
        match self {
            Dialect::Sqlite => SQLITE_EVENTS.iter().map(|event| sqlite_day_trigger(t, event, &body)).collect(),
            Dialect::Postgres => format!(
                "{}CREATE TRIGGER {days}_track AFTER INSERT OR UPDATE ON {snapshots} FOR EACH ROW EXECUTE FUNCTION \
                 {days}_track();\n",
                trigger_function("CREATE", &format!("{days}_track"), &body)
            ),
        }
    }
}

/// The events of SQLite's row triggers on a snapshot table: SQLite has no
/// `INSERT OR UPDATE` trigger, so each gets the same body.
const SQLITE_EVENTS: [&str; 2] = ["INSERT", "UPDATE"];

/// SQLite's trigger `<days>_on_<event>` running `body` after each `event`
/// on `t`'s snapshot table.
fn sqlite_day_trigger(t: &DayTable, event: &str, body: &str) -> String {
    format!(
        "CREATE TRIGGER {}_on_{} AFTER {event} ON {} BEGIN\n{body}END;\n",
        t.days,
        event.to_lowercase(),
        t.snapshots
    )
}

/// PostgreSQL's trigger function `name()` running `body` (`create` is
/// `CREATE` or `CREATE OR REPLACE`).
fn trigger_function(create: &str, name: &str, body: &str) -> String {
    format!(
        "{create} FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $body$\nBEGIN\n{body}RETURN NULL;\nEND\n$body$;\n"
    )
}

/// Migration 0006's backfill of `t` (`Dialect::days_backfill`) for the
/// backend named `backend` (`sqlite` or `postgres`, as
/// [`ContentStore::backend`](crate::ContentStore::backend) says);
/// run on an emptied table, it gives the aggregates the stored snapshots
/// imply (tests compare the kept ones with it).
pub fn backfill_statement(backend: &str, t: &DayTable) -> String {
    let dialect = if backend == "sqlite" { Dialect::Sqlite } else { Dialect::Postgres };
    dialect.days_backfill(t)
}

/// The setting that switches the row triggers off for one transaction
/// (PostgreSQL, migration 0012; [`crate::bulk::postgres`]).
pub const BULK_SETTING: &str = "mediaops.bulk_days";

impl Dialect {
    /// Migration 0012 (PostgreSQL): the row triggers of 0006 again, with a
    /// `WHEN` that skips them in a transaction that set
    /// [`BULK_SETTING`] to `on` (the bulk path, which maintains the
    /// aggregates set-based). `None` on SQLite, whose triggers stay.
    pub fn day_triggers_switch_migration(self) -> Option<String> {
        if self == Dialect::Sqlite {
            return None;
        }
        let sql = [WORK_DAYS, ACCOUNT_DAYS]
            .iter()
            .map(|t| {
                let (days, snapshots) = (t.days, t.snapshots);
                format!(
                    "DROP TRIGGER {days}_track ON {snapshots};\nCREATE TRIGGER {days}_track AFTER INSERT OR UPDATE ON \
                     {snapshots} FOR EACH ROW WHEN (current_setting('{BULK_SETTING}', true) IS DISTINCT FROM 'on') \
                     EXECUTE FUNCTION {days}_track();\n"
                )
            })
            .collect();
        Some(sql)
    }

    /// The set-based upkeep of `t`'s aggregates after a bulk write
    /// (PostgreSQL; binds `$1` entity ids `bigint[]`, `$2` capture times
    /// `timestamptz[]` of the snapshots written). For every entity, the
    /// touched days span `[dmin, dmax]`; the rows from the day before
    /// `dmin` that has a row (`lo`) to the day after `dmax` that has one
    /// (`hi`) are rebuilt in one statement: a touched day's first and last
    /// snapshot are read from the snapshot table (two index probes), the
    /// other rows are kept, then `prev_*` (rows from `dmin` on) and
    /// `next_day` (rows up to `dmax`) are the neighbours' in that span —
    /// exactly what the row triggers give for the same snapshots in any
    /// order. Only rows that change are written.
    pub fn bulk_days(self, t: &DayTable) -> String {
        let DayTable { days, snapshots, parent, key, counters: [c1, c2], copied } = *t;
        let (copied_columns, copied_of_entity, copied_of_row) =
            (copied_list(copied, ""), copied_list(copied, "o."), copied_list(copied, "d."));
        let no_next = self.no_next_day();
        let day_of = self.shanghai_day("u.at");
        let edge = |order: &str, alias: &str| {
            format!(
                "CROSS JOIN LATERAL (SELECT s.captured_at, s.{c1}, s.{c2} FROM {snapshots} s WHERE s.{key} = t.k AND \
                 s.captured_at >= (t.day::timestamp AT TIME ZONE 'Asia/Shanghai') AND s.captured_at < \
                 ((t.day + 1)::timestamp AT TIME ZONE 'Asia/Shanghai') ORDER BY s.captured_at{order} LIMIT 1) {alias}"
            )
        };
        let columns = format!(
            "first_at, first_{c1}, first_{c2}, last_at, last_{c1}, last_{c2}, prev_day, prev_{c1}, prev_{c2}, next_day"
        );
        let changed: Vec<String> = columns.split(", ").map(|c| format!("{days}.{c}")).collect();
        let excluded: Vec<String> = columns.split(", ").map(|c| format!("excluded.{c}")).collect();
        let set: Vec<String> = columns.split(", ").map(|c| format!("{c} = excluded.{c}")).collect();
        let linked = |c: &str, lagged: &str| format!("CASE WHEN day >= dmin THEN {lagged} ELSE {c} END");
        format!(
            "WITH touched AS (SELECT DISTINCT u.id AS k, {day_of} AS day FROM UNNEST($1::bigint[], \
             $2::timestamptz[]) AS u (id, at)),\n\
             span AS (SELECT k, min(day) AS dmin, max(day) AS dmax FROM touched GROUP BY k),\n\
             bounds AS (SELECT s.k, s.dmin, s.dmax, COALESCE((SELECT max(d.day) FROM {days} d WHERE d.{key} = s.k AND \
             d.day < s.dmin), s.dmin) AS lo, COALESCE((SELECT min(d.day) FROM {days} d WHERE d.{key} = s.k AND \
             d.day > s.dmax), s.dmax) AS hi FROM span s),\n\
             fresh AS (SELECT o.platform, t.day, t.k, {copied_of_entity}f.captured_at AS first_at, f.{c1} AS first_{c1}, \
             f.{c2} AS first_{c2}, l.captured_at AS last_at, l.{c1} AS last_{c1}, l.{c2} AS last_{c2}, \
             NULL::date AS prev_day, NULL::bigint AS prev_{c1}, NULL::bigint AS prev_{c2}, NULL::date AS next_day \
             FROM touched t JOIN {parent} o ON o.id = t.k {} {}),\n\
             kept AS (SELECT d.platform, d.day, d.{key} AS k, {copied_of_row}{} FROM bounds b JOIN {days} d ON \
             d.{key} = b.k AND d.day BETWEEN b.lo AND b.hi WHERE NOT EXISTS (SELECT 1 FROM touched t WHERE \
             t.k = d.{key} AND t.day = d.day)),\n\
             linked AS (SELECT r.*, b.dmin, b.dmax, lag(r.day) OVER w AS p_day, lag(r.last_{c1}) OVER w AS p_{c1}, \
             lag(r.last_{c2}) OVER w AS p_{c2}, lead(r.day) OVER w AS n_day FROM (SELECT * FROM fresh UNION ALL \
             SELECT * FROM kept) r JOIN bounds b ON b.k = r.k WINDOW w AS (PARTITION BY r.k ORDER BY r.day))\n\
             INSERT INTO {days} (platform, day, {key}, {copied_columns}{columns})\n\
             SELECT platform, day, k, {copied_columns}first_at, first_{c1}, first_{c2}, last_at, last_{c1}, last_{c2}, {}, {}, {}, \
             CASE WHEN day <= dmax THEN COALESCE(n_day, {no_next}) ELSE next_day END FROM linked\n\
             ON CONFLICT (platform, day, {key}) DO UPDATE SET {} WHERE ({}) IS DISTINCT FROM ({})",
            edge("", "f"),
            edge(" DESC", "l"),
            columns.split(", ").map(|c| format!("d.{c}")).collect::<Vec<_>>().join(", "),
            linked("prev_day", "p_day"),
            linked(&format!("prev_{c1}"), &format!("p_{c1}")),
            linked(&format!("prev_{c2}"), &format!("p_{c2}")),
            set.join(", "),
            changed.join(", "),
            excluded.join(", "),
        )
    }
}

/// `columns` as a select list's items, each prefixed by `alias` and
/// followed by `", "` (`""` when there are none, so a statement without
/// copied columns reads as it did before migration 0022).
fn copied_list(columns: &[&str], alias: &str) -> String {
    columns.iter().map(|c| format!("{alias}{c}, ")).collect()
}

impl Dialect {
    /// Migration 0022: the copied columns of `work_days` (the work's
    /// `category`), so that a level board of one category walks its own
    /// rows of the window's last day in board order
    /// (`work_days_category_views`) instead of every row of the day,
    /// looking each work up for its category (`category-time-hot` over a
    /// window no builder stores; docs/rankings.md "Index-ordered boards").
    /// It adds the column, fills it from `works`, builds the index, replaces
    /// the row triggers of 0006 by ones that copy it into each new row,
    /// and adds a trigger on `works` that rewrites a work's rows when its
    /// category changes.
    pub fn work_days_category_migration(self) -> String {
        let t = WORK_DAYS;
        let (days, parent, key) = (t.days, t.parent, t.key);
        let mut sql = String::new();
        for column in t.copied {
            sql.push_str(&format!("ALTER TABLE {days} ADD COLUMN {column} TEXT;\n"));
            sql.push_str(&match self {
                Dialect::Sqlite => format!(
                    "UPDATE {days} SET {column} = (SELECT o.{column} FROM {parent} o WHERE o.id = {days}.{key});\n"
                ),
                Dialect::Postgres => format!(
                    "UPDATE {days} d SET {column} = o.{column} FROM {parent} o WHERE o.id = d.{key} AND \
                     o.{column} IS NOT NULL;\n"
                ),
            });
        }
        sql.push_str(&format!(
            "CREATE INDEX {WORK_DAYS_CATEGORY_INDEX} ON {days} (platform, category, day, last_views);\n"
        ));
        let body = self.day_trigger_body(&t);
        let copy = t.copied.iter().map(|c| format!("{c} = NEW.{c}")).collect::<Vec<_>>().join(", ");
        let changed = |differs: &str| {
            t.copied.iter().map(|c| format!("OLD.{c} {differs} NEW.{c}")).collect::<Vec<_>>().join(" OR ")
        };
        let of = t.copied.join(", ");
        let rewrite = format!("UPDATE {days} SET {copy} WHERE {key} = NEW.id;\n");
        let copy_trigger = format!("{parent}_copy_to_{days}");
        sql.push_str(&match self {
            Dialect::Sqlite => {
                let replaced: String = SQLITE_EVENTS
                    .iter()
                    .map(|event| {
                        let trigger = sqlite_day_trigger(&t, event, &body);
                        format!("DROP TRIGGER {days}_on_{};\n{trigger}", event.to_lowercase())
                    })
                    .collect();
                format!(
                    "{replaced}CREATE TRIGGER {copy_trigger} AFTER UPDATE OF {of} ON {parent} WHEN {} \
                     BEGIN\n{rewrite}END;\n",
                    changed("IS NOT")
                )
            }
            Dialect::Postgres => format!(
                "{}{}CREATE TRIGGER {copy_trigger} AFTER UPDATE OF {of} ON {parent} FOR EACH ROW WHEN ({}) EXECUTE \
                 FUNCTION {copy_trigger}();\n",
                trigger_function("CREATE OR REPLACE", &format!("{days}_track"), &body),
                trigger_function("CREATE", &copy_trigger, &rewrite),
                changed("IS DISTINCT FROM")
            ),
        });
        sql
    }
}

/// The index of migration 0022: a platform's rows of one category and day
/// by their last reads (the level boards over reads of one category).
pub const WORK_DAYS_CATEGORY_INDEX: &str = "work_days_category_views";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_covers_both_tables_and_events() {
        let sqlite = Dialect::Sqlite.days_migration();
        for name in ["work_days_on_insert", "work_days_on_update", "account_days_on_insert", "account_days_on_update"] {
            assert!(sqlite.contains(&format!("CREATE TRIGGER {name} ")), "{name}");
        }
        assert!(sqlite.contains("date(NEW.captured_at, '+8 hours')"));
        let postgres = Dialect::Postgres.days_migration();
        assert!(postgres.contains("AFTER INSERT OR UPDATE ON account_snapshots"));
        assert!(postgres.contains("last_fans") && postgres.contains("prev_views"));
        assert!(!postgres.contains("WITHOUT ROWID"));
        // 0006 stays as applied (sqlx compares its checksum); 0022 copies.
        assert!(!sqlite.contains("category") && !postgres.contains("category"));
    }

    #[test]
    fn category_migration_copies_into_new_rows_and_follows_changes() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            let sql = dialect.work_days_category_migration();
            assert!(sql.contains("INSERT INTO work_days (platform, day, work, category, first_at"), "{sql}");
            assert!(sql.contains("SELECT o.platform, ") && sql.contains("NEW.work, o.category, NEW.captured_at"));
            assert!(sql.contains("AFTER UPDATE OF category ON works"), "{sql}");
            assert!(sql.contains("UPDATE work_days SET category = NEW.category WHERE work = NEW.id"), "{sql}");
            assert!(dialect.bulk_days(&WORK_DAYS).contains("t.k, o.category, f.captured_at"));
        }
    }
}
