//! `mediaops probe URL`: one health check, for container managers that run
//! a command rather than a request (the image's `HEALTHCHECK`, a compose
//! `healthcheck`), so the runtime image needs no curl and
//! no gRPC probe of its own. Exit status 0 when healthy, else 1 with one
//! line naming the URL and what it answered.
//!
//! - `http://host:port/path`: `GET`, healthy on a 2xx answer (the gateway's
//!   `/healthz` liveness, `/readyz` readiness; docs/errors.md "Liveness and
//!   readiness").
//! - `grpc://host:port[/service]`: `grpc.health.v1.Health/Check` of
//!   `service` (none = `""`, the core's overall status), healthy on SERVING.

use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use tonic_health::pb::health_check_response::ServingStatus;

/// The arguments of `mediaops probe`.
#[derive(clap::Args)]
pub struct ProbeArgs {
    /// `http://host:port/path` (GET; healthy on 2xx) or
    /// `grpc://host:port[/service]` (grpc.health.v1; healthy on SERVING).
    url: String,
    /// Seconds to wait for the answer, connecting included.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=300))]
    timeout_secs: u64,
}

/// Probes `args.url` once.
///
/// # Errors
/// The URL's scheme is neither `http`/`https` nor `grpc`; no answer within
/// the timeout; an answer that is not healthy (names the status).
pub async fn probe(args: &ProbeArgs) -> anyhow::Result<()> {
    let timeout = Duration::from_secs(args.timeout_secs);
    let check = async {
        if let Some(rest) = args.url.strip_prefix("grpc://") {
            grpc(rest).await
        } else if args.url.starts_with("http://") || args.url.starts_with("https://") {
            http(&args.url, timeout).await
        } else {
            bail!("the URL must start with http://, https:// or grpc://")
        }
    };
    tokio::time::timeout(timeout, check)
        .await
        .unwrap_or_else(|_| Err(anyhow!("no answer in {} s", args.timeout_secs)))
        .with_context(|| format!("probe {}", args.url))
}

/// `GET url`; Ok on 2xx.
async fn http(url: &str, timeout: Duration) -> anyhow::Result<()> {
    // No proxy: a probe asks this container or its neighbour, whatever
    // HTTP_PROXY the process was given for its outbound calls.
    let client = reqwest::Client::builder().no_proxy().timeout(timeout).build()?;
    let status = client.get(url).send().await?.status();
    if !status.is_success() {
        bail!("answered {status}");
    }
    Ok(())
}

/// `grpc.health.v1` of `authority[/service]`; Ok on SERVING.
async fn grpc(rest: &str) -> anyhow::Result<()> {
    let (authority, service) = rest.split_once('/').unwrap_or((rest, ""));
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{authority}"))?.connect().await?;
    let request = tonic_health::pb::HealthCheckRequest { service: service.to_owned() };
    let answer = tonic_health::pb::health_client::HealthClient::new(channel).check(request).await;
    let status = answer.map_err(|e| anyhow!("{}: {}", e.code(), e.message()))?.into_inner().status();
    if status != ServingStatus::Serving {
        bail!("health status {}", status.as_str_name());
    }
    Ok(())
}
