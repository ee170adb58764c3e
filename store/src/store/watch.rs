//! Watch lists in the content store's database (migration 0009, tables
//! `watchlists`, `watch_seen`, `watch_deliveries`; docs/watchlists.md): the
//! [`WatchStore`] of both backends, one impl generic over them
//! ([`SqlStore`]).

use std::collections::HashSet;

use async_trait::async_trait;
use mediaops_proto::mediaops::watch::v1::Delivery;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Row, Type};

use super::backend::{Backend, SqlStore};
use super::failure::database_failed;
use crate::error::ServiceError;
use crate::store::state::watch::{RunOutcome, StoredWatchlist, WatchStore, from_json, to_json};

const COLUMNS: &str =
    "SELECT id, spec, created_at, updated_at, state, state_reason, next_run_ms, last_run_ms FROM watchlists";

const PUT: &str = "INSERT INTO watchlists (account_id, id, spec, created_at, updated_at, state, \
     state_reason, next_run_ms, last_run_ms, lease_owner, lease_until_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
     NULL, NULL) ON CONFLICT (account_id, id) DO UPDATE SET spec = excluded.spec, created_at = excluded.created_at, \
     updated_at = excluded.updated_at, state = excluded.state, state_reason = excluded.state_reason, \
     next_run_ms = excluded.next_run_ms, last_run_ms = excluded.last_run_ms, lease_owner = NULL, lease_until_ms = NULL";

const DUE: &str = "SELECT account_id, id FROM watchlists WHERE next_run_ms <= $1 \
     AND (lease_until_ms IS NULL OR lease_until_ms < $1) ORDER BY next_run_ms LIMIT $2";

const CLAIM: &str = "UPDATE watchlists SET lease_owner = $3, lease_until_ms = $5 \
     WHERE account_id = $1 AND id = $2 AND next_run_ms <= $4 AND (lease_until_ms IS NULL OR lease_until_ms < $4)";

const FINISH: &str = "UPDATE watchlists SET state = $4, state_reason = $5, next_run_ms = $6, \
     last_run_ms = $7, lease_owner = NULL, lease_until_ms = NULL \
     WHERE account_id = $1 AND id = $2 AND lease_owner = $3";

const SEEN: &str = "SELECT source, title_key FROM watch_seen WHERE account_id = $1 AND watchlist_id = $2";

const MARK_SEEN: &str = "INSERT INTO watch_seen (account_id, watchlist_id, source, title_key, pushed_at) \
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id, watchlist_id, source, title_key) DO NOTHING";

const ADD_DELIVERY: &str = "INSERT INTO watch_deliveries (account_id, watchlist_id, document) VALUES ($1, $2, $3)";

const DELIVERIES: &str = "SELECT document FROM watch_deliveries WHERE account_id = $1 \
     AND watchlist_id = $2 ORDER BY seq DESC LIMIT $3";

/// The tables a deletion clears (with the watch list's feed token,
/// migration 0010), the watch list's own row last.
const DELETE_FROM: [&str; 4] = [
    "DELETE FROM watch_seen WHERE account_id = $1 AND watchlist_id = $2",
    "DELETE FROM watch_deliveries WHERE account_id = $1 AND watchlist_id = $2",
    "DELETE FROM feed_tokens WHERE account_id = $1 AND feed = 'watchlists/' || $2",
    "DELETE FROM watchlists WHERE account_id = $1 AND id = $2",
];

/// How the watch-list store is named in logs.
const WHAT: &str = "watch-list store";

/// Reads a `watchlists` row; a row that does not read is a 500.
fn stored_watchlist<R: Row>(row: &R) -> Result<StoredWatchlist, ServiceError>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let failed = database_failed(WHAT);
    let text = |name: &str| row.try_get::<String, _>(name).map_err(&failed);
    let millis = |name: &str| row.try_get::<Option<i64>, _>(name).map_err(&failed);
    Ok(StoredWatchlist {
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

#[async_trait]
impl<DB: Backend> WatchStore for SqlStore<DB>
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
    async fn list_watchlists(&self, account_id: &str) -> Result<Vec<StoredWatchlist>, ServiceError> {
        let statement = Self::sql(&format!("{COLUMNS} WHERE account_id = $1"));
        let rows =
            sqlx::query(&statement).bind(account_id).fetch_all(&self.pool).await.map_err(database_failed(WHAT))?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            out.push(stored_watchlist(row)?);
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    async fn get_watchlist(&self, account_id: &str, id: &str) -> Result<Option<StoredWatchlist>, ServiceError> {
        let statement = Self::sql(&format!("{COLUMNS} WHERE account_id = $1 AND id = $2"));
        let row = sqlx::query(&statement)
            .bind(account_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        row.as_ref().map(stored_watchlist).transpose()
    }

    async fn put_watchlist(&self, account_id: &str, stored: &StoredWatchlist) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(PUT))
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
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn delete_watchlist(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        let failed = database_failed(WHAT);
        let mut tx = self.pool.begin().await.map_err(&failed)?;
        let mut deleted = 0;
        for statement in DELETE_FROM {
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

    async fn due_watchlists(&self, now_ms: i64, limit: i64) -> Result<Vec<(String, String)>, ServiceError> {
        sqlx::query_as(&Self::sql(DUE))
            .bind(now_ms)
            .bind(limit)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(WHAT))
    }

    async fn claim_watchlist(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Option<StoredWatchlist>, ServiceError> {
        let done = sqlx::query(&Self::sql(CLAIM))
            .bind(account_id)
            .bind(id)
            .bind(owner)
            .bind(now_ms)
            .bind(until_ms)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        if DB::rows_affected(&done) == 0 {
            return Ok(None);
        }
        WatchStore::get_watchlist(self, account_id, id).await
    }

    async fn finish_watchlist(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        outcome: &RunOutcome,
    ) -> Result<bool, ServiceError> {
        let done = sqlx::query(&Self::sql(FINISH))
            .bind(account_id)
            .bind(id)
            .bind(owner)
            .bind(&outcome.state)
            .bind(&outcome.state_reason)
            .bind(outcome.next_run_ms)
            .bind(outcome.last_run_ms)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(DB::rows_affected(&done) > 0)
    }

    async fn seen_items(&self, account_id: &str, id: &str) -> Result<HashSet<(String, String)>, ServiceError> {
        let rows: Vec<(String, String)> = sqlx::query_as(&Self::sql(SEEN))
            .bind(account_id)
            .bind(id)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(rows.into_iter().collect())
    }

    async fn mark_seen(
        &self,
        account_id: &str,
        id: &str,
        keys: &[(String, String)],
        at: &str,
    ) -> Result<(), ServiceError> {
        let failed = database_failed(WHAT);
        let statement = Self::sql(MARK_SEEN);
        let mut tx = self.pool.begin().await.map_err(&failed)?;
        for (source, key) in keys {
            sqlx::query(&statement)
                .bind(account_id)
                .bind(id)
                .bind(source)
                .bind(key)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(&failed)?;
        }
        tx.commit().await.map_err(&failed)
    }

    async fn add_delivery(&self, account_id: &str, id: &str, delivery: &Delivery) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(ADD_DELIVERY))
            .bind(account_id)
            .bind(id)
            .bind(to_json(delivery)?)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn deliveries(&self, account_id: &str, id: &str, limit: i64) -> Result<Vec<Delivery>, ServiceError> {
        let rows: Vec<String> = sqlx::query_scalar(&Self::sql(DELIVERIES))
            .bind(account_id)
            .bind(id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        rows.iter().map(|json| from_json(json)).collect()
    }
}
