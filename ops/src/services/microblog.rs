//! `mediaops.microblog.v1.MicroblogService`, answered from the store
//! through its source chains ([`crate::data_api::microblog`]).

use std::sync::Arc;

use mediaops_proto::mediaops::microblog::v1 as pb;
use mediaops_proto::mediaops::microblog::v1::microblog_service::MicroblogService;

use crate::data_api::{DataApi, microblog};
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

/// The microblog RPCs over the content store.
pub struct Microblog(pub Arc<DataApi>);

impl MicroblogService<Registry> for Microblog {
    async fn search(
        &self,
        ctx: CallContext,
        request: pb::SearchRequest,
    ) -> Result<Answer<pb::SearchResponse>, ServiceError> {
        microblog::search(self.0.clone(), ctx, request).await
    }

    async fn detail(
        &self,
        ctx: CallContext,
        request: pb::DetailRequest,
    ) -> Result<Answer<pb::DetailResponse>, ServiceError> {
        microblog::detail(self.0.clone(), ctx, request).await
    }
}
