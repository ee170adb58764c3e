//! `mediaops.history.v1.HistoryService`: counters and ranks over time from
//! the store's snapshots ([`crate::history`]; docs/history.md).

use std::sync::Arc;

use mediaops_proto::mediaops::history::v1 as pb;
use mediaops_proto::mediaops::history::v1::history_service::HistoryService;

use crate::data_api::DataApi;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The history RPCs over the content store.
pub struct History(pub Arc<DataApi>);

impl HistoryService<Registry> for History {
    async fn account_history(
        &self,
        _: CallContext,
        request: pb::AccountHistoryRequest,
    ) -> Result<pb::AccountHistoryResponse, ServiceError> {
        crate::history::account_history(self.0.clone(), request).await
    }

    async fn work_history(
        &self,
        _: CallContext,
        request: pb::WorkHistoryRequest,
    ) -> Result<pb::WorkHistoryResponse, ServiceError> {
        crate::history::work_history(self.0.clone(), request).await
    }

    async fn hot_title_rank(
        &self,
        _: CallContext,
        request: pb::HotTitleRankRequest,
    ) -> Result<pb::HotTitleRankResponse, ServiceError> {
        crate::history::hot_title_rank(self.0.clone(), request).await
    }
}
