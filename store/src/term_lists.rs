//! Per-term lists of a platform's works, most liked first (migration 0018,
//! table `work_terms`; docs/rankings.md "Keyword boards"): one row per
//! (work, index term) with the work's platform and newest likes
//! (`works.latest_likes`), indexed `(platform, term, likes DESC, work)`.
//! A keyword board's capped matches ([`crate::KEYWORD_MATCH_CAP`], the most
//! liked) are then read from one term's list in its own order, stopping at
//! the cap, instead of looking up every full-text match's `works` row and
//! sorting them ([`Dialect::term_list_matches`]).
//!
//! Kept by the store itself, whatever writes:
//!
//! - a work's rows are rewritten with its full-text row
//!   ([`Dialect::term_rows_of_work`], run by each backend's `index_work`),
//!   from the terms just indexed: SQLite splits the `works_fts` columns,
//!   PostgreSQL unnests the `search_vector`, so the lists hold exactly what
//!   the full-text index holds;
//! - a trigger on `works` copies `latest_likes` to the work's rows whenever
//!   it changes (the write path, the bulk snapshot path, imports);
//! - the migration backfills every stored work the same way.
//!
//! The store never deletes a work (no statement of it does; retention prunes
//! snapshots only), so rows are never orphaned.
//!
//! **SQLite's folding.** FTS5's `unicode61` tokenizer folds diacritics and
//! some compatibility forms (`café` matches `cafe`, `Ａｂ` matches `ａｂ`),
//! while a list is keyed by the exact term. So on SQLite a term made only
//! of [`exact_char`]s (ASCII letters and digits, CJK ideographs), which the
//! tokenizer leaves as it is, is listed under itself, and every other term
//! under the empty term [`FOLDED`] (one row per work holding any such term).
//! A query whose terms are all exact then finds every FTS5 match: a work
//! whose terms are all exact matches exactly when it holds each term, and
//! any other work is in the [`FOLDED`] list, checked against FTS5 itself.
//! A query with another term is matched as before
//! ([`Dialect::term_list_matches`] returns `None`). PostgreSQL's tsquery
//! literals match lexemes exactly, so its lists hold every term as it is.

use super::listing::{Conditions, Dialect, Param};
use super::model::BoardQuery;
use super::segment;
use crate::text::exact_char;

/// The term under which SQLite lists a work holding a term that FTS5
/// might fold ([`exact_char`]); no index term is empty.
pub const FOLDED: &str = "";

/// The SQLite `GLOB` pattern of a term holding a character that is not an
/// [`exact_char`] (the same set): the migration and each write list such a work under
/// [`FOLDED`].
const EXACT_GLOB: &str = "*[^0-9a-z\u{3400}-\u{4DBF}\u{4E00}-\u{9FFF}]*";

/// `SELECT work, term, platform, likes` of the list rows of the works
/// whose full-text row `where_sql` keeps (SQLite: alias `f` for
/// `works_fts`; PostgreSQL: alias `w` for `works`).
fn term_rows(dialect: Dialect, where_sql: &str) -> String {
    match dialect {
        // The columns hold the terms separated by one space, each made of
        // letters and digits only (crate::segment); a row that is not such
        // a list (it cannot be split into a JSON array) is listed under
        // FOLDED, so FTS5 itself decides whether it matches.
        Dialect::Sqlite => {
            let list = "'[\"' || replace(f.title_terms || ' ' || f.body_terms, ' ', '\",\"') || '\"]'";
            format!(
                "SELECT f.rowid, CASE WHEN t.value GLOB '{EXACT_GLOB}' THEN '{FOLDED}' ELSE t.value END, \
                 w.platform, w.latest_likes FROM works_fts f JOIN works w ON w.id = f.rowid, \
                 json_each(CASE WHEN json_valid({list}) THEN {list} ELSE '[\"~\"]' END) t \
                 WHERE t.value <> ''{where_sql}"
            )
        }
        Dialect::Postgres => format!(
            "SELECT w.id, u.lexeme, w.platform, w.latest_likes FROM works w CROSS JOIN LATERAL \
             unnest(w.search_vector) u{where_sql}"
        ),
    }
}

/// The insert of [`term_rows`] (SQLite: a term in both the title and the
/// body is one row).
fn insert_term_rows(dialect: Dialect, where_sql: &str) -> String {
    let verb = match dialect {
        Dialect::Sqlite => "INSERT OR IGNORE INTO",
        Dialect::Postgres => "INSERT INTO",
    };
    format!("{verb} work_terms (work, term, platform, likes) {}", term_rows(dialect, where_sql))
}

