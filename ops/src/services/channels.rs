//! `mediaops.channels.v1.ChannelsService`, answered from the store through
//! its source chains ([`crate::data_api::channels`],
//! [`crate::data_api::feeds`]).

use std::sync::Arc;

use mediaops_proto::mediaops::channels::v1 as pb;
use mediaops_proto::mediaops::channels::v1::channels_service::{self, ChannelsService};
use mediaops_proto::mediaops::common::v1::{KeywordFeedRequest, TitleLikeList};

use crate::data_api::feeds::Times;
use crate::data_api::{DataApi, channels};
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::topic::Topic;

/// The channels RPCs over the content store.
pub struct Channels(pub Arc<DataApi>);

impl ChannelsService<Registry> for Channels {
    async fn channels_ai_feed(
        &self,
        _: CallContext,
        request: KeywordFeedRequest,
    ) -> Result<Answer<TitleLikeList>, ServiceError> {
        super::feed(&self.0, channels_service::CHANNELS_AI_FEED, Topic::Ai, Times::Optional, request).await
    }

    async fn search_work(
        &self,
        ctx: CallContext,
        request: pb::SearchWorkRequest,
    ) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
        channels::search_work(self.0.clone(), ctx, request).await
    }

    async fn search_user(
        &self,
        ctx: CallContext,
        request: pb::SearchUserRequest,
    ) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
        channels::search_user(self.0.clone(), ctx, request).await
    }

    async fn query_work(
        &self,
        _: CallContext,
        request: pb::QueryWorkRequest,
    ) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
        channels::query_work(self.0.clone(), request).await
    }

    async fn user_works(
        &self,
        ctx: CallContext,
        request: pb::UserWorksRequest,
    ) -> Result<Answer<pb::UserWorksResponse>, ServiceError> {
        channels::user_works(self.0.clone(), ctx, request).await
    }
}
