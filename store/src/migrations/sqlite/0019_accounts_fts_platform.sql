-- The accounts' full-text index names each account's platform in a column
-- of its own, as the works' index does since migration 0013
-- (`platform_terms`, the term `zzplatform<platform>`, store/segment.rs
-- `platform_term`): an account search of one platform is an intersection of
-- FTS5 doclists instead of an `accounts` lookup per match of every platform
-- (docs/data-apis.md "Search at scale"). The column weighs 0 in the score:
-- relevance is unchanged. FTS5 cannot add a column: the table is rebuilt
-- from the old one (terms copied, not segmented again).
CREATE VIRTUAL TABLE accounts_fts_platform USING fts5 (nickname_terms, body_terms, platform_terms, tokenize = 'unicode61');
INSERT INTO accounts_fts_platform (rowid, nickname_terms, body_terms, platform_terms)
    SELECT f.rowid, f.nickname_terms, f.body_terms, 'zzplatform' || lower(a.platform)
    FROM accounts_fts f JOIN accounts a ON a.id = f.rowid;
DROP TABLE accounts_fts;
ALTER TABLE accounts_fts_platform RENAME TO accounts_fts;
