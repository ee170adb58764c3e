//! The bulk snapshot path (docs/store.md "Bulk
//! snapshots"): many snapshots of one platform's works or accounts in one
//! call, [`ContentStore::bulk_work_snapshots`](crate::ContentStore::bulk_work_snapshots) and
//! [`ContentStore::bulk_account_snapshots`](crate::ContentStore::bulk_account_snapshots).
//!
//! The outcome is the one the write path gives for the same snapshots
//! written one by one in order: a snapshot replaces the one at the same
//! `(entity, captured_at)` (the last of several in one call wins), the
//! per-day aggregates of migration 0006 (`work_days`, `account_days`) end up
//! exactly as the row triggers leave them, and a work's newest likes and
//! capture time (`latest_likes`, `latest_captured_at`) move forward only.
//! A snapshot whose entity is not stored is left out and reported by its
//! index ([`BulkReport::missing`]).
//!
//! How, per backend ([`sqlite`], [`postgres`]): the platform ids are
//! resolved to row ids first (one indexed read per [`BULK_ROWS`] ids), then
//! one transaction per call writes [`BULK_ROWS`] rows per statement —
//! SQLite one `json_each` array parameter with the row triggers keeping the
//! aggregates; PostgreSQL `UNNEST` arrays with the row triggers switched off
//! for the transaction (migration 0012) and the aggregates of the touched
//! `(entity, day)` rows and their neighbours recomputed by one set-based
//! statement per chunk (`Dialect::bulk_days` in `store/days.rs`).

pub mod postgres;
pub mod sqlite;

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::days::{ACCOUNT_DAYS, DayTable, WORK_DAYS};
use super::model::{AccountSnapshot, WorkSnapshot};

/// Snapshot rows per statement (and ids per lookup).
pub const BULK_ROWS: usize = 10_000;

/// What a bulk call did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BulkReport {
    /// Snapshots written (inserted or replacing one at the same moment;
    /// each input counts, duplicates included).
    pub written: u64,
    /// Indexes (0-based, into the call's input) of the snapshots whose
    /// entity is not stored on the platform; nothing was written for them.
    pub missing: Vec<usize>,
}

/// A snapshot table as the bulk path writes it.
#[derive(Debug, Clone, Copy)]
pub struct SnapshotTable {
    /// The aggregates it feeds (names the snapshot, entity and key tables).
    pub days: DayTable,
    /// Counter columns, in [`BulkSnapshot::counters`] order.
    pub counters: &'static [&'static str],
    /// Whether it has the JSON `extra` column.
    pub extra: bool,
    /// Whether the entity keeps its newest figures (`works.latest_*`).
    pub latest: bool,
}

/// `work_snapshots`.
pub const WORK_SNAPSHOTS: SnapshotTable = SnapshotTable {
    days: WORK_DAYS,
    counters: &["likes", "collects", "comments", "shares", "views", "watch"],
    extra: true,
    latest: true,
};

/// `account_snapshots`.
pub const ACCOUNT_SNAPSHOTS: SnapshotTable =
    SnapshotTable { days: ACCOUNT_DAYS, counters: &["fans", "likes", "works", "reads"], extra: false, latest: false };

/// A snapshot the bulk path writes.
pub trait BulkSnapshot: Sync {
    /// Its table.
    const TABLE: SnapshotTable;
    /// When it was captured.
    fn captured_at(&self) -> DateTime<Utc>;
    /// Its counters, in [`SnapshotTable::counters`] order.
    fn counters(&self) -> Vec<Option<i64>>;
    /// Its `extra` JSON text (works).
    fn extra(&self) -> Option<String> {
        None
    }
}

impl BulkSnapshot for WorkSnapshot {
    const TABLE: SnapshotTable = WORK_SNAPSHOTS;
    fn captured_at(&self) -> DateTime<Utc> {
        self.captured_at
    }
    fn counters(&self) -> Vec<Option<i64>> {
        vec![self.likes, self.collects, self.comments, self.shares, self.views, self.watch]
    }
    fn extra(&self) -> Option<String> {
        self.extra.as_ref().map(|e| e.to_string())
    }
}

