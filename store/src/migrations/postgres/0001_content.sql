-- Content store, PostgreSQL (docs/store.md). Same tables as the SQLite
-- schema; times are timestamptz, full text is a weighted tsvector built from
-- the jieba-segmented text by the store (no text-search parser involved, so
-- Chinese words survive whatever the database locale).
CREATE TABLE accounts (
    id BIGSERIAL PRIMARY KEY,
    platform TEXT NOT NULL,
    platform_id TEXT NOT NULL,
    account_id TEXT, sec_uid TEXT, uid TEXT, mid TEXT, red_id TEXT, kwai_id TEXT, unique_id TEXT, wechat_id TEXT,
    nickname TEXT NOT NULL DEFAULT '',
    signature TEXT,
    fans BIGINT, following BIGINT, works BIGINT, likes BIGINT, collects BIGINT,
    region TEXT, category TEXT, avatar TEXT,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (platform, platform_id)
);
CREATE INDEX accounts_sec_uid ON accounts (platform, sec_uid) WHERE sec_uid IS NOT NULL;
CREATE INDEX accounts_unique_id ON accounts (platform, unique_id) WHERE unique_id IS NOT NULL;
CREATE INDEX accounts_nickname ON accounts (platform, nickname);

CREATE TABLE account_snapshots (
    account BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    captured_at TIMESTAMPTZ NOT NULL,
    fans BIGINT, likes BIGINT, works BIGINT, reads BIGINT,
    PRIMARY KEY (account, captured_at)
);

CREATE TABLE works (
    id BIGSERIAL PRIMARY KEY,
    platform TEXT NOT NULL,
    platform_id TEXT NOT NULL,
    work_id TEXT, note_id TEXT, video_id TEXT, bv_id TEXT, photo_id TEXT, work_uuid TEXT,
    title TEXT NOT NULL DEFAULT '',
    description TEXT,
    author_id TEXT,
    published_at TIMESTAMPTZ,
    url TEXT, cover TEXT, video_url TEXT,
    work_type TEXT, category TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    duration_secs BIGINT,
    latest_likes BIGINT,
    latest_captured_at TIMESTAMPTZ,
    search_vector TSVECTOR NOT NULL DEFAULT ''::tsvector,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (platform, platform_id)
);
CREATE INDEX works_author ON works (platform, author_id, published_at);
CREATE INDEX works_work_id ON works (platform, work_id) WHERE work_id IS NOT NULL;
CREATE INDEX works_search ON works USING GIN (search_vector);

CREATE TABLE work_snapshots (
    work BIGINT NOT NULL REFERENCES works (id) ON DELETE CASCADE,
    captured_at TIMESTAMPTZ NOT NULL,
    likes BIGINT, collects BIGINT, comments BIGINT, shares BIGINT, views BIGINT, watch BIGINT,
    extra JSONB,
    PRIMARY KEY (work, captured_at)
);

CREATE TABLE comments (
    id BIGSERIAL PRIMARY KEY,
    platform TEXT NOT NULL,
    platform_id TEXT NOT NULL,
    work_id TEXT NOT NULL,
    text TEXT NOT NULL,
    likes BIGINT,
    author_id TEXT, author_name TEXT,
    published_at TIMESTAMPTZ,
    parent_id TEXT,
    UNIQUE (platform, platform_id)
);
CREATE INDEX comments_work ON comments (platform, work_id);

CREATE TABLE hot_list_entries (
    source TEXT NOT NULL,
    captured_at TIMESTAMPTZ NOT NULL,
    rank BIGINT NOT NULL,
    title TEXT NOT NULL,
    hot_value BIGINT,
    url TEXT,
    extra JSONB,
    PRIMARY KEY (source, captured_at, rank)
);
