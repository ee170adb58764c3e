//! Atom feeds (docs/watchlists.md "Feeds"): the seven hot
//! lists and every watch list of an account as Atom 1.0 feeds
//! ([`atom`], [`entries`]) that feed readers poll.
//!
//! Feed readers cannot send an `Authorization` header, so each feed has its
//! own token (`mf_…`), carried in the URL as `?token=`:
//! - `GET /api/feeds` lists the account's feeds and whether each has a token;
//!   `POST /api/feeds/tokens {feed}` makes a new token (the old URL stops
//!   working) and answers it once; `DELETE /api/feeds/tokens?feed=` revokes
//!   it. All free. Deleting a watch list revokes its feed's token.
//! - `mediaops.feeds.v1.FeedService/ReadFeed` (kind `feed`, no REST binding
//!   of its own) answers the document; the pipeline authenticates it by the
//!   feed token instead of an API key (`mediaops_platform::dispatch`), and the token
//!   opens only its own feed. The gateway serves it at
//!   `GET /api/feeds/hotlists/{source}.atom` and `GET /api/watchlists/{id}.atom`
//!   with `ETag` and `Last-Modified` (304 on a match).

pub mod atom;
pub mod entries;
pub mod name;

use std::sync::Arc;

use mediaops_proto::mediaops::feeds::v1::{
    Feed, FeedDocument, FeedLink, FeedList, ReadFeedRequest, RevokeFeedTokenRequest, RevokedFeedToken,
    RotateFeedTokenRequest,
};

use crate::trend::Trends;
use mediaops_connectors::hotlists::sources::Source;
use mediaops_platform::auth::feed_principal_key_id;
use mediaops_platform::auth::keys::{generate_secret, hash_key};
use mediaops_platform::registry::CallContext;
use mediaops_proto::error::ServiceError;
use mediaops_store::feed_token::FeedTokenStore;
use mediaops_store::watch::{StoredWatchlist, WatchStore};
pub use name::FeedName;

/// Prefix of every feed token.
pub const TOKEN_PREFIX: &str = "mf_";

/// The feed operations.
pub struct FeedService {
    tokens: Arc<dyn FeedTokenStore>,
    watch: Arc<dyn WatchStore>,
    trends: Arc<Trends>,
}

impl FeedService {
    /// The service over the feed-token and watch-list stores; `trends`
    /// reads the hot lists and gives the service clock.
    pub fn new(tokens: Arc<dyn FeedTokenStore>, watch: Arc<dyn WatchStore>, trends: Arc<Trends>) -> Self {
        FeedService { tokens, watch, trends }
    }

    /// The account's feeds: the seven hot lists, then its watch lists by id.
    pub async fn list(&self, account_id: &str) -> Result<FeedList, ServiceError> {
        let tokens: std::collections::HashMap<String, String> =
            self.tokens.feed_tokens(account_id).await?.into_iter().collect();
        let mut feeds: Vec<(FeedName, String)> =
            Source::ALL.iter().map(|s| (FeedName::Hotlist(*s), s.display_name().to_owned())).collect();
        for watchlist in self.watch.list_watchlists(account_id).await? {
            feeds.push((FeedName::Watchlist(watchlist.id), watchlist.spec.name));
        }
        let items: Vec<Feed> = feeds
            .into_iter()
            .map(|(name, title)| {
                let created = tokens.get(&name.as_str()).cloned();
                Feed {
                    feed: name.as_str(),
                    title,
                    path: name.path(),
                    has_token: created.is_some(),
                    token_created_at: created,
                }
            })
            .collect();
        Ok(FeedList { total: items.len() as i32, items })
    }

    /// A new token for the feed, replacing any earlier one; 404 for a watch
    /// list the account does not have.
    pub async fn rotate(&self, ctx: &CallContext, request: RotateFeedTokenRequest) -> Result<FeedLink, ServiceError> {
        let account_id = ctx.account_id();
        let name = self.owned(account_id, &request.feed).await?;
        let token = generate_secret(TOKEN_PREFIX);
        let created_at = self.trends.clock().stamp();
        self.tokens.put_feed_token(account_id, &name.as_str(), &hash_key(&token), &created_at).await?;
        Ok(FeedLink { feed: name.as_str(), path: format!("{}?token={token}", name.path()), token, created_at })
    }

    /// Revokes the feed's token; 404 when it has none.
    pub async fn revoke(
        &self,
        account_id: &str,
        request: RevokeFeedTokenRequest,
    ) -> Result<RevokedFeedToken, ServiceError> {
        let name = FeedName::parse(&request.feed, "feed")?;
        if !self.tokens.delete_feed_token(account_id, &name.as_str()).await? {
            return Err(ServiceError::not_found(format!("the feed {} has no token", name.as_str())));
        }
        Ok(RevokedFeedToken { feed: name.as_str(), revoked: true })
    }

    /// The feed's Atom document. The caller was authenticated by a feed
    /// token; it opens only the feed it was made for (else 403).
    pub async fn read(&self, ctx: &CallContext, request: ReadFeedRequest) -> Result<FeedDocument, ServiceError> {
        let name = FeedName::parse(&request.feed, "feed")?;
        if ctx.principal.key_id != feed_principal_key_id(&name.as_str()) {
            return Err(ServiceError::new(
                mediaops_proto::error_code::ErrorCode::Forbidden,
                format!("this token does not open the feed {}", name.as_str()),
            ));
        }
        let now = self.trends.clock().now();
        let (meta, items) = match &name {
            FeedName::Hotlist(source) => entries::hotlist(&self.trends, *source, now).await?,
            FeedName::Watchlist(id) => {
                entries::watchlist(&self.trends, &self.watchlist(ctx.account_id(), id).await?, now).await?
            }
        };
        atom::document(meta, items)
    }

    /// The feed named `text`, which must be the account's (a watch list it
    /// has).
    async fn owned(&self, account_id: &str, text: &str) -> Result<FeedName, ServiceError> {
        let name = FeedName::parse(text, "feed")?;
        if let FeedName::Watchlist(id) = &name {
            self.watchlist(account_id, id).await?;
        }
        Ok(name)
    }

    /// The account's watch list `id`; 404 when it has none.
    async fn watchlist(&self, account_id: &str, id: &str) -> Result<StoredWatchlist, ServiceError> {
        self.watch
            .get_watchlist(account_id, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(format!("no watch list {id} in this account")))
    }
}
