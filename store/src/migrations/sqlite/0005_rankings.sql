-- Rankings read snapshots by capture window (docs/rankings.md "Store").
CREATE INDEX work_snapshots_captured ON work_snapshots (captured_at, work);
CREATE INDEX account_snapshots_captured ON account_snapshots (captured_at, account);
CREATE INDEX accounts_category ON accounts (platform, category);
