//! `mediaops`: the all-in-one binary. With no subcommand it serves the core
//! (gRPC, :50051) and the REST gateway (:8080) in one process on embedded
//! defaults and prints the bootstrap API key on first start.

use clap::{Parser, Subcommand};
use core_service::CoreSettings;
use rest_gateway::GatewaySettings;

#[derive(Parser)]
#[command(version, about = "Data, trend and skill service for new-media operations teams")]
struct Cli {
    /// TOML configuration file (else MEDIAOPS_CONFIG, else ./mediaops.toml).
    #[arg(long, global = true)]
    config: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve gRPC and REST in one process (the default).
    Serve,
    /// Print every operation with its path, price and build status (Markdown).
    Operations,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .init();
    let cli = Cli::parse();
    let core = CoreSettings::load(cli.config.as_deref())?;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(&core, &GatewaySettings::load(cli.config.as_deref())?).await,
        Command::Operations => {
            let dir = tempdir_for_listing()?;
            let settings = CoreSettings { data_dir: dir.clone(), bootstrap_key: None, ..core };
            let opened = core_service::Core::open(&settings).await?;
            print!("{}", mediaops::operations::markdown(opened.registry()));
            std::fs::remove_dir_all(dir)?;
            Ok(())
        }
    }
}

/// Listing opens a throwaway core so it never touches real state.
fn tempdir_for_listing() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("mediaops-operations-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

async fn serve(core: &CoreSettings, gateway: &GatewaySettings) -> anyhow::Result<()> {
    let running = mediaops::start(core, gateway).await?;
    println!("{}", running.bootstrap);
    println!("gRPC  listening on {} (reflection, grpc.health.v1)", running.grpc_addr);
    println!("REST  listening on http://{} (GET /healthz, GET /api/apis)", running.rest_addr);
    tokio::signal::ctrl_c().await?;
    println!("shutting down");
    running.shutdown().await
}
