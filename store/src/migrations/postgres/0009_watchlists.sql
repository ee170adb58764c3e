-- Watch lists (issue 19; docs/watchlists.md): per-account keyword
-- subscriptions over the hot lists, the items each one already pushed, and
-- its delivery log. Instants the scheduler compares are Unix milliseconds.

-- One watch list: `spec` is its WatchlistSpec as proto JSON, channel
-- secrets included (never answered). `next_run_ms` is when the scheduler
-- runs it next (null: not scheduled); a runner holds it under
-- (`lease_owner`, `lease_until_ms`) while it runs, as tasks are leased.
CREATE TABLE watchlists (
    account_id TEXT NOT NULL,
    id TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    state TEXT NOT NULL,
    state_reason TEXT NOT NULL,
    next_run_ms BIGINT,
    last_run_ms BIGINT,
    lease_owner TEXT,
    lease_until_ms BIGINT,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX watchlists_due ON watchlists (next_run_ms);

-- The seen-set: an item is pushed once per watch list, keyed by its source
-- and normalized title.
CREATE TABLE watch_seen (
    account_id TEXT NOT NULL,
    watchlist_id TEXT NOT NULL,
    source TEXT NOT NULL,
    title_key TEXT NOT NULL,
    pushed_at TEXT NOT NULL,
    PRIMARY KEY (account_id, watchlist_id, source, title_key)
);

-- The delivery log: one Delivery (proto JSON) per digest and channel.
CREATE TABLE watch_deliveries (
    seq BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL,
    watchlist_id TEXT NOT NULL,
    document TEXT NOT NULL
);
CREATE INDEX watch_deliveries_list ON watch_deliveries (account_id, watchlist_id, seq);
