//! The bulk snapshot path on PostgreSQL ([`super`]): one transaction per
//! call that switches the row triggers of migration 0006 off for itself
//! (`SET LOCAL mediaops.bulk_days = 'on'`, read by the triggers' `WHEN` of
//! migration 0012) and takes a transaction advisory lock per snapshot table,
//! so bulk calls on one table run one at a time (their recomputations of
//! the same entity's days would race). Per [`BULK_ROWS`] rows: one
//! `INSERT … SELECT … FROM UNNEST(arrays)`, one set-based statement that
//! recomputes the aggregates of the touched `(entity, day)` rows and the
//! links of their neighbours
//! (`Dialect::bulk_days` in `store/days.rs`), and
//! (works) one update of the newest figures.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sqlx::Row as _;
use sqlx::postgres::PgPool;

use super::{BULK_ROWS, BulkReport, BulkSnapshot, SnapshotTable, platform_ids, rows};
use crate::StoreResult;
use crate::listing::Dialect;

/// The setting that switches the aggregate row triggers off for a
/// transaction (migration 0012).
pub const SKIP_TRIGGERS: &str = "SET LOCAL mediaops.bulk_days = 'on'";

/// Writes `input` (`(platform_id, snapshot)` of `platform`'s entities).
pub async fn load<S: BulkSnapshot>(pool: &PgPool, platform: &str, input: &[(String, S)]) -> StoreResult<BulkReport> {
    let table = S::TABLE;
    let ids = resolve(pool, table.days.parent, platform, &platform_ids(input)).await?;
    let (rows, report) = rows(input, &ids);
    if rows.is_empty() {
        return Ok(report);
    }
    let insert = insert_statement(&table);
    let days = Dialect::Postgres.bulk_days(&table.days);
    let mut tx = pool.begin().await?;
    sqlx::query(SKIP_TRIGGERS).execute(&mut *tx).await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.mediaops.bulk.' || $1))")
        .bind(table.name())
        .execute(&mut *tx)
        .await?;
    for chunk in rows.chunks(BULK_ROWS) {
        let ids: Vec<i64> = chunk.iter().map(|(id, _)| *id).collect();
        let ats: Vec<DateTime<Utc>> = chunk.iter().map(|(_, s)| s.captured_at()).collect();
        let mut counters: Vec<Vec<Option<i64>>> = vec![Vec::with_capacity(chunk.len()); table.counters.len()];
        for (_, snapshot) in chunk {
            for (column, value) in counters.iter_mut().zip(snapshot.counters()) {
                column.push(value);
            }
        }
        let mut query = sqlx::query(&insert).bind(&ids).bind(&ats);
        for column in counters {
            query = query.bind(column);
        }
        if table.extra {
            query = query.bind(chunk.iter().map(|(_, s)| s.extra()).collect::<Vec<_>>());
        }
        query.execute(&mut *tx).await?;
        sqlx::query(&days).bind(&ids).bind(&ats).execute(&mut *tx).await?;
        if table.latest {
            sqlx::query(LATEST).bind(&ids).bind(&ats).execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    Ok(report)
}

/// `platform_id → id` of the stored entities among `platform_ids`.
async fn resolve(
    pool: &PgPool,
    parent: &str,
    platform: &str,
    platform_ids: &[&str],
) -> StoreResult<HashMap<String, i64>> {
    let statement = format!("SELECT platform_id, id FROM {parent} WHERE platform = $1 AND platform_id = ANY($2)");
    let mut ids = HashMap::with_capacity(platform_ids.len());
    for chunk in platform_ids.chunks(BULK_ROWS) {
        for row in sqlx::query(&statement).bind(platform).bind(chunk).fetch_all(pool).await? {
            ids.insert(row.try_get(0)?, row.try_get(1)?);
        }
    }
    Ok(ids)
}

/// The insert of one chunk: `$1` ids, `$2` capture times, then one array
/// per counter and (works) the `extra` JSON texts.
fn insert_statement(table: &SnapshotTable) -> String {
    let mut arrays = vec!["$1::bigint[]".to_owned(), "$2::timestamptz[]".to_owned()];
    let mut names = vec!["k".to_owned(), "at".to_owned()];
    let mut select = vec!["k".to_owned(), "at".to_owned()];
    for (i, counter) in table.counters.iter().enumerate() {
        arrays.push(format!("${}::bigint[]", i + 3));
        names.push(format!("c_{counter}"));
        select.push(format!("c_{counter}"));
    }
    if table.extra {
        arrays.push(format!("${}::text[]", table.counters.len() + 3));
        names.push("extra".into());
        select.push("extra::jsonb".into());
    }
    format!(
        "INSERT INTO {} ({}) SELECT {} FROM UNNEST({}) AS r ({}){}",
        table.name(),
        table.columns(),
        select.join(", "),
        arrays.join(", "),
        names.join(", "),
        table.replace()
    )
}

/// Moves each work's newest likes and capture time forward to its newest
/// snapshot of the chunk (`$1` ids, `$2` times), as the write path does
/// per snapshot.
const LATEST: &str = "UPDATE works w SET latest_likes = s.likes, latest_captured_at = s.captured_at \
     FROM (SELECT id, max(at) AS at FROM UNNEST($1::bigint[], $2::timestamptz[]) AS u (id, at) GROUP BY id) m \
     JOIN work_snapshots s ON s.work = m.id AND s.captured_at = m.at \
     WHERE w.id = m.id AND (w.latest_captured_at IS NULL OR w.latest_captured_at <= m.at)";
