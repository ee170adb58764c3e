//! Watch lists in the content store's database (migration 0009, tables
//! `watchlists`, `watch_seen`, `watch_deliveries`; docs/watchlists.md): the
//! [`WatchStore`](crate::store::state::watch::WatchStore) of both backends
//! ([`watch_store_impl!`]).

pub(crate) const COLUMNS: &str =
    "SELECT id, spec, created_at, updated_at, state, state_reason, next_run_ms, last_run_ms FROM watchlists";

pub(crate) const PUT: &str = "INSERT INTO watchlists (account_id, id, spec, created_at, updated_at, state, \
     state_reason, next_run_ms, last_run_ms, lease_owner, lease_until_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
     NULL, NULL) ON CONFLICT (account_id, id) DO UPDATE SET spec = excluded.spec, created_at = excluded.created_at, \
     updated_at = excluded.updated_at, state = excluded.state, state_reason = excluded.state_reason, \
     next_run_ms = excluded.next_run_ms, last_run_ms = excluded.last_run_ms, lease_owner = NULL, lease_until_ms = NULL";

pub(crate) const DUE: &str = "SELECT account_id, id FROM watchlists WHERE next_run_ms <= $1 \
     AND (lease_until_ms IS NULL OR lease_until_ms < $1) ORDER BY next_run_ms LIMIT $2";

pub(crate) const CLAIM: &str = "UPDATE watchlists SET lease_owner = $3, lease_until_ms = $5 \
     WHERE account_id = $1 AND id = $2 AND next_run_ms <= $4 AND (lease_until_ms IS NULL OR lease_until_ms < $4)";

pub(crate) const FINISH: &str = "UPDATE watchlists SET state = $4, state_reason = $5, next_run_ms = $6, \
     last_run_ms = $7, lease_owner = NULL, lease_until_ms = NULL \
     WHERE account_id = $1 AND id = $2 AND lease_owner = $3";

pub(crate) const SEEN: &str = "SELECT source, title_key FROM watch_seen WHERE account_id = $1 AND watchlist_id = $2";

pub(crate) const MARK_SEEN: &str = "INSERT INTO watch_seen (account_id, watchlist_id, source, title_key, pushed_at) \
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id, watchlist_id, source, title_key) DO NOTHING";

pub(crate) const ADD_DELIVERY: &str =
    "INSERT INTO watch_deliveries (account_id, watchlist_id, document) VALUES ($1, $2, $3)";

pub(crate) const DELIVERIES: &str = "SELECT document FROM watch_deliveries WHERE account_id = $1 \
     AND watchlist_id = $2 ORDER BY seq DESC LIMIT $3";

/// The tables a deletion clears (with the watch list's feed token,
/// migration 0010), the watch list's own row last.
pub(crate) const DELETE_FROM: [&str; 4] = [
    "DELETE FROM watch_seen WHERE account_id = $1 AND watchlist_id = $2",
    "DELETE FROM watch_deliveries WHERE account_id = $1 AND watchlist_id = $2",
    "DELETE FROM feed_tokens WHERE account_id = $1 AND feed = 'watchlists/' || $2",
    "DELETE FROM watchlists WHERE account_id = $1 AND id = $2",
];

/// How the watch-list store is named in logs.
pub(crate) const WHAT: &str = "watch-list store";

/// Reads a `watchlists` row (a macro because the backends' rows differ).
macro_rules! stored_watchlist {
    ($row:expr) => {{
        use sqlx::Row;
        let row = $row;
        let failed = $crate::store::failure::database_failed($crate::store::watch::WHAT);
        let text = |name: &str| row.try_get::<String, _>(name).map_err(&failed);
        let millis = |name: &str| row.try_get::<Option<i64>, _>(name).map_err(&failed);
        $crate::store::state::watch::StoredWatchlist {
            id: text("id")?,
            spec: $crate::store::state::watch::from_json(&text("spec")?)?,
            created_at: text("created_at")?,
            updated_at: text("updated_at")?,
            state: text("state")?,
            state_reason: text("state_reason")?,
            next_run_ms: millis("next_run_ms")?,
            last_run_ms: millis("last_run_ms")?,
        }
    }};
}
pub(crate) use stored_watchlist;

