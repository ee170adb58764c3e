-- A platform's works newest stored first (docs/data-apis.md "Search at scale"): a
-- relevance search past the count cap ranks the newest TOTAL_CAP matches
-- of its platform, and a capped count stops at TOTAL_CAP + 1 matches; both
-- walk this index backwards with the text (and any publish window) as a
-- filter, reading the platform's rows only, instead of the primary key
-- across every platform's rows (or a sequential scan of the table).
CREATE INDEX works_platform_newest ON works (platform, id);
