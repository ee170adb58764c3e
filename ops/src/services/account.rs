//! `mediaops.account.v1.AccountService`: the caller's balance and usage log
//! ([`mediaops_platform::account`]).

use std::sync::Arc;

use mediaops_proto::mediaops::account::v1::account_service::AccountService;
use mediaops_proto::mediaops::account::v1::{Balance, GetBalanceRequest, GetUsageRequest, Usage};

use mediaops_platform::account::MAX_USAGE_LIMIT;
use mediaops_platform::billing::Ledger;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The account RPCs over the ledger.
pub struct Account {
    /// Where balances and usage are kept.
    pub ledger: Arc<dyn Ledger>,
}

impl AccountService<Registry> for Account {
    async fn get_balance(&self, ctx: CallContext, _: GetBalanceRequest) -> Result<Balance, ServiceError> {
        let points = self.ledger.balance(ctx.account_id()).await?.unwrap_or(0);
        Ok(Balance { account_id: ctx.account_id().to_owned(), points })
    }

    async fn get_usage(&self, ctx: CallContext, request: GetUsageRequest) -> Result<Usage, ServiceError> {
        if !(0..=MAX_USAGE_LIMIT).contains(&request.limit) {
            return Err(ServiceError::invalid_field("limit", format!("must be 1-{MAX_USAGE_LIMIT} (0 = 50)")));
        }
        mediaops_platform::account::usage(self.ledger.as_ref(), ctx.account_id(), request.limit).await
    }
}
