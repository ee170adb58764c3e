-- Per-account and WeChat state (issue 16 item 1; docs/state.md), kept in the
-- content store's database so several cores share it. Documents are JSON
-- text, as the file-backed stores wrote them; times the API shows are kept
-- as the RFC 3339 text it shows.

-- Positioning charters (docs/charter.md): the StoredCharter of a profile as
-- proto JSON ({profileId, charter, charterUpdatedAt}).
CREATE TABLE charters (
    account_id TEXT NOT NULL,
    profile_id TEXT NOT NULL,
    document TEXT NOT NULL,
    PRIMARY KEY (account_id, profile_id)
);

-- An account's default article theme (docs/articles.md "Themes").
CREATE TABLE theme_defaults (
    account_id TEXT PRIMARY KEY,
    theme_id TEXT NOT NULL
);

-- An account's custom article themes; `updated_at` is RFC 3339 UTC.
CREATE TABLE custom_themes (
    account_id TEXT NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    css TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (account_id, id)
);

-- Per-account banned-word lists (docs/banned-words.md), one row per scope
-- (`all` or a platform): JSON {add: [{word, category}], allow, updatedAt}.
-- An empty list has no row.
CREATE TABLE word_lists (
    account_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    list TEXT NOT NULL,
    PRIMARY KEY (account_id, scope)
);

-- WeChat third-party platform state (docs/wechat.md "State"). The latest
-- component_verify_ticket: one row (id 1).
CREATE TABLE wechat_verify_ticket (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    ticket TEXT NOT NULL,
    -- RFC 3339 UTC of the push.
    received_at TEXT NOT NULL
);

-- Authorized official accounts; `refresh_token` is the
-- authorizer_refresh_token (a secret: never logged).
CREATE TABLE wechat_authorizers (
    authorizer_appid TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    nickname TEXT NOT NULL,
    avatar TEXT NOT NULL,
    service_type TEXT NOT NULL,
    verified BOOLEAN NOT NULL,
    authorized_at TEXT NOT NULL,
    refresh_token TEXT NOT NULL
);
CREATE INDEX wechat_authorizers_account ON wechat_authorizers (account_id);

-- Pre-auth codes handed out, waiting for the `authorized` event; dropped
-- after `expires_at` (Unix seconds).
CREATE TABLE wechat_pending (
    pre_auth_code TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
