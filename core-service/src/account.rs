//! `GET /api/account/balance` (billing issue, item 6): the caller's
//! `{accountId, points}`. Free.

use std::sync::Arc;

use mediaops_proto::mediaops::account::v1::{Balance, GetBalanceRequest};

use crate::billing::Ledger;
use crate::registry::Registry;

/// Registers the balance RPC over `ledger`.
pub fn register(ledger: Arc<dyn Ledger>, registry: &mut Registry) -> anyhow::Result<()> {
    registry.handle("mediaops.account.v1.AccountService.GetBalance", move |ctx, _: GetBalanceRequest| {
        let ledger = ledger.clone();
        async move {
            let points = ledger.balance(ctx.account_id()).await?.unwrap_or(0);
            Ok(Balance { account_id: ctx.account_id().to_owned(), points })
        }
    })
}
