//! The hot-list scheduler (docs/hotlists.md "Collectors"):
//! one task per enabled source, each on its own interval with jitter,
//! reading the source's endpoint with timeouts and bounded retries, parsing
//! the reply ([`super::parse`]) and writing the snapshot to the content
//! store, dated by the service clock. A failing source only fails its own
//! run; the others go on. Each source's state (runs, failures, last
//! success, last error, items written) is kept in memory for the admin view
//! (`mediaops.admin.v1.AdminService.ListCollectors`, `mediaops collectors`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};
use rand::Rng;
use serde::Serialize;

use super::Source;
use super::config::HotlistSettings;
use super::parse::{self, ParseError, Parsed};
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;
use mediaops_store::model::Record;

/// What one source's collector has done since the core started.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectorState {
    /// Stable source name (`weibo`, …).
    pub source: String,
    /// The list's name (微博热搜, …).
    pub display_name: String,
    /// Kind token (`microblog`, …).
    pub kind: String,
    /// Collected when the collectors run (`hotlists.<source>.enabled`).
    pub enabled: bool,
    /// Seconds between runs, before jitter.
    pub interval_secs: u64,
    /// The URL read.
    pub url: String,
    /// Runs finished (successful or not).
    pub runs: u64,
    /// Runs that wrote nothing because every attempt failed.
    pub failures: u64,
    /// Failed runs since the last success.
    pub consecutive_failures: u64,
    /// When the last run started (RFC 3339 UTC).
    pub last_run_at: Option<String>,
    /// When the last successful run wrote its snapshot; also its capture time.
    pub last_success_at: Option<String>,
    /// The last failure's reason (kept after a later success).
    pub last_error: Option<String>,
    /// When the last failure happened (RFC 3339 UTC, service clock).
    pub last_error_at: Option<String>,
    /// Entries the last successful run wrote.
    pub items_last_written: u64,
    /// Items of the last successful reply that were skipped (no title) or
    /// refused by the store, with the first reasons.
    pub items_last_skipped: u64,
    /// The reasons of the first 5 of those skipped items.
    pub last_skipped_reasons: Vec<String>,
    /// Entries written by every run together.
    pub items_written_total: u64,
    /// Attempts (requests) made by the last run.
    pub last_attempts: u32,
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Connection, timeout or a body that could not be read.
    #[error("request: {0}")]
    Transport(String),
    /// The source answered with this HTTP status, not 2xx (408, 429 and
    /// 5xx are transient).
    #[error("HTTP {0}")]
    Status(u16),
    /// The reply was longer than this many bytes (`max_body_bytes`).
    #[error("reply over {0} bytes")]
    TooLarge(usize),
    /// The reply is not the source's documented shape (docs/hotlists.md).
    #[error("{0}")]
    Parse(#[from] ParseError),
    /// The reply parsed but held no entry at all.
    #[error("the reply holds no entries ({0} items skipped)")]
    Empty(usize),
    /// The content store refused the batch of entries; the store's message.
    #[error("store: {0}")]
    Store(String),
}

impl RunError {
    /// Worth another attempt within the same run: the network, a timeout,
    /// 408, 429 and 5xx. A parse error, another 4xx or a store error is not.
    pub fn is_transient(&self) -> bool {
        match self {
            RunError::Transport(_) => true,
            RunError::Status(code) => *code == 408 || *code == 429 || *code >= 500,
            _ => false,
        }
    }
}

/// How many skip reasons a state keeps.
const KEPT_REASONS: usize = 5;

/// The collectors of every source, sharing one HTTP client and the store.
pub struct Collectors {
    settings: HotlistSettings,
    store: Arc<dyn ContentStore>,
    clock: Clock,
    client: reqwest::Client,
    states: Mutex<BTreeMap<Source, CollectorState>>,
    scheduled: AtomicBool,
}

