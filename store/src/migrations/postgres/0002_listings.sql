-- Account search and listing indexes (docs/store.md "Search"). The
-- account tsvector holds the jieba-segmented nickname (weight A) and
-- signature + category (weight B), written by the store.
ALTER TABLE accounts ADD COLUMN search_vector TSVECTOR NOT NULL DEFAULT ''::tsvector;
CREATE INDEX accounts_search ON accounts USING GIN (search_vector);
CREATE INDEX works_published ON works (platform, published_at);
CREATE INDEX works_category ON works (platform, category);
CREATE INDEX accounts_fans ON accounts (platform, fans);
CREATE INDEX hot_list_entries_captured ON hot_list_entries (captured_at, source);
