//! The guarded fetch of user-supplied links (SSRF guard): every
//! server-side request to a link a caller gave goes through
//! [`GuardedFetcher`], which
//!
//! 1. accepts only `http`/`https` links without credentials, on an allowed
//!    port ([`OutboundSettings::ports`]);
//! 2. refuses local and cloud-metadata host names, and resolves the host
//!    and refuses it when any address is loopback, private, link-local,
//!    multicast, … ([`super::policy::refused_class`]);
//! 3. connects only through [`GuardedResolver`], which filters the
//!    addresses again at connect time (DNS rebinding cannot pass);
//! 4. follows redirects itself, at most `max_redirects`, checking every
//!    hop as in 1–3;
//! 5. caps the body size while streaming and the whole fetch's time.
//!
//! No proxy from the environment is used: a proxy would resolve names
//! itself, out of the guard's sight.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use reqwest::Url;
use reqwest::header::{CONTENT_TYPE, LOCATION};
use url::Host;

use super::body::read_capped;
use super::error::{OutboundError, display_url};
use super::policy::AddressPolicy;
use super::resolve::{GuardedResolver, NameResolver, SystemResolver};
use super::settings::OutboundSettings;

/// Limits of one guarded fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchLimits {
    /// The whole fetch: every redirect hop and the body.
    pub timeout: Duration,
    /// Largest body read, in bytes.
    pub max_bytes: usize,
    /// Redirects followed; one more is [`OutboundError::TooManyRedirects`].
    pub max_redirects: usize,
}

impl FetchLimits {
    /// The limits of `[outbound]`.
    pub fn from_settings(settings: &OutboundSettings) -> FetchLimits {
        FetchLimits {
            timeout: Duration::from_secs(settings.fetch_timeout_secs),
            max_bytes: settings.fetch_max_bytes,
            max_redirects: settings.max_redirects,
        }
    }

    /// The same limits with another body cap.
    pub fn with_max_bytes(self, max_bytes: usize) -> FetchLimits {
        FetchLimits { max_bytes, ..self }
    }
}

/// What a guarded fetch brought back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedBody {
    /// The link after every redirect.
    pub final_url: Url,
    /// The `Content-Type` header as sent, if any.
    pub content_type: Option<String>,
    /// The body, at most the fetch's byte limit.
    pub bytes: Bytes,
}

impl FetchedBody {
    /// The media type without parameters, lower case (`image/png`).
    pub fn mime(&self) -> Option<String> {
        let essence = self.content_type.as_deref()?.split(';').next()?.trim().to_ascii_lowercase();
        (!essence.is_empty()).then_some(essence)
    }

    /// Checks the media type: `accepted` holds types (`image/png`) or
    /// prefixes ending in `/` (`image/`).
    ///
    /// # Errors
    /// [`OutboundError::ContentType`] naming what was found.
    pub fn require_content_type(&self, accepted: &[&str]) -> Result<(), OutboundError> {
        let mime = self.mime().unwrap_or_default();
        let ok = accepted.iter().any(|a| if a.ends_with('/') { mime.starts_with(a) } else { mime == *a });
        if ok {
            return Ok(());
        }
        Err(OutboundError::ContentType {
            url: display_url(&self.final_url),
            found: if mime.is_empty() { "no content type".into() } else { mime },
            expected: accepted.join(" or "),
        })
    }
}

/// Fetches user-supplied links safely (module docs). Cheap to clone.
#[derive(Clone)]
pub struct GuardedFetcher {
    http: reqwest::Client,
    policy: Arc<AddressPolicy>,
    resolver: Arc<dyn NameResolver>,
    limits: FetchLimits,
}

impl GuardedFetcher {
    /// A fetcher on the system resolver.
    ///
    /// # Errors
    /// A bad allow-list entry, or a TLS set-up failure.
    pub fn new(settings: &OutboundSettings) -> anyhow::Result<GuardedFetcher> {
        GuardedFetcher::with_resolver(settings, Arc::new(SystemResolver))
    }

