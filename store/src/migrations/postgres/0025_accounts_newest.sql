-- A platform's accounts newest stored first (docs/data-apis.md "Search at
-- scale"), as `works_platform_newest` (migration 0017) for works: a
-- relevance search of accounts past the count cap ranks the newest
-- TOTAL_CAP matches of its platform, and a capped count stops at
-- TOTAL_CAP + 1; both walk this index backwards with the text as a filter,
-- reading the platform's rows only, instead of the primary key across
-- every platform's rows (at 1,000,000 works, 66,666 other accounts passed
-- before the last platform's newest 10,001 matches of a common word).
CREATE INDEX accounts_platform_newest ON accounts (platform, id);
