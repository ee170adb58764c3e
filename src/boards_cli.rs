//! `mediaops boards rebuild [--from YYYY-MM-DD]`: rebuilds the stored
//! ranking boards of the configured store (docs/rankings.md "Boards as
//! data"): every day with snapshots from `--from` on (every day without it)
//! is taken as changed, and every board those days change whose days are
//! final is computed again and stored. Progress goes to stderr, a JSON
//! summary (boards built, seconds) to stdout. On PostgreSQL it waits for
//! nobody: when another builder (a core's schedule) holds the lock it
//! exits non-zero saying so.

use std::sync::Arc;

use chrono::NaiveDate;
use clap::Subcommand;
use core_service::CoreSettings;
use mediaops_ops::data_api::DataApi;
use mediaops_ops::rankings::boards::builder::{Builder, Summary};
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;

#[derive(Subcommand)]
pub enum BoardsCommand {
    /// Rebuild the stored ranking boards of every day with snapshots (from
    /// --from on), printing progress and a summary.
    Rebuild {
        /// First day (YYYY-MM-DD, Asia/Shanghai) whose boards are rebuilt;
        /// default: every day with snapshots.
        #[arg(long, value_parser = day)]
        from: Option<NaiveDate>,
    },
}

fn day(value: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| format!("{value:?} is not a date YYYY-MM-DD"))
}

pub async fn boards(settings: &CoreSettings, command: BoardsCommand) -> anyhow::Result<()> {
    let BoardsCommand::Rebuild { from } = command;
    let store = mediaops_store::open(settings.database_url.as_deref(), &settings.data_dir).await?;
    let summary = run(settings, store.clone(), Some(from)).await?;
    let out = serde_json::json!({"store": store.backend(), "from": from.map(|d| d.to_string()), "boards": summary});
    println!("{}", serde_json::to_string_pretty(&out)?);
    anyhow::ensure!(!summary.skipped, "another board builder holds the lock; run again when it has finished");
    Ok(())
}

/// One builder run on `store` with a progress bar on stderr: a rebuild
/// from `rebuild`'s day when it is given, else an incremental run (after
/// an import).
pub async fn run(
    settings: &CoreSettings,
    store: Arc<dyn ContentStore>,
    rebuild: Option<Option<NaiveDate>>,
) -> anyhow::Result<Summary> {
    let clock = Clock::from_setting(settings.now.as_deref())?;
    let builder = Builder::with_retention(Arc::new(DataApi { store, clock }), settings.snapshot_retention_days);
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template("boards [{bar:40}] {pos}/{len} ({per_sec}, {eta}) {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut on_board = |done: usize, total: usize, key: &mediaops_store::rankings::board_tables::BoardKey| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(key.to_string());
    };
    let summary = match rebuild {
        Some(from) => builder.rebuild(from, &mut on_board).await?,
        None => builder.run(&mut on_board).await?,
    };
    bar.finish_and_clear();
    Ok(summary)
}
