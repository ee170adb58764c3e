//! Administration of keys, points, usage (docs/billing.md "Administration") and
//! account rate limits (docs/state.md): the functions behind both the
//! admin gRPC service (`mediaops.admin.v1`, gRPC only, admin token) and the
//! `mediaops keys|points|usage` CLI.

use mediaops_proto::mediaops::admin::v1 as pb;

use mediaops_connectors::hotlists::collector::{CollectorState, Collectors};
use mediaops_platform::auth::check_account_id;
use mediaops_platform::auth::keys::{generate_key, hash_key};
use mediaops_platform::billing::{KeyInfo, Ledger};
use mediaops_platform::rate_limit::Limit;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

fn key_info(info: KeyInfo) -> pb::KeyInfo {
    pb::KeyInfo {
        key_id: info.key_id,
        prefix: info.prefix,
        account_id: info.account_id,
        disabled: info.disabled,
        created_at: info.created_at,
    }
}

/// Creates a key for `account_id`, grants `points` (when > 0) and, when
/// `rate` is not empty, sets the account's own rate limit (`rate`, `burst`
/// as in [`set_rate_limit`]). Bad input is a 400 before anything is stored.
pub async fn create_key(
    ledger: &dyn Ledger,
    account_id: &str,
    points: i64,
    rate: &str,
    burst: u32,
) -> Result<pb::CreateKeyResponse, ServiceError> {
    check_account_id(account_id)?;
    if points < 0 {
        return Err(ServiceError::invalid_field("points", "points must not be negative"));
    }
    let limit = own_limit(rate, burst)?;
    let key = generate_key();
    ledger.insert_key(&key, account_id).await?;
    if let Some(limit) = limit {
        ledger.set_rate_limit(account_id, Some(limit)).await?;
    }
    let balance = if points > 0 {
        ledger.grant(account_id, points).await?
    } else {
        ledger.balance(account_id).await?.unwrap_or(0)
    };
    let id = &hash_key(&key)[..12];
    let info = ledger.list_keys().await?.into_iter().find(|k| k.key_id == id).map(key_info);
    Ok(pb::CreateKeyResponse { key, info, balance })
}

/// Disables a key named by its key id (≥ 8 hex characters) or by the key
/// itself; false when no key matches.
pub async fn disable_key(ledger: &dyn Ledger, key: &str) -> Result<bool, ServiceError> {
    let is_key_id = key.len() >= 8 && key.len() <= 64 && key.bytes().all(|b| b.is_ascii_hexdigit());
    let key_id = if is_key_id { key.to_ascii_lowercase() } else { hash_key(key)[..12].to_owned() };
    if key_id.len() < 8 {
        return Err(ServiceError::invalid_field("key", "give the key or a key id of at least 8 hex characters"));
    }
    ledger.disable_key(&key_id).await
}

/// Every key (ids and prefixes only).
pub async fn list_keys(ledger: &dyn Ledger) -> Result<pb::ListKeysResponse, ServiceError> {
    Ok(pb::ListKeysResponse { keys: ledger.list_keys().await?.into_iter().map(key_info).collect() })
}

/// Adds `points` (> 0) to an account.
pub async fn grant(ledger: &dyn Ledger, account_id: &str, points: i64) -> Result<pb::AccountBalance, ServiceError> {
    check_account_id(account_id)?;
    if points <= 0 {
        return Err(ServiceError::invalid_field("points", "points to grant must be more than 0"));
    }
    let points = ledger.grant(account_id, points).await?;
    Ok(pb::AccountBalance { account_id: account_id.to_owned(), points })
}

/// An account's balance; 404 for an unknown account.
pub async fn balance(ledger: &dyn Ledger, account_id: &str) -> Result<pb::AccountBalance, ServiceError> {
    let points = ledger
        .balance(account_id)
        .await?
        .ok_or_else(|| ServiceError::not_found(format!("no account {}", excerpt(account_id))))?;
    Ok(pb::AccountBalance { account_id: account_id.to_owned(), points })
}

