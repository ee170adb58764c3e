//! `mediaops.articles.v1.ArticlesService`: the official-account data operations
//! ([`crate::data_api::articles`]), rankings ([`crate::rankings::articles`]), feeds
//! ([`crate::data_api::feeds`]) and syncs ([`crate::sync`]).

use std::sync::Arc;

use mediaops_proto::mediaops::articles::v1 as pb;
use mediaops_proto::mediaops::articles::v1::articles_service::{self, ArticlesService};
use mediaops_proto::mediaops::common::v1 as common;

use crate::data_api::DataApi;
use crate::data_api::articles as data;
use crate::data_api::feeds::Times;
use crate::rankings::articles as ranking;
use crate::sync::SyncService;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::topic::Topic;
use serde_json::json;

/// The official-account RPCs.
pub struct Articles {
    /// The content store and the clock.
    pub api: Arc<DataApi>,
    /// The sync jobs; `None` where only the store is read (benches): the
    /// sync RPCs then answer 503 `not_configured`.
    pub sync: Option<Arc<SyncService>>,
}

impl ArticlesService<Registry> for Articles {
    async fn search_article(
        &self,
        ctx: CallContext,
        request: pb::SearchArticleRequest,
    ) -> Result<Answer<pb::SearchArticleResponse>, ServiceError> {
        data::search_article(self.api.clone(), ctx, request).await
    }

    async fn query_user(
        &self,
        ctx: CallContext,
        request: pb::QueryUserRequest,
    ) -> Result<Answer<pb::QueryUserResponse>, ServiceError> {
        data::query_user(self.api.clone(), ctx, request).await
    }

    async fn query_work(
        &self,
        ctx: CallContext,
        request: pb::QueryWorkRequest,
    ) -> Result<Answer<pb::QueryWorkResponse>, ServiceError> {
        data::query_work(self.api.clone(), ctx, request).await
    }

    async fn hot_article(
        &self,
        ctx: CallContext,
        request: pb::HotArticleRequest,
    ) -> Result<Answer<pb::HotArticleResponse>, ServiceError> {
        data::hot_article(self.api.clone(), ctx, request).await
    }

    async fn category_time_hot(
        &self,
        ctx: CallContext,
        request: pb::CategoryTimeHotRequest,
    ) -> Result<Answer<pb::CategoryTimeHotResponse>, ServiceError> {
        ranking::category_time_hot(self.api.clone(), ctx, request).await
    }

    async fn articles_daily_publish(
        &self,
        ctx: CallContext,
        request: pb::ArticlesDailyPublishRequest,
    ) -> Result<Answer<pb::ArticlesDailyPublishResponse>, ServiceError> {
        data::daily_publish(self.api.clone(), ctx, request).await
    }

    async fn articles_work_list(
        &self,
        ctx: CallContext,
        request: pb::ArticlesWorkListRequest,
    ) -> Result<Answer<pb::ArticlesWorkListResponse>, ServiceError> {
        data::work_list(self.api.clone(), ctx, request).await
    }

    async fn articles_search_user(
        &self,
        ctx: CallContext,
        request: pb::ArticlesSearchUserRequest,
    ) -> Result<Answer<pb::ArticlesSearchUserResponse>, ServiceError> {
        data::search_user(self.api.clone(), ctx, request).await
    }

    async fn articles_account_analyzer(
        &self,
        ctx: CallContext,
        request: pb::ArticlesAccountAnalyzerRequest,
    ) -> Result<Answer<pb::ArticlesAccountAnalyzerResponse>, ServiceError> {
        ranking::account_analyzer(self.api.clone(), ctx, request).await
    }

    async fn articles_similar_account(
        &self,
        ctx: CallContext,
        request: pb::ArticlesSimilarAccountRequest,
    ) -> Result<Answer<pb::ArticlesSimilarAccountResponse>, ServiceError> {
        ranking::similar_account(self.api.clone(), ctx, request).await
    }

    async fn articles_index_rank(
        &self,
        ctx: CallContext,
        request: pb::ArticlesIndexRankRequest,
    ) -> Result<Answer<pb::ArticlesIndexRankResponse>, ServiceError> {
        ranking::index_rank(self.api.clone(), ctx, request).await
    }

    async fn articles_raise_rank(
        &self,
        ctx: CallContext,
        request: pb::ArticlesRaiseRankRequest,
    ) -> Result<Answer<pb::ArticlesRaiseRankResponse>, ServiceError> {
        ranking::raise_rank(self.api.clone(), ctx, request).await
    }

    async fn articles_hit_cover(
        &self,
        ctx: CallContext,
        request: pb::ArticlesHitCoverRequest,
    ) -> Result<Answer<pb::ArticlesHitCoverResponse>, ServiceError> {
        ranking::hit_cover(self.api.clone(), ctx, request).await
    }

    async fn articles_ai_feed(
        &self,
        _: CallContext,
        request: pb::ArticlesAiFeedRequest,
    ) -> Result<Answer<common::TitleLikeList>, ServiceError> {
        super::feed(&self.api, articles_service::ARTICLES_AI_FEED, Topic::Ai, Times::Optional, request).await
    }

    async fn articles_playlet_feed(
        &self,
        _: CallContext,
        request: common::KeywordFeedRequest,
    ) -> Result<Answer<common::TitleLikeList>, ServiceError> {
        super::feed(&self.api, articles_service::ARTICLES_PLAYLET_FEED, Topic::Playlet, Times::Optional, request).await
    }

    async fn articles_sync_notes(
        &self,
        ctx: CallContext,
        request: pb::ArticlesSyncNotesRequest,
    ) -> Result<common::SyncReceipt, ServiceError> {
        super::submit_sync(&self.sync, &ctx, "accountId", json!({"accountId": request.account_id})).await
    }

    async fn articles_sync_account(
        &self,
        ctx: CallContext,
        request: pb::ArticlesSyncAccountRequest,
    ) -> Result<common::SyncReceipt, ServiceError> {
        let request = json!({"wechatId": request.wechat_id, "accountName": request.account_name});
        super::submit_sync(&self.sync, &ctx, "wechatId", request).await
    }

    async fn article_metrics(
        &self,
        ctx: CallContext,
        request: pb::ArticleMetricsRequest,
    ) -> Result<Answer<pb::ArticleMetricsResponse>, ServiceError> {
        data::article_metrics(self.api.clone(), ctx, request).await
    }

    async fn article_comments(
        &self,
        ctx: CallContext,
        request: pb::ArticleCommentsRequest,
    ) -> Result<Answer<pb::ArticleCommentsResponse>, ServiceError> {
        data::article_comments(self.api.clone(), ctx, request).await
    }
}
