-- Search at scale (docs/data-apis.md "Search at scale", docs/store.md "Search"):
-- a relevance search whose keyword matches more than TOTAL_CAP rows of a
-- platform ranks the most recently stored ones; these indexes give a
-- platform's rows newest first without reading its other matches.
CREATE INDEX works_platform_id ON works (platform, id);
CREATE INDEX accounts_platform_id ON accounts (platform, id);
