//! Feed tokens in the content store's database (migration 0010, table
//! `feed_tokens`; docs/watchlists.md "Feeds"): the
//! [`FeedTokenStore`](crate::store::state::feed_token::FeedTokenStore) of both backends
//! ([`feed_token_store_impl!`]).

pub(crate) const PUT: &str = "INSERT INTO feed_tokens (account_id, feed, token_hash, created_at) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, feed) DO UPDATE SET token_hash = excluded.token_hash, \
     created_at = excluded.created_at";

pub(crate) const DELETE: &str = "DELETE FROM feed_tokens WHERE account_id = $1 AND feed = $2";

pub(crate) const OF_ACCOUNT: &str = "SELECT feed, created_at FROM feed_tokens WHERE account_id = $1 ORDER BY feed";

pub(crate) const FIND: &str = "SELECT account_id, feed FROM feed_tokens WHERE token_hash = $1";

/// How the feed-token store is named in logs.
pub(crate) const WHAT: &str = "feed-token store";

/// The [`FeedTokenStore`](crate::store::state::feed_token::FeedTokenStore) of a backend
/// whose type has a `pool` field, with statements in `$n` form rewritten by
/// `$dialect`.
macro_rules! feed_token_store_impl {
    ($store:ty, $dialect:expr) => {
        #[async_trait::async_trait]
        impl $crate::store::state::feed_token::FeedTokenStore for $store {
            async fn put_feed_token(
                &self,
                account_id: &str,
                feed: &str,
                token_hash: &str,
                created_at: &str,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::feed_token::{PUT, WHAT};
                sqlx::query(&$dialect.placeholders(PUT.to_owned()))
                    .bind(account_id)
                    .bind(feed)
                    .bind(token_hash)
                    .bind(created_at)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }

            async fn delete_feed_token(
                &self,
                account_id: &str,
                feed: &str,
            ) -> Result<bool, $crate::error::ServiceError> {
                use $crate::store::feed_token::{DELETE, WHAT};
                let done = sqlx::query(&$dialect.placeholders(DELETE.to_owned()))
                    .bind(account_id)
                    .bind(feed)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(done.rows_affected() > 0)
            }

            async fn feed_tokens(
                &self,
                account_id: &str,
            ) -> Result<Vec<(String, String)>, $crate::error::ServiceError> {
                use $crate::store::feed_token::{OF_ACCOUNT, WHAT};
                sqlx::query_as(&$dialect.placeholders(OF_ACCOUNT.to_owned()))
                    .bind(account_id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))
            }

            async fn find_feed_token(
                &self,
                token_hash: &str,
            ) -> Result<Option<(String, String)>, $crate::error::ServiceError> {
                use $crate::store::feed_token::{FIND, WHAT};
                sqlx::query_as(&$dialect.placeholders(FIND.to_owned()))
                    .bind(token_hash)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))
            }
        }
    };
}
pub(crate) use feed_token_store_impl;
