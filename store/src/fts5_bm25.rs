//! `mediaops_bm25`, the embedded store's relevance score: FTS5's own `bm25`
//! (SQLite 3.46's `fts5Bm25Function`, the same formula, constants and order
//! of operations, so the same `f64` for every row) without the two parts of
//! its cost that do not change the order of a search (docs/data-apis.md
//! "Search at scale"):
//!
//! - **Filtering phrases.** A works search on SQLite names its platform's
//!   term (`platform_terms : "zzplatform<platform>"`, the last phrase of the
//!   query, [`crate::segment::fts5_work_query`]) so that FTS5 yields only that
//!   platform's matches; its column weighs 0, so its share of every score is
//!   exactly `0.0`. `bm25` still counts the rows holding each phrase of the
//!   query before it scores the first row (one walk of the phrase's whole
//!   doclist): for the platform's term, a third of the table. Here only the
//!   first `scored` phrases count and score.
//! - **One scored phrase.** A phrase's IDF (from the number of rows holding
//!   it) weighs it against the query's other phrases. With one phrase every
//!   match holds it, so its IDF multiplies every score by the same positive
//!   number and cannot reorder them: the score is then the phrase's
//!   frequency part alone, and its doclist is not walked (a one-term search
//!   of a term most works hold walked 1,000,000 rows at that scale). With two
//!   or more, each phrase's IDF is counted as `bm25` counts it, or taken from
//!   the number of rows holding it when the caller passes it.
//! - **The rows holding a phrase.** `bm25` counts them by walking the
//!   phrase's whole doclist (`xQueryPhrase`, one callback per row): for a
//!   common term of a realistic text at 1,000,000 works, about half a million
//!   rows and 15 ms a phrase, before the first row is scored. The store keeps
//!   each term's count of works (`work_term_rows`, migration 0024) and a
//!   works search passes it for every phrase that is such a term; NULL has
//!   the phrase counted as `bm25` counts it.
//!
//! - **The row's length.** `bm25` looks each match's token count up in the
//!   table's `%_docsize` (one B-tree search per match; a quarter to a third
//!   of a search's CPU at 300,000 works, docs/rankings.md "Searches: what
//!   each match's length costs"). The store keeps that count beside the row
//!   (`works.fts_tokens`, [`crate::fts5_tokens`]), which the search reads
//!   anyway, and passes it in; NULL has FTS5 look it up as `bm25` does.
//!
//! - **The merged instance list.** `bm25` reads a row's frequencies from
//!   FTS5's list of every phrase's instances (`xInstCount`/`xInst`), which
//!   FTS5 builds per row by merging each phrase's positions, the platform's
//!   too. Here each scored phrase's positions are read on their own
//!   (`xPhraseFirst`/`xPhraseNext`): the same instances of that phrase in
//!   the same order, so the same sums.
//!
//! Called as `mediaops_bm25(<fts5 table>, scored, tokens, rows₁, …,
//! rows_scored, weight₀, weight₁, …)`: `scored` the number of leading phrases
//! that score, `tokens` the row's token count in every column (or NULL), then
//! for each scored phrase the number of rows holding it (or NULL; read only
//! when two or more phrases score), then one weight per column as `bm25`'s
//! (1.0 for a column without one). Lower is more relevant, as
//! `bm25`. Registered on every connection of the embedded store's pool
//! ([`register`]).

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::ffi;

/// The SQL name of the function.
pub const NAME: &str = "mediaops_bm25";

/// BM25's `k1` and `b`, FTS5's constants.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// What a query's first call computes and its later rows reuse (kept as
/// the query's auxiliary data, freed by SQLite when the query ends).
struct QueryData {
    /// The average number of tokens in a row (every column).
    avgdl: f64,
    /// The IDF of each scored phrase (`1.0` for a lone phrase).
    idf: Vec<f64>,
    /// The current row's weighted frequency of each scored phrase.
    freq: Vec<f64>,
    /// The index of the first column weight among the call's arguments
    /// (after `scored`, the token count and one row count per declared
    /// scored phrase).
    weights_from: usize,
}

