//! The rows of scheduled lists, for both backends: watch lists (table
//! `watchlists`, migration 0009) and tracking lists (`tracking_lists`,
//! migration 0016) have the same columns (`account_id, id, spec,
//! created_at, updated_at, state, state_reason, next_run_ms, last_run_ms,
//! lease_owner, lease_until_ms`), read, written and leased here once
//! (docs/watchlists.md "Scheduling", docs/tracking.md "Scheduling"). A
//! runner leases a due row with a conditional update, so across replicas on
//! one database exactly one runner runs a firing; saving a row drops its
//! lease, so an edit made while it runs wins.

use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Row, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::scheduled::{RunOutcome, Scheduled};
use crate::scheduled::{from_json, to_json};
use mediaops_proto::error::ServiceError;

/// One table of scheduled lists and how it is named in logs.
#[derive(Clone, Copy)]
pub(crate) struct Table {
    pub name: &'static str,
    pub what: &'static str,
}

impl Table {
    fn columns(self) -> String {
        format!(
            "SELECT id, spec, created_at, updated_at, state, state_reason, next_run_ms, last_run_ms FROM {}",
            self.name
        )
    }
}

/// Reads a row; a row that does not read is a 500.
fn scheduled_row<S, R>(row: &R, what: &'static str) -> Result<Scheduled<S>, ServiceError>
where
    S: prost::Message + prost::Name + Default,
    R: Row,
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let failed = database_failed(what);
    let text = |name: &str| row.try_get::<String, _>(name).map_err(&failed);
    let millis = |name: &str| row.try_get::<Option<i64>, _>(name).map_err(&failed);
    Ok(Scheduled {
        id: text("id")?,
        spec: from_json(&text("spec")?)?,
        created_at: text("created_at")?,
        updated_at: text("updated_at")?,
        state: text("state")?,
        state_reason: text("state_reason")?,
        next_run_ms: millis("next_run_ms")?,
        last_run_ms: millis("last_run_ms")?,
    })
}