    /// A fetcher looking names up with `resolver` (tests inject one that
    /// changes its answer between the check and the connection).
    pub fn with_resolver(
        settings: &OutboundSettings,
        resolver: Arc<dyn NameResolver>,
    ) -> anyhow::Result<GuardedFetcher> {
        let policy = Arc::new(AddressPolicy::from_settings(settings)?);
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver { inner: resolver.clone(), policy: policy.clone() }))
            .connect_timeout(Duration::from_secs(settings.connect_timeout_secs))
            .read_timeout(Duration::from_secs(settings.read_timeout_secs))
            .user_agent(settings.user_agent.clone())
            .build()?;
        Ok(GuardedFetcher { http, policy, resolver, limits: FetchLimits::from_settings(settings) })
    }

    /// The configured limits, to adjust per call.
    pub fn limits(&self) -> FetchLimits {
        self.limits
    }

    /// GETs `link`, following redirects, and reads its body.
    ///
    /// # Errors
    /// Any [`OutboundError`]: a refused or malformed link or redirect
    /// target, too many redirects, a body over `limits.max_bytes`, the
    /// time cap, a transport failure, or a non-success final status.
    pub async fn fetch(&self, link: &str, limits: &FetchLimits) -> Result<FetchedBody, OutboundError> {
        let url = parse_link(link)?;
        let shown = display_url(&url);
        let work = async {
            let Hop::Answered(response) = self.follow(url, limits, &|_| false).await? else {
                unreachable!("nothing is done before it is fetched")
            };
            read_answer(response, limits).await
        };
        tokio::time::timeout(limits.timeout, work).await.map_err(|_| OutboundError::Timeout { url: shown })?
    }

    /// POSTs `body` with `headers` to `link`, a URL a caller configured (a
    /// watch list's webhook or chat robot): the link is checked as
    /// every hop of [`GuardedFetcher::fetch`] is (scheme, credentials,
    /// refused names, addresses and ports, and again at connect time);
    /// redirects are not followed (a POST is not replayed elsewhere); the
    /// answer's body is read up to `limits.max_bytes`; the whole call has
    /// `limits.timeout`. Sent once: the caller decides about retries
    /// ([`OutboundError::is_transient`]).
    ///
    /// # Errors
    /// As [`GuardedFetcher::fetch`]; a redirect is a non-success status.
    pub async fn post(
        &self,
        link: &str,
        headers: reqwest::header::HeaderMap,
        body: Vec<u8>,
        limits: &FetchLimits,
    ) -> Result<FetchedBody, OutboundError> {
        let url = parse_link(link)?;
        let shown = display_url(&url);
        let work = async {
            self.check(&url).await?;
            let response = self
                .http
                .post(url.clone())
                .headers(headers)
                .body(body)
                .send()
                .await
                .map_err(|e| OutboundError::from_reqwest(&url, &e))?;
            read_answer(response, limits).await
        };
        tokio::time::timeout(limits.timeout, work).await.map_err(|_| OutboundError::Timeout { url: shown })?
    }

    /// Where `link` leads: its redirects followed (each hop checked), the
    /// last one's body not read, whatever its status (a short link's
    /// target page may refuse robots; only its address matters).
    ///
    /// # Errors
    /// As [`GuardedFetcher::fetch`], without the body and status errors.
    pub async fn final_url(&self, link: &str, limits: &FetchLimits) -> Result<Url, OutboundError> {
        self.follow_until(link, limits, |_| false).await
    }

    /// Follows the redirects of `link` until a hop's address satisfies
    /// `done` (that address is answered without requesting it: a short
    /// link's target need not be fetched once it is recognized) or a hop
    /// answers something else than a redirect (its address is answered).
    ///
    /// # Errors
    /// As [`GuardedFetcher::final_url`].
    pub async fn follow_until(
        &self,
        link: &str,
        limits: &FetchLimits,
        done: impl Fn(&Url) -> bool + Send + Sync,
    ) -> Result<Url, OutboundError> {
        let url = parse_link(link)?;
        let shown = display_url(&url);
        let work = async {
            Ok(match self.follow(url, limits, &done).await? {
                Hop::Done(url) => url,
                Hop::Answered(response) => response.url().clone(),
            })
        };
        tokio::time::timeout(limits.timeout, work).await.map_err(|_| OutboundError::Timeout { url: shown })?
    }

    /// GETs `url` and its redirects up to `limits.max_redirects`, checking
    /// every hop; stops at the first address `done` accepts or the first
    /// non-redirect response.
    async fn follow(
        &self,
        mut url: Url,
        limits: &FetchLimits,
        done: &(dyn Fn(&Url) -> bool + Send + Sync),
    ) -> Result<Hop, OutboundError> {
        for hop in 0..=limits.max_redirects {
            if done(&url) {
                return Ok(Hop::Done(url));
            }
            self.check(&url).await?;
            let response =
                self.http.get(url.clone()).send().await.map_err(|e| OutboundError::from_reqwest(&url, &e))?;
            let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
            match location {
                Some(location) if response.status().is_redirection() => {
                    if hop == limits.max_redirects {
                        break;
                    }
                    url = url.join(&location).map_err(|e| OutboundError::InvalidUrl {
                        url: display_url(&url),
                        reason: format!("its redirect target {location:?} is not a link: {e}"),
                    })?;
                }
                _ => return Ok(Hop::Answered(response)),
            }
        }
        Err(OutboundError::TooManyRedirects { url: display_url(&url), limit: limits.max_redirects })
    }

    /// Checks one hop before connecting: scheme, credentials, host name,
    /// every address the host resolves to now, and the port.
    ///
    /// # Errors
    /// [`OutboundError::InvalidUrl`], [`OutboundError::Refused`], or a
    /// transport error when the name does not resolve.
    pub async fn check(&self, url: &Url) -> Result<(), OutboundError> {
        let shown = display_url(url);
        let invalid = |reason: &str| OutboundError::InvalidUrl { url: shown.clone(), reason: reason.into() };
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("only http and https links can be fetched"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("links with credentials are not fetched"));
        }
        let refused = |refusal| OutboundError::Refused { url: shown.clone(), refusal };
        let (host, addresses) = match url.host() {
            None => return Err(invalid("it has no host")),
            Some(Host::Ipv4(ip)) => (ip.to_string(), vec![ip.into()]),
            Some(Host::Ipv6(ip)) => (ip.to_string(), vec![ip.into()]),
            Some(Host::Domain(name)) => {
                self.policy.check_name(name).map_err(refused)?;
                let addresses = self.resolver.lookup(name).await.map_err(|e| OutboundError::Transport {
                    url: shown.clone(),
                    message: format!("{name} does not resolve: {e}"),
                })?;
                (name.to_owned(), addresses)
            }
        };
        for ip in &addresses {
            self.policy.check_address(&host, *ip).map_err(refused)?;
        }
        let port = url.port_or_known_default().unwrap_or(0);
        self.policy.check_port(&host, &addresses, port).map_err(refused)
    }
}

/// The body of a final answer, at most `limits.max_bytes`; a non-success
/// status is an error carrying the first 64 KiB of its body.
async fn read_answer(response: reqwest::Response, limits: &FetchLimits) -> Result<FetchedBody, OutboundError> {
    let final_url = response.url().clone();
    let status = response.status();
    let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if !status.is_success() {
        let body = read_capped(response, 64 * 1024).await.unwrap_or_default();
        return Err(OutboundError::from_status(&final_url, status, &body));
    }
    let bytes = read_capped(response, limits.max_bytes).await?;
    Ok(FetchedBody { final_url, content_type, bytes })
}

/// Where following redirects stopped.
enum Hop {
    /// At an address the caller was looking for, not requested.
    Done(Url),
    /// At a response that is not a redirect.
    Answered(reqwest::Response),
}

/// `link` as a URL, trimmed.
fn parse_link(link: &str) -> Result<Url, OutboundError> {
    Url::parse(link.trim())
        .map_err(|e| OutboundError::InvalidUrl { url: link.trim().to_owned(), reason: e.to_string() })
}