impl BulkSnapshot for AccountSnapshot {
    const TABLE: SnapshotTable = ACCOUNT_SNAPSHOTS;
    fn captured_at(&self) -> DateTime<Utc> {
        self.captured_at
    }
    fn counters(&self) -> Vec<Option<i64>> {
        vec![self.fans, self.likes, self.works, self.reads]
    }
}

/// The distinct platform ids of `input`, in first-seen order.
pub(crate) fn platform_ids<S>(input: &[(String, S)]) -> Vec<&str> {
    let mut seen = std::collections::HashSet::new();
    input.iter().map(|(id, _)| id.as_str()).filter(|id| seen.insert(*id)).collect()
}

/// The rows to write: per `(entity, captured_at)` the last input snapshot
/// (so one statement never meets a key twice), with its entity's row id;
/// and the report (inputs written, indexes of those without an entity).
pub(crate) fn rows<'a, S: BulkSnapshot>(
    input: &'a [(String, S)],
    ids: &HashMap<String, i64>,
) -> (Vec<(i64, &'a S)>, BulkReport) {
    let mut report = BulkReport::default();
    let mut rows: Vec<(i64, &S)> = Vec::with_capacity(input.len());
    let mut at: HashMap<(i64, DateTime<Utc>), usize> = HashMap::with_capacity(input.len());
    for (index, (platform_id, snapshot)) in input.iter().enumerate() {
        let Some(&id) = ids.get(platform_id) else {
            report.missing.push(index);
            continue;
        };
        report.written += 1;
        match at.entry((id, snapshot.captured_at())) {
            std::collections::hash_map::Entry::Occupied(slot) => rows[*slot.get()] = (id, snapshot),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(rows.len());
                rows.push((id, snapshot));
            }
        }
    }
    (rows, report)
}

impl SnapshotTable {
    /// The snapshot table's name.
    pub fn name(&self) -> &'static str {
        self.days.snapshots
    }

    /// `key, captured_at, counters…[, extra]`.
    fn columns(&self) -> String {
        let mut columns = vec![self.days.key, "captured_at"];
        columns.extend(self.counters);
        if self.extra {
            columns.push("extra");
        }
        columns.join(", ")
    }

    /// `ON CONFLICT … DO UPDATE` replacing every counter (and `extra`), as
    /// the write path's snapshot upsert.
    fn replace(&self) -> String {
        let mut set: Vec<String> = self.counters.iter().map(|c| format!("{c} = excluded.{c}")).collect();
        if self.extra {
            set.push("extra = excluded.extra".into());
        }
        format!(" ON CONFLICT ({}, captured_at) DO UPDATE SET {}", self.days.key, set.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn snapshot(hour: u32, likes: i64) -> WorkSnapshot {
        WorkSnapshot {
            captured_at: Utc.with_ymd_and_hms(2026, 11, 1, hour, 0, 0).unwrap(),
            likes: Some(likes),
            ..Default::default()
        }
    }

    #[test]
    fn the_last_snapshot_of_a_moment_wins_and_unknown_entities_are_reported() {
        let input = vec![
            ("w1".to_owned(), snapshot(1, 1)),
            ("w2".to_owned(), snapshot(1, 2)),
            ("nope".to_owned(), snapshot(1, 3)),
            ("w1".to_owned(), snapshot(1, 4)),
            ("w1".to_owned(), snapshot(2, 5)),
        ];
        let ids = HashMap::from([("w1".to_owned(), 10), ("w2".to_owned(), 20)]);
        let (rows, report) = rows(&input, &ids);
        let got: Vec<(i64, Option<i64>)> = rows.iter().map(|(id, s)| (*id, s.likes)).collect();
        assert_eq!(got, [(10, Some(4)), (20, Some(2)), (10, Some(5))]);
        assert_eq!(report, BulkReport { written: 4, missing: vec![2] });
        assert_eq!(platform_ids(&input), ["w1", "w2", "nope"]);
    }
}
