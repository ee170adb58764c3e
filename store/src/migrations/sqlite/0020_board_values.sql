-- Keyword values (docs/rankings.md "Keyword values"): a built board of a
-- values kind keeps, for every work of its platform with a value over its
-- window, that value (its counter's level or gain; unknown values are not
-- kept), keyed by the work's row id. A keyword board then reads one row
-- per match, one probe of this key, instead of computing each match's
-- value from the per-day aggregates or the snapshots. Rows go with their
-- board (deleted with it).
CREATE TABLE board_values (
    board INTEGER NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    work INTEGER NOT NULL,
    value INTEGER NOT NULL,
    PRIMARY KEY (board, work)
) WITHOUT ROWID;
