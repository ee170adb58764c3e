//! `mediaops.skills.v1.SkillsService`: the skills — rankings over the store
//! ([`crate::rankings::skills`]), trends ([`crate::trend`]), banned words ([`crate::banned_words`]),
//! images ([`mediaops_connectors::images`]) and web search ([`mediaops_connectors::web_search`]).

use std::sync::Arc;

use mediaops_proto::mediaops::common::v1 as common;
use mediaops_proto::mediaops::skills::v1 as pb;
use mediaops_proto::mediaops::skills::v1::skills_service::SkillsService;

use crate::banned_words::BannedWordChecker;
use crate::banned_words::platform::Platform;
use crate::data_api::DataApi;
use crate::rankings::skills as ranking;
use crate::trend::keywords::KeywordFilter;
use crate::trend::{Trends, last30days, radar};
use mediaops_connectors::images::ImageSkills;
use mediaops_connectors::web_search::WebSearch;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

/// The skill RPCs.
pub struct Skills {
    /// The content store and the clock.
    pub api: Arc<DataApi>,
    /// The trend state (`trend-radar`, `cn-last30days`).
    pub trends: Arc<Trends>,
    /// The banned-word checks.
    pub banned_words: Arc<BannedWordChecker>,
    /// The image skills.
    pub images: Arc<ImageSkills>,
    /// The web-search skill.
    pub web_search: Arc<WebSearch>,
}

impl SkillsService<Registry> for Skills {
    async fn playlet_articles_feed(
        &self,
        ctx: CallContext,
        request: pb::PlayletArticlesFeedRequest,
    ) -> Result<Answer<pb::PlayletArticlesFeedResponse>, ServiceError> {
        ranking::playlet_articles(self.api.clone(), ctx, request).await
    }

    async fn ai_web_search(
        &self,
        ctx: CallContext,
        request: pb::AiWebSearchRequest,
    ) -> Result<pb::AiWebSearchResponse, ServiceError> {
        self.web_search.invoke(ctx, request).await
    }

    async fn cn_last30days(
        &self,
        ctx: CallContext,
        request: pb::CnLast30daysRequest,
    ) -> Result<Answer<pb::CnLast30daysResponse>, ServiceError> {
        if KeywordFilter::new(&request.keyword).is_none() {
            ctx.warn(last30days::NO_KEYWORD);
        }
        last30days::last30days(self.trends.clone(), request).await
    }

    async fn image_gen(
        &self,
        ctx: CallContext,
        request: pb::ImageGenRequest,
    ) -> Result<common::ImageResult, ServiceError> {
        self.images.image_gen(&ctx, request).await
    }

    async fn channels_ai_feed(
        &self,
        ctx: CallContext,
        request: common::KeywordFeedRequest,
    ) -> Result<Answer<pb::ChannelsAiFeedResponse>, ServiceError> {
        ranking::channels_ai_feed(self.api.clone(), ctx, request).await
    }

    async fn trend_radar(
        &self,
        _: CallContext,
        request: pb::TrendRadarRequest,
    ) -> Result<Answer<pb::TrendRadarResponse>, ServiceError> {
        radar::radar(self.trends.clone(), request).await
    }

    async fn lifestyle_viral_notes(
        &self,
        ctx: CallContext,
        request: pb::LifestyleViralNotesRequest,
    ) -> Result<Answer<pb::LifestyleViralNotesResponse>, ServiceError> {
        ranking::viral_notes(self.api.clone(), ctx, request).await
    }

    async fn content_safety_check(
        &self,
        ctx: CallContext,
        request: pb::ContentSafetyCheckRequest,
    ) -> Result<common::BannedWordResult, ServiceError> {
        let platform = Platform::parse(&request.platform, "platform")?;
        self.banned_words.check(ctx.account_id(), platform, &request.content).await
    }

    async fn articles_prohibited_word(
        &self,
        ctx: CallContext,
        request: pb::ArticlesProhibitedWordRequest,
    ) -> Result<common::BannedWordResult, ServiceError> {
        self.banned_words.check(ctx.account_id(), Platform::Articles, &request.content).await
    }

    async fn articles_similar_account(
        &self,
        ctx: CallContext,
        request: pb::ArticlesSimilarAccountRequest,
    ) -> Result<Answer<pb::ArticlesSimilarAccountResponse>, ServiceError> {
        ranking::similar_account(self.api.clone(), ctx, request).await
    }

    async fn articles_account_analyzer(
        &self,
        ctx: CallContext,
        request: pb::ArticlesAccountAnalyzerRequest,
    ) -> Result<Answer<pb::ArticlesAccountAnalyzerResponse>, ServiceError> {
        ranking::account_analyzer(self.api.clone(), ctx, request).await
    }

    async fn articles_fastest_growing(
        &self,
        ctx: CallContext,
        request: pb::ArticlesFastestGrowingRequest,
    ) -> Result<Answer<pb::ArticlesFastestGrowingResponse>, ServiceError> {
        ranking::fastest_growing(self.api.clone(), ctx, request).await
    }

    async fn articles_search(
        &self,
        ctx: CallContext,
        request: pb::ArticlesSearchRequest,
    ) -> Result<Answer<pb::ArticlesSearchResponse>, ServiceError> {
        ranking::articles_search(self.api.clone(), ctx, request).await
    }

    async fn articles_cover(
        &self,
        _: CallContext,
        request: pb::ArticlesCoverRequest,
    ) -> Result<pb::ArticlesCoverResponse, ServiceError> {
        self.images.articles_cover(request).await
    }
}
