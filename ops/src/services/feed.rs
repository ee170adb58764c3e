//! `mediaops.feeds.v1.FeedService`: the Atom feeds and their tokens
//! ([`crate::feeds`]).

use std::sync::Arc;

use mediaops_proto::mediaops::feeds::v1::feed_service::FeedService;
use mediaops_proto::mediaops::feeds::v1::{
    FeedDocument, FeedLink, FeedList, ListFeedsRequest, ReadFeedRequest, RevokeFeedTokenRequest, RevokedFeedToken,
    RotateFeedTokenRequest,
};

use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The feed RPCs over the feed tokens and the watch lists.
pub struct Feeds(pub Arc<crate::feeds::FeedService>);

impl FeedService<Registry> for Feeds {
    async fn list_feeds(&self, ctx: CallContext, _: ListFeedsRequest) -> Result<FeedList, ServiceError> {
        self.0.list(ctx.account_id()).await
    }

    async fn rotate_feed_token(
        &self,
        ctx: CallContext,
        request: RotateFeedTokenRequest,
    ) -> Result<FeedLink, ServiceError> {
        self.0.rotate(&ctx, request).await
    }

    async fn revoke_feed_token(
        &self,
        ctx: CallContext,
        request: RevokeFeedTokenRequest,
    ) -> Result<RevokedFeedToken, ServiceError> {
        self.0.revoke(ctx.account_id(), request).await
    }

    async fn read_feed(&self, ctx: CallContext, request: ReadFeedRequest) -> Result<FeedDocument, ServiceError> {
        self.0.read(&ctx, request).await
    }
}
