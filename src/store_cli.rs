//! `mediaops store`: upkeep of the content store the service is configured
//! with (PostgreSQL at `MEDIAOPS_DATABASE_URL`, else
//! `<MEDIAOPS_DATA_DIR>/store.sqlite`). `prune` removes the snapshots older
//! than the retention (`MEDIAOPS_SNAPSHOT_RETENTION_DAYS`, or `--days`),
//! keeping each account's and work's newest day, as the core does every 6
//! hours, and prints what it removed as JSON; `--dry-run` only counts
//! (docs/store.md "Retention"). "Today" is the service clock
//! (`MEDIAOPS_NOW`, Asia/Shanghai).

use clap::Subcommand;
use core_service::CoreSettings;
use mediaops_store::clock::Clock;
use mediaops_store::retention;

#[derive(Subcommand)]
pub enum StoreCommand {
    /// Remove snapshots older than the retention (each entity's newest day
    /// is kept) and print what was removed.
    Prune {
        /// Count what would be removed; remove nothing.
        #[arg(long)]
        dry_run: bool,
        /// Days to keep instead of MEDIAOPS_SNAPSHOT_RETENTION_DAYS (0 keeps
        /// everything).
        #[arg(long)]
        days: Option<u64>,
    },
}

pub async fn store(settings: &CoreSettings, command: StoreCommand) -> anyhow::Result<()> {
    let StoreCommand::Prune { dry_run, days } = command;
    let days = days.unwrap_or(settings.snapshot_retention_days);
    let clock = Clock::from_setting(settings.now.as_deref())?;
    let store = mediaops_store::open(settings.database_url.as_deref(), &settings.data_dir).await?;
    let mut out = serde_json::json!({"store": store.backend(), "retentionDays": days});
    if days == 0 {
        out["message"] = "a retention of 0 days keeps everything; nothing pruned".into();
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let report = retention::run_once(store.as_ref(), clock.today(), days, dry_run)
        .await?
        .ok_or_else(|| anyhow::anyhow!("another prune holds the store (a core is pruning it); try again later"))?;
    if let (Some(out), serde_json::Value::Object(report)) = (out.as_object_mut(), serde_json::to_value(&report)?) {
        out.extend(report);
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
