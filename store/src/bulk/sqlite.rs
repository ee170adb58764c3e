//! The bulk snapshot path on SQLite ([`super`]): one transaction per call,
//! one `INSERT … SELECT … FROM json_each(?1)` per [`BULK_ROWS`] rows (a
//! JSON array of `[id, captured_at, counters…, extra]` rows: sqlx binding
//! thousands of parameters is far slower), the row triggers of migration
//! 0006 keeping the aggregates as for every write, then the works' newest
//! figures from the same parameter. SQLite has one writer at a time: a call
//! waits for the file's write lock (the pool's busy timeout).

use std::collections::HashMap;
use std::fmt::Write as _;

use sqlx::sqlite::SqlitePool;
use sqlx::{Acquire as _, Row as _};

use super::{BULK_ROWS, BulkReport, BulkSnapshot, SnapshotTable, platform_ids, rows};
use crate::StoreResult;

/// Writes `input` (`(platform_id, snapshot)` of `platform`'s entities).
pub async fn load<S: BulkSnapshot>(
    pool: &SqlitePool,
    platform: &str,
    input: &[(String, S)],
) -> StoreResult<BulkReport> {
    let table = S::TABLE;
    let ids = resolve(pool, table.days.parent, platform, &platform_ids(input)).await?;
    let (rows, report) = rows(input, &ids);
    if rows.is_empty() {
        return Ok(report);
    }
    let insert = insert_statement(&table);
    let mut conn = pool.acquire().await?;
    // A large page cache while the call writes (its index pages stay hot
    // from chunk to chunk), back to the default after it.
    sqlx::query(BULK_CACHE).execute(&mut *conn).await?;
    let written = async {
        let mut tx = conn.begin().await?;
        for chunk in rows.chunks(BULK_ROWS) {
            let json = rows_json(chunk);
            sqlx::query(&insert).bind(&json).execute(&mut *tx).await?;
            if table.latest {
                sqlx::query(LATEST).bind(&json).execute(&mut *tx).await?;
            }
        }
        tx.commit().await
    }
    .await;
    sqlx::query(DEFAULT_CACHE).execute(&mut *conn).await?;
    written?;
    Ok(report)
}

/// The page cache of a bulk call's connection: 256 MiB (SQLite's default
/// is 2 MiB, a few thousand index pages).
const BULK_CACHE: &str = "PRAGMA cache_size = -262144";

/// SQLite's default page cache, set again after a bulk call (which frees
/// the pages above it).
const DEFAULT_CACHE: &str = "PRAGMA cache_size = -2000";

/// `platform_id → id` of the stored entities among `platform_ids`.
async fn resolve(
    pool: &SqlitePool,
    parent: &str,
    platform: &str,
    platform_ids: &[&str],
) -> StoreResult<HashMap<String, i64>> {
    let statement = format!(
        "SELECT platform_id, id FROM {parent} WHERE platform = ?1 AND platform_id IN (SELECT value FROM json_each(?2))"
    );
    let mut ids = HashMap::with_capacity(platform_ids.len());
    for chunk in platform_ids.chunks(BULK_ROWS) {
        let json = serde_json::to_string(chunk).unwrap_or_else(|_| "[]".into());
        for row in sqlx::query(&statement).bind(platform).bind(json).fetch_all(pool).await? {
            ids.insert(row.try_get(0)?, row.try_get(1)?);
        }
    }
    Ok(ids)
}

/// The insert of one JSON parameter of rows (see [`rows_json`]).
fn insert_statement(table: &SnapshotTable) -> String {
    let n = 2 + table.counters.len() + usize::from(table.extra);
    let values: Vec<String> = (0..n).map(|i| format!("value ->> {i}")).collect();
    // `WHERE true`: SQLite's parser needs it between a SELECT and ON CONFLICT.
    format!(
        "INSERT INTO {} ({}) SELECT {} FROM json_each(?1) WHERE true{}",
        table.name(),
        table.columns(),
        values.join(", "),
        table.replace()
    )
}

/// Moves each work's newest likes and capture time forward to its newest
/// snapshot of the parameter, as the write path does per snapshot.
const LATEST: &str = "UPDATE works SET latest_likes = s.likes, latest_captured_at = s.captured_at \
     FROM (SELECT value ->> 0 AS id, max(value ->> 1) AS at FROM json_each(?1) GROUP BY 1) m \
     JOIN work_snapshots s ON s.work = m.id AND s.captured_at = m.at \
     WHERE works.id = m.id AND (works.latest_captured_at IS NULL OR works.latest_captured_at <= m.at)";

/// `[[id, "captured_at", counters…, extra], …]`, times in the text sqlx
/// writes for a `DateTime<Utc>` (RFC 3339, `+00:00`), so a bulk row and a
/// written one at the same moment share their key.
fn rows_json<S: BulkSnapshot>(rows: &[(i64, &S)]) -> String {
    let mut out = String::with_capacity(rows.len() * 96);
    out.push('[');
    for (i, (id, snapshot)) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let at = snapshot.captured_at().to_rfc3339_opts(chrono::SecondsFormat::AutoSi, false);
        let _ = write!(out, "[{id},\"{at}\"");
        for counter in snapshot.counters() {
            match counter {
                Some(v) => {
                    let _ = write!(out, ",{v}");
                }
                None => out.push_str(",null"),
            }
        }
        if S::TABLE.extra {
            let extra = snapshot.extra().map(|e| serde_json::Value::String(e).to_string());
            out.push(',');
            out.push_str(extra.as_deref().unwrap_or("null"));
        }
        out.push(']');
    }
    out.push(']');
    out
}
