//! The in-process [`RateLimiter`] of the embedded default (no
//! `MEDIAOPS_REDIS_URL`): one `governor` GCRA cell per key and per account,
//! in memory (a restart starts every cell full). The account's limit is read
//! from the ledger on each call (a map lookup for the embedded ledger), so
//! a change by the admin RPC applies to the next call.
//!
//! `governor` keeps `τ − T` as its tolerance (`τ = burst × T` here): the
//! same rule, a burst of `N` lets `N` calls through at once. The account's
//! cell is taken first, then the key's; with one limit for both, a key's
//! cell is never fuller than its account's (its calls are a subset), so a
//! call that passes the account passes the key and a refused call takes
//! from neither.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::{InMemoryState, NotKeyed};

use super::{RateLimiter, Verdict};
use crate::billing::Ledger;
use crate::quota::{Limit, Quota};
use mediaops_proto::error::ServiceError;

type Cell<C> = governor::RateLimiter<NotKeyed, InMemoryState, C, StateInformationMiddleware>;

/// Cell name (`key:<id>`, `account:<id>`) → the quota it was built with and
/// its state.
type Cells<C> = HashMap<String, (Quota, Arc<Cell<C>>)>;

/// The `governor` [`RateLimiter`]; generic over the clock so tests can
/// drive it with `governor::clock::FakeRelativeClock`.
pub struct LocalLimiter<C: Clock = DefaultClock> {
    ledger: Arc<dyn Ledger>,
    default: Limit,
    clock: C,
    /// Rebuilt (full) when the account's quota changes.
    cells: Mutex<Cells<C>>,
}

impl LocalLimiter<DefaultClock> {
    /// A limiter over `ledger`'s account limits, `default` for accounts
    /// without one.
    pub fn new(ledger: Arc<dyn Ledger>, default: Limit) -> Self {
        LocalLimiter::with_clock(ledger, default, DefaultClock::default())
    }
}

impl<C: Clock + Clone> LocalLimiter<C> {
    /// [`LocalLimiter::new`] on `clock`.
    pub fn with_clock(ledger: Arc<dyn Ledger>, default: Limit, clock: C) -> Self {
        LocalLimiter { ledger, default, clock, cells: Mutex::new(HashMap::new()) }
    }

    fn cell(&self, name: String, quota: Quota) -> Arc<Cell<C>> {
        let mut cells = self.cells.lock().unwrap_or_else(|e| e.into_inner());
        match cells.get(&name) {
            Some((built, cell)) if *built == quota => cell.clone(),
            _ => {
                let burst = NonZeroU32::new(quota.burst).unwrap_or(NonZeroU32::MIN);
                let gcra = governor::Quota::with_period(Duration::from_micros(quota.interval_us()))
                    .expect("the interval is at least 1 µs")
                    .allow_burst(burst);
                let cell = Arc::new(
                    governor::RateLimiter::direct_with_clock(gcra, self.clock.clone())
                        .with_middleware::<StateInformationMiddleware>(),
                );
                cells.insert(name, (quota, cell.clone()));
                cell
            }
        }
    }

    /// Takes one call from `cell`: the calls left at once, or the wait.
    fn take(&self, cell: &Cell<C>) -> Result<u32, Duration> {
        cell.check().map(|state| state.remaining_burst_capacity()).map_err(|no| no.wait_time_from(self.clock.now()))
    }
}

#[async_trait::async_trait]
impl<C: Clock + Clone + Send + Sync + 'static> RateLimiter for LocalLimiter<C>
where
    C::Instant: Send + Sync,
{
    async fn check(&self, account_id: &str, key_id: &str) -> Result<Option<Verdict>, ServiceError> {
        let limit = self.ledger.rate_limit(account_id).await?.unwrap_or(self.default);
        let Limit::Quota(quota) = limit else { return Ok(None) };
        let refused = |wait| Verdict { quota, allowed: false, remaining: 0, retry_after: wait };
        let account = self.cell(format!("account:{account_id}"), quota);
        let key = self.cell(format!("key:{key_id}"), quota);
        let verdict = match self.take(&account) {
            Err(wait) => refused(wait),
            Ok(left) => match self.take(&key) {
                Err(wait) => refused(wait),
                Ok(key_left) => {
                    Verdict { quota, allowed: true, remaining: left.min(key_left), retry_after: Duration::ZERO }
                }
            },
        };
        Ok(Some(verdict))
    }
}
