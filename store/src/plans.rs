//! Which statement shapes the boards run (docs/rankings.md "Index-ordered
//! boards"): the index-ordered ones, which walk an index in the board's own
//! order and stop at its `LIMIT` (the default), or the shapes they replaced,
//! which read and sort every candidate. Both give the same answers; the old
//! shapes are kept for the rankings bench (before and after in one run, on
//! one store) and for the test that compares the two
//! (`store/tests/board_plans.rs`). Nothing else switches them. The same
//! switch gives SQLite's searches FTS5's own `bm25` (and accounts matched on
//! every platform) instead of [`crate::fts5_bm25`] (docs/data-apis.md
//! "Search at scale").

use std::sync::atomic::{AtomicBool, Ordering};

static REPLACED: AtomicBool = AtomicBool::new(false);

/// Runs the boards with the shapes the index-ordered ones replaced (`true`)
/// or with the index-ordered ones (`false`, the default), process-wide.
pub fn use_replaced_shapes(replaced: bool) {
    REPLACED.store(replaced, Ordering::Relaxed);
}

/// Whether the boards run the index-ordered shapes.
pub fn index_ordered() -> bool {
    !REPLACED.load(Ordering::Relaxed)
}

/// From this many full-text matches of a platform on, SQLite finds a
/// keyword board's capped matches ([`crate::KEYWORD_MATCH_CAP`]) by
/// walking the platform's works most liked first (index `works_likes`)
/// and keeping the matches, instead of looking up and sorting every match
/// (docs/rankings.md "Index-ordered boards"). Since the term lists
/// (migration 0018, docs/rankings.md "Keyword boards") this is the
/// replaced shape, and the shape of a keyword with a term FTS5 may fold.
pub const KEYWORD_WALK_FROM: i64 = 20_000;