impl<DB: Backend> SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
{
    /// The account's rows of `table`, by id (byte order).
    pub(crate) async fn scheduled_list<S>(
        &self,
        table: Table,
        account_id: &str,
    ) -> Result<Vec<Scheduled<S>>, ServiceError>
    where
        S: prost::Message + prost::Name + Default,
    {
        let statement = Self::sql(&format!("{} WHERE account_id = $1", table.columns()));
        let rows = sqlx::query(&statement)
            .bind(account_id)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(table.what))?;
        let mut out = rows.iter().map(|row| scheduled_row(row, table.what)).collect::<Result<Vec<_>, _>>()?;
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    /// One row, `None` when there is none.
    pub(crate) async fn scheduled_get<S>(
        &self,
        table: Table,
        account_id: &str,
        id: &str,
    ) -> Result<Option<Scheduled<S>>, ServiceError>
    where
        S: prost::Message + prost::Name + Default,
    {
        let statement = Self::sql(&format!("{} WHERE account_id = $1 AND id = $2", table.columns()));
        let row = sqlx::query(&statement)
            .bind(account_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(database_failed(table.what))?;
        row.as_ref().map(|row| scheduled_row(row, table.what)).transpose()
    }

    /// Creates or replaces a row whole and drops any lease on it.
    pub(crate) async fn scheduled_put<S>(
        &self,
        table: Table,
        account_id: &str,
        stored: &Scheduled<S>,
    ) -> Result<(), ServiceError>
    where
        S: prost::Message + prost::Name,
    {
        let statement = format!(
            "INSERT INTO {} (account_id, id, spec, created_at, updated_at, state, state_reason, next_run_ms, \
             last_run_ms, lease_owner, lease_until_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL) \
             ON CONFLICT (account_id, id) DO UPDATE SET spec = excluded.spec, created_at = excluded.created_at, \
             updated_at = excluded.updated_at, state = excluded.state, state_reason = excluded.state_reason, \
             next_run_ms = excluded.next_run_ms, last_run_ms = excluded.last_run_ms, lease_owner = NULL, \
             lease_until_ms = NULL",
            table.name
        );
        sqlx::query(&Self::sql(&statement))
            .bind(account_id)
            .bind(&stored.id)
            .bind(to_json(&stored.spec)?)
            .bind(&stored.created_at)
            .bind(&stored.updated_at)
            .bind(&stored.state)
            .bind(&stored.state_reason)
            .bind(stored.next_run_ms)
            .bind(stored.last_run_ms)
            .execute(&self.pool)
            .await
            .map_err(database_failed(table.what))?;
        Ok(())
    }

    /// Runs `statements` (each bound to account and id) in one transaction;
    /// answers whether the last one changed a row (the list's own row is
    /// deleted last).
    pub(crate) async fn scheduled_delete(
        &self,
        table: Table,
        statements: &[&str],
        account_id: &str,
        id: &str,
    ) -> Result<bool, ServiceError> {
        let failed = database_failed(table.what);
        let mut tx = self.pool.begin().await.map_err(&failed)?;
        let mut deleted = 0;
        for statement in statements {
            let done = sqlx::query(&Self::sql(statement))
                .bind(account_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(&failed)?;
            deleted = DB::rows_affected(&done);
        }
        tx.commit().await.map_err(&failed)?;
        Ok(deleted > 0)
    }

    /// Up to `limit` (account, id) pairs due at `now_ms` and not leased (or
    /// whose lease passed), soonest first.
    pub(crate) async fn scheduled_due(
        &self,
        table: Table,
        now_ms: i64,
        limit: i64,
    ) -> Result<Vec<(String, String)>, ServiceError> {
        let statement = format!(
            "SELECT account_id, id FROM {} WHERE next_run_ms <= $1 \
             AND (lease_until_ms IS NULL OR lease_until_ms < $1) ORDER BY next_run_ms LIMIT $2",
            table.name
        );
        sqlx::query_as(&Self::sql(&statement))
            .bind(now_ms)
            .bind(limit)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(table.what))
    }

    /// Leases a due row to `owner` until `until_ms` (a conditional update:
    /// one runner wins); false when it is not due or held by another.
    pub(crate) async fn scheduled_claim(
        &self,
        table: Table,
        account_id: &str,
        id: &str,
        owner: &str,
        (now_ms, until_ms): (i64, i64),
    ) -> Result<bool, ServiceError> {
        let statement = format!(
            "UPDATE {} SET lease_owner = $3, lease_until_ms = $5 WHERE account_id = $1 AND id = $2 \
             AND next_run_ms <= $4 AND (lease_until_ms IS NULL OR lease_until_ms < $4)",
            table.name
        );
        let done = sqlx::query(&Self::sql(&statement))
            .bind(account_id)
            .bind(id)
            .bind(owner)
            .bind(now_ms)
            .bind(until_ms)
            .execute(&self.pool)
            .await
            .map_err(database_failed(table.what))?;
        Ok(DB::rows_affected(&done) > 0)
    }

    /// Writes a run's outcome and clears the lease while `owner` holds it.
    pub(crate) async fn scheduled_finish(
        &self,
        table: Table,
        account_id: &str,
        id: &str,
        owner: &str,
        outcome: &RunOutcome,
    ) -> Result<bool, ServiceError> {
        let statement = format!(
            "UPDATE {} SET state = $4, state_reason = $5, next_run_ms = $6, last_run_ms = $7, lease_owner = NULL, \
             lease_until_ms = NULL WHERE account_id = $1 AND id = $2 AND lease_owner = $3",
            table.name
        );
        let done = sqlx::query(&Self::sql(&statement))
            .bind(account_id)
            .bind(id)
            .bind(owner)
            .bind(&outcome.state)
            .bind(&outcome.state_reason)
            .bind(outcome.next_run_ms)
            .bind(outcome.last_run_ms)
            .execute(&self.pool)
            .await
            .map_err(database_failed(table.what))?;
        Ok(DB::rows_affected(&done) > 0)
    }
}
