//! Where feed tokens live (docs/watchlists.md "Feeds"): the
//! [`FeedTokenStore`] trait, implemented for both databases of the content
//! store (`crate::feed_token`, migration 0010). Only a token's
//! SHA-256 is stored (`mediaops_platform::auth::keys::hash_key`).

mod sql_store;

use mediaops_proto::error::ServiceError;

/// One token per (account, feed). Feed names are
/// `mediaops_ops::feeds::name::FeedName::as_str` forms (`hotlists/weibo`, `watchlists/<id>`).
#[async_trait::async_trait]
pub trait FeedTokenStore: Send + Sync + 'static {
    /// Sets the token of (account, feed), replacing any earlier one (which
    /// then stops working). `created_at` is RFC 3339 UTC.
    async fn put_feed_token(
        &self,
        account_id: &str,
        feed: &str,
        token_hash: &str,
        created_at: &str,
    ) -> Result<(), ServiceError>;

    /// Removes the token of (account, feed); false when there was none.
    async fn delete_feed_token(&self, account_id: &str, feed: &str) -> Result<bool, ServiceError>;

    /// `(feed, created_at)` of every token of the account, by feed.
    async fn feed_tokens(&self, account_id: &str) -> Result<Vec<(String, String)>, ServiceError>;

    /// `(account, feed)` of the token with this hash, if any.
    async fn find_feed_token(&self, token_hash: &str) -> Result<Option<(String, String)>, ServiceError>;
}