impl Collectors {
    /// Collectors over `store`, configured by `settings` (checked first).
    /// Nothing runs until [`Collectors::spawn`] or [`Collectors::run_once`].
    ///
    /// # Errors
    /// Settings that [`HotlistSettings::check`] refuses, or an HTTP client
    /// that cannot be built.
    pub fn new(
        settings: HotlistSettings,
        store: Arc<dyn ContentStore>,
        clock: Clock,
    ) -> anyhow::Result<Arc<Collectors>> {
        settings.check()?;
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(settings.connect_timeout_secs))
            .timeout(Duration::from_secs(settings.timeout_secs))
            .user_agent(settings.user_agent.clone())
            .build()?;
        // configured_states lists the sources in Source::ALL order.
        let states = Source::ALL.into_iter().zip(configured_states(&settings)).collect();
        Ok(Arc::new(Collectors {
            settings,
            store,
            clock,
            client,
            states: Mutex::new(states),
            scheduled: AtomicBool::new(false),
        }))
    }

    /// Every source's state, in [`Source::ALL`] order.
    pub fn states(&self) -> Vec<CollectorState> {
        self.lock().values().cloned().collect()
    }

    /// Whether [`Collectors::spawn`] started the scheduler.
    pub fn is_scheduled(&self) -> bool {
        self.scheduled.load(Ordering::Relaxed)
    }

    /// The sources that are enabled, in [`Source::ALL`] order.
    pub fn enabled_sources(&self) -> Vec<Source> {
        Source::ALL.into_iter().filter(|s| self.settings.source(*s).enabled).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<Source, CollectorState>> {
        // A panic while holding the lock leaves plain counters behind: keep them.
        self.states.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `sources` once, each in its own task (so one cannot stall or
    /// break another), and returns their states after, in `sources` order.
    pub async fn run_sources_once(self: &Arc<Self>, sources: &[Source]) -> Vec<CollectorState> {
        let tasks: Vec<_> = sources
            .iter()
            .map(|source| {
                let (collectors, source) = (Arc::clone(self), *source);
                (source, tokio::spawn(async move { collectors.run_once(source).await }))
            })
            .collect();
        let mut states = Vec::with_capacity(tasks.len());
        for (source, task) in tasks {
            states.push(match task.await {
                Ok(state) => state,
                // A panicked run still has the state it reached.
                Err(_) => self.lock().get(&source).cloned().unwrap_or_default(),
            });
        }
        states
    }

    /// One run of `source`: fetch (with retries), parse, write. Updates and
    /// returns the source's state; a failure is recorded there, never
    /// returned.
    pub async fn run_once(&self, source: Source) -> CollectorState {
        let started = self.clock.now();
        self.update(source, |s| s.last_run_at = Some(rfc3339(started)));
        let mut attempts = 0;
        let outcome = loop {
            attempts += 1;
            match self.attempt(source).await {
                Err(e) if e.is_transient() && attempts <= self.settings.retries => {
                    let backoff = self.settings.retry_backoff_ms.saturating_mul(1 << (attempts - 1).min(16));
                    tracing::debug!(source = source.name(), attempt = attempts, error = %e, "retrying");
                    tokio::time::sleep(Duration::from_millis(backoff)).await;
                }
                outcome => break outcome,
            }
        };
        self.update(source, |s| {
            s.runs += 1;
            s.last_attempts = attempts;
            match &outcome {
                Ok(done) => {
                    s.consecutive_failures = 0;
                    s.last_success_at = Some(rfc3339(done.captured_at));
                    s.items_last_written = done.written;
                    s.items_last_skipped = done.skipped.len() as u64;
                    s.last_skipped_reasons = done.skipped.iter().take(KEPT_REASONS).cloned().collect();
                    s.items_written_total += done.written;
                }
                Err(e) => {
                    s.failures += 1;
                    s.consecutive_failures += 1;
                    s.last_error = Some(e.to_string());
                    s.last_error_at = Some(rfc3339(self.clock.now()));
                }
            }
        });
        match &outcome {
            Ok(done) => tracing::info!(source = source.name(), written = done.written, "hot list collected"),
            Err(e) => tracing::warn!(source = source.name(), attempts, error = %e, "hot list collection failed"),
        }
        self.lock().get(&source).cloned().unwrap_or_default()
    }

    fn update(&self, source: Source, f: impl FnOnce(&mut CollectorState)) {
        if let Some(state) = self.lock().get_mut(&source) {
            f(state);
        }
    }

    /// One request, parsed and written.
    async fn attempt(&self, source: Source) -> Result<Written, RunError> {
        let body = self.fetch(source).await?;
        let captured_at = self.clock.now().trunc_subsecs(0);
        let Parsed { entries, skipped, .. } = parse::parse(source, &body, captured_at)?;
        if entries.is_empty() {
            return Err(RunError::Empty(skipped.len()));
        }
        let mut skipped: Vec<String> =
            skipped.into_iter().map(|s| format!("item {}: {}", s.position, s.reason)).collect();
        let ranks: Vec<i64> = entries.iter().map(|e| e.rank).collect();
        let records: Vec<Record> = entries.into_iter().map(Record::HotListEntry).collect();
        let outcomes = self.store.write(&records).await.map_err(|e| RunError::Store(e.to_string()))?;
        let mut written = 0;
        for (rank, outcome) in ranks.into_iter().zip(outcomes) {
            match outcome {
                Ok(()) => written += 1,
                Err(err) => skipped.push(format!("rank {rank}: {err}")),
            }
        }
        Ok(Written { captured_at, written, skipped })
    }

    /// The reply body of `source`'s endpoint.
    async fn fetch(&self, source: Source) -> Result<String, RunError> {
        let table = self.settings.source(source);
        // One map, so a configured header replaces a default of the same name.
        let mut headers = http::HeaderMap::new();
        let configured = table.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        for (name, value) in source.default_headers().iter().copied().chain(configured) {
            // Configured names and values were checked with the settings.
            if let (Ok(name), Ok(value)) =
                (http::HeaderName::from_bytes(name.as_bytes()), http::HeaderValue::from_str(value))
            {
                headers.insert(name, value);
            }
        }
        if let Some(cookie) = table.cookie.as_deref().and_then(|c| http::HeaderValue::from_str(c).ok()) {
            headers.insert(http::header::COOKIE, cookie);
        }
        let request = self.client.get(self.settings.url(source)).headers(headers);
        let response = request.send().await.map_err(|e| RunError::Transport(describe(&e)))?;
        if !response.status().is_success() {
            return Err(RunError::Status(response.status().as_u16()));
        }
        let limit = self.settings.max_body_bytes;
        let body = crate::outbound::body::read_capped(response, limit).await.map_err(|e| match e {
            crate::outbound::OutboundError::TooLarge { .. } => RunError::TooLarge(limit),
            other => RunError::Transport(other.to_string()),
        })?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// Starts one task per enabled source: a first run after a random part
    /// of the jitter, then one run every interval plus jitter. The tasks
    /// hold only a weak reference and end when the collectors are dropped.
    pub fn spawn(self: &Arc<Self>) -> Vec<tokio::task::JoinHandle<()>> {
        self.scheduled.store(true, Ordering::Relaxed);
        self.enabled_sources()
            .into_iter()
            .map(|source| {
                let weak: Weak<Collectors> = Arc::downgrade(self);
                let interval = self.settings.interval(source);
                let jitter = self.settings.jitter_secs;
                tokio::spawn(async move {
                    let mut wait = jittered(Duration::ZERO, jitter);
                    loop {
                        tokio::time::sleep(wait).await;
                        let Some(collectors) = weak.upgrade() else { break };
                        // In a task of its own, so a panicking run ends that
                        // run only, not the source's schedule.
                        let _ = tokio::spawn(async move { collectors.run_once(source).await }).await;
                        wait = jittered(interval, jitter);
                    }
                })
            })
            .collect()
    }
}

/// Every source's state before any run: its configuration (enabled,
/// interval, URL) and zero counters, in [`Source::ALL`] order.
pub fn configured_states(settings: &HotlistSettings) -> Vec<CollectorState> {
    Source::ALL
        .into_iter()
        .map(|source| CollectorState {
            source: source.name().into(),
            display_name: source.display_name().into(),
            kind: source.kind().name().into(),
            enabled: settings.source(source).enabled,
            interval_secs: settings.interval(source).as_secs(),
            url: settings.url(source).into(),
            ..CollectorState::default()
        })
        .collect()
}

/// What a successful attempt wrote.
struct Written {
    captured_at: DateTime<Utc>,
    written: u64,
    skipped: Vec<String>,
}

/// `base` plus a random 0..=`jitter_secs` seconds.
fn jittered(base: Duration, jitter_secs: u64) -> Duration {
    let extra = if jitter_secs == 0 { 0 } else { rand::rng().random_range(0..=jitter_secs * 1000) };
    base + Duration::from_millis(extra)
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A reqwest error with its cause chain (reqwest's own message alone says
/// only "error sending request").
fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() { "timed out: " } else { "" };
    let mut text = format!("{kind}{error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_errors_are_the_network_and_server_side_ones() {
        assert!(RunError::Transport("reset".into()).is_transient());
        assert!(RunError::Status(503).is_transient());
        assert!(RunError::Status(429).is_transient());
        assert!(!RunError::Status(403).is_transient());
        assert!(!RunError::Parse(ParseError::NotJson("x".into())).is_transient());
        assert!(!RunError::Empty(3).is_transient());
    }

    #[test]
    fn jitter_stays_within_its_bound() {
        for _ in 0..100 {
            let d = jittered(Duration::from_secs(10), 2);
            assert!(d >= Duration::from_secs(10) && d <= Duration::from_secs(12), "{d:?}");
        }
        assert_eq!(jittered(Duration::from_secs(3), 0), Duration::from_secs(3));
    }
}
