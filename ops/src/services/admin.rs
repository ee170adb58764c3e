//! `mediaops.admin.v1.AdminService`: keys, points, usage and rate limits
//! ([`crate::admin`]), the collectors' states, the maintenance switches
//! ([`mediaops_platform::maintenance`]) and the sync dead letters ([`crate::sync`]).
//! The pipeline lets only the admin token call them.

use std::sync::Arc;

use mediaops_proto::mediaops::admin::v1 as pb;
use mediaops_proto::mediaops::admin::v1::admin_service::AdminService;

use crate::sync::SyncService;
use mediaops_connectors::hotlists::collector::Collectors;
use mediaops_platform::billing::Ledger;
use mediaops_platform::maintenance::Maintenance;
use mediaops_platform::rate_limit::Limit;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The admin RPCs.
pub struct Admin {
    /// Keys, balances, usage and accounts' rate limits.
    pub ledger: Arc<dyn Ledger>,
    /// The configured limit of accounts without their own.
    pub default_limit: Limit,
    /// The hot-list collectors.
    pub collectors: Arc<Collectors>,
    /// The maintenance switches.
    pub maintenance: Arc<Maintenance>,
    /// The sync jobs.
    pub sync: Arc<SyncService>,
}

impl AdminService<Registry> for Admin {
    async fn create_key(&self, _: CallContext, r: pb::CreateKeyRequest) -> Result<pb::CreateKeyResponse, ServiceError> {
        crate::admin::create_key(self.ledger.as_ref(), &r.account_id, r.points, &r.rate, r.burst).await
    }

    async fn disable_key(
        &self,
        _: CallContext,
        r: pb::DisableKeyRequest,
    ) -> Result<pb::DisableKeyResponse, ServiceError> {
        Ok(pb::DisableKeyResponse { disabled: crate::admin::disable_key(self.ledger.as_ref(), &r.key).await? })
    }

    async fn list_keys(&self, _: CallContext, _: pb::ListKeysRequest) -> Result<pb::ListKeysResponse, ServiceError> {
        crate::admin::list_keys(self.ledger.as_ref()).await
    }

    async fn grant_points(
        &self,
        _: CallContext,
        r: pb::GrantPointsRequest,
    ) -> Result<pb::AccountBalance, ServiceError> {
        crate::admin::grant(self.ledger.as_ref(), &r.account_id, r.points).await
    }

    async fn get_balance(
        &self,
        _: CallContext,
        r: pb::GetAccountBalanceRequest,
    ) -> Result<pb::AccountBalance, ServiceError> {
        crate::admin::balance(self.ledger.as_ref(), &r.account_id).await
    }

    async fn list_usage(&self, _: CallContext, r: pb::ListUsageRequest) -> Result<pb::ListUsageResponse, ServiceError> {
        crate::admin::usage(self.ledger.as_ref(), &r.account_id, r.limit).await
    }

    async fn list_collectors(
        &self,
        _: CallContext,
        _: pb::ListCollectorsRequest,
    ) -> Result<pb::ListCollectorsResponse, ServiceError> {
        Ok(crate::admin::list_collectors(&self.collectors))
    }

    async fn set_maintenance(
        &self,
        _: CallContext,
        r: pb::SetMaintenanceRequest,
    ) -> Result<pb::OperationAvailability, ServiceError> {
        self.maintenance.set(r).await
    }

    async fn list_maintenance(
        &self,
        _: CallContext,
        _: pb::ListMaintenanceRequest,
    ) -> Result<pb::ListMaintenanceResponse, ServiceError> {
        Ok(self.maintenance.list().await)
    }

    async fn list_sync_dead_letters(
        &self,
        _: CallContext,
        r: pb::ListSyncDeadLettersRequest,
    ) -> Result<pb::ListSyncDeadLettersResponse, ServiceError> {
        self.sync.dead_letters(r.limit).await
    }

    async fn replay_sync_job(&self, _: CallContext, r: pb::ReplaySyncJobRequest) -> Result<pb::SyncJob, ServiceError> {
        self.sync.replay(r.task_id.trim()).await
    }

    async fn set_rate_limit(
        &self,
        _: CallContext,
        r: pb::SetRateLimitRequest,
    ) -> Result<pb::AccountRateLimit, ServiceError> {
        crate::admin::set_rate_limit(self.ledger.as_ref(), self.default_limit, &r.account_id, &r.rate, r.burst).await
    }

    async fn get_rate_limit(
        &self,
        _: CallContext,
        r: pb::GetRateLimitRequest,
    ) -> Result<pb::AccountRateLimit, ServiceError> {
        crate::admin::rate_limit(self.ledger.as_ref(), self.default_limit, &r.account_id).await
    }
}