impl Dialect {
    /// Migration 0018: the table, its list index, the backfill of every
    /// stored work and the trigger that keeps `likes` equal to
    /// `works.latest_likes`.
    pub fn term_lists_migration(self) -> String {
        let backfill = insert_term_rows(self, "");
        match self {
            Dialect::Sqlite => format!(
                "CREATE TABLE work_terms (\n    work INTEGER NOT NULL,\n    term TEXT NOT NULL,\n    \
                 platform TEXT NOT NULL,\n    likes INTEGER,\n    PRIMARY KEY (work, term)\n) WITHOUT ROWID;\n\
                 {backfill};\n\
                 CREATE INDEX work_terms_likes ON work_terms (platform, term, likes DESC, work);\n\
                 CREATE TRIGGER work_terms_likes AFTER UPDATE OF latest_likes ON works \
                 WHEN OLD.latest_likes IS NOT NEW.latest_likes BEGIN \
                 UPDATE work_terms SET likes = NEW.latest_likes WHERE work = NEW.id; END;\n"
            ),
            Dialect::Postgres => format!(
                "CREATE TABLE work_terms (\n    work BIGINT NOT NULL,\n    term TEXT NOT NULL,\n    \
                 platform TEXT NOT NULL,\n    likes BIGINT,\n    PRIMARY KEY (work, term)\n);\n\
                 {backfill};\n\
                 CREATE INDEX work_terms_likes ON work_terms (platform, term, likes DESC NULLS LAST, work);\n\
                 CREATE FUNCTION work_terms_likes() RETURNS trigger LANGUAGE plpgsql AS $$\n\
                 BEGIN\n    UPDATE work_terms SET likes = NEW.latest_likes WHERE work = NEW.id;\n    RETURN NULL;\nEND\n$$;\n\
                 CREATE TRIGGER work_terms_likes AFTER UPDATE OF latest_likes ON works FOR EACH ROW \
                 WHEN (OLD.latest_likes IS DISTINCT FROM NEW.latest_likes) EXECUTE FUNCTION work_terms_likes();\n\
                 ANALYZE work_terms;\n"
            ),
        }
    }

    /// The two statements that rewrite work `$1`'s list rows from its
    /// full-text row, run right after it is written: delete them, then
    /// insert [`term_rows`] of that row.
    pub fn term_rows_of_work(self) -> [String; 2] {
        let (delete, only) = match self {
            Dialect::Sqlite => ("DELETE FROM work_terms WHERE work = ?1", " AND f.rowid = ?1"),
            Dialect::Postgres => ("DELETE FROM work_terms WHERE work = $1", " WHERE w.id = $1"),
        };
        [delete.to_owned(), insert_term_rows(self, only)]
    }

