//! `mediaops.intlshort.v1.IntlshortService`, answered from the store
//! through its source chain ([`crate::data_api::intlshort`]).

use std::sync::Arc;

use mediaops_proto::mediaops::intlshort::v1 as pb;
use mediaops_proto::mediaops::intlshort::v1::intlshort_service::IntlshortService;

use crate::data_api::{DataApi, intlshort};
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

/// The international short-video RPC over the content store.
pub struct Intlshort(pub Arc<DataApi>);

impl IntlshortService<Registry> for Intlshort {
    async fn search_user(
        &self,
        ctx: CallContext,
        request: pb::SearchUserRequest,
    ) -> Result<Answer<pb::SearchUserResponse>, ServiceError> {
        intlshort::search_user(self.0.clone(), ctx, request).await
    }
}
