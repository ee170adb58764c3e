//! Watch lists in the content store's database (migration 0009, tables
//! `watchlists`, `watch_seen`, `watch_deliveries`; docs/watchlists.md): the
//! [`WatchStore`] of both backends, one impl generic over them
//! ([`SqlStore`]).

use std::collections::HashSet;

use async_trait::async_trait;
use mediaops_proto::mediaops::watch::v1::Delivery;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::scheduled::sql_store::Table;
use crate::scheduled::{from_json, to_json};
use crate::watch::{RunOutcome, StoredWatchlist, WatchStore};
use mediaops_proto::error::ServiceError;

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

/// The watch lists' table (`store/scheduled.rs`).
const TABLE: Table = Table { name: "watchlists", what: WHAT };

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
        self.scheduled_list(TABLE, account_id).await
    }

    async fn get_watchlist(&self, account_id: &str, id: &str) -> Result<Option<StoredWatchlist>, ServiceError> {
        self.scheduled_get(TABLE, account_id, id).await
    }

    async fn put_watchlist(&self, account_id: &str, stored: &StoredWatchlist) -> Result<(), ServiceError> {
        self.scheduled_put(TABLE, account_id, stored).await
    }

    async fn delete_watchlist(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        self.scheduled_delete(TABLE, &DELETE_FROM, account_id, id).await
    }

    async fn due_watchlists(&self, now_ms: i64, limit: i64) -> Result<Vec<(String, String)>, ServiceError> {
        self.scheduled_due(TABLE, now_ms, limit).await
    }

    async fn claim_watchlist(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Option<StoredWatchlist>, ServiceError> {
        if !self.scheduled_claim(TABLE, account_id, id, owner, (now_ms, until_ms)).await? {
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
        self.scheduled_finish(TABLE, account_id, id, owner, outcome).await
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
