//! `mediaops keys|points|usage`: administration on the configured ledger
//! (Redis when `MEDIAOPS_REDIS_URL` is set, else the embedded ledger in
//! `MEDIAOPS_DATA_DIR`, which must not be in use by a running server; use
//! the admin gRPC service then). Output is JSON, one document per command.

use clap::{Args, Subcommand};
use core_service::CoreSettings;

#[derive(Subcommand)]
pub enum KeysCommand {
    /// Create a key for an account (creating the account) and print it once.
    Create {
        /// The account the key belongs to (created when new), e.g. team-a.
        #[arg(long)]
        account: String,
        /// Points to grant the account.
        #[arg(long, default_value_t = 0)]
        points: i64,
        /// The account's own rate limit: `<calls>/<s|m|h|d>` (e.g. `20/s`,
        /// `600/m`) or `off`; unset = the account keeps its limit (new
        /// accounts: the `[rate_limit]` default). docs/rate-limits.md.
        #[arg(long)]
        rate: Option<String>,
        /// Calls let through at once with `--rate` (0 = the rate's count).
        #[arg(long, default_value_t = 0, requires = "rate")]
        burst: u32,
    },
    /// Disable a key, named by its key id (from `keys list`) or the key itself.
    Disable {
        /// The key id (from `keys list`) or the key itself.
        key: String,
    },
    /// List keys: ids, prefixes, accounts; never the keys.
    List,
}

#[derive(Subcommand)]
pub enum PointsCommand {
    /// Add points to an account.
    Grant {
        /// The account to credit.
        #[arg(long)]
        account: String,
        /// Points to add (more than 0).
        points: i64,
    },
    /// Show an account's balance.
    Balance {
        /// The account whose balance to show.
        #[arg(long)]
        account: String,
    },
}

#[derive(Args)]
pub struct UsageArgs {
    /// The account whose usage to show.
    #[arg(long, required_unless_present = "vendors", conflicts_with = "vendors")]
    account: Option<String>,
    /// Vendor spend against points charged, per operation (docs/vendors.md
    /// "Vendor spend"): the vendor calls recorded in the state store and
    /// the points of every account's usage log.
    #[arg(long)]
    vendors: bool,
    /// How many records, newest first.
    #[arg(long, default_value_t = 50)]
    limit: i32,
}

fn print(value: serde_json::Value) {
    println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
}

pub async fn keys(settings: &CoreSettings, command: KeysCommand) -> anyhow::Result<()> {
    let ledger = core_service::server::open_ledger(settings).await?;
    let ledger = ledger.as_ref();
    match command {
        KeysCommand::Create { account, points, rate, burst } => {
            let rate = rate.unwrap_or_default();
            let created = mediaops_ops::admin::create_key(ledger, &account, points, &rate, burst).await?;
            let info = created.info.unwrap_or_default();
            let default = settings.rate_limit.default_limit()?;
            let limit = mediaops_ops::admin::rate_limit(ledger, default, &account).await?;
            print(serde_json::json!({
                "key": created.key, "keyId": info.key_id, "accountId": info.account_id, "balance": created.balance,
                "rateLimit": {"rate": limit.rate, "burst": limit.burst, "source": limit.source},
            }));
        }
        KeysCommand::Disable { key } => {
            let disabled = mediaops_ops::admin::disable_key(ledger, &key).await?;
            anyhow::ensure!(disabled, "no key matches {key:?}");
            print(serde_json::json!({"disabled": true}));
        }
        KeysCommand::List => {
            let keys = mediaops_ops::admin::list_keys(ledger).await?.keys;
            let rows: Vec<_> = keys
                .into_iter()
                .map(|k| serde_json::json!({"keyId": k.key_id, "prefix": k.prefix, "accountId": k.account_id, "disabled": k.disabled, "createdAt": k.created_at}))
                .collect();
            print(serde_json::Value::Array(rows));
        }
    }
    Ok(())
}

pub async fn points(settings: &CoreSettings, command: PointsCommand) -> anyhow::Result<()> {
    let ledger = core_service::server::open_ledger(settings).await?;
    let balance = match command {
        PointsCommand::Grant { account, points } => {
            mediaops_ops::admin::grant(ledger.as_ref(), &account, points).await?
        }
        PointsCommand::Balance { account } => mediaops_ops::admin::balance(ledger.as_ref(), &account).await?,
    };
    print(serde_json::json!({"accountId": balance.account_id, "points": balance.points}));
    Ok(())
}

pub async fn usage(settings: &CoreSettings, args: UsageArgs) -> anyhow::Result<()> {
    let ledger = core_service::server::open_ledger(settings).await?;
    let Some(account) = args.account else {
        return vendor_usage(settings, ledger.as_ref()).await;
    };
    let usage = mediaops_ops::admin::usage(ledger.as_ref(), &account, args.limit).await?;
    let records: Vec<_> = usage
        .records
        .into_iter()
        .map(|r| serde_json::json!({"requestId": r.request_id, "operationKey": r.operation_key, "points": r.points, "outcome": r.outcome, "at": r.at}))
        .collect();
    print(serde_json::json!({"accountId": account, "records": records, "usageCounts": usage.usage_counts}));
    Ok(())
}

/// `usage --vendors`: per operation and pack with recorded vendor calls,
/// `{operationKey, pack, vendorCalls, cacheHits, vendorSpend, currency,
/// chargedCalls, pointsCharged}`; the points are the successful calls of
/// every account's usage log (its newest `USAGE_LOG_LIMIT` records).
async fn vendor_usage(settings: &CoreSettings, ledger: &dyn mediaops_platform::billing::Ledger) -> anyhow::Result<()> {
    use std::collections::{BTreeMap, BTreeSet};
    let opened = mediaops_store::open_all(
        settings.database_url.as_deref(),
        &settings.data_dir,
        mediaops_store::PoolSettings::default(),
    )
    .await?;
    let totals = opened.vendor_calls.vendor_call_totals().await?;
    let accounts: BTreeSet<String> = ledger.list_keys().await?.into_iter().map(|k| k.account_id).collect();
    let mut charged: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for account in accounts {
        for record in ledger.usage_log(&account, mediaops_platform::billing::USAGE_LOG_LIMIT).await? {
            if record.outcome == "ok" {
                let entry = charged.entry(record.operation_key).or_default();
                entry.0 += 1;
                entry.1 += record.points;
            }
        }
    }
    let rows: Vec<_> = totals
        .into_iter()
        .map(|t| {
            let (calls, points) = charged.get(&t.operation_key).copied().unwrap_or_default();
            serde_json::json!({
                "operationKey": t.operation_key, "pack": t.pack, "vendorCalls": t.calls, "cacheHits": t.cache_hits,
                "vendorSpend": t.spend, "currency": t.currency, "chargedCalls": calls, "pointsCharged": points,
            })
        })
        .collect();
    print(serde_json::json!({"operations": rows}));
    Ok(())
}
