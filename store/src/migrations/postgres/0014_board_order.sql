-- Boards read in their own order (docs/rankings.md "Index-ordered boards"):
-- a statement that walks one of these indexes stops at its LIMIT instead of
-- reading and sorting every candidate.
-- The keyword boards' cap: a platform's works, most liked first (newest
-- snapshot's likes, unknown last), then row id. A keyword matching much of
-- the platform walks it and keeps the matches, KEYWORD_MATCH_CAP of them.
CREATE INDEX works_likes ON works (platform, latest_likes DESC NULLS LAST, id);
-- A day's aggregate rows by their last reads: the level boards over reads
-- (category-time-hot over any window) walk the window's last day in board
-- order and stop at the board's size (read backwards: `DESC`, unknown
-- first, which the boards' `IS NOT NULL` filter skips).
CREATE INDEX work_days_views ON work_days (platform, day, last_views);
