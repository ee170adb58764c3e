-- Search at scale (docs/data-apis.md "Search at scale", docs/store.md "Search"):
-- nothing to add on SQLite. A relevance search whose keyword matches more
-- than TOTAL_CAP rows ranks the most recently stored ones, which FTS5 gives
-- in its own index order (rowid descending); PostgreSQL adds
-- `(platform, id)` indexes for the same order in this migration.
SELECT 1;