    /// The setting run before [`Dialect::term_list_matches`], in its
    /// transaction: PostgreSQL without parallel workers. Its planner put
    /// the walk of a keyword of several terms under a `Gather Merge` with one
    /// or two workers, whose start cost more than they saved on 2,000 rows
    /// (18–25 ms against 11–17 ms at 1,000,000 works, docs/rankings.md
    /// "The term lists at 1,000,000 works"). `None` on SQLite.
    pub fn serial_plan(self) -> Option<&'static str> {
        match self {
            Dialect::Postgres => Some("SET LOCAL max_parallel_workers_per_gather = 0"),
            Dialect::Sqlite => None,
        }
    }

    /// The statement of [`crate::ContentStore::keyword_matches`] read from
    /// the term lists: the row ids of the works of `q`'s platform matching
    /// `q.text` (with its category and publish-time filters), at most
    /// [`crate::KEYWORD_MATCH_CAP`], most liked first (`likes DESC`,
    /// unknown last, then row id; column `match_id`) — the same ids in the
    /// same order as [`Dialect::keyword_matches`].
    ///
    /// It walks the list of the query's longest term (the rarest, as a
    /// rule, of a segmented phrase: 美味佳肴 against 美味 and 佳肴) and
    /// keeps a work when it holds every other term (a primary-key probe of
    /// `work_terms (work, term)` each, but for the terms every work holding
    /// the walked one holds, [`crate::text::implied_terms`]: none for
    /// 美味佳肴, whose 美味 and 佳肴 come with it) and passes the filters (a
    /// `works` lookup, only when there are filters), stopping at the cap: about
    /// cap ÷ (the share of the term's works holding the other terms and
    /// passing the filters) list entries, whatever the number of matches.
    /// On SQLite the [`FOLDED`] list is walked beside it (merged in the same
    /// order), each of its works checked against FTS5.
    ///
    /// `None` without a text, when it has no terms, or on SQLite when a
    /// term holds a character FTS5 may fold (the caller matches as before).
    pub fn term_list_matches(self, q: &BoardQuery) -> Option<(String, Vec<Param>)> {
        let terms = crate::text::index_terms(q.text.as_deref()?);
        let terms = segment::query_terms(&terms);
        if self == Dialect::Sqlite && !terms.iter().all(|t| t.chars().all(exact_char)) {
            return None;
        }
        let walked = terms.iter().enumerate().max_by_key(|(i, t)| (t.chars().count(), std::cmp::Reverse(*i)))?.1;
        let mut c = Conditions::default();
        let platform = c.bind(Param::Text(q.platform.clone()));
        let term = c.bind(Param::Text(walked.clone()));
        let mut others = Vec::new();
        // The terms every work holding the walked one holds (jieba's
        // search mode emits them with it) need no probe.
        let implied = crate::text::implied_terms(walked);
        for other in terms.iter().filter(|t| *t != walked && !implied.contains(t)) {
            let ph = c.bind(Param::Text(other.clone()));
            others.push(format!("EXISTS (SELECT 1 FROM work_terms o WHERE o.work = c.work AND o.term = {ph})"));
        }
        let mut filters = Vec::new();
        if let Some(category) = q.category.as_deref() {
            filters.push(format!("kw.category = {}", c.bind(Param::Text(category.to_owned()))));
        }
        if let Some(from) = q.published_from {
            filters.push(format!("kw.published_at >= {}", c.bind(Param::Time(from))));
        }
        if let Some(to) = q.published_to {
            filters.push(format!("kw.published_at <= {}", c.bind(Param::Time(to))));
        }
        let filtered = if filters.is_empty() {
            String::new()
        } else {
            format!(" AND EXISTS (SELECT 1 FROM works kw WHERE kw.id = c.work AND {})", filters.join(" AND "))
        };
        let cap = crate::KEYWORD_MATCH_CAP;
        let holds_others = if others.is_empty() { "1 = 1".to_owned() } else { others.join(" AND ") };
        let statement = match self {
            Dialect::Postgres => format!(
                "SELECT c.work AS match_id FROM work_terms c WHERE c.platform = {platform} AND c.term = {term} \
                 AND {holds_others}{filtered} ORDER BY c.likes DESC NULLS LAST, c.work LIMIT {cap}"
            ),
            Dialect::Sqlite => {
                let query = c.bind(Param::Text(segment::fts5_work_query(terms, &q.platform)?));
                let fts = format!(
                    "EXISTS (SELECT 1 FROM works_fts WHERE works_fts MATCH {query} AND works_fts.rowid = c.work)"
                );
                let folded =
                    format!("EXISTS (SELECT 1 FROM work_terms s WHERE s.work = c.work AND s.term = '{FOLDED}')");
                format!(
                    "SELECT c.work AS match_id, c.likes AS match_likes FROM work_terms c WHERE c.platform = {platform} \
                     AND c.term = {term} AND (({holds_others}) OR ({folded} AND {fts})){filtered} \
                     UNION SELECT c.work, c.likes FROM work_terms c WHERE c.platform = {platform} \
                     AND c.term = '{FOLDED}' AND {fts}{filtered} \
                     ORDER BY match_likes DESC, match_id LIMIT {cap}"
                )
            }
        };
        Some((self.placeholders(statement), c.params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_chars_are_the_glob_set() {
        assert!("美味佳肴2026abc".chars().all(exact_char));
        assert!(!"café".chars().all(exact_char));
        assert!(!"ａｂ".chars().all(exact_char));
        assert!(!"こんにちは".chars().all(exact_char));
        assert!(EXACT_GLOB.contains("0-9a-z"));
    }

    #[test]
    fn a_query_with_a_folded_term_is_matched_as_before_on_sqlite() {
        let q =
            BoardQuery { platform: "lifestyle".into(), text: Some("𠀀𠀁 美食".into()), ..BoardQuery::default() };
        assert!(Dialect::Sqlite.term_list_matches(&q).is_none());
        assert!(Dialect::Postgres.term_list_matches(&q).is_some());
        let none = BoardQuery { text: Some("，。".into()), ..q };
        assert!(Dialect::Postgres.term_list_matches(&none).is_none());
    }
}
