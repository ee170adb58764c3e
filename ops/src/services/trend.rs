//! `mediaops.trend.v1.TrendService`: the trend data operations, answered
//! from the hot lists and the stored works through their source chains
//! ([`crate::trend`]).

use std::sync::Arc;

use mediaops_proto::mediaops::trend::v1 as pb;
use mediaops_proto::mediaops::trend::v1::trend_service::TrendService;

use crate::trend::{Trends, hot_keywords, hot_topics, hub};
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

/// The trend RPCs over the shared trend state.
pub struct Trend(pub Arc<Trends>);

impl TrendService<Registry> for Trend {
    async fn hot_topics(
        &self,
        _: CallContext,
        request: pb::HotTopicsRequest,
    ) -> Result<Answer<pb::HotTopicsResponse>, ServiceError> {
        hot_topics::hot_topics(self.0.clone(), request).await
    }

    async fn hot_keywords(
        &self,
        _: CallContext,
        request: pb::HotKeywordsRequest,
    ) -> Result<Answer<pb::HotKeywordsResponse>, ServiceError> {
        hot_keywords::hot_keywords(self.0.clone(), request).await
    }

    async fn shortvideo_hot_trend(
        &self,
        _: CallContext,
        request: pb::ShortvideoHotTrendRequest,
    ) -> Result<Answer<pb::ShortvideoHotTrendResponse>, ServiceError> {
        hub::short_video_trend(self.0.clone(), request).await
    }

    async fn trending_hub_keyword(
        &self,
        _: CallContext,
        request: pb::TrendingHubKeywordRequest,
    ) -> Result<Answer<pb::TrendingHubKeywordResponse>, ServiceError> {
        hub::hub_keyword(self.0.clone(), request).await
    }
}
