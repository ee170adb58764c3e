//! The set of cores one gateway calls (docs/state.md).
//!
//! `MEDIAOPS_CORE_ADDR` names one or more cores, comma-separated
//! (`http://core-1:50051,http://core-2:50051`), or one DNS name whose A/AAAA
//! records are the cores (a Kubernetes headless Service). Every
//! `core_refresh_secs` the names are resolved again and every address is
//! asked for its `grpc.health.v1` status; calls are balanced over the
//! addresses that answer SERVING (power of two choices on pending calls:
//! tonic's balanced channel), each over `core_connections` HTTP/2
//! connections. A core that stops answering SERVING (it is stopping, or its
//! ledger or store is down) is taken out within one refresh; it comes back
//! when it answers SERVING again. When no core is serving, calls go to every
//! resolved address, so the client gets the cores' own answer (503
//! `store_unavailable`, say) instead of waiting for a core to come back.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::Sender;
use tonic::transport::channel::Change;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// How long one health check may take.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// How long connecting to a core may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Longest time one call to a core may take (the core's own operation
/// timeout is shorter; this only catches a core that hangs).
const CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// One entry of `MEDIAOPS_CORE_ADDR`: `http://host:port`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// Host name or address.
    pub host: String,
    /// gRPC port.
    pub port: u16,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "http://{}:{}", self.host, self.port)
    }
}

