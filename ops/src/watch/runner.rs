//! The watch-list scheduler (docs/watchlists.md
//! "Scheduling"): every `tick_secs` it looks for watch lists due at the
//! service clock's now, leases each one (one runner of all replicas wins the
//! conditional row update), runs one firing and writes the outcome.
//!
//! One run at the firing time `at`:
//! 1. inside the quiet hours: nothing is pushed and the window is kept, so
//!    what matched is pushed at the next firing outside them;
//! 2. the digest of the window `(last run, at]` (the first run looks back
//!    24 hours) ([`super::digest`]); empty: nothing to push;
//! 3. [`DIGEST_PRICE`] is reserved (402: the watch list is paused,
//!    `paused_insufficient_points`, and nothing is sent); the digest is
//!    posted to each channel ([`mediaops_connectors::notify::send`]); the points are
//!    committed when one channel accepted it, released when none did; the
//!    pushed items join the seen-set only when delivered;
//! 4. one delivery-log line per channel.
//!
//! Missed firings (a core that was down, a clock set forward) are run in
//! order, each as of its own time, so a replay of an archive sends what
//! would have been sent; the seen-set keeps them from repeating items.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use mediaops_proto::mediaops::watch::v1::Delivery;

use super::rules::{QuietHours, Schedule, parse_groups};
use super::settings::WatchSettings;
use super::{DIGEST_PRICE, state};
use crate::trend::Trends;
use mediaops_connectors::notify::{self as channel, Envelope, RetryPolicy};
use mediaops_connectors::outbound::{FetchLimits, GuardedFetcher, OutboundSettings};
use mediaops_platform::billing::{Ledger, Reserved, UsageRecord};
use mediaops_platform::metrics::WatchDeliveries;
use mediaops_proto::error::ServiceError;
use mediaops_store::clock::Clock;
use mediaops_store::watch::{RunOutcome, StoredWatchlist, WatchStore};

/// Operation key of the usage line of a delivered digest.
pub const USAGE_KEY: &str = "watchlists.digest";

/// Watch lists looked at per tick.
const DUE_BATCH: i64 = 100;

/// Firings one tick runs for one watch list before moving on.
const MAX_RUNS_PER_TICK: usize = 500;

/// How far back the first run of a watch list looks.
const FIRST_WINDOW_HOURS: i64 = 24;

/// Runs due watch lists.
pub struct Runner {
    /// Watch lists, their leases, seen-sets and delivery logs.
    pub store: Arc<dyn WatchStore>,
    /// Where a digest's [`super::DIGEST_PRICE`] is reserved and settled.
    pub ledger: Arc<dyn Ledger>,
    /// Reads the hot lists and rising works a digest is made of.
    pub trends: Arc<Trends>,
    /// The service clock: when a watch list is due, the digest's window.
    pub clock: Clock,
    /// The guarded client channels post through.
    pub fetcher: GuardedFetcher,
    /// Scheduler and SMTP settings (`[watchlists]`).
    pub settings: WatchSettings,
    /// Timeouts and sizes of one channel request (`[outbound]`).
    pub limits: FetchLimits,
    /// Retries of a channel request (`[outbound]` `retries`, `retry_backoff_ms`).
    pub retry: RetryPolicy,
    /// This runner's lease owner name.
    pub owner: String,
    /// Counts every delivery-log line (`mediaops_watchlist_deliveries_total`).
    pub deliveries: WatchDeliveries,
}

impl Runner {
    /// A runner named after this process (its lease owner), with the
    /// `[outbound]` request limits and retry policy.
    pub fn new(
        store: Arc<dyn WatchStore>,
        ledger: Arc<dyn Ledger>,
        trends: Arc<Trends>,
        clock: Clock,
        fetcher: GuardedFetcher,
        settings: WatchSettings,
        outbound: &OutboundSettings,
    ) -> Runner {
        Runner {
            store,
            ledger,
            trends,
            clock,
            limits: fetcher.limits(),
            fetcher,
            settings,
            retry: RetryPolicy { retries: outbound.retries, backoff: Duration::from_millis(outbound.retry_backoff_ms) },
            owner: format!("watch-{}", uuid::Uuid::new_v4()),
            deliveries: WatchDeliveries::default(),
        }
    }

