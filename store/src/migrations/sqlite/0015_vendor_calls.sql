-- Vendor calls (docs/vendors.md "Vendor spend"): one row per request sent to
-- a data vendor and per call its answer cache answered (cache_hit, no cost),
-- with the route's price in the pack's currency; `mediaops usage --vendors`
-- sums them per operation.
CREATE TABLE vendor_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    pack TEXT NOT NULL,
    route TEXT NOT NULL,
    operation_key TEXT NOT NULL,
    cost_per_call REAL,
    currency TEXT NOT NULL,
    cache_hit INTEGER NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX vendor_calls_operation ON vendor_calls (operation_key);
