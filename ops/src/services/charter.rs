//! `mediaops.charter.v1.CharterService`: the positioning charters (spec
//! 2.5; [`crate::charter`]).

use std::sync::Arc;

use mediaops_proto::mediaops::charter::v1::charter_service::CharterService;
use mediaops_proto::mediaops::charter::v1::{
    GetCharterRequest, GetDefaultCharterRequest, PutCharterRequest, StoredCharter,
};

use crate::charter::rules::DEFAULT_PROFILE;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The charter RPCs over the charter store.
pub struct Charter(pub Arc<crate::charter::Charters>);

impl CharterService<Registry> for Charter {
    async fn get_default_charter(
        &self,
        ctx: CallContext,
        _: GetDefaultCharterRequest,
    ) -> Result<StoredCharter, ServiceError> {
        self.0.get(ctx.account_id(), DEFAULT_PROFILE).await
    }

    async fn get_charter(&self, ctx: CallContext, request: GetCharterRequest) -> Result<StoredCharter, ServiceError> {
        self.0.get(ctx.account_id(), &request.id).await
    }

    async fn put_charter(&self, ctx: CallContext, request: PutCharterRequest) -> Result<StoredCharter, ServiceError> {
        self.0.put(ctx.account_id(), request).await
    }
}
