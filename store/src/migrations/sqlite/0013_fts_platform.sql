-- Issue 24: the works' full-text index names each work's platform in a
-- column of its own (`platform_terms`, the term `zzplatform<platform>`,
-- store/segment.rs `platform_term`), so a search of one platform is an
-- intersection of FTS5 doclists instead of a `works` lookup per match of
-- every platform. bm25 weighs the column 0: relevance is unchanged.
-- FTS5 cannot add a column: the table is rebuilt from the old one.
CREATE VIRTUAL TABLE works_fts_platform USING fts5 (title_terms, body_terms, platform_terms, tokenize = 'unicode61');
INSERT INTO works_fts_platform (rowid, title_terms, body_terms, platform_terms)
    SELECT f.rowid, f.title_terms, f.body_terms, 'zzplatform' || lower(w.platform)
    FROM works_fts f JOIN works w ON w.id = f.rowid;
DROP TABLE works_fts;
ALTER TABLE works_fts_platform RENAME TO works_fts;
