//! `mediaops.watch.v1.WatchlistService`: the watch lists and their
//! deliveries ([`crate::watch`]).

use std::sync::Arc;

use mediaops_proto::mediaops::watch::v1::watchlist_service::WatchlistService;
use mediaops_proto::mediaops::watch::v1::{
    DeleteWatchlistRequest, DeletedWatchlist, DeliveryList, GetWatchlistRequest, ListDeliveriesRequest,
    ListWatchlistsRequest, PutWatchlistRequest, Watchlist, WatchlistList,
};

use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The watch-list RPCs over the watch-list store.
pub struct Watchlists(pub Arc<crate::watch::WatchService>);

impl WatchlistService<Registry> for Watchlists {
    async fn list_watchlists(&self, ctx: CallContext, _: ListWatchlistsRequest) -> Result<WatchlistList, ServiceError> {
        self.0.list(ctx.account_id()).await
    }

    async fn get_watchlist(&self, ctx: CallContext, request: GetWatchlistRequest) -> Result<Watchlist, ServiceError> {
        self.0.get(ctx.account_id(), &request.id).await
    }

    async fn put_watchlist(&self, ctx: CallContext, request: PutWatchlistRequest) -> Result<Watchlist, ServiceError> {
        self.0.put(ctx.account_id(), request).await
    }

    async fn delete_watchlist(
        &self,
        ctx: CallContext,
        request: DeleteWatchlistRequest,
    ) -> Result<DeletedWatchlist, ServiceError> {
        self.0.delete(ctx.account_id(), &request.id).await
    }

    async fn list_deliveries(
        &self,
        ctx: CallContext,
        request: ListDeliveriesRequest,
    ) -> Result<DeliveryList, ServiceError> {
        self.0.deliveries(ctx.account_id(), request).await
    }
}
