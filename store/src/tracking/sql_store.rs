//! Tracking lists in the content store's database (migration 0016, tables
//! `tracking_lists` and `tracking_runs`; docs/tracking.md "Storage"): the
//! [`TrackingStore`] of both backends, one impl generic over them
//! ([`SqlStore`]); the list rows and their leases are those of every
//! scheduled list (`store/scheduled.rs`).

use async_trait::async_trait;
use mediaops_proto::mediaops::tracking::v1::TrackingRun;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::scheduled::sql_store::Table;
use crate::scheduled::{from_json, to_json};
use crate::tracking::{RunOutcome, StoredTracking, TrackingStore};
use mediaops_proto::error::ServiceError;

/// How the tracking store is named in logs.
const WHAT: &str = "tracking store";

/// The tracking lists' table (`store/scheduled.rs`).
const TABLE: Table = Table { name: "tracking_lists", what: WHAT };

const ADD_RUN: &str = "INSERT INTO tracking_runs (account_id, list_id, run_id, document) VALUES ($1, $2, $3, $4) \
     ON CONFLICT (account_id, list_id, run_id) DO NOTHING";

const RUNS: &str =
    "SELECT document FROM tracking_runs WHERE account_id = $1 AND list_id = $2 ORDER BY seq DESC LIMIT $3";

/// What a deletion clears, the list's own row last.
const DELETE_FROM: [&str; 2] = [
    "DELETE FROM tracking_runs WHERE account_id = $1 AND list_id = $2",
    "DELETE FROM tracking_lists WHERE account_id = $1 AND id = $2",
];

#[async_trait]
impl<DB: Backend> TrackingStore for SqlStore<DB>
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
    async fn list_tracking(&self, account_id: &str) -> Result<Vec<StoredTracking>, ServiceError> {
        self.scheduled_list(TABLE, account_id).await
    }

    async fn get_tracking(&self, account_id: &str, id: &str) -> Result<Option<StoredTracking>, ServiceError> {
        self.scheduled_get(TABLE, account_id, id).await
    }

    async fn put_tracking(&self, account_id: &str, stored: &StoredTracking) -> Result<(), ServiceError> {
        self.scheduled_put(TABLE, account_id, stored).await
    }

    async fn delete_tracking(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        self.scheduled_delete(TABLE, &DELETE_FROM, account_id, id).await
    }

    async fn due_tracking(&self, now_ms: i64, limit: i64) -> Result<Vec<(String, String)>, ServiceError> {
        self.scheduled_due(TABLE, now_ms, limit).await
    }

    async fn claim_tracking(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Option<StoredTracking>, ServiceError> {
        if !self.scheduled_claim(TABLE, account_id, id, owner, (now_ms, until_ms)).await? {
            return Ok(None);
        }
        self.scheduled_get(TABLE, account_id, id).await
    }

    async fn finish_tracking(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        outcome: &RunOutcome,
    ) -> Result<bool, ServiceError> {
        self.scheduled_finish(TABLE, account_id, id, owner, outcome).await
    }

    async fn add_run(&self, account_id: &str, id: &str, run: &TrackingRun) -> Result<bool, ServiceError> {
        let done = sqlx::query(&Self::sql(ADD_RUN))
            .bind(account_id)
            .bind(id)
            .bind(&run.run_id)
            .bind(to_json(run)?)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(DB::rows_affected(&done) > 0)
    }

    async fn runs(&self, account_id: &str, id: &str, limit: i64) -> Result<Vec<TrackingRun>, ServiceError> {
        let rows: Vec<String> = sqlx::query_scalar(&Self::sql(RUNS))
            .bind(account_id)
            .bind(id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        rows.iter().map(|json| from_json(json)).collect()
    }
}
