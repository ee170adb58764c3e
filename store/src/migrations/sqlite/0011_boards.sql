-- Boards as data (issue 24 item 1; docs/rankings.md "Boards as data"):
-- ranking boards computed once their days are final and stored ranked.
--
-- `boards`: one row per board, identified by (platform, kind, category,
-- first_day, last_day); `category` is '' for the whole platform. A row
-- whose `built_at` is NULL is waiting to be (re)built; `generation` counts
-- the invalidations, so a build that raced one is not marked built.
CREATE TABLE boards (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    kind TEXT NOT NULL,
    period TEXT NOT NULL,
    first_day TEXT NOT NULL,
    last_day TEXT NOT NULL,
    category TEXT NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0,
    built_at TEXT,
    UNIQUE (platform, kind, category, first_day, last_day)
);
CREATE INDEX boards_pending ON boards (last_day) WHERE built_at IS NULL;

-- `board_rows`: a built board's ranked rows; `entity` is the work's or
-- account's platform id (or the author id of author boards), joined at
-- read time for the texts; `value` the figure ranked by, `score` a
-- computed score when the board ranks by one.
CREATE TABLE board_rows (
    board INTEGER NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    entity TEXT NOT NULL,
    value INTEGER NOT NULL,
    score REAL,
    PRIMARY KEY (board, rank)
) WITHOUT ROWID;

-- `board_dirty`: the (platform, snapshot table, Shanghai day) whose
-- snapshots were written since the builder last looked. `stamp` grows with
-- every write, so the builder deletes only the marks it has seen.
CREATE TABLE board_dirty (
    platform TEXT NOT NULL,
    entities TEXT NOT NULL,
    day TEXT NOT NULL,
    stamp INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, entities, day)
) WITHOUT ROWID;

CREATE TRIGGER board_dirty_works_on_insert AFTER INSERT ON work_snapshots BEGIN
INSERT INTO board_dirty (platform, entities, day)
  SELECT platform, 'works', date(NEW.captured_at, '+8 hours') FROM works WHERE id = NEW.work
  ON CONFLICT (platform, entities, day) DO UPDATE SET stamp = board_dirty.stamp + 1;
END;
CREATE TRIGGER board_dirty_works_on_update AFTER UPDATE ON work_snapshots BEGIN
INSERT INTO board_dirty (platform, entities, day)
  SELECT platform, 'works', date(NEW.captured_at, '+8 hours') FROM works WHERE id = NEW.work
  ON CONFLICT (platform, entities, day) DO UPDATE SET stamp = board_dirty.stamp + 1;
END;
CREATE TRIGGER board_dirty_accounts_on_insert AFTER INSERT ON account_snapshots BEGIN
INSERT INTO board_dirty (platform, entities, day)
  SELECT platform, 'accounts', date(NEW.captured_at, '+8 hours') FROM accounts WHERE id = NEW.account
  ON CONFLICT (platform, entities, day) DO UPDATE SET stamp = board_dirty.stamp + 1;
END;
CREATE TRIGGER board_dirty_accounts_on_update AFTER UPDATE ON account_snapshots BEGIN
INSERT INTO board_dirty (platform, entities, day)
  SELECT platform, 'accounts', date(NEW.captured_at, '+8 hours') FROM accounts WHERE id = NEW.account
  ON CONFLICT (platform, entities, day) DO UPDATE SET stamp = board_dirty.stamp + 1;
END;

-- A store that already holds snapshots: every day with snapshots is dirty.
INSERT INTO board_dirty (platform, entities, day) SELECT DISTINCT platform, 'works', day FROM work_days;
INSERT INTO board_dirty (platform, entities, day) SELECT DISTINCT platform, 'accounts', day FROM account_days;
