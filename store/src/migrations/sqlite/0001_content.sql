-- Content store, SQLite (docs/store.md). Times are UTC text as sqlx writes
-- chrono::DateTime<Utc> ("YYYY-MM-DD HH:MM:SS[.f]+00:00"), which sorts.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    platform_id TEXT NOT NULL,
    account_id TEXT, sec_uid TEXT, uid TEXT, mid TEXT, red_id TEXT, kwai_id TEXT, unique_id TEXT, wechat_id TEXT,
    nickname TEXT NOT NULL DEFAULT '',
    signature TEXT,
    fans INTEGER, following INTEGER, works INTEGER, likes INTEGER, collects INTEGER,
    region TEXT, category TEXT, avatar TEXT,
    updated_at TEXT NOT NULL,
    UNIQUE (platform, platform_id)
);
CREATE INDEX accounts_sec_uid ON accounts (platform, sec_uid) WHERE sec_uid IS NOT NULL;
CREATE INDEX accounts_unique_id ON accounts (platform, unique_id) WHERE unique_id IS NOT NULL;
CREATE INDEX accounts_nickname ON accounts (platform, nickname);

CREATE TABLE account_snapshots (
    account INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    captured_at TEXT NOT NULL,
    fans INTEGER, likes INTEGER, works INTEGER, reads INTEGER,
    PRIMARY KEY (account, captured_at)
) WITHOUT ROWID;

CREATE TABLE works (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    platform_id TEXT NOT NULL,
    work_id TEXT, note_id TEXT, video_id TEXT, bv_id TEXT, photo_id TEXT, work_uuid TEXT,
    title TEXT NOT NULL DEFAULT '',
    description TEXT,
    author_id TEXT,
    published_at TEXT,
    url TEXT, cover TEXT, video_url TEXT,
    work_type TEXT, category TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    duration_secs INTEGER,
    -- Denormalised from the newest snapshot, for ranking.
    latest_likes INTEGER,
    latest_captured_at TEXT,
    updated_at TEXT NOT NULL,
    UNIQUE (platform, platform_id)
);
CREATE INDEX works_author ON works (platform, author_id, published_at);
CREATE INDEX works_work_id ON works (platform, work_id) WHERE work_id IS NOT NULL;

-- jieba-segmented title and body (description + tags), space separated;
-- rowid = works.id.
CREATE VIRTUAL TABLE works_fts USING fts5 (title_terms, body_terms, tokenize = 'unicode61');

CREATE TABLE work_snapshots (
    work INTEGER NOT NULL REFERENCES works (id) ON DELETE CASCADE,
    captured_at TEXT NOT NULL,
    likes INTEGER, collects INTEGER, comments INTEGER, shares INTEGER, views INTEGER, watch INTEGER,
    extra TEXT,
    PRIMARY KEY (work, captured_at)
) WITHOUT ROWID;

CREATE TABLE comments (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    platform_id TEXT NOT NULL,
    work_id TEXT NOT NULL,
    text TEXT NOT NULL,
    likes INTEGER,
    author_id TEXT, author_name TEXT,
    published_at TEXT,
    parent_id TEXT,
    UNIQUE (platform, platform_id)
);
CREATE INDEX comments_work ON comments (platform, work_id);

CREATE TABLE hot_list_entries (
    source TEXT NOT NULL,
    captured_at TEXT NOT NULL,
    rank INTEGER NOT NULL,
    title TEXT NOT NULL,
    hot_value INTEGER,
    url TEXT,
    extra TEXT,
    PRIMARY KEY (source, captured_at, rank)
) WITHOUT ROWID;
