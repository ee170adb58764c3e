-- Boards as data (issue 24 item 1; docs/rankings.md "Boards as data"):
-- ranking boards computed once their days are final and stored ranked.
--
-- `boards`: one row per board, identified by (platform, kind, category,
-- first_day, last_day); `category` is '' for the whole platform. A row
-- whose `built_at` is NULL is waiting to be (re)built; `generation` counts
-- the invalidations, so a build that raced one is not marked built.
CREATE TABLE boards (
    id BIGSERIAL PRIMARY KEY,
    platform TEXT NOT NULL,
    kind TEXT NOT NULL,
    period TEXT NOT NULL,
    first_day DATE NOT NULL,
    last_day DATE NOT NULL,
    category TEXT NOT NULL,
    generation BIGINT NOT NULL DEFAULT 0,
    built_at TIMESTAMPTZ,
    UNIQUE (platform, kind, category, first_day, last_day)
);
CREATE INDEX boards_pending ON boards (last_day) WHERE built_at IS NULL;

-- `board_rows`: a built board's ranked rows; `entity` is the work's or
-- account's platform id (or the author id of author boards), joined at
-- read time for the texts; `value` the figure ranked by, `score` a
-- computed score when the board ranks by one.
CREATE TABLE board_rows (
    board BIGINT NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    entity TEXT NOT NULL,
    value BIGINT NOT NULL,
    score DOUBLE PRECISION,
    PRIMARY KEY (board, rank)
);

-- `board_dirty`: the (platform, snapshot table, Shanghai day) whose
-- snapshots were written since the builder last looked, one row per
-- writing transaction (`stamp` = its id): the builder deletes only the
-- rows it has seen, and a transaction still running keeps its own row, so
-- no write takes a lock another writer waits for.
CREATE TABLE board_dirty (
    platform TEXT NOT NULL,
    entities TEXT NOT NULL,
    day DATE NOT NULL,
    stamp BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, entities, day, stamp)
);

-- Statement triggers with transition tables: one insert per statement,
-- however many snapshots it writes (a bulk insert marks each day once).
CREATE FUNCTION board_dirty_works() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
INSERT INTO board_dirty (platform, entities, day, stamp)
  SELECT DISTINCT w.platform, 'works', (n.captured_at AT TIME ZONE 'Asia/Shanghai')::date, txid_current()
  FROM written n JOIN works w ON w.id = n.work
  ON CONFLICT DO NOTHING;
RETURN NULL;
END
$body$;
CREATE TRIGGER board_dirty_works_on_insert AFTER INSERT ON work_snapshots
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION board_dirty_works();
CREATE TRIGGER board_dirty_works_on_update AFTER UPDATE ON work_snapshots
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION board_dirty_works();

CREATE FUNCTION board_dirty_accounts() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
INSERT INTO board_dirty (platform, entities, day, stamp)
  SELECT DISTINCT a.platform, 'accounts', (n.captured_at AT TIME ZONE 'Asia/Shanghai')::date, txid_current()
  FROM written n JOIN accounts a ON a.id = n.account
  ON CONFLICT DO NOTHING;
RETURN NULL;
END
$body$;
CREATE TRIGGER board_dirty_accounts_on_insert AFTER INSERT ON account_snapshots
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION board_dirty_accounts();
CREATE TRIGGER board_dirty_accounts_on_update AFTER UPDATE ON account_snapshots
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION board_dirty_accounts();

-- A store that already holds snapshots: every day with snapshots is dirty.
INSERT INTO board_dirty (platform, entities, day) SELECT DISTINCT platform, 'works', day FROM work_days;
INSERT INTO board_dirty (platform, entities, day) SELECT DISTINCT platform, 'accounts', day FROM account_days;
