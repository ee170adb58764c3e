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
    mediaops_proto::logging::init();
    // Its workers write their log lines in batches (docs/performance.md).
    match mediaops_proto::log_buffer::runtime() {
        Ok(runtime) => mediaops_proto::logging::exit_status(runtime.block_on(run())),
        Err(e) => mediaops_proto::logging::exit_status(Err(anyhow::anyhow!("the async runtime did not start: {e}"))),
    }
}

async fn run() -> anyhow::Result<()> {
    let args = Args::parse();
    let settings = core_service::CoreSettings::load(args.config.as_deref())?;
    let core = core_service::Core::open(&settings).await?;
    println!("{}", core.bootstrap);
    let listener = tokio::net::TcpListener::bind(&settings.grpc_addr).await?;
    tracing::info!(addr = %listener.local_addr()?, "core-service listening (gRPC)");
    core.serve(listener, mediaops_listener::shutdown_signal()).await
}
