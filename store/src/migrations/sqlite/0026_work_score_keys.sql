-- The columns a relevance search reads of each of its matches, in an index
-- of their own (docs/data-apis.md "Search at scale", docs/rankings.md
-- "Searches on SQLite: each match's keys from an index"): the id, the
-- platform (the window's condition), the token count (the score's row
-- length, store/src/fts5_bm25.rs), the newest likes and the publish time
-- (the tie-breaks). A search that filters on nothing else reads its up to
-- 10,000 matches' keys here (`INDEXED BY`, store/src/listing.rs) instead
-- of each match's whole `works` row: records of a few dozen bytes, a fifth
-- of the pages. SQLite's planner keeps the rowid lookup when left to itself.
CREATE INDEX works_score_keys ON works (id, platform, fts_tokens, latest_likes, published_at);
