-- Tracking lists (docs/tracking.md "Storage"): per-account sets of accounts
-- and keywords of one platform collected on a schedule, and their run log.
-- Instants the scheduler compares are Unix milliseconds.

-- One tracking list: `spec` is its TrackingSpec as proto JSON. The columns
-- are those of `watchlists` (migration 0009), read and leased by the same
-- code (store/scheduled.rs): `next_run_ms` is when the scheduler runs it
-- next (null: not scheduled); a runner holds it under (`lease_owner`,
-- `lease_until_ms`) while it runs.
CREATE TABLE tracking_lists (
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
CREATE INDEX tracking_lists_due ON tracking_lists (next_run_ms);

-- The run log: one TrackingRun (proto JSON) per run, once per run id
-- (`<list>:<firing ms>`).
CREATE TABLE tracking_runs (
    seq BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL,
    list_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    document TEXT NOT NULL,
    UNIQUE (account_id, list_id, run_id)
);
CREATE INDEX tracking_runs_list ON tracking_runs (account_id, list_id, seq);
