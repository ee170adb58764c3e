-- Asynchronous tasks (docs/tasks.md): one row per task, whatever operation
-- runs it. Times are milliseconds since the Unix epoch (UTC), the same on
-- both backends, so lease comparisons are plain integer comparisons.
CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    operation_key TEXT NOT NULL,
    -- The owning account: only its keys may read the task.
    account_id TEXT NOT NULL,
    -- running | success | failed
    status TEXT NOT NULL,
    -- JSON: the request as the operation received it.
    request TEXT NOT NULL,
    -- JSON: the operation's result, once `success`.
    result TEXT,
    -- JSON {code, message, upstream?}, once `failed`.
    error TEXT,
    -- The ledger reservation the task holds until it settles, and its points.
    reservation_id TEXT,
    points BIGINT NOT NULL DEFAULT 0,
    request_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- A task still running at this moment fails.
    deadline_at BIGINT NOT NULL,
    -- The process running the task and until when its claim holds; a
    -- running task whose lease has passed is taken over by another process.
    lease_owner TEXT,
    lease_until BIGINT
);
CREATE INDEX tasks_running_lease ON tasks (lease_until) WHERE status = 'running';
