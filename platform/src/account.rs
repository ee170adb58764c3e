//! The caller's own account: `GET /api/account/balance` (docs/billing.md),
//! `{accountId, points}`, and `GET /api/account/usage` (for the workbench's usage page), the account's usage log. Both
//! free.

use mediaops_proto::mediaops::account::v1::{Usage, UsageRecord};

use crate::billing::Ledger;
use mediaops_proto::error::ServiceError;

/// Records [`usage`] answers when a request names no `limit`.
pub const DEFAULT_USAGE_LIMIT: i32 = 50;

/// The most records `GET /api/account/usage` answers.
pub const MAX_USAGE_LIMIT: i32 = 1000;

/// An account's usage log, newest first (`limit` records; 0 or less =
/// [`DEFAULT_USAGE_LIMIT`]), and its own per-operation counters
/// (successful calls of that account only).
///
/// # Errors
/// The ledger is unreachable (503 `ledger_unavailable`).
pub async fn usage(ledger: &dyn Ledger, account_id: &str, limit: i32) -> Result<Usage, ServiceError> {
    let limit = if limit <= 0 { DEFAULT_USAGE_LIMIT } else { limit } as usize;
    let records = ledger.usage_log(account_id, limit).await?.into_iter().map(usage_record).collect();
    Ok(Usage { records, usage_counts: ledger.account_usage_counts(account_id).await?.into_iter().collect() })
}

fn usage_record(r: crate::billing::UsageRecord) -> UsageRecord {
    UsageRecord {
        request_id: r.request_id,
        account_id: r.account_id,
        operation_key: r.operation_key,
        points: r.points,
        outcome: r.outcome,
        at: r.at,
    }
}
