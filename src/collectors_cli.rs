//! `mediaops collectors`: the hot-list collectors from the command line
//! (docs/hotlists.md "Admin view"). `list` prints each source's
//! configuration without touching the network; `run-once` runs the enabled
//! collectors (or the `--source` ones) once against the configured
//! endpoints, writes their snapshots to the configured store and prints
//! their states as JSON; it exits non-zero when a collector failed. It does
//! not need `hotlists.enabled`, which only starts the scheduler in the core.

use clap::Subcommand;
use core_service::CoreSettings;
use mediaops_connectors::hotlists::Source;
use mediaops_connectors::hotlists::collector::Collectors;
use mediaops_store::clock::Clock;

#[derive(Subcommand)]
pub enum CollectorsCommand {
    /// Print every source's configuration (enabled, URL, interval).
    List,
    /// Run the enabled collectors once and print their states.
    RunOnce {
        /// Only this source (weibo, douyin, bilibili, kuaishou, zhihu,
        /// toutiao, baidu); may be repeated; runs it even when disabled.
        #[arg(long)]
        source: Vec<String>,
    },
}

fn sources(names: &[String]) -> anyhow::Result<Vec<Source>> {
    names
        .iter()
        .map(|name| {
            Source::from_name(name).ok_or_else(|| {
                let known = Source::ALL.map(Source::name).join(", ");
                anyhow::anyhow!("--source {name:?} is not one of {known}")
            })
        })
        .collect()
}

pub async fn collectors(settings: &CoreSettings, command: CollectorsCommand) -> anyhow::Result<()> {
    let source = match command {
        CollectorsCommand::List => {
            settings.hotlists.check()?;
            let states = mediaops_connectors::hotlists::collector::configured_states(&settings.hotlists);
            println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "collectors": states }))?);
            return Ok(());
        }
        CollectorsCommand::RunOnce { source } => source,
    };
    let chosen = if source.is_empty() {
        Source::ALL.into_iter().filter(|s| settings.hotlists.source(*s).enabled).collect()
    } else {
        sources(&source)?
    };
    let clock = Clock::from_setting(settings.now.as_deref())?;
    let store = mediaops_store::open(settings.database_url.as_deref(), &settings.data_dir).await?;
    let backend = store.backend();
    let collectors = Collectors::new(settings.hotlists.clone(), store, clock)?;
    let states = collectors.run_sources_once(&chosen).await;
    let out = serde_json::json!({"store": backend, "collectors": states});
    println!("{}", serde_json::to_string_pretty(&out)?);
    let failed: Vec<&str> = states.iter().filter(|s| s.consecutive_failures > 0).map(|s| s.source.as_str()).collect();
    anyhow::ensure!(failed.is_empty(), "collectors failed: {}", failed.join(", "));
    Ok(())
}
