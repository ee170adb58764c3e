-- Keyword values keyed by work first (docs/rankings.md "Keyword values"):
-- a keyword board that ranks several boards of values over the same
-- matches (lifestyle-hit-data's four, articles-hit-cover's two) reads all
-- of a match's values with one descent of the key `(work, board)`, where
-- the key `(board, work)` took one descent per board; the key carries the
-- value (`INCLUDE`), so once the table's visibility map is set the probe
-- reads no table row. A single board's value is still one probe of the
-- whole key. The index on `board` serves a board's deletion (its build,
-- `ON DELETE CASCADE`) and its listing. The rows are kept.
ALTER TABLE board_values DROP CONSTRAINT board_values_pkey;
ALTER TABLE board_values ADD PRIMARY KEY (work, board) INCLUDE (value);
CREATE INDEX board_values_board ON board_values (board);