/// Parses `MEDIAOPS_CORE_ADDR`: comma-separated `http://host:port` entries
/// (port 80 when left out, as in any `http` URI). The error names the
/// setting and the entry: empty, not a URI, not `http`, or without a host.
pub fn parse_targets(core_addr: &str) -> anyhow::Result<Vec<Target>> {
    let mut targets = Vec::new();
    for entry in core_addr.split(',').map(str::trim) {
        let invalid = |why: &str| anyhow::anyhow!("MEDIAOPS_CORE_ADDR entry {entry:?} {why}");
        if entry.is_empty() {
            return Err(invalid("is empty (write http://host:port, comma-separated for several cores)"));
        }
        let uri: http::Uri = entry.parse().map_err(|e| invalid(&format!("is not a URI: {e}")))?;
        if uri.scheme_str() != Some("http") {
            return Err(invalid("must start with http:// (the core speaks cleartext HTTP/2 inside the deployment)"));
        }
        let host = uri.host().filter(|h| !h.is_empty()).ok_or_else(|| invalid("has no host"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
        let target = Target { host, port: uri.port_u16().unwrap_or(80) };
        if !targets.contains(&target) {
            targets.push(target);
        }
    }
    Ok(targets)
}

/// How the set is kept (from the gateway settings).
#[derive(Debug, Clone, Copy)]
pub struct Refresh {
    /// HTTP/2 connections per core (`MEDIAOPS_CORE_CONNECTIONS`).
    pub connections: usize,
    /// Seconds between two resolutions and health rounds
    /// (`MEDIAOPS_CORE_REFRESH_SECS`).
    pub every: Duration,
}

/// A balanced channel over the cores of `targets`, kept up to date by a
/// background task that ends when the channel is dropped, and the core
/// addresses its calls go to now.
pub fn balanced_channel(targets: Vec<Target>, refresh: Refresh) -> (Channel, InUse) {
    let (channel, changes) = Channel::balance_channel(64);
    let in_use = InUse::default();
    tokio::spawn(keep(targets, changes, refresh, in_use.clone()));
    (channel, in_use)
}

/// The core addresses a [`balanced_channel`] sends its calls to (none
/// before its first round); cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct InUse(Arc<InUseState>);

#[derive(Debug, Default)]
struct InUseState {
    /// Moves on with every change of `addrs`.
    generation: AtomicU64,
    addrs: Mutex<Arc<[SocketAddr]>>,
}

impl InUse {
    /// Moves on with every change of the addresses: a reader that saw this
    /// generation need not read them again.
    pub fn generation(&self) -> u64 {
        self.0.generation.load(Ordering::Acquire)
    }

    /// The addresses in use now, sorted, with their generation.
    pub fn addrs(&self) -> (u64, Arc<[SocketAddr]>) {
        let addrs = self.0.addrs.lock().unwrap_or_else(|e| e.into_inner());
        (self.generation(), addrs.clone())
    }

    /// Publishes `addrs`; the generation moves on only when they changed.
    fn set(&self, addrs: &HashSet<SocketAddr>) {
        let mut sorted: Vec<SocketAddr> = addrs.iter().copied().collect();
        sorted.sort();
        let mut published = self.0.addrs.lock().unwrap_or_else(|e| e.into_inner());
        if **published != *sorted {
            *published = sorted.into();
            self.0.generation.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// A channel of its own to the core at `addr`, connected on first use: the
/// call streams placed on that core ([`crate::call_stream`]).
pub fn channel_to(addr: SocketAddr) -> Channel {
    endpoint(addr).connect_lazy()
}

/// An endpoint for one core address.
fn endpoint(addr: SocketAddr) -> Endpoint {
    Endpoint::from_shared(format!("http://{addr}"))
        .expect("a socket address makes a valid URI")
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .tcp_nodelay(true)
}

/// One resolved core address.
struct Member {
    /// A connection of its own for the health checks.
    health: Channel,
    serving: bool,
}

/// The loop behind [`balanced_channel`].
async fn keep(
    targets: Vec<Target>,
    changes: Sender<Change<(SocketAddr, usize), Endpoint>>,
    refresh: Refresh,
    published: InUse,
) {
    let mut resolved: HashMap<Target, Vec<SocketAddr>> = HashMap::new();
    let mut members: HashMap<SocketAddr, Member> = HashMap::new();
    let mut in_use: HashSet<SocketAddr> = HashSet::new();
    let mut first = true;
    loop {
        for target in &targets {
            match tokio::net::lookup_host((target.host.as_str(), target.port)).await {
                Ok(addrs) => {
                    resolved.insert(target.clone(), addrs.collect());
                }
                // Keep what it resolved to before: a DNS hiccup must not
                // empty the set.
                Err(error) => {
                    tracing::warn!(core = %target, %error, "cannot resolve a core address; keeping the last answer")
                }
            }
        }
        let addrs: HashSet<SocketAddr> = resolved.values().flatten().copied().collect();
        members.retain(|addr, _| addrs.contains(addr));
        for addr in &addrs {
            members.entry(*addr).or_insert_with(|| Member { health: endpoint(*addr).connect_lazy(), serving: false });
        }
        let checks = members.iter().map(|(addr, member)| {
            let health = member.health.clone();
            async move { (*addr, is_serving(health).await) }
        });
        for (addr, serving) in futures_util::future::join_all(checks).await {
            if let Some(member) = members.get_mut(&addr) {
                if member.serving != serving && !first {
                    if serving {
                        tracing::info!(core = %addr, "core is serving; calls go to it again");
                    } else {
                        tracing::warn!(core = %addr, "core is not serving (stopping, unreachable or its ledger/store is down); calls go elsewhere");
                    }
                }
                member.serving = serving;
            }
        }
        let serving: HashSet<SocketAddr> = members.iter().filter(|(_, m)| m.serving).map(|(a, _)| *a).collect();
        let wanted = if serving.is_empty() { addrs.clone() } else { serving.clone() };
        if first || wanted != in_use {
            tracing::info!(
                serving = serving.len(),
                resolved = addrs.len(),
                cores = ?wanted,
                "core set: calls go to {} of {} core addresses",
                wanted.len(),
                addrs.len()
            );
        }
        for addr in in_use.difference(&wanted) {
            for i in 0..refresh.connections {
                if changes.send(Change::Remove((*addr, i))).await.is_err() {
                    return;
                }
            }
        }
        for addr in wanted.difference(&in_use) {
            for i in 0..refresh.connections {
                if changes.send(Change::Insert((*addr, i), endpoint(*addr))).await.is_err() {
                    return;
                }
            }
        }
        in_use = wanted;
        published.set(&in_use);
        first = false;
        tokio::time::sleep(refresh.every).await;
        if changes.is_closed() {
            return;
        }
    }
}

/// Whether the core behind `channel` answers SERVING for `""` in time.
async fn is_serving(channel: Channel) -> bool {
    let mut client = HealthClient::new(channel);
    let check = client.check(HealthCheckRequest { service: String::new() });
    matches!(
        tokio::time::timeout(HEALTH_TIMEOUT, check).await,
        Ok(Ok(response)) if response.get_ref().status() == ServingStatus::Serving
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_names_bad_entries() {
        let targets = parse_targets("http://core-1:50051, http://core-2:50052,http://core-1:50051").unwrap();
        assert_eq!(
            targets,
            [Target { host: "core-1".into(), port: 50051 }, Target { host: "core-2".into(), port: 50052 }]
        );
        assert_eq!(parse_targets("http://[::1]:7").unwrap()[0].host, "::1");
        assert_eq!(parse_targets("http://core").unwrap()[0].port, 80);
        for (bad, why) in [
            ("", "is empty"),
            ("http://a:1,", "is empty"),
            ("https://core:443", "must start with http://"),
            ("core:50051", "must start with http://"),
            ("http://", "not a URI"),
        ] {
            let error = parse_targets(bad).unwrap_err().to_string();
            assert!(error.contains("MEDIAOPS_CORE_ADDR") && error.contains(why), "{bad:?}: {error}");
        }
    }

    /// A `grpc.health.v1` server on a free loopback port: its reporter and port.
    async fn health_server() -> (tonic_health::server::HealthReporter, u16) {
        let (reporter, service) = tonic_health::server::health_reporter();
        let router = tonic::service::Routes::new(service).into_axum_router();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, router).await });
        (reporter, port)
    }

    /// Asks the overall status `n` times through `channel`.
    async fn statuses(channel: &Channel, n: usize) -> Vec<ServingStatus> {
        let mut seen = Vec::new();
        for _ in 0..n {
            let answer = HealthClient::new(channel.clone()).check(HealthCheckRequest { service: String::new() }).await;
            seen.push(answer.map(|a| a.get_ref().status()).unwrap_or(ServingStatus::Unknown));
        }
        seen
    }

    #[tokio::test]
    async fn calls_go_only_to_serving_cores_and_follow_their_changes() {
        let (first, first_port) = health_server().await;
        let (second, second_port) = health_server().await;
        first.set_service_status("", tonic_health::ServingStatus::Serving).await;
        second.set_service_status("", tonic_health::ServingStatus::NotServing).await;
        // A name (resolved like a DNS name; `::1` may be among its answers
        // and is unreachable, so it is left out too) and an address.
        let targets = parse_targets(&format!("http://localhost:{first_port},http://127.0.0.1:{second_port}")).unwrap();
        let (channel, _) = balanced_channel(targets, Refresh { connections: 2, every: Duration::from_millis(200) });
        let serving = vec![ServingStatus::Serving; 20];
        assert_eq!(statuses(&channel, 20).await, serving, "only the serving core gets calls");

        first.set_service_status("", tonic_health::ServingStatus::NotServing).await;
        second.set_service_status("", tonic_health::ServingStatus::Serving).await;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while statuses(&channel, 20).await != serving {
            assert!(std::time::Instant::now() < deadline, "the set follows the cores' health within a few refreshes");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