/// An account's usage log (newest first; default 50) and its own
/// per-operation counters (successful calls of that account only):
/// [`mediaops_platform::account::usage`] for any account.
pub async fn usage(ledger: &dyn Ledger, account_id: &str, limit: i32) -> Result<pb::ListUsageResponse, ServiceError> {
    let usage = mediaops_platform::account::usage(ledger, account_id, limit).await?;
    Ok(pb::ListUsageResponse { records: usage.records, usage_counts: usage.usage_counts })
}

/// The account limit `rate` and `burst` name: `None` for an empty rate
/// (with burst 0); else [`Limit::parse`], a 400 naming the field.
fn own_limit(rate: &str, burst: u32) -> Result<Option<Limit>, ServiceError> {
    if rate.trim().is_empty() {
        return match burst {
            0 => Ok(None),
            _ => Err(ServiceError::invalid_field("rate", "a burst needs a rate, e.g. `20/s`")),
        };
    }
    Ok(Some(Limit::parse(rate, burst)?))
}

/// The limit in force for an existing account (404 otherwise): its own, or
/// `default`.
pub async fn rate_limit(
    ledger: &dyn Ledger,
    default: Limit,
    account_id: &str,
) -> Result<pb::AccountRateLimit, ServiceError> {
    if ledger.balance(account_id).await?.is_none() {
        return Err(ServiceError::not_found(format!("no account {}", excerpt(account_id))));
    }
    let (limit, source) = match ledger.rate_limit(account_id).await? {
        Some(own) => (own, "account"),
        None => (default, "default"),
    };
    Ok(pb::AccountRateLimit {
        account_id: account_id.to_owned(),
        rate: limit.rate(),
        burst: limit.burst(),
        source: source.into(),
    })
}

/// Sets an existing account's own rate limit (404 for an unknown account):
/// `rate` `20/s`, `600/m`, `1000/h`, `5000/d` or `off`, with `burst` calls
/// at once (0 = the rate's count); an empty `rate` drops the account's own
/// limit, so `default` applies again (docs/rate-limits.md). The next call of
/// the account meets the new limit.
pub async fn set_rate_limit(
    ledger: &dyn Ledger,
    default: Limit,
    account_id: &str,
    rate: &str,
    burst: u32,
) -> Result<pb::AccountRateLimit, ServiceError> {
    check_account_id(account_id)?;
    let limit = own_limit(rate, burst)?;
    if ledger.balance(account_id).await?.is_none() {
        return Err(ServiceError::not_found(format!("no account {}", excerpt(account_id))));
    }
    ledger.set_rate_limit(account_id, limit).await?;
    rate_limit(ledger, default, account_id).await
}

fn collector_state(s: CollectorState) -> pb::CollectorState {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    pb::CollectorState {
        source: s.source,
        display_name: s.display_name,
        kind: s.kind,
        enabled: s.enabled,
        interval_secs: n(s.interval_secs),
        url: s.url,
        runs: n(s.runs),
        failures: n(s.failures),
        consecutive_failures: n(s.consecutive_failures),
        last_run_at: s.last_run_at.unwrap_or_default(),
        last_success_at: s.last_success_at.unwrap_or_default(),
        last_error: s.last_error.unwrap_or_default(),
        last_error_at: s.last_error_at.unwrap_or_default(),
        items_last_written: n(s.items_last_written),
        items_last_skipped: n(s.items_last_skipped),
        last_skipped_reasons: s.last_skipped_reasons,
        items_written_total: n(s.items_written_total),
    }
}

/// The hot-list collectors' states (docs/hotlists.md "Admin view").
pub fn list_collectors(collectors: &Collectors) -> pb::ListCollectorsResponse {
    pb::ListCollectorsResponse {
        scheduler_running: collectors.is_scheduled(),
        collectors: collectors.states().into_iter().map(collector_state).collect(),
    }
}
