-- How many works hold each index term in their title or body: the number
-- of `work_terms` rows of the term (store/src/term_lists.rs), kept by
-- triggers on that table, which every write of a work's FTS text rewrites.
-- The relevance score reads a term's count here instead of walking the
-- term's whole doclist in `works_fts` for its IDF (store/src/fts5_bm25.rs,
-- docs/data-apis.md "The score on SQLite"). The folded list (term '') is
-- not a term and is not counted.
CREATE TABLE work_term_rows (
    term TEXT PRIMARY KEY,
    rows INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO work_term_rows (term, rows) SELECT term, count(*) FROM work_terms WHERE term <> '' GROUP BY term;
CREATE TRIGGER work_term_rows_insert AFTER INSERT ON work_terms WHEN NEW.term <> '' BEGIN
    INSERT INTO work_term_rows (term, rows) VALUES (NEW.term, 1) ON CONFLICT (term) DO UPDATE SET rows = rows + 1;
END;
CREATE TRIGGER work_term_rows_delete AFTER DELETE ON work_terms WHEN OLD.term <> '' BEGIN
    UPDATE work_term_rows SET rows = rows - 1 WHERE term = OLD.term;
END;
