-- Each row's FTS5 token count (every column) beside the row, for the
-- relevance score: a search then scores a match without looking its length
-- up in the FTS table's docsize (store/src/fts5_tokens.rs, docs/rankings.md
-- "Searches: what each match's length costs"). Written with every write of
-- a row's FTS text; NULL (a row without FTS text) has the score look it up.
ALTER TABLE works ADD COLUMN fts_tokens INTEGER;
ALTER TABLE accounts ADD COLUMN fts_tokens INTEGER;
UPDATE works SET fts_tokens = (SELECT mediaops_fts_tokens(sz) FROM works_fts_docsize d WHERE d.id = works.id);
UPDATE accounts SET fts_tokens = (SELECT mediaops_fts_tokens(sz) FROM accounts_fts_docsize d WHERE d.id = accounts.id);
