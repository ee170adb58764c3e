//! The client of one configured upstream (images API, WeChat, search
//! engine, vendor data API): a base URL from config, connect/read/request
//! timeouts, and bounded retries with exponential backoff for idempotent
//! requests only (docs/outbound.md "Connectors").
//!
//! A configured base URL is trusted (the operator chose it), so connector
//! calls do not go through the SSRF guard; links a *caller* supplies must
//! go through [`super::GuardedFetcher`].

use std::time::Duration;

use bytes::Bytes;
use reqwest::{Method, RequestBuilder, Response, Url};
use serde::de::DeserializeOwned;

use super::body::read_capped;
use super::error::{OutboundError, display_url};
use super::settings::OutboundSettings;

/// Whether a request may be sent again after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// By method: GET, HEAD, OPTIONS, PUT and DELETE are retried; POST and
    /// PATCH are not (they may have taken effect).
    ByMethod,
    /// Retried whatever the method: the caller knows the request is
    /// idempotent (a search POST, a token request).
    Idempotent,
    /// Never retried.
    Never,
}

/// One configured upstream. Cheap to clone.
#[derive(Clone)]
pub struct ConnectorClient {
    name: String,
    base: String,
    http: reqwest::Client,
    retries: u32,
    backoff: Duration,
    max_response_bytes: usize,
}

/// Builds a [`ConnectorClient`] from `[outbound]` and per-connector
/// choices.
pub struct ConnectorBuilder<'a> {
    name: String,
    base_url: String,
    settings: &'a OutboundSettings,
    request_timeout: Option<Duration>,
    retries: Option<u32>,
}

impl<'a> ConnectorBuilder<'a> {
    /// Replaces `request_timeout_secs` for this connector (image
    /// generation takes longer than a lookup).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// Replaces `retries` for this connector.
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = Some(retries);
        self
    }

    /// The client.
    ///
    /// # Errors
    /// A base URL that is not an absolute `http(s)` URL (named with the
    /// connector), or a TLS set-up failure.
    pub fn build(self) -> anyhow::Result<ConnectorClient> {
        let base = self.base_url.trim().trim_end_matches('/').to_owned();
        let parsed = Url::parse(&base).map_err(|e| anyhow::anyhow!("{}: base URL {base:?}: {e}", self.name))?;
        anyhow::ensure!(
            matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some(),
            "{}: base URL {base:?} must be an http(s) URL with a host",
            self.name
        );
        let s = self.settings;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(s.connect_timeout_secs))
            .read_timeout(Duration::from_secs(s.read_timeout_secs))
            .timeout(self.request_timeout.unwrap_or(Duration::from_secs(s.request_timeout_secs)))
            .user_agent(concat!("mediaops/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(ConnectorClient {
            name: self.name,
            base,
            http,
            retries: self.retries.unwrap_or(s.retries),
            backoff: Duration::from_millis(s.retry_backoff_ms),
            max_response_bytes: s.max_response_bytes,
        })
    }
}

impl ConnectorClient {
    /// Starts a client named `name` (logs, messages) on `base_url`.
    pub fn builder<'a>(name: &str, base_url: &str, settings: &'a OutboundSettings) -> ConnectorBuilder<'a> {
        ConnectorBuilder {
            name: name.to_owned(),
            base_url: base_url.to_owned(),
            settings,
            request_timeout: None,
            retries: None,
        }
    }

    /// The connector's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `path` under the base URL: `{base}/{path}`, whatever slashes either
    /// has (`https://api.example/v1` + `/images/generations`).
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base, path.trim_start_matches('/'))
    }

    /// A request to `path` under the base URL, to be sent with
    /// [`ConnectorClient::send`].
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.http.request(method, self.url(path))
    }

    /// Sends `request`, retrying per `retry` after a transport failure, a
    /// timeout, a 5xx or a 429, up to `retries` times with exponential
    /// backoff. Answers the response whatever its status; read it with
    /// [`ConnectorClient::json`] or [`ConnectorClient::bytes`].
    ///
    /// # Errors
    /// [`OutboundError::Timeout`] / [`OutboundError::Transport`] when the
    /// last attempt failed so; [`OutboundError::InvalidUrl`] when the
    /// request cannot be built.
    pub async fn send(&self, request: RequestBuilder, retry: Retry) -> Result<Response, OutboundError> {
        let request = request.build().map_err(|e| OutboundError::InvalidUrl {
            url: self.base.clone(),
            reason: format!("{}: the request cannot be built: {e}", self.name),
        })?;
        let retryable = match retry {
            Retry::Never => false,
            Retry::Idempotent => true,
            Retry::ByMethod => {
                matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS | Method::PUT | Method::DELETE)
            }
        };
        let attempts = if retryable { self.retries + 1 } else { 1 };
        let url = request.url().clone();
        let mut pending = Some(request);
        for attempt in 1..=attempts {
            let this = pending.take().expect("one request per attempt");
            // A body that cannot be cloned (a stream) is sent once.
            let spare = if attempt < attempts { this.try_clone() } else { None };
            let last = spare.is_none();
            let outcome = self.http.execute(this).await;
            let transient = match &outcome {
                Err(e) => OutboundError::from_reqwest(&url, e).is_transient(),
                Ok(response) => response.status().is_server_error() || response.status().as_u16() == 429,
            };
            if !transient || last {
                return outcome.map_err(|e| OutboundError::from_reqwest(&url, &e));
            }
            let wait = self.backoff_before(attempt);
            tracing::debug!(connector = self.name, url = %display_url(&url), attempt, ?wait, "retrying");
            tokio::time::sleep(wait).await;
            pending = spare;
        }
        unreachable!("the last attempt returns")
    }

    /// The wait before retry `attempt` (1-based): `backoff × 2^(attempt-1)`
    /// plus up to 25% at random.
    fn backoff_before(&self, attempt: u32) -> Duration {
        let base = self.backoff.saturating_mul(1 << (attempt - 1).min(10));
        let jitter = rand::random_range(0..=base.as_millis() as u64 / 4);
        base + Duration::from_millis(jitter)
    }

    /// The body of a success response, capped at `max_response_bytes`.
    ///
    /// # Errors
    /// [`OutboundError::Status`] for a non-success status (with the code
    /// and message of its body, [`super::error::upstream_said`]); a body
    /// over the cap; a read failure.
    pub async fn bytes(&self, response: Response) -> Result<Bytes, OutboundError> {
        let status = response.status();
        let url = response.url().clone();
        let body = read_capped(response, self.max_response_bytes).await?;
        if !status.is_success() {
            return Err(OutboundError::from_status(&url, status, &body));
        }
        Ok(body)
    }

    /// The JSON body of a success response as `T`.
    ///
    /// # Errors
    /// As [`ConnectorClient::bytes`]; [`OutboundError::Malformed`] when the
    /// body is not a `T`.
    pub async fn json<T: DeserializeOwned>(&self, response: Response) -> Result<T, OutboundError> {
        let url = response.url().clone();
        let body = self.bytes(response).await?;
        serde_json::from_slice(&body)
            .map_err(|e| OutboundError::Malformed { url: display_url(&url), message: e.to_string() })
    }
}
