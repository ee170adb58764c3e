//! `mediaops.lifestyle.v1.LifestyleService`: the lifestyle data operations
//! ([`crate::data_api::lifestyle`]), rankings ([`crate::rankings::lifestyle`]), feeds
//! ([`crate::data_api::feeds`]) and syncs ([`crate::sync`]).

use std::sync::Arc;

use mediaops_proto::mediaops::common::v1 as common;
use mediaops_proto::mediaops::lifestyle::v1 as pb;
use mediaops_proto::mediaops::lifestyle::v1::lifestyle_service::{self, LifestyleService};

use crate::data_api::DataApi;
use crate::data_api::feeds::Times;
use crate::data_api::lifestyle as data;
use crate::rankings::lifestyle as ranking;
use crate::sync::SyncService;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::topic::Topic;
use serde_json::json;

/// The lifestyle RPCs.
pub struct Lifestyle {
    /// The content store and the clock.
    pub api: Arc<DataApi>,
    /// The sync jobs; `None` where only the store is read (benches): the
    /// sync RPCs then answer 503 `not_configured`.
    pub sync: Option<Arc<SyncService>>,
}

impl LifestyleService<Registry> for Lifestyle {
    async fn search_note(
        &self,
        ctx: CallContext,
        request: pb::SearchNoteRequest,
    ) -> Result<Answer<pb::SearchNoteResponse>, ServiceError> {
        data::search_note(self.api.clone(), ctx, request).await
    }

    async fn search_user(
        &self,
        ctx: CallContext,
        request: pb::SearchUserRequest,
    ) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
        data::search_user(self.api.clone(), ctx, request).await
    }

    async fn query_account(
        &self,
        ctx: CallContext,
        request: pb::QueryAccountRequest,
    ) -> Result<Answer<pb::QueryAccountResponse>, ServiceError> {
        data::query_account(self.api.clone(), ctx, request).await
    }

    async fn search_work(
        &self,
        ctx: CallContext,
        request: pb::SearchWorkRequest,
    ) -> Result<Answer<pb::SearchWorkResponse>, ServiceError> {
        data::search_work(self.api.clone(), ctx, request).await
    }

    async fn crawl_work(
        &self,
        ctx: CallContext,
        request: pb::CrawlWorkRequest,
    ) -> Result<Answer<pb::CrawlWorkResponse>, ServiceError> {
        data::crawl_work(self.api.clone(), ctx, request).await
    }

    async fn comments(
        &self,
        _: CallContext,
        request: pb::CommentsRequest,
    ) -> Result<Answer<pb::CommentsResponse>, ServiceError> {
        data::note_comments(self.api.clone(), request).await
    }

    async fn lifestyle_top_account(
        &self,
        ctx: CallContext,
        request: pb::LifestyleTopAccountRequest,
    ) -> Result<Answer<pb::LifestyleTopAccountResponse>, ServiceError> {
        ranking::top_account(self.api.clone(), ctx, request).await
    }

    async fn lifestyle_account_analyzer(
        &self,
        ctx: CallContext,
        request: pb::LifestyleAccountAnalyzerRequest,
    ) -> Result<Answer<pb::LifestyleAccountAnalyzerResponse>, ServiceError> {
        ranking::account_analyzer(self.api.clone(), ctx, request).await
    }

    async fn lifestyle_ai_feed(
        &self,
        _: CallContext,
        request: pb::LifestyleAiFeedRequest,
    ) -> Result<Answer<common::TitleLikeList>, ServiceError> {
        super::feed(&self.api, lifestyle_service::LIFESTYLE_AI_FEED, Topic::Ai, Times::Required, request).await
    }

    async fn lifestyle_playlet_feed(
        &self,
        _: CallContext,
        request: common::KeywordFeedRequest,
    ) -> Result<Answer<common::TitleLikeList>, ServiceError> {
        super::feed(&self.api, lifestyle_service::LIFESTYLE_PLAYLET_FEED, Topic::Playlet, Times::Optional, request)
            .await
    }

    async fn lifestyle_sync_notes(
        &self,
        ctx: CallContext,
        request: pb::LifestyleSyncNotesRequest,
    ) -> Result<common::SyncReceipt, ServiceError> {
        super::submit_sync(&self.sync, &ctx, "redId", json!({"redId": request.red_id})).await
    }

    async fn lifestyle_hit_data(
        &self,
        ctx: CallContext,
        request: pb::LifestyleHitDataRequest,
    ) -> Result<Answer<pb::LifestyleHitDataResponse>, ServiceError> {
        ranking::hit_data(self.api.clone(), ctx, request).await
    }

    async fn lifestyle_daily_top(
        &self,
        ctx: CallContext,
        request: pb::LifestyleRankRequest,
    ) -> Result<Answer<pb::LifestyleDailyTopResponse>, ServiceError> {
        ranking::daily_top(self.api.clone(), ctx, request).await
    }

    async fn lifestyle_low_fans_top(
        &self,
        ctx: CallContext,
        request: pb::LifestyleRankRequest,
    ) -> Result<Answer<pb::LifestyleRankResponse>, ServiceError> {
        ranking::low_fans_top(self.api.clone(), ctx, request).await
    }

    async fn lifestyle_weekly_top(
        &self,
        ctx: CallContext,
        request: pb::LifestyleRankRequest,
    ) -> Result<Answer<pb::LifestyleRankResponse>, ServiceError> {
        ranking::weekly_top(self.api.clone(), ctx, request).await
    }
}
