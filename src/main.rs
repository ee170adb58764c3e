//! `mediaops`: the all-in-one binary. With no subcommand it serves the core
//! (gRPC, :50051) and the REST gateway (:8080) in one process on embedded
//! defaults and prints the bootstrap API key on first start. It also carries
//! the administration commands (keys, points, usage), which work on the
//! configured ledger directly.

mod admin_cli;
mod boards_cli;
mod collectors_cli;
mod import_cli;
mod mcp_cli;
mod probe_cli;
mod progress;
mod sigpipe;
mod store_cli;

/// mimalloc instead of the system allocator: glibc's malloc and free were a
/// fifth of a REST call's CPU time under load, with the tonic and hyper
/// buffers and the boxed call futures of every request
/// (docs/performance.md "The call in process and the allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{CommandFactory, Parser, Subcommand};
use core_service::CoreSettings;
use rest_gateway::GatewaySettings;

#[derive(Parser)]
#[command(version, about = "Data, trend and skill service for new-media operations teams")]
struct Cli {
    /// TOML configuration file (else MEDIAOPS_CONFIG, else ./mediaops.toml when
    /// present); a named file must exist, and keys no setting reads are refused.
    #[arg(long, global = true)]
    config: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve gRPC and REST in one process (the default).
    Serve,
    /// Serve only the gRPC core (split deployments).
    Core,
    /// Serve only the REST gateway, in front of a core.
    Gateway {
        /// The cores' gRPC addresses, comma-separated, or one DNS name with a
        /// record per core (overrides MEDIAOPS_CORE_ADDR).
        #[arg(long)]
        core_addr: Option<String>,
    },
    /// Print every operation with its path, price and build status (Markdown).
    Operations,
    /// Print where each data API's answers come from under the current
    /// settings: its chain (store, store:fresh, upstream:<vendor>) and the
    /// enabled packs that map it (docs/vendors.md "Packs").
    Sources {
        /// A JSON list of `{"operationKey", "kind", "chain": [...], "packs": [...]}`.
        #[arg(long)]
        json: bool,
    },
    /// API keys: create, disable, list.
    #[command(subcommand)]
    Keys(admin_cli::KeysCommand),
    /// Points: grant, balance.
    #[command(subcommand)]
    Points(admin_cli::PointsCommand),
    /// An account's usage log (newest first) and per-operation counts.
    Usage(admin_cli::UsageArgs),
    /// Import files into the content store: `import bilibili-popular <path>…`.
    Import(import_cli::ImportArgs),
    /// Ranking boards: `rebuild [--from YYYY-MM-DD]` the stored boards.
    #[command(subcommand)]
    Boards(boards_cli::BoardsCommand),
    /// Content store upkeep: `prune [--dry-run]` removes snapshots older than
    /// MEDIAOPS_SNAPSHOT_RETENTION_DAYS (docs/store.md "Retention").
    #[command(subcommand)]
    Store(store_cli::StoreCommand),
    /// Hot-list collectors: `list` their configuration, `run-once` them.
    #[command(subcommand)]
    Collectors(collectors_cli::CollectorsCommand),
    /// Check a health endpoint once, for a container's health check: exit 0
    /// when `http://host:port/path` answers 2xx or `grpc://host:port[/service]`
    /// answers grpc.health.v1 SERVING, else 1.
    Probe(probe_cli::ProbeArgs),
    /// Serve MCP on stdin/stdout for a desktop agent, forwarding to a
    /// server's /mcp endpoint with an API key (docs/mcp.md "Stdio").
    Mcp(mcp_cli::McpArgs),
    /// Print a shell completion script: `mediaops completions bash >
    /// /etc/bash_completion.d/mediaops` (zsh: a `_mediaops` file on `$fpath`).
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
}

fn main() -> std::process::ExitCode {
    mediaops_proto::logging::run_main(run)
}

