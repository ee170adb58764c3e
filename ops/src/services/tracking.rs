//! `mediaops.tracking.v1.TrackingService`: the tracking lists and their run
//! logs ([`crate::tracking`]).

use std::sync::Arc;

use mediaops_proto::mediaops::tracking::v1::tracking_service::TrackingService;
use mediaops_proto::mediaops::tracking::v1::{
    DeleteTrackingListRequest, DeletedTrackingList, GetTrackingListRequest, ListTrackingListsRequest,
    ListTrackingRunsRequest, PutTrackingListRequest, TrackingList, TrackingListList, TrackingRunList,
};

use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The tracking-list RPCs over the tracking store.
pub struct Tracking(pub Arc<crate::tracking::TrackingService>);

impl TrackingService<Registry> for Tracking {
    async fn list_tracking_lists(
        &self,
        ctx: CallContext,
        _: ListTrackingListsRequest,
    ) -> Result<TrackingListList, ServiceError> {
        self.0.list(ctx.account_id()).await
    }

    async fn get_tracking_list(
        &self,
        ctx: CallContext,
        request: GetTrackingListRequest,
    ) -> Result<TrackingList, ServiceError> {
        self.0.get(ctx.account_id(), &request.id).await
    }

    async fn put_tracking_list(
        &self,
        ctx: CallContext,
        request: PutTrackingListRequest,
    ) -> Result<TrackingList, ServiceError> {
        self.0.put(ctx.account_id(), request).await
    }

    async fn delete_tracking_list(
        &self,
        ctx: CallContext,
        request: DeleteTrackingListRequest,
    ) -> Result<DeletedTrackingList, ServiceError> {
        self.0.delete(ctx.account_id(), &request.id).await
    }

    async fn list_tracking_runs(
        &self,
        ctx: CallContext,
        request: ListTrackingRunsRequest,
    ) -> Result<TrackingRunList, ServiceError> {
        self.0.runs(ctx.account_id(), request).await
    }
}
