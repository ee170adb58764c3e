//! `mediaops.videosite.v1.VideositeService`, answered from the store
//! through its source chains ([`crate::data_api::videosite`],
//! [`crate::data_api::feeds`]).

use std::sync::Arc;

use mediaops_proto::mediaops::common::v1::{KeywordFeedRequest, TitleLikeList};
use mediaops_proto::mediaops::videosite::v1 as pb;
use mediaops_proto::mediaops::videosite::v1::videosite_service::{self, VideositeService};

use crate::data_api::feeds::Times;
use crate::data_api::{DataApi, videosite};
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::topic::Topic;

/// The video-site RPCs over the content store.
pub struct Videosite(pub Arc<DataApi>);

impl VideositeService<Registry> for Videosite {
    async fn search_work(
        &self,
        ctx: CallContext,
        request: pb::SearchWorkRequest,
    ) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
        videosite::search_work(self.0.clone(), ctx, request).await
    }

    async fn search_user(
        &self,
        ctx: CallContext,
        request: pb::SearchUserRequest,
    ) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
        videosite::search_user(self.0.clone(), ctx, request).await
    }

    async fn query_account(
        &self,
        _: CallContext,
        request: pb::QueryAccountRequest,
    ) -> Result<Answer<pb::QueryAccountResponse>, ServiceError> {
        videosite::query_account(self.0.clone(), request).await
    }

    async fn query_work(
        &self,
        _: CallContext,
        request: pb::QueryWorkRequest,
    ) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
        videosite::query_work(self.0.clone(), request).await
    }

    async fn videosite_playlet_feed(
        &self,
        _: CallContext,
        request: KeywordFeedRequest,
    ) -> Result<Answer<TitleLikeList>, ServiceError> {
        super::feed(&self.0, videosite_service::VIDEOSITE_PLAYLET_FEED, Topic::Playlet, Times::Optional, request).await
    }

    async fn videosite_ai_feed(
        &self,
        _: CallContext,
        request: pb::VideositeAiFeedRequest,
    ) -> Result<Answer<TitleLikeList>, ServiceError> {
        super::feed(&self.0, videosite_service::VIDEOSITE_AI_FEED, Topic::Ai, Times::Optional, request).await
    }

    async fn videosite_user_works(
        &self,
        _: CallContext,
        request: pb::VideositeUserWorksRequest,
    ) -> Result<Answer<pb::VideositeUserWorksResponse>, ServiceError> {
        videosite::user_works(self.0.clone(), request).await
    }
}