/// Registers [`NAME`] on the connection `db` (the handle of a connection
/// that is open and used by no other thread meanwhile). Errors with
/// SQLite's result code when FTS5 is missing or refuses the function.
///
/// # Safety
/// `db` must be a valid, open SQLite connection handle, not used
/// concurrently during the call.
pub unsafe fn register(db: *mut ffi::sqlite3) -> Result<(), c_int> {
    // SAFETY: `db` is valid (the caller's contract); the statement is
    // finalized on every path and the pointer bound outlives the step.
    let api = unsafe { fts5_api(db)? };
    // SAFETY: `api` is FTS5's own, valid for the connection's lifetime.
    let create = unsafe { (*api).xCreateFunction }.ok_or(ffi::SQLITE_ERROR)?;
    let name = c"mediaops_bm25";
    // SAFETY: the name is NUL-terminated and copied by FTS5; no user data.
    let code = unsafe { create(api, name.as_ptr(), ptr::null_mut(), Some(score_row), None) };
    if code == ffi::SQLITE_OK { Ok(()) } else { Err(code) }
}

/// The connection's `fts5_api` (SQLite's documented way: `SELECT fts5(?1)`
/// with a pointer bound as `fts5_api_ptr`).
unsafe fn fts5_api(db: *mut ffi::sqlite3) -> Result<*mut ffi::fts5_api, c_int> {
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
    let sql = c"SELECT fts5(?1)";
    // SAFETY: valid handle and NUL-terminated text; `stmt` is finalized below.
    let mut code = unsafe { ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, ptr::null_mut()) };
    if code == ffi::SQLITE_OK {
        // SAFETY: `api` lives until after the step; the type name is static.
        code = unsafe {
            ffi::sqlite3_bind_pointer(stmt, 1, (&raw mut api).cast::<c_void>(), c"fts5_api_ptr".as_ptr(), None)
        };
        if code == ffi::SQLITE_OK {
            // SAFETY: a prepared statement with its one parameter bound.
            code = unsafe { ffi::sqlite3_step(stmt) };
            if code == ffi::SQLITE_ROW || code == ffi::SQLITE_DONE {
                code = ffi::SQLITE_OK;
            }
        }
    }
    // SAFETY: `stmt` is null or a statement of ours, finalized once.
    unsafe { ffi::sqlite3_finalize(stmt) };
    match code {
        ffi::SQLITE_OK if !api.is_null() => Ok(api),
        ffi::SQLITE_OK => Err(ffi::SQLITE_ERROR),
        code => Err(code),
    }
}

/// The function's body for one row: [`row_score`], or SQLite's error.
unsafe extern "C" fn score_row(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // A panic must not cross into C: it becomes an error of the query.
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: FTS5 passes its API, the query's context and `argc` values.
        unsafe { row_score(api, fts, argc, argv) }
    });
    // SAFETY: `ctx` is the call's result context.
    unsafe {
        match outcome {
            Ok(Ok(score)) => ffi::sqlite3_result_double(ctx, score),
            Ok(Err(code)) => ffi::sqlite3_result_error_code(ctx, code),
            Err(_) => ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_INTERNAL),
        }
    }
}

/// `-score` of the current row (lower is more relevant, as `bm25`); `Err` with SQLite's
/// code when an API call fails or the arguments are wrong.
unsafe fn row_score(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) -> Result<f64, c_int> {
    // SAFETY: FTS5's API table, valid during the call.
    let api = unsafe { &*api };
    let args: &[*mut ffi::sqlite3_value] = match usize::try_from(argc) {
        // SAFETY: SQLite passes `argc` values.
        Ok(n) if n > 0 && !argv.is_null() => unsafe { std::slice::from_raw_parts(argv, n) },
        _ => return Err(ffi::SQLITE_MISUSE),
    };
    // SAFETY: the query's context, valid during the call.
    let data = unsafe { query_data(api, fts, args)? };
    let weights = &args[data.weights_from.min(args.len())..];
    // Each scored phrase's own instances (the platform's phrase, last,
    // is never read), in the order of the row's columns and offsets, as
    // `bm25` adds them up from its merged list of every phrase's.
    for (phrase, freq) in (0..).zip(data.freq.iter_mut()) {
        *freq = 0.0;
        let mut iter = ffi::Fts5PhraseIter { a: ptr::null(), b: ptr::null() };
        let (mut column, mut offset) = (0, 0);
        // SAFETY: the API's calls on the query's context and the iterator
        // it fills (below too).
        check(unsafe { call(api.xPhraseFirst)?(fts, phrase, &mut iter, &mut column, &mut offset) })?;
        let next = call(api.xPhraseNext)?;
        while column >= 0 {
            *freq += column_weight(weights, column);
            // SAFETY: as above.
            unsafe { next(fts, &mut iter, &mut column, &mut offset) };
        }
    }
    let d = f64::from(unsafe { row_tokens(api, fts, args.get(1).copied())? });
    let mut score = 0.0;
    for (idf, freq) in data.idf.iter().zip(&data.freq) {
        score += idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1.0 - B + B * d / data.avgdl)));
    }
    Ok(-score)
}

