-- Keyword values keyed by work first (docs/rankings.md "Keyword values"):
-- a keyword board that ranks several boards of values over the same
-- matches (lifestyle-hit-data's four, articles-hit-cover's two) reads all
-- of a match's values with one descent of the key `(work, board)`, where
-- the key `(board, work)` took one descent per board. A single board's
-- value is still one probe of the whole key. The index on `board` serves
-- a board's deletion (its build, `ON DELETE CASCADE`) and its listing.
-- The rows are kept.
CREATE TABLE board_values_by_work (
    work INTEGER NOT NULL,
    board INTEGER NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    value INTEGER NOT NULL,
    PRIMARY KEY (work, board)
) WITHOUT ROWID;
INSERT INTO board_values_by_work (work, board, value) SELECT work, board, value FROM board_values ORDER BY work, board;
DROP TABLE board_values;
ALTER TABLE board_values_by_work RENAME TO board_values;
CREATE INDEX board_values_board ON board_values (board);
