//! The tracking scheduler (docs/tracking.md "Scheduling" and "Pricing"):
//! every `tick_secs` it looks for tracking lists due at the service clock's
//! now, leases each (one runner of all replicas wins the conditional row
//! update, as watch lists are leased), runs it once and writes the outcome.
//!
//! One run:
//! 1. its firing is the latest firing of the schedule at or before now;
//!    firings missed before it (a core that was stopped, a clock set
//!    forward) are folded into this one run (`missed`), since past counters
//!    cannot be collected later: a list runs at most once per due check,
//!    and its next run is the first firing after now, so nothing is
//!    collected twice;
//! 2. for each account its profile and recent works, for each keyword its
//!    search ([`super::platforms`]), each called through the pipeline on
//!    the owner's account ([`Pipeline::call_inside`]): priced, reserved,
//!    answered by its source chain (a vendor pack writes its records and
//!    snapshots back to the store, stamped by the service clock) and
//!    committed as a client's call would be;
//! 3. a call that fails (502, 404, …) is logged and the run goes on; a 402
//!    `insufficient_points` stops the run (the calls left are `not_run`)
//!    and pauses the list (`paused_insufficient_points`, `nextRunAt: null`)
//!    until its owner saves it again;
//! 4. one run-log line, once per run id (`<list>:<firing ms>`).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, SecondsFormat, Utc};
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::tracking::v1::{TrackingCall, TrackingRun};
use prost::Message;
use prost_reflect::{DynamicMessage, ReflectMessage, Value};

use super::platforms::{self, Step};
use super::settings::TrackingSettings;
use crate::watch::rules::{Schedule, parse_cron};
use crate::watch::state;
use mediaops_platform::dispatch::Pipeline;
use mediaops_proto::error::ServiceError;
use mediaops_store::clock::Clock;
use mediaops_store::tracking::{RunOutcome, StoredTracking, TrackingStore};

/// Tracking lists looked at per tick.
const DUE_BATCH: i64 = 100;

/// Most missed firings counted into `missed` (the count stops there).
const MAX_MISSED_COUNTED: i32 = 10_000;

/// The first firing of `schedule` (a 5-field cron in Asia/Shanghai) strictly
/// after `after`; `None` when it never fires again.
///
/// # Errors
/// 400 naming `tracking.schedule`.
pub fn next_firing(schedule: &str, after: DateTime<Utc>) -> Result<Option<DateTime<Utc>>, ServiceError> {
    let cron = Schedule::Cron(parse_cron(schedule, "tracking.schedule", "")?);
    Ok(cron.next_after(after, chrono::Duration::zero()))
}

/// Runs due tracking lists.
pub struct Runner {
    /// The tracking lists, their leases and run logs.
    pub store: Arc<dyn TrackingStore>,
    /// Every call of a run goes through it, as the list's owner.
    pub pipeline: Arc<Pipeline>,
    /// The service clock: what is due, and the runs' times.
    pub clock: Clock,
    /// `[tracking]`.
    pub settings: TrackingSettings,
    /// This runner's lease owner name.
    pub owner: String,
}

