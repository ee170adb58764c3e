//! Name lookup for guarded fetches. [`NameResolver`] is the lookup itself
//! (the system's by default; tests inject their own); [`GuardedResolver`]
//! is what reqwest connects through: it drops every address the
//! [`AddressPolicy`] refuses, so an answer that changed since the pre-check
//! (DNS rebinding) cannot reach a refused address.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use async_trait::async_trait;

use super::policy::{AddressPolicy, Refusal};

/// Looks up the addresses of a host name.
#[async_trait]
pub trait NameResolver: Send + Sync + 'static {
    /// Every address `host` resolves to.
    ///
    /// # Errors
    /// The lookup failed (no such host, DNS unreachable).
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver (`getaddrinfo` via tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait]
impl NameResolver for SystemResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, 0)).await?.map(|a| a.ip()).collect())
    }
}

/// The resolver reqwest connects through: every address the policy
/// refuses is dropped at connect time; none left is a [`Refusal`].
pub struct GuardedResolver {
    /// The resolver asked first (the system's, or a test's).
    pub inner: Arc<dyn NameResolver>,
    /// What may be reached.
    pub policy: Arc<AddressPolicy>,
}

impl GuardedResolver {
    /// The addresses of `host` that may be connected to.
    ///
    /// # Errors
    /// The lookup's error, or a [`Refusal`] when every address is refused
    /// (the first refusal's reason is given).
    pub async fn allowed(&self, host: &str) -> Result<Vec<IpAddr>, Box<dyn std::error::Error + Send + Sync>> {
        let addresses = self.inner.lookup(host).await?;
        let mut first_refusal: Option<Refusal> = None;
        let allowed: Vec<IpAddr> = addresses
            .into_iter()
            .filter(|ip| match self.policy.check_address(host, *ip) {
                Ok(()) => true,
                Err(refusal) => {
                    first_refusal.get_or_insert(refusal);
                    false
                }
            })
            .collect();
        match (allowed.is_empty(), first_refusal) {
            (false, _) => Ok(allowed),
            (true, Some(refusal)) => Err(Box::new(refusal)),
            (true, None) => Err(Box::new(io::Error::new(io::ErrorKind::NotFound, format!("{host} has no address")))),
        }
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let this = GuardedResolver { inner: self.inner.clone(), policy: self.policy.clone() };
        Box::pin(async move {
            let allowed = this.allowed(name.as_str()).await?;
            let addrs: reqwest::dns::Addrs = Box::new(allowed.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}