    /// This runner, counting its deliveries into `deliveries` (the core's
    /// `mediaops_watchlist_deliveries_total`).
    pub fn counting_into(self, deliveries: WatchDeliveries) -> Runner {
        Runner { deliveries, ..self }
    }

    /// Starts the loop (when `scheduler` is on); it ends when the handle is aborted.
    pub fn spawn(self: &Arc<Self>) -> Option<tokio::task::JoinHandle<()>> {
        if !self.settings.scheduler {
            return None;
        }
        let runner = self.clone();
        Some(tokio::spawn(async move {
            let tick = Duration::from_secs_f64(runner.settings.tick_secs.max(0.05));
            loop {
                if let Err(e) = runner.run_due().await {
                    tracing::warn!(error = %e.message, "watch-list run failed");
                }
                tokio::time::sleep(tick).await;
            }
        }))
    }

    /// Runs every watch list due now, each firing in order; answers how
    /// many runs were made.
    ///
    /// # Errors
    /// The store's or the ledger's failures (the run is retried next tick).
    pub async fn run_due(&self) -> Result<usize, ServiceError> {
        let now = self.clock.now();
        let mut runs = 0;
        for (account_id, id) in self.store.due_watchlists(now.timestamp_millis(), DUE_BATCH).await? {
            for _ in 0..MAX_RUNS_PER_TICK {
                let until = now.timestamp_millis() + i64::try_from(self.settings.lease_secs * 1000).unwrap_or(i64::MAX);
                let Some(watchlist) =
                    self.store.claim_watchlist(&account_id, &id, &self.owner, now.timestamp_millis(), until).await?
                else {
                    break;
                };
                let outcome = match self.run_one(&account_id, &watchlist, now).await {
                    Ok(outcome) => outcome,
                    Err(e) => {
                        // Not advanced: the same firing is tried again.
                        self.store.finish_watchlist(&account_id, &id, &self.owner, &watchlist.unchanged()).await?;
                        return Err(e);
                    }
                };
                self.store.finish_watchlist(&account_id, &id, &self.owner, &outcome).await?;
                runs += 1;
            }
        }
        Ok(runs)
    }