/// The weight of `column` among the call's `weights`; 1.0 for a column
/// without one, as `bm25`.
fn column_weight(weights: &[*mut ffi::sqlite3_value], column: c_int) -> f64 {
    usize::try_from(column)
        .ok()
        .and_then(|c| weights.get(c))
        // SAFETY: a value SQLite passed to this call.
        .map_or(1.0, |v| unsafe { ffi::sqlite3_value_double(*v) })
}

/// The current row's token count in every column: `given` when it is an
/// integer (the store's `fts_tokens`), else FTS5's own (a `%_docsize`
/// lookup); `SQLITE_MISMATCH` for an integer past `int`, which FTS5 counts in.
unsafe fn row_tokens(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    given: Option<*mut ffi::sqlite3_value>,
) -> Result<c_int, c_int> {
    // SAFETY: a value SQLite passed to this call.
    if let Some(given) = given.filter(|v| unsafe { ffi::sqlite3_value_type(*v) } == ffi::SQLITE_INTEGER) {
        // SAFETY: as above. FTS5 counts a row's tokens in an `int` too.
        return c_int::try_from(unsafe { ffi::sqlite3_value_int64(given) }).map_err(|_| ffi::SQLITE_MISMATCH);
    }
    let mut tokens = 0;
    // SAFETY: the API's call on the query's context.
    check(unsafe { call(api.xColumnSize)?(fts, -1, &mut tokens) })?;
    Ok(tokens)
}