impl Runner {
    /// A runner with a fresh lease owner name.
    pub fn new(
        store: Arc<dyn TrackingStore>,
        pipeline: Arc<Pipeline>,
        clock: Clock,
        settings: TrackingSettings,
    ) -> Runner {
        Runner { store, pipeline, clock, settings, owner: format!("tracking-{}", uuid::Uuid::new_v4()) }
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
                    tracing::warn!(error = %e.message, "tracking run failed");
                }
                tokio::time::sleep(tick).await;
            }
        }))
    }

    /// Runs every tracking list due now, once each; answers how many runs
    /// were made.
    ///
    /// # Errors
    /// The store's failures (the list is tried again next tick).
    pub async fn run_due(&self) -> Result<usize, ServiceError> {
        let now = self.clock.now();
        let until = now.timestamp_millis() + i64::try_from(self.settings.lease_secs * 1000).unwrap_or(i64::MAX);
        let mut runs = 0;
        for (account_id, id) in self.store.due_tracking(now.timestamp_millis(), DUE_BATCH).await? {
            let Some(list) =
                self.store.claim_tracking(&account_id, &id, &self.owner, now.timestamp_millis(), until).await?
            else {
                continue;
            };
            let outcome = match self.run_one(&account_id, &list, now).await {
                Ok(outcome) => outcome,
                Err(e) => {
                    // Not advanced: the same firing is tried again.
                    self.store.finish_tracking(&account_id, &id, &self.owner, &list.unchanged()).await?;
                    return Err(e);
                }
            };
            self.store.finish_tracking(&account_id, &id, &self.owner, &outcome).await?;
            runs += 1;
        }
        Ok(runs)
    }

    /// One run of a leased list (module docs).
    async fn run_one(
        &self,
        account_id: &str,
        list: &StoredTracking,
        now: DateTime<Utc>,
    ) -> Result<RunOutcome, ServiceError> {
        let spec = &list.spec;
        let next = next_firing(&spec.schedule, now)?.map(|t| t.timestamp_millis());
        let mut outcome = RunOutcome { next_run_ms: next, ..list.unchanged() };
        if list.state != state::ACTIVE {
            outcome.next_run_ms = None;
            return Ok(outcome);
        }
        let first = list.next_run_ms.and_then(DateTime::from_timestamp_millis).unwrap_or(now).min(now);
        let (fired, missed) = latest_firing(&spec.schedule, first, now)?;
        let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
        let platform = platforms::platform(&spec.platform)?;
        let caller = format!("tracking:{}", list.id);
        let mut run = TrackingRun {
            run_id: format!("{}:{}", list.id, fired.timestamp_millis()),
            run_at: stamp(fired),
            ran_at: stamp(now),
            missed,
            ..TrackingRun::default()
        };
        let mut short = None;
        for (step, target) in platform.plan(&spec.accounts, &spec.keywords) {
            let mut call = TrackingCall {
                operation: step.operation.to_owned(),
                target: target.to_owned(),
                ..TrackingCall::default()
            };
            if short.is_some() {
                call.status = "not_run".to_owned();
                run.calls.push(call);
                continue;
            }
            match self.call(step, target, account_id, &caller).await {
                Ok((rows, points)) => {
                    call.status = "ok".to_owned();
                    call.rows = rows;
                    call.points = points;
                }
                Err(e) => {
                    call.status =
                        if e.code == ErrorCode::InsufficientPoints { "insufficient_points" } else { "failed" }
                            .to_owned();
                    call.error = format!("{}: {}", e.code.as_str(), e.message);
                    if e.code == ErrorCode::InsufficientPoints {
                        short = Some(e.message.clone());
                    }
                }
            }
            run.rows += call.rows;
            run.points += call.points;
            run.calls.push(call);
        }
        let failed = run.calls.iter().filter(|c| c.status == "failed").count();
        run.status = match (&short, failed) {
            (Some(_), _) => "insufficient_points",
            (None, 0) => "ok",
            (None, n) if n == run.calls.len() => "failed",
            (None, _) => "partial",
        }
        .to_owned();
        tracing::info!(
            tracking = list.id,
            account = account_id,
            run = run.run_id,
            missed,
            status = run.status,
            calls = run.calls.len(),
            failed,
            rows = run.rows,
            points = run.points,
            "tracking run"
        );
        if let Some(message) = short {
            tracing::warn!(
                tracking = list.id,
                account = account_id,
                "tracking run stopped: insufficient points; the list is paused"
            );
            outcome.state = state::PAUSED_POINTS.to_owned();
            outcome.state_reason =
                format!("paused at {}: {message}; add points and save the tracking list again", stamp(now));
            outcome.next_run_ms = None;
        }
        self.store.add_run(account_id, &list.id, &run).await?;
        outcome.last_run_ms = Some(now.timestamp_millis());
        Ok(outcome)
    }

    /// One call of a run: the request `{<field>: target}` of `step`'s
    /// operation through the pipeline; answers the rows of its answer (the
    /// length of `items`, else 1) and the points charged.
    async fn call(&self, step: Step, target: &str, account_id: &str, caller: &str) -> Result<(i32, i64), ServiceError> {
        let op = self
            .pipeline
            .registry
            .operations()
            .find(|op| op.key() == step.operation)
            .cloned()
            .ok_or_else(|| ServiceError::internal(format!("no operation {}", step.operation)))?;
        let input = op.method.input();
        let field = input
            .get_field_by_json_name(step.field)
            .ok_or_else(|| ServiceError::internal(format!("{} has no field {}", step.operation, step.field)))?;
        let mut request = DynamicMessage::new(input);
        request
            .try_set_field(&field, Value::String(target.to_owned()))
            .map_err(|e| ServiceError::internal(format!("{}.{}: {e}", step.operation, step.field)))?;
        let body = Bytes::from(request.encode_to_vec());
        let answer = self.pipeline.call_inside(step.operation, account_id, caller, body).await?;
        let reply = DynamicMessage::decode(op.method.output(), answer.bytes.clone())
            .map_err(|e| ServiceError::internal(format!("the answer of {} does not decode: {e}", step.operation)))?;
        let rows = match reply.descriptor().get_field_by_name("items").map(|f| reply.get_field(&f).into_owned()) {
            Some(Value::List(items)) => items.len() as i32,
            _ => 1,
        };
        Ok((rows, answer.points))
    }
}

/// The latest firing of `schedule` at or before `now`, starting from the
/// due firing `first` (≤ now), and how many firings between them were
/// missed (counted up to [`MAX_MISSED_COUNTED`]).
fn latest_firing(
    schedule: &str,
    first: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(DateTime<Utc>, i32), ServiceError> {
    let mut fired = first;
    let mut missed = 0;
    while let Some(next) = next_firing(schedule, fired)?.filter(|t| *t <= now) {
        fired = next;
        missed += 1;
        if missed >= MAX_MISSED_COUNTED {
            break;
        }
    }
    Ok((fired, missed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().to_utc()
    }

    #[test]
    fn missed_firings_fold_into_the_latest() {
        // 09:00 Shanghai = 01:00 UTC; due since June 3, run on June 5 at 10:00 Shanghai.
        let (fired, missed) =
            latest_firing("0 9 * * *", at("2024-06-03T01:00:00Z"), at("2024-06-05T02:00:00Z")).unwrap();
        assert_eq!(fired, at("2024-06-05T01:00:00Z"));
        assert_eq!(missed, 2);
        let (fired, missed) =
            latest_firing("0 9 * * *", at("2024-06-05T01:00:00Z"), at("2024-06-05T02:00:00Z")).unwrap();
        assert_eq!((fired, missed), (at("2024-06-05T01:00:00Z"), 0));
        assert_eq!(next_firing("0 9 * * *", at("2024-06-05T02:00:00Z")).unwrap(), Some(at("2024-06-06T01:00:00Z")));
        let err = next_firing("0 9 * *", at("2024-06-05T02:00:00Z")).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("tracking.schedule"));
    }
}
