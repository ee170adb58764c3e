//! Feed tokens in the content store's database (migration 0010, table
//! `feed_tokens`; docs/watchlists.md "Feeds"): the
//! [`FeedTokenStore`] of both backends, one impl generic over them
//! ([`SqlStore`]).

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::feed_token::FeedTokenStore;
use mediaops_proto::error::ServiceError;

const PUT: &str = "INSERT INTO feed_tokens (account_id, feed, token_hash, created_at) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, feed) DO UPDATE SET token_hash = excluded.token_hash, \
     created_at = excluded.created_at";

const DELETE: &str = "DELETE FROM feed_tokens WHERE account_id = $1 AND feed = $2";

const OF_ACCOUNT: &str = "SELECT feed, created_at FROM feed_tokens WHERE account_id = $1 ORDER BY feed";

const FIND: &str = "SELECT account_id, feed FROM feed_tokens WHERE token_hash = $1";

/// How the feed-token store is named in logs.
const WHAT: &str = "feed-token store";

#[async_trait]
impl<DB: Backend> FeedTokenStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'r> Decode<'r, DB>,
{
    async fn put_feed_token(
        &self,
        account_id: &str,
        feed: &str,
        token_hash: &str,
        created_at: &str,
    ) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(PUT))
            .bind(account_id)
            .bind(feed)
            .bind(token_hash)
            .bind(created_at)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn delete_feed_token(&self, account_id: &str, feed: &str) -> Result<bool, ServiceError> {
        let done = sqlx::query(&Self::sql(DELETE))
            .bind(account_id)
            .bind(feed)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(DB::rows_affected(&done) > 0)
    }

    async fn feed_tokens(&self, account_id: &str) -> Result<Vec<(String, String)>, ServiceError> {
        sqlx::query_as(&Self::sql(OF_ACCOUNT))
            .bind(account_id)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(WHAT))
    }

    async fn find_feed_token(&self, token_hash: &str) -> Result<Option<(String, String)>, ServiceError> {
        sqlx::query_as(&Self::sql(FIND))
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await
            .map_err(database_failed(WHAT))
    }
}