/// The query's [`QueryData`], computed at its first row.
unsafe fn query_data<'q>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    args: &[*mut ffi::sqlite3_value],
) -> Result<&'q mut QueryData, c_int> {
    // SAFETY: the query's context; the pointer, when set, is a
    // `Box<QueryData>` of ours that SQLite frees at the query's end.
    let kept = unsafe { call(api.xGetAuxdata)?(fts, 0) }.cast::<QueryData>();
    if !kept.is_null() {
        // SAFETY: see above; one call at a time uses it.
        return Ok(unsafe { &mut *kept });
    }
    // SAFETY: the API's calls on the query's context.
    let phrases = unsafe { call(api.xPhraseCount)?(fts) };
    // SAFETY: a value SQLite passed to this call (`args` is never empty).
    let declared = match unsafe { ffi::sqlite3_value_int64(args[0]) } {
        n if n >= 1 => usize::try_from(n).map_err(|_| ffi::SQLITE_MISUSE)?,
        _ => return Err(ffi::SQLITE_MISUSE),
    };
    let scored = declared.min(usize::try_from(phrases).unwrap_or(0));
    // The phrases' row counts follow the token count.
    let given_rows = args.get(2..).unwrap_or_default();
    let (mut rows, mut tokens) = (0_i64, 0_i64);
    check(unsafe { call(api.xRowCount)?(fts, &mut rows) })?;
    check(unsafe { call(api.xColumnTotalSize)?(fts, -1, &mut tokens) })?;
    let avgdl = tokens as f64 / rows as f64;
    let mut idf = vec![1.0; scored];
    if scored > 1 {
        for (i, idf) in (0..).zip(idf.iter_mut()) {
            let given = usize::try_from(i).ok().and_then(|i| given_rows.get(i));
            // SAFETY: a value SQLite passed to this call.
            let given = given.filter(|v| unsafe { ffi::sqlite3_value_type(**v) } == ffi::SQLITE_INTEGER);
            let mut hits: i64 = 0;
            match given {
                // SAFETY: as above.
                Some(v) => hits = unsafe { ffi::sqlite3_value_int64(*v) },
                None => check(unsafe {
                    call(api.xQueryPhrase)?(fts, i, (&raw mut hits).cast::<c_void>(), Some(count_row))
                })?,
            }
            // FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), at least 1e-6.
            let value = (((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
            *idf = if value <= 0.0 { 1e-6 } else { value };
        }
    }
    let weights_from = 2 + declared;
    let data = Box::into_raw(Box::new(QueryData { avgdl, idf, freq: vec![0.0; scored], weights_from }));
    // SAFETY: ownership passes to SQLite, which calls `free_data` once.
    let code = unsafe { call(api.xSetAuxdata)?(fts, data.cast::<c_void>(), Some(free_data)) };
    if code != ffi::SQLITE_OK {
        // xSetAuxdata calls the destructor itself when it fails.
        return Err(code);
    }
    // SAFETY: just stored; freed only when the query ends.
    Ok(unsafe { &mut *data })
}

/// `xQueryPhrase`'s callback: one more row holds the phrase.
unsafe extern "C" fn count_row(
    _api: *const ffi::Fts5ExtensionApi,
    _fts: *mut ffi::Fts5Context,
    hits: *mut c_void,
) -> c_int {
    // SAFETY: the `i64` that `query_data` passed.
    unsafe { *hits.cast::<i64>() += 1 };
    ffi::SQLITE_OK
}

/// The destructor SQLite calls for a query's [`QueryData`].
unsafe extern "C" fn free_data(data: *mut c_void) {
    if !data.is_null() {
        // SAFETY: a `Box<QueryData>` of `query_data`, freed once.
        drop(unsafe { Box::from_raw(data.cast::<QueryData>()) });
    }
}

/// An API entry FTS5 always fills (version 2 and later).
fn call<F>(entry: Option<F>) -> Result<F, c_int> {
    entry.ok_or(ffi::SQLITE_ERROR)
}

/// SQLite's result code as a `Result`.
fn check(code: c_int) -> Result<(), c_int> {
    if code == ffi::SQLITE_OK { Ok(()) } else { Err(code) }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    /// An FTS5 table shaped as `works_fts` with `rows` rows of words drawn
    /// from a small vocabulary (so that phrases repeat and lengths vary),
    /// each in one of three platforms.
    fn table(rows: u32) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        // SAFETY: an open connection used by this thread alone.
        unsafe { super::register(conn.handle()) }.unwrap();
        // SAFETY: as above.
        unsafe { crate::fts5_tokens::register(conn.handle()) }.unwrap();
        conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5 (title_terms, body_terms, platform_terms)").unwrap();
        let words = ["美食", "探店", "火锅", "露营", "装备", "旅行", "攻略", "作品", "ai", "绘画"];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % n).unwrap()
        };
        let mut text = |len: u64| {
            let count = 1 + next(len);
            (0..count).map(|_| words[next(10)]).collect::<Vec<_>>().join(" ")
        };
        for _ in 0..rows {
            let (title, body) = (text(6), text(30));
            let platform = ["zzplatformlifestyle", "zzplatformshortvideo", "zzplatformarticles"][title.len() % 3];
            conn.execute(
                "INSERT INTO t (title_terms, body_terms, platform_terms) VALUES (?1, ?2, ?3)",
                [title, body, platform.to_owned()],
            )
            .unwrap();
        }
        // The rows' token counts as the store keeps them beside its rows.
        conn.execute_batch(
            "CREATE TABLE n (id INTEGER PRIMARY KEY, tokens INTEGER); \
             INSERT INTO n SELECT id, mediaops_fts_tokens(sz) FROM t_docsize",
        )
        .unwrap();
        conn
    }

    /// The number of rows holding `term` in the title or the body.
    fn rows_holding(conn: &Connection, term: &str) -> i64 {
        let query = format!("{{title_terms body_terms}} : \"{term}\"");
        conn.query_row("SELECT count(*) FROM t WHERE t MATCH ?1", [query], |r| r.get(0)).unwrap()
    }

    /// `mediaops_bm25` of the query's first phrases `scored`, given the
    /// row's token count `tokens` and each phrase's row count `rows` (SQL).
    fn call(scored: usize, tokens: &str, rows: &[String]) -> String {
        let rows: String = rows.iter().map(|r| format!("{r}, ")).collect();
        format!("mediaops_bm25(t, {scored}, {tokens}, {rows}3.0, 1.0, 0.0)")
    }

    /// (rowid, bm25, mediaops_bm25) of every match of `query`, scoring its
    /// leading phrases `scored`; the ways of `mediaops_bm25` (the token count
    /// passed in or looked up by FTS5, the phrases' row counts passed in or
    /// counted by FTS5) must give the same bits.
    fn scores(conn: &Connection, query: &str, scored: &[&str]) -> Vec<(i64, f64, f64)> {
        let counted: Vec<String> = scored.iter().map(|term| rows_holding(conn, term).to_string()).collect();
        let unknown = vec!["NULL".to_owned(); scored.len()];
        let n = scored.len();
        let sql = format!(
            "SELECT t.rowid, bm25(t, 3.0, 1.0, 0.0), {}, {}, {} FROM t CROSS JOIN n ON n.id = t.rowid WHERE t MATCH ?1",
            call(n, "n.tokens", &unknown),
            call(n, "NULL", &unknown),
            call(n, "n.tokens", &counted)
        );
        let mut stmt = conn.prepare(&sql).unwrap();
        let rows = stmt.query_map([query], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get::<_, f64>(4)?)));
        let rows: Vec<(i64, f64, f64, f64, f64)> = rows.unwrap().map(Result::unwrap).collect();
        for (rowid, _, given, looked_up, with_rows) in &rows {
            assert_eq!(given.to_bits(), looked_up.to_bits(), "{query}, row {rowid}: {given} against {looked_up}");
            assert_eq!(given.to_bits(), with_rows.to_bits(), "{query}, row {rowid}: {given} against {with_rows}");
        }
        rows.into_iter().map(|(rowid, bm25, given, ..)| (rowid, bm25, given)).collect()
    }

    #[test]
    fn several_phrases_score_exactly_as_bm25_without_the_filtering_phrase() {
        let conn = table(2_000);
        for terms in [["美食", "探店"].as_slice(), &["ai", "绘画", "作品"], &["露营", "装备"]] {
            let phrases: Vec<String> = terms.iter().map(|t| format!("\"{t}\"")).collect();
            let query = format!(
                "{{title_terms body_terms}} : ({}) AND platform_terms : \"zzplatformlifestyle\"",
                phrases.join(" ")
            );
            let rows = scores(&conn, &query, terms);
            assert!(rows.len() > 20, "{terms:?}: {} matches", rows.len());
            for (rowid, bm25, ours) in rows {
                assert_eq!(bm25.to_bits(), ours.to_bits(), "{terms:?}, row {rowid}: {bm25} against {ours}");
            }
        }
        // Without a filtering phrase (the accounts' index): every phrase scores.
        for (rowid, bm25, ours) in scores(&conn, "\"旅行\" \"攻略\"", &["旅行", "攻略"]) {
            assert_eq!(bm25.to_bits(), ours.to_bits(), "row {rowid}");
        }
    }

    #[test]
    fn one_phrase_orders_its_matches_as_bm25_does() {
        let conn = table(2_000);
        for term in ["美食", "作品", "ai"] {
            let query =
                format!("{{title_terms body_terms}} : (\"{term}\") AND platform_terms : \"zzplatformarticles\"");
            let rows = scores(&conn, &query, &[term]);
            assert!(rows.len() > 20, "{term}: {} matches", rows.len());
            let mut ties = 0;
            for a in &rows {
                for b in &rows {
                    assert_eq!(a.1.total_cmp(&b.1), a.2.total_cmp(&b.2), "{term}: rows {} and {}", a.0, b.0);
                    ties += usize::from(a.0 != b.0 && a.1 == b.1);
                }
            }
            // The vocabulary is small: equal scores happen, and stay equal.
            assert!(ties > 0, "{term}: no tie to compare");
        }
    }

    #[test]
    fn the_row_counts_passed_in_are_the_ones_used() {
        let conn = table(500);
        let query = "{title_terms body_terms} : (\"美食\" \"探店\")";
        let (food, visit) = (rows_holding(&conn, "美食"), rows_holding(&conn, "探店"));
        let score = |rows: [i64; 2]| -> f64 {
            let rows = rows.map(|r| r.to_string());
            let sql = format!("SELECT {} FROM t WHERE t MATCH ?1 ORDER BY rowid LIMIT 1", call(2, "NULL", &rows));
            conn.query_row(&sql, [query], |r| r.get(0)).unwrap()
        };
        assert_eq!(score([food, visit]).to_bits(), score([food, visit]).to_bits());
        // A rarer phrase weighs more: the score moves with the count given.
        assert_ne!(score([food, visit]).to_bits(), score([1, visit]).to_bits());
        assert_ne!(score([food, visit]).to_bits(), score([food, 1]).to_bits());
    }

    #[test]
    fn a_scored_count_below_one_is_an_error_of_the_query() {
        let conn = table(10);
        let outcome = conn
            .query_row("SELECT mediaops_bm25(t, 0) FROM t WHERE t MATCH '美食' LIMIT 1", [], |r| r.get::<_, f64>(0));
        assert!(outcome.is_err(), "{outcome:?}");
    }
}
