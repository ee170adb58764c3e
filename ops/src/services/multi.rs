//! `mediaops.multi.v1.MultiService`: cross-platform search, export and
//! the playlet feed, answered from the store through their source chains
//! ([`crate::data_api::multi`], [`crate::data_api::feeds`]).

use std::sync::Arc;

use mediaops_proto::mediaops::multi::v1 as pb;
use mediaops_proto::mediaops::multi::v1::multi_service::MultiService;

use crate::data_api::{DataApi, feeds, multi};
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

/// The multi-platform RPCs over the content store.
pub struct Multi(pub Arc<DataApi>);

impl MultiService<Registry> for Multi {
    async fn multi_content_export_top(
        &self,
        _: CallContext,
        request: pb::MultiContentExportTopRequest,
    ) -> Result<Answer<pb::MultiContentExportTopResponse>, ServiceError> {
        multi::export_top(self.0.clone(), request).await
    }

    async fn cn30_multi_search(
        &self,
        _: CallContext,
        request: pb::Cn30MultiSearchRequest,
    ) -> Result<Answer<pb::Cn30MultiSearchResponse>, ServiceError> {
        multi::cn30_multi_search(self.0.clone(), request).await
    }

    async fn playlet_feed(
        &self,
        _: CallContext,
        request: pb::PlayletFeedRequest,
    ) -> Result<Answer<pb::PlayletFeedResponse>, ServiceError> {
        feeds::multi_playlet_feed(self.0.clone(), request).await
    }
}