async fn run() -> anyhow::Result<()> {
    // Before any SQLite connection opens (docs/performance.md "SQLite's
    // memory and rows").
    if let Err(code) = mediaops_store::sqlite_memory::use_process_allocator() {
        tracing::warn!(code, "SQLite keeps the C library's allocator: it refused another");
    }
    let cli = Cli::parse();
    if !matches!(cli.command, None | Some(Command::Serve | Command::Core | Command::Gateway { .. })) {
        sigpipe::exit_quietly_when_stdout_closes();
    }
    if let Some(Command::Completions { shell }) = cli.command {
        clap_complete::generate(shell, &mut Cli::command(), "mediaops", &mut std::io::stdout());
        return Ok(());
    }
    if let Some(Command::Probe(args)) = &cli.command {
        return probe_cli::probe(args).await; // needs no settings
    }
    if let Some(Command::Mcp(args)) = &cli.command {
        return mcp_cli::serve(args).await; // a client of a server: needs no settings
    }
    let core = CoreSettings::load(cli.config.as_deref())?;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(&core, &GatewaySettings::load(cli.config.as_deref())?).await,
        Command::Core => serve_core(&core).await,
        Command::Gateway { core_addr } => {
            let mut gateway = GatewaySettings::load(cli.config.as_deref())?;
            if let Some(addr) = core_addr {
                gateway.core_addr = addr;
            }
            serve_gateway(&gateway).await
        }
        Command::Operations => {
            // A throwaway core, so listing never touches real state.
            let dir = tempfile::tempdir()?;
            let settings = CoreSettings { data_dir: dir.path().to_path_buf(), bootstrap_key: None, ..core };
            let ledger = std::sync::Arc::new(mediaops_platform::billing::embedded::EmbeddedLedger::open(dir.path())?);
            let opened = core_service::Core::open_with_ledger(&settings, ledger, |_| Ok(())).await?;
            print!("{}", mediaops::operations::markdown(opened.registry()));
            Ok(())
        }
        Command::Sources { json } => {
            // A throwaway core without vendors (no keys needed) tells which
            // operations the store answers through a chain.
            let dir = tempfile::tempdir()?;
            let settings = CoreSettings {
                data_dir: dir.path().to_path_buf(),
                bootstrap_key: None,
                vendors: Default::default(),
                ..core.clone()
            };
            let ledger = std::sync::Arc::new(mediaops_platform::billing::embedded::EmbeddedLedger::open(dir.path())?);
            let opened = core_service::Core::open_with_ledger(&settings, ledger, |_| Ok(())).await?;
            let lines = mediaops::sources::lines(&core.vendors, opened.registry())?;
            if json {
                println!("{}", serde_json::to_string_pretty(&lines)?);
            } else {
                print!("{}", mediaops::sources::table(&lines));
            }
            Ok(())
        }
        Command::Keys(command) => admin_cli::keys(&core, command).await,
        Command::Points(command) => admin_cli::points(&core, command).await,
        Command::Usage(args) => admin_cli::usage(&core, args).await,
        Command::Import(args) => import_cli::import(&core, args).await,
        Command::Boards(command) => boards_cli::boards(&core, command).await,
        Command::Collectors(command) => collectors_cli::collectors(&core, command).await,
        Command::Store(command) => store_cli::store(&core, command).await,
        // answered before the settings are read
        Command::Completions { .. } | Command::Probe(_) | Command::Mcp(_) => Ok(()),
    }
}

async fn serve(core: &CoreSettings, gateway: &GatewaySettings) -> anyhow::Result<()> {
    let running = mediaops::start(core, gateway).await?;
    println!("{}", running.bootstrap);
    println!("gRPC  listening on {} (reflection, grpc.health.v1)", running.grpc_addr);
    println!("REST  listening on http://{} (GET /healthz, GET /readyz, GET /api/apis)", running.rest_addr);
    mediaops_listener::shutdown_signal().await;
    running.shutdown().await
}

async fn serve_core(settings: &CoreSettings) -> anyhow::Result<()> {
    let core = core_service::Core::open(settings).await?;
    println!("{}", core.bootstrap);
    let listener = mediaops_listener::bind(&settings.grpc_addr, &settings.listener, "MEDIAOPS_GRPC_ADDR").await?;
    println!("gRPC  listening on {}", listener.local_addr()?);
    core.serve(listener, mediaops_listener::shutdown_signal()).await
}

async fn serve_gateway(settings: &GatewaySettings) -> anyhow::Result<()> {
    rest_gateway::run(settings).await
}