/// The [`WatchStore`](crate::store::state::watch::WatchStore) of a backend whose
/// type has a `pool` field, with statements in `$n` form rewritten by
/// `$dialect`.
macro_rules! watch_store_impl {
    ($store:ty, $dialect:expr) => {
        #[async_trait::async_trait]
        impl $crate::store::state::watch::WatchStore for $store {
            async fn list_watchlists(
                &self,
                account_id: &str,
            ) -> Result<Vec<$crate::store::state::watch::StoredWatchlist>, $crate::error::ServiceError> {
                use $crate::store::watch::{COLUMNS, WHAT};
                let statement = $dialect.placeholders(format!("{COLUMNS} WHERE account_id = $1"));
                let rows = sqlx::query(&statement)
                    .bind(account_id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                let mut out = Vec::with_capacity(rows.len());
                for row in &rows {
                    out.push($crate::store::watch::stored_watchlist!(row));
                }
                out.sort_by(|a, b| a.id.cmp(&b.id));
                Ok(out)
            }

            async fn get_watchlist(
                &self,
                account_id: &str,
                id: &str,
            ) -> Result<Option<$crate::store::state::watch::StoredWatchlist>, $crate::error::ServiceError> {
                use $crate::store::watch::{COLUMNS, WHAT};
                let statement = $dialect.placeholders(format!("{COLUMNS} WHERE account_id = $1 AND id = $2"));
                let row = sqlx::query(&statement)
                    .bind(account_id)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(match row {
                    Some(row) => Some($crate::store::watch::stored_watchlist!(&row)),
                    None => None,
                })
            }

            async fn put_watchlist(
                &self,
                account_id: &str,
                stored: &$crate::store::state::watch::StoredWatchlist,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::watch::{PUT, WHAT};
                sqlx::query(&$dialect.placeholders(PUT.to_owned()))
                    .bind(account_id)
                    .bind(&stored.id)
                    .bind($crate::store::state::watch::to_json(&stored.spec)?)
                    .bind(&stored.created_at)
                    .bind(&stored.updated_at)
                    .bind(&stored.state)
                    .bind(&stored.state_reason)
                    .bind(stored.next_run_ms)
                    .bind(stored.last_run_ms)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }

            async fn delete_watchlist(&self, account_id: &str, id: &str) -> Result<bool, $crate::error::ServiceError> {
                use $crate::store::watch::{DELETE_FROM, WHAT};
                let failed = $crate::store::failure::database_failed(WHAT);
                let mut tx = self.pool.begin().await.map_err(&failed)?;
                let mut deleted = 0;
                for statement in DELETE_FROM {
                    deleted = sqlx::query(&$dialect.placeholders(statement.to_owned()))
                        .bind(account_id)
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(&failed)?
                        .rows_affected();
                }
                tx.commit().await.map_err(&failed)?;
                Ok(deleted > 0)
            }

            async fn due_watchlists(
                &self,
                now_ms: i64,
                limit: i64,
            ) -> Result<Vec<(String, String)>, $crate::error::ServiceError> {
                use $crate::store::watch::{DUE, WHAT};
                sqlx::query_as(&$dialect.placeholders(DUE.to_owned()))
                    .bind(now_ms)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))
            }

            async fn claim_watchlist(
                &self,
                account_id: &str,
                id: &str,
                owner: &str,
                now_ms: i64,
                until_ms: i64,
            ) -> Result<Option<$crate::store::state::watch::StoredWatchlist>, $crate::error::ServiceError> {
                use $crate::store::watch::{CLAIM, WHAT};
                let claimed = sqlx::query(&$dialect.placeholders(CLAIM.to_owned()))
                    .bind(account_id)
                    .bind(id)
                    .bind(owner)
                    .bind(now_ms)
                    .bind(until_ms)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?
                    .rows_affected();
                if claimed == 0 {
                    return Ok(None);
                }
                $crate::store::state::watch::WatchStore::get_watchlist(self, account_id, id).await
            }

            async fn finish_watchlist(
                &self,
                account_id: &str,
                id: &str,
                owner: &str,
                outcome: &$crate::store::state::watch::RunOutcome,
            ) -> Result<bool, $crate::error::ServiceError> {
                use $crate::store::watch::{FINISH, WHAT};
                let done = sqlx::query(&$dialect.placeholders(FINISH.to_owned()))
                    .bind(account_id)
                    .bind(id)
                    .bind(owner)
                    .bind(&outcome.state)
                    .bind(&outcome.state_reason)
                    .bind(outcome.next_run_ms)
                    .bind(outcome.last_run_ms)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?
                    .rows_affected();
                Ok(done > 0)
            }

            async fn seen_items(
                &self,
                account_id: &str,
                id: &str,
            ) -> Result<std::collections::HashSet<(String, String)>, $crate::error::ServiceError> {
                use $crate::store::watch::{SEEN, WHAT};
                let rows: Vec<(String, String)> = sqlx::query_as(&$dialect.placeholders(SEEN.to_owned()))
                    .bind(account_id)
                    .bind(id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(rows.into_iter().collect())
            }

            async fn mark_seen(
                &self,
                account_id: &str,
                id: &str,
                keys: &[(String, String)],
                at: &str,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::watch::{MARK_SEEN, WHAT};
                let failed = $crate::store::failure::database_failed(WHAT);
                let statement = $dialect.placeholders(MARK_SEEN.to_owned());
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

            async fn add_delivery(
                &self,
                account_id: &str,
                id: &str,
                delivery: &mediaops_proto::mediaops::watch::v1::Delivery,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::watch::{ADD_DELIVERY, WHAT};
                sqlx::query(&$dialect.placeholders(ADD_DELIVERY.to_owned()))
                    .bind(account_id)
                    .bind(id)
                    .bind($crate::store::state::watch::to_json(delivery)?)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }

            async fn deliveries(
                &self,
                account_id: &str,
                id: &str,
                limit: i64,
            ) -> Result<Vec<mediaops_proto::mediaops::watch::v1::Delivery>, $crate::error::ServiceError> {
                use $crate::store::watch::{DELIVERIES, WHAT};
                let rows: Vec<String> = sqlx::query_scalar(&$dialect.placeholders(DELIVERIES.to_owned()))
                    .bind(account_id)
                    .bind(id)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                rows.iter().map(|json| $crate::store::state::watch::from_json(json)).collect()
            }
        }
    };
}
pub(crate) use watch_store_impl;
