//! `mediaops.shortvideo.v1.ShortvideoService`: the short-video data operations
//! ([`crate::data_api::shortvideo`]), rankings ([`crate::rankings::shortvideo`]), feeds
//! ([`crate::data_api::feeds`]) and syncs ([`crate::sync`]).

use std::sync::Arc;

use mediaops_proto::mediaops::common::v1 as common;
use mediaops_proto::mediaops::shortvideo::v1 as pb;
use mediaops_proto::mediaops::shortvideo::v1::shortvideo_service::{self, ShortvideoService};

use crate::data_api::DataApi;
use crate::data_api::feeds::Times;
use crate::data_api::shortvideo as data;
use crate::rankings::shortvideo as ranking;
use crate::sync::SyncService;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::topic::Topic;
use serde_json::json;

/// The short-video RPCs.
pub struct Shortvideo {
    /// The content store and the clock.
    pub api: Arc<DataApi>,
    /// The sync jobs; `None` where only the store is read (benches): the
    /// sync RPCs then answer 503 `not_configured`.
    pub sync: Option<Arc<SyncService>>,
}

impl ShortvideoService<Registry> for Shortvideo {
    async fn query_account(
        &self,
        ctx: CallContext,
        request: pb::QueryAccountRequest,
    ) -> Result<Answer<pb::QueryAccountResponse>, ServiceError> {
        data::query_account(self.api.clone(), ctx, request).await
    }

    async fn search_user(
        &self,
        ctx: CallContext,
        request: pb::SearchUserRequest,
    ) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
        data::search_user(self.api.clone(), ctx, request).await
    }

    async fn query_work_list(
        &self,
        ctx: CallContext,
        request: pb::QueryWorkListRequest,
    ) -> Result<Answer<pb::QueryWorkListResponse>, ServiceError> {
        data::query_work_list(self.api.clone(), ctx, request).await
    }

    async fn search_work(
        &self,
        ctx: CallContext,
        request: pb::SearchWorkRequest,
    ) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
        data::search_work(self.api.clone(), ctx, request).await
    }

    async fn realtime_search(
        &self,
        ctx: CallContext,
        request: pb::RealtimeSearchRequest,
    ) -> Result<Answer<pb::RealtimeSearchResponse>, ServiceError> {
        data::realtime_search(self.api.clone(), ctx, request).await
    }

    async fn comments(
        &self,
        ctx: CallContext,
        request: pb::CommentsRequest,
    ) -> Result<Answer<pb::CommentsResponse>, ServiceError> {
        data::video_comments(self.api.clone(), ctx, request).await
    }

    async fn douyin_rise_fans_rank(
        &self,
        ctx: CallContext,
        request: pb::DouyinRiseFansRankRequest,
    ) -> Result<Answer<pb::DouyinRiseFansRankResponse>, ServiceError> {
        ranking::rise_fans_rank(self.api.clone(), ctx, request).await
    }

    async fn shortvideo_top_account(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoTopAccountRequest,
    ) -> Result<Answer<pb::ShortvideoTopAccountResponse>, ServiceError> {
        ranking::top_account(self.api.clone(), ctx, request).await
    }

    async fn shortvideo_user_works(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoUserWorksRequest,
    ) -> Result<Answer<pb::ShortvideoUserWorksResponse>, ServiceError> {
        data::user_works(self.api.clone(), ctx, request).await
    }

    async fn shortvideo_account_diagnosis(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoAccountDiagnosisRequest,
    ) -> Result<Answer<pb::ShortvideoAccountDiagnosisResponse>, ServiceError> {
        ranking::account_diagnosis(self.api.clone(), ctx, request).await
    }

    async fn shortvideo_similar_account(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoSimilarAccountRequest,
    ) -> Result<Answer<pb::ShortvideoSimilarAccountResponse>, ServiceError> {
        ranking::similar_account(self.api.clone(), ctx, request).await
    }

    async fn shortvideo_ai_feed(
        &self,
        _: CallContext,
        request: pb::ShortvideoAiFeedRequest,
    ) -> Result<Answer<common::TitleLikeList>, ServiceError> {
        super::feed(&self.api, shortvideo_service::SHORTVIDEO_AI_FEED, Topic::Ai, Times::Optional, request).await
    }

    async fn shortvideo_playlet_feed(
        &self,
        _: CallContext,
        request: common::KeywordFeedRequest,
    ) -> Result<Answer<common::TitleLikeList>, ServiceError> {
        super::feed(&self.api, shortvideo_service::SHORTVIDEO_PLAYLET_FEED, Topic::Playlet, Times::Optional, request)
            .await
    }

    async fn shortvideo_sync_notes(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoSyncNotesRequest,
    ) -> Result<common::SyncReceipt, ServiceError> {
        super::submit_sync(&self.sync, &ctx, "accountId", json!({"accountId": request.account_id})).await
    }

    async fn shortvideo_content_surge(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoContentSurgeRequest,
    ) -> Result<Answer<pb::ShortvideoContentSurgeResponse>, ServiceError> {
        ranking::content_surge(self.api.clone(), ctx, request).await
    }

    async fn shortvideo_likes_rank(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoLikesRankRequest,
    ) -> Result<Answer<pb::ShortvideoLikesRankResponse>, ServiceError> {
        ranking::likes_rank(self.api.clone(), ctx, request).await
    }

    async fn shortvideo_work_list(
        &self,
        ctx: CallContext,
        request: pb::ShortvideoWorkListRequest,
    ) -> Result<Answer<pb::ShortvideoWorkListResponse>, ServiceError> {
        data::work_list(self.api.clone(), ctx, request).await
    }

    async fn query_work(
        &self,
        ctx: CallContext,
        request: pb::QueryWorkRequest,
    ) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
        data::query_work(self.api.clone(), ctx, request).await
    }
}
