-- Sync jobs (docs/sync.md): one row per submitted sync, its state readable
-- by id (`GET /api/tasks/{taskId}`), failed rows forming the dead-letter
-- list. Times are milliseconds since the Unix epoch (UTC).
CREATE TABLE sync_jobs (
    id TEXT PRIMARY KEY,
    operation_key TEXT NOT NULL,
    -- The submitting account: only its keys may read the job.
    account_id TEXT NOT NULL,
    -- The redId / accountId / wechatId synced.
    target TEXT NOT NULL,
    -- JSON: the request as the operation received it.
    request TEXT NOT NULL,
    -- queued | running | success | failed
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    -- JSON {pages, records, works, accounts}, once `success`.
    result TEXT,
    -- JSON {code, message, upstream?}: the last failure.
    error TEXT,
    request_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- When a queued job is due.
    next_attempt_at BIGINT NOT NULL
);
CREATE INDEX sync_jobs_open ON sync_jobs (account_id, operation_key, target, status);
CREATE INDEX sync_jobs_status ON sync_jobs (status, updated_at);

-- The embedded sync queue (used when no Redis is configured): one row per
-- job waiting or being worked on. A row is claimed by a worker until
-- `lease_until`; a row whose lease passed (its worker died) is claimed again.
CREATE TABLE sync_queue (
    job_id TEXT PRIMARY KEY,
    due_at BIGINT NOT NULL,
    consumer TEXT,
    lease_until BIGINT NOT NULL DEFAULT 0,
    deliveries INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sync_queue_due ON sync_queue (due_at, lease_until);