    /// One firing of a leased watch list (module docs).
    async fn run_one(
        &self,
        account_id: &str,
        watchlist: &StoredWatchlist,
        now: DateTime<Utc>,
    ) -> Result<RunOutcome, ServiceError> {
        let spec = &watchlist.spec;
        let at = watchlist.next_run_ms.and_then(DateTime::from_timestamp_millis).unwrap_or(now).min(now);
        let schedule = Schedule::parse(&spec.schedule)?;
        let next = |after: DateTime<Utc>| {
            schedule.next_after(after, self.settings.on_change_every()).map(|t| t.timestamp_millis())
        };
        let mut outcome = RunOutcome { next_run_ms: next(at), ..watchlist.unchanged() };
        if watchlist.state != state::ACTIVE {
            outcome.next_run_ms = None;
            return Ok(outcome);
        }
        if QuietHours::parse(&spec.quiet_hours)?.is_some_and(|q| q.contains(at)) {
            return Ok(outcome);
        }
        let groups = parse_groups(&spec.keywords)?;
        let from = watchlist
            .last_run_ms
            .and_then(DateTime::from_timestamp_millis)
            .unwrap_or(at - chrono::Duration::hours(FIRST_WINDOW_HOURS));
        let seen = self.store.seen_items(account_id, &watchlist.id).await?;
        let digest = super::digest::build(&self.trends, &groups, &spec.sources, &seen, from, at).await?;
        tracing::info!(
            watchlist = watchlist.id,
            at = %at,
            matched = digest.matched,
            deduplicated = digest.deduplicated,
            items = digest.items.len(),
            "watch-list run"
        );
        if digest.items.is_empty() {
            outcome.last_run_ms = Some(at.timestamp_millis());
            return Ok(outcome);
        }
        let digest_id = format!("{}:{}", watchlist.id, at.timestamp_millis());
        let reservation = format!("watch:{account_id}:{digest_id}");
        let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
        let line = |i: usize, status: &str, attempts: u32, error: String, points: i32| Delivery {
            digest_id: digest_id.clone(),
            run_at: stamp(at),
            channel: i as i32,
            channel_type: spec.channels[i].r#type.clone(),
            status: status.to_owned(),
            attempts: attempts as i32,
            last_error: error,
            items: digest.items.len() as i32,
            points,
            at: stamp(self.clock.now()),
        };
        let ttl = Duration::from_secs(self.settings.lease_secs.max(60));
        if let Reserved::Insufficient { balance } =
            self.ledger.reserve(account_id, &reservation, DIGEST_PRICE, ttl).await?
        {
            let reason = format!(
                "a digest costs {DIGEST_PRICE} point and the balance is {balance}: paused at {}; add points and save the watch list again",
                stamp(at)
            );
            for i in 0..spec.channels.len() {
                self.store
                    .add_delivery(account_id, &watchlist.id, &line(i, "insufficient_points", 0, reason.clone(), 0))
                    .await?;
                self.deliveries.observe(&spec.channels[i].r#type, "insufficient_points");
            }
            tracing::warn!(
                watchlist = watchlist.id,
                account = account_id,
                digest = digest_id,
                balance,
                "watch-list digest not sent: insufficient points; the watch list is paused"
            );
            outcome.state = state::PAUSED_POINTS.to_owned();
            outcome.state_reason = reason;
            outcome.next_run_ms = None;
            return Ok(outcome);
        }
        let envelope = Envelope {
            watchlist_id: &watchlist.id,
            watchlist_name: &spec.name,
            digest_id: &digest_id,
            run_at: at,
            digest: &digest,
        };
        let transport = channel::Transport {
            fetcher: &self.fetcher,
            limits: self.limits,
            retry: self.retry,
            smtp: self.settings.smtp(),
        };
        let mut charged = false;
        for (i, channel) in spec.channels.iter().enumerate() {
            // Signatures carry the wall clock at sending, never the service
            // clock of a replay: receivers refuse old time stamps.
            let sent = channel::send(&transport, channel, &envelope, Utc::now()).await;
            let points = if sent.delivered && !charged {
                charged = true;
                DIGEST_PRICE as i32
            } else {
                0
            };
            let status = if sent.delivered { "delivered" } else { "failed" };
            self.deliveries.observe(&channel.r#type, status);
            if !sent.delivered {
                tracing::warn!(
                    watchlist = watchlist.id,
                    account = account_id,
                    digest = digest_id,
                    channel = i,
                    channel_type = channel.r#type,
                    attempts = sent.attempts,
                    reason = sent.last_error,
                    "watch-list delivery failed"
                );
            }
            self.store
                .add_delivery(account_id, &watchlist.id, &line(i, status, sent.attempts, sent.last_error, points))
                .await?;
        }
        if charged {
            self.ledger.commit(account_id, &reservation).await?;
            self.store.mark_seen(account_id, &watchlist.id, &digest.seen_keys, &stamp(at)).await?;
            let usage = UsageRecord {
                request_id: reservation.clone(),
                account_id: account_id.to_owned(),
                operation_key: USAGE_KEY.to_owned(),
                points: DIGEST_PRICE,
                outcome: "ok".to_owned(),
                at: stamp(self.clock.now()),
            };
            if let Err(e) = self.ledger.record_usage(&usage).await {
                tracing::warn!(error = %e.message, "the usage line of a watch-list digest was not recorded");
            }
            outcome.last_run_ms = Some(at.timestamp_millis());
        } else {
            // Undelivered: the window stays open, so the next firing
            // pushes these items again.
            self.ledger.release(account_id, &reservation).await?;
        }
        Ok(outcome)
    }
}
