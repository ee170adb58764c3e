//! `mediaops.clipapp.v1.ClipappService`, answered from the store through
//! its source chains ([`crate::data_api::clipapp`],
//! [`crate::data_api::feeds`]).

use std::sync::Arc;

use mediaops_proto::mediaops::clipapp::v1 as pb;
use mediaops_proto::mediaops::clipapp::v1::clipapp_service::{self, ClipappService};
use mediaops_proto::mediaops::common::v1::TitleLikeList;

use crate::data_api::feeds::Times;
use crate::data_api::{DataApi, clipapp};
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::topic::Topic;

/// The clip-app RPCs over the content store.
pub struct Clipapp(pub Arc<DataApi>);

impl ClipappService<Registry> for Clipapp {
    async fn clipapp_ai_feed(
        &self,
        _: CallContext,
        request: pb::ClipappAiFeedRequest,
    ) -> Result<Answer<TitleLikeList>, ServiceError> {
        super::feed(&self.0, clipapp_service::CLIPAPP_AI_FEED, Topic::Ai, Times::Optional, request).await
    }

    async fn search_work(
        &self,
        _: CallContext,
        request: pb::SearchWorkRequest,
    ) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
        clipapp::search_work(self.0.clone(), request).await
    }

    async fn search_user(
        &self,
        ctx: CallContext,
        request: pb::SearchUserRequest,
    ) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
        clipapp::search_user(self.0.clone(), ctx, request).await
    }

    async fn query_work(
        &self,
        _: CallContext,
        request: pb::QueryWorkRequest,
    ) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
        clipapp::query_work(self.0.clone(), request).await
    }

    async fn user_works(
        &self,
        _: CallContext,
        request: pb::UserWorksRequest,
    ) -> Result<Answer<pb::UserWorksResponse>, ServiceError> {
        clipapp::user_works(self.0.clone(), request).await
    }
}
