//! What tests of outbound calls share (of this crate and of the crates
//! above it): a counter of requests a fake server saw, a way to serve a
//! router on a loopback port, a name resolver with fixed answers (which can
//! change its answer, for DNS rebinding), and the fake web-search upstreams
//! ([`fake_web`]). Test code only, behind the `test-support` feature
//! (dev-dependencies).

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap fails the test that called it

pub mod fake_web;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::outbound::NameResolver;
use async_trait::async_trait;

/// Requests a fake server has seen.
#[derive(Clone, Default)]
pub struct Seen(Arc<AtomicUsize>);

impl Seen {
    /// Requests seen so far.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Counts one request; answers the count so far.
    pub fn hit(&self) -> usize {
        self.0.fetch_add(1, Ordering::SeqCst) + 1
    }
}

/// Serves `router` on a free 127.0.0.1 port.
pub async fn serve(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    addr
}

/// A resolver with fixed answers per name. Names starting with `rebind.`
/// answer their first address to the first lookup and their second to
/// every later one.
#[derive(Default)]
pub struct FakeResolver {
    /// The addresses of each name.
    pub answers: Vec<(&'static str, Vec<IpAddr>)>,
    /// Lookups answered so far (of any name).
    pub lookups: AtomicUsize,
}

impl FakeResolver {
    /// A resolver answering `answers`: each name with its addresses (IP literals).
    pub fn new(answers: &[(&'static str, &[&str])]) -> Arc<FakeResolver> {
        let answers =
            answers.iter().map(|(name, ips)| (*name, ips.iter().map(|ip| ip.parse().unwrap()).collect())).collect();
        Arc::new(FakeResolver { answers, lookups: AtomicUsize::new(0) })
    }
}

#[async_trait]
impl NameResolver for FakeResolver {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        let n = self.lookups.fetch_add(1, Ordering::SeqCst);
        let (_, answers) = self
            .answers
            .iter()
            .find(|(name, _)| *name == host)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, format!("no such host {host}")))?;
        if host.starts_with("rebind.") {
            return Ok(vec![answers[n.min(1)]]);
        }
        Ok(answers.clone())
    }
}
