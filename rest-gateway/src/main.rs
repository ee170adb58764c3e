//! `rest-gateway`: the gateway alone, in front of a core at `--core-addr`
//! (split deployments, deploy/). The one-process default is `mediaops`.

use clap::Parser;

/// Runs the mediaops REST/JSON gateway.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// TOML configuration file (else MEDIAOPS_CONFIG, else ./mediaops.toml).
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// The cores' gRPC addresses, e.g. http://core-1:50051,http://core-2:50051
    /// (overrides MEDIAOPS_CORE_ADDR).
    #[arg(long)]
    core_addr: Option<String>,
}

fn main() -> std::process::ExitCode {
    mediaops_proto::logging::run_main(run)
}

async fn run() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut settings = rest_gateway::GatewaySettings::load(args.config.as_deref())?;
    if let Some(addr) = args.core_addr {
        settings.core_addr = addr;
    }
    rest_gateway::run(&settings).await
}
