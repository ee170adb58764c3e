//! `core-service`: the core alone, for split deployments (deploy/). The
//! one-process default is the root package's `mediaops` binary.

use clap::Parser;

/// Runs the mediaops gRPC core.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// TOML configuration file (else MEDIAOPS_CONFIG, else ./mediaops.toml).
    #[arg(long)]
    config: Option<std::path::PathBuf>,
}

fn main() -> std::process::ExitCode {
    mediaops_proto::logging::run_main(run)
}

async fn run() -> anyhow::Result<()> {
    let args = Args::parse();
    let settings = core_service::CoreSettings::load(args.config.as_deref())?;
    let core = core_service::Core::open(&settings).await?;
    println!("{}", core.bootstrap);
    let listener = mediaops_listener::bind(&settings.grpc_addr, &settings.listener, "MEDIAOPS_GRPC_ADDR").await?;
    tracing::info!(addr = %listener.local_addr()?, "core-service listening (gRPC)");
    core.serve(listener, mediaops_listener::shutdown_signal()).await
}
