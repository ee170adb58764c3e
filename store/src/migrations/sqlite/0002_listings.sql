-- Account search and listing indexes (docs/store.md "Search").
-- jieba-segmented nickname and body (signature + category); rowid = accounts.id.
CREATE VIRTUAL TABLE accounts_fts USING fts5 (nickname_terms, body_terms, tokenize = 'unicode61');
CREATE INDEX works_published ON works (platform, published_at);
CREATE INDEX works_category ON works (platform, category);
CREATE INDEX accounts_fans ON accounts (platform, fans);
CREATE INDEX hot_list_entries_captured ON hot_list_entries (captured_at, source);
