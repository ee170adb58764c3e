//! The end of a call that got as far as billing: settle the points it holds,
//! finish its idempotency record, log it, count it and record its usage,
//! exactly once (docs/billing.md "When a call is
//! charged").
//!
//! - [`Settlement::delivered`]: the answer was handed to the transport
//!   whole ([`super::delivery`]): commit, store the answer under the
//!   `Idempotency-Key`, usage `ok`.
//! - [`Settlement::failed`]: the operation failed: release, forget the key,
//!   usage with the error code.
//! - Dropped unsettled: the caller went away mid-call, or the answer could
//!   not be delivered (a reset stream, a broken connection). The hold is
//!   released at once in the background (not after the reservation's TTL),
//!   the key is forgotten so a retry runs, usage `cancelled`.
//!
//! A handler that took the hold over (a task, docs/tasks.md "Billing")
//! settles it itself; then only the record-keeping is left here.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use super::in_flight::InFlightGuard;
use crate::billing::{DeliveredCall, Ledger, UsageRecord};
use crate::metrics::Metrics;
use crate::registry::CallContext;
use mediaops_proto::error::ServiceError;

/// Usage outcome of a call dropped before its answer was delivered.
pub const CANCELLED: &str = "cancelled";

/// What is left to do for one call; see the module docs.
pub struct Settlement {
    ledger: Arc<dyn Ledger>,
    metrics: Arc<Metrics>,
    ctx: CallContext,
    /// The `Idempotency-Key` whose record this call finishes.
    idempotency_key: Option<String>,
    /// A stored answer replayed under its key: nothing to settle or store.
    replay: bool,
    started: Instant,
    settled: bool,
    /// Counts the call in flight until it is settled (also when it is
    /// dropped and released in the background).
    in_flight: Option<InFlightGuard>,
    /// The answer is stored under the `Idempotency-Key` already
    /// ([`Settlement::store_answer`]).
    answer_stored: bool,
    /// The span the call ran in (the gateway's request span, naming the
    /// trace id): the settling done on other tasks logs in it too.
    span: tracing::Span,
}

impl Settlement {
    /// The settlement of the call `ctx`, started at `started`, holding
    /// whatever `ctx.hold` holds now or later.
    pub fn new(
        ledger: Arc<dyn Ledger>,
        metrics: Arc<Metrics>,
        ctx: CallContext,
        idempotency_key: Option<String>,
        started: Instant,
    ) -> Settlement {
        let in_flight = Some(metrics.in_flight.enter());
        let span = tracing::Span::current();
        Settlement {
            ledger,
            metrics,
            ctx,
            idempotency_key,
            replay: false,
            started,
            settled: false,
            in_flight,
            answer_stored: false,
            span,
        }
    }

    /// The settlement of an answer replayed under its `Idempotency-Key`:
    /// free, and the stored record is left as it is.
    pub fn replay(ledger: Arc<dyn Ledger>, metrics: Arc<Metrics>, ctx: CallContext, started: Instant) -> Settlement {
        let mut settlement = Settlement::new(ledger, metrics, ctx, None, started);
        settlement.replay = true;
        settlement
    }

    /// Whether this answer is a stored one replayed under its
    /// `Idempotency-Key` (sent as `idempotent-replayed: true`).
    pub fn is_replay(&self) -> bool {
        self.replay
    }

    /// The call's context (warnings, task id).
    pub fn context(&self) -> &CallContext {
        &self.ctx
    }

    /// Stores the successful `answer` under the call's `Idempotency-Key`
    /// before it is sent, so a retry the client makes as soon as it has the
    /// answer gets it replayed rather than 409 "still running". If the
    /// answer is then not delivered, the key is forgotten again with the
    /// release (a retry runs; one that came in between got the answer
    /// replayed, free).
    pub async fn store_answer(&mut self, answer: &Bytes) {
        if self.idempotency_key.is_some() && !self.replay {
            self.finish_idempotency(Some(answer)).await;
            self.answer_stored = true;
        }
    }

    /// The span the call ran in, for the work that settles it elsewhere.
    pub fn span(&self) -> tracing::Span {
        self.span.clone()
    }

    /// The answer went out whole: commit the hold and keep `answer` under
    /// the idempotency key. Returns the points charged.
    pub async fn delivered(mut self, answer: &Bytes) -> i64 {
        self.settled = true;
        let outcome = if self.replay { "replayed" } else { "ok" };
        let mut points = 0;
        if let Some(hold) = self.ctx.hold.close() {
            let record = self.usage_record(hold.points, outcome);
            let committed = self.ledger.commit_and_record(&hold.account_id, &hold.reservation_id, &record).await;
            points = charged(&self.ctx, committed, hold.points);
        } else {
            self.record(points, outcome).await;
        }
        if !self.answer_stored {
            self.finish_idempotency(Some(answer)).await;
        }
        self.done().log_delivered(outcome, points);
        points
    }

    /// [`Settlement::delivered`] for a caller that cannot wait (the
    /// in-process gateway, told from its listener that the answer was
    /// written). The call's commit and usage line go to the ledger with the
    /// rest of the call (metrics, the access log line) as their
    /// continuation ([`Ledger::commit_and_record_then`]): no task of its
    /// own (docs/performance.md "The settlement as the group commit's
    /// continuation"). A call whose answer is still to be stored under its
    /// `Idempotency-Key` is settled by [`Settlement::delivered`] on a task
    /// of its own, in the call's span.
    pub fn delivered_in_background(mut self, answer: Bytes) {
        if self.idempotency_key.is_some() && !self.answer_stored {
            let span = self.span.clone();
            tokio::spawn(tracing::Instrument::instrument(async move { self.delivered(&answer).await }, span));
            return;
        }
        self.settled = true;
        let outcome = if self.replay { "replayed" } else { "ok" };
        let hold = self.ctx.hold.close();
        let held = hold.as_ref().map(|hold| hold.points);
        let record = self.usage_record(held.unwrap_or(0), outcome);
        let (account_id, reservation_id) = match hold {
            Some(hold) => (hold.account_id, Some(hold.reservation_id)),
            None => (record.account_id.clone(), None),
        };
        let call = DeliveredCall { account_id, reservation_id, record };
        let done = self.done();
        let then = Box::new(move |settled: Result<bool, ServiceError>| {
            done.span.in_scope(|| {
                let points = match held {
                    Some(points) => charged(&done.ctx, settled, points),
                    None => {
                        if let Err(e) = settled {
                            unrecorded(&done.ctx, &e);
                        }
                        0
                    }
                };
                done.log_delivered(outcome, points);
            });
        });
        // In the call's span: a ledger that settles on a task of its own
        // (the default of `commit_and_record_then`) logs there.
        self.span.in_scope(|| self.ledger.clone().commit_and_record_then(call, then));
    }

    /// What is left of a settled call: its counting and its log line.
    fn done(&mut self) -> Done {
        Done {
            metrics: self.metrics.clone(),
            ctx: self.ctx.clone(),
            started: self.started,
            span: self.span.clone(),
            _in_flight: self.in_flight.take(),
        }
    }

    /// The operation failed with `error`: release the hold, forget the key,
    /// record the usage. The caller logs and counts the failure.
    pub async fn failed(mut self, error: &ServiceError) {
        self.settled = true;
        if error.code == mediaops_proto::error_code::ErrorCode::BillingUnavailable {
            // The ledger is down or slow: waiting for it here would only
            // delay the 503 past its bound (docs/billing.md "Failing
            // closed"). The bookkeeping goes on behind the answer.
            let code = error.code.as_str();
            tokio::spawn(async move {
                self.release().await;
                self.finish_idempotency(None).await;
                self.record(0, code).await;
            });
            return;
        }
        self.release().await;
        self.finish_idempotency(None).await;
        self.record(0, error.code.as_str()).await;
    }

    async fn release(&self) {
        if let Some(hold) = self.ctx.hold.close()
            && let Err(e) = self.ledger.release(&hold.account_id, &hold.reservation_id).await
        {
            tracing::warn!(request_id = self.ctx.request_id, error = %e, "release failed; the ledger releases it again once it answers, or it expires");
        }
    }

    async fn finish_idempotency(&self, answer: Option<&Bytes>) {
        let Some(key) = &self.idempotency_key else { return };
        let stored = answer.map(|bytes| bytes.as_ref());
        if let Err(e) = self.ledger.idempotency_finish(self.ctx.account_id(), key, stored).await {
            tracing::warn!(request_id = self.ctx.request_id, error = %e, "idempotency record not finished");
        }
    }

    fn usage_record(&self, points: i64, outcome: &str) -> UsageRecord {
        UsageRecord {
            request_id: self.ctx.request_id.clone(),
            account_id: self.ctx.principal.account_id.clone(),
            operation_key: self.ctx.operation.key().to_owned(),
            points,
            outcome: outcome.to_owned(),
            at: mediaops_proto::log_time::millis_text(std::time::SystemTime::now()),
        }
    }

    async fn record(&self, points: i64, outcome: &str) {
        let record = self.usage_record(points, outcome);
        if let Err(e) = self.ledger.record_usage(&record).await {
            unrecorded(&self.ctx, &e);
        }
    }

    /// The caller went away or the answer was lost: release now.
    async fn abandon(self) {
        self.release().await;
        self.finish_idempotency(None).await;
        self.record(0, CANCELLED).await;
        let elapsed = self.started.elapsed();
        self.metrics.observe_call(self.ctx.operation.key(), CANCELLED, elapsed, 0);
        tracing::info!(
            request_id = self.ctx.request_id,
            trace_id = self.ctx.trace_id.as_deref(),
            operation = self.ctx.operation.key(),
            account = self.ctx.account_id(),
            code = CANCELLED,
            points = 0,
            elapsed_ms = mediaops_proto::logging::elapsed_ms(elapsed),
            "cancelled: the answer was not delivered; nothing was charged"
        );
    }
}

/// The points a delivered call was charged: the hold's `points` when its
/// commit went through; 0 when the reservation had expired or the commit
/// failed (logged here; the ledger releases a reservation whose commit got
/// no answer, so the call ends up free rather than lost, or charged if the
/// commit ran after all).
fn charged(ctx: &CallContext, committed: Result<bool, ServiceError>, points: i64) -> i64 {
    match committed {
        Ok(true) => points,
        Ok(false) => {
            tracing::warn!(request_id = ctx.request_id, "the reservation had expired: the call is free");
            0
        }
        Err(e) => {
            tracing::error!(request_id = ctx.request_id, error = %e, "commit or usage failed; the reservation is released");
            0
        }
    }
}

/// Logs that the usage record of `ctx` could not be written.
fn unrecorded(ctx: &CallContext, error: &ServiceError) {
    tracing::warn!(request_id = ctx.request_id, error = %error, "usage not recorded");
}

/// A delivered call once its ledger work is done: what counts and logs it.
struct Done {
    metrics: Arc<Metrics>,
    ctx: CallContext,
    started: Instant,
    span: tracing::Span,
    /// The call is in flight until this is dropped.
    _in_flight: Option<InFlightGuard>,
}

impl Done {
    /// Counts the delivered call and writes its access log line (`ok`),
    /// in the span the caller entered.
    fn log_delivered(&self, outcome: &str, points: i64) {
        let elapsed = self.started.elapsed();
        self.metrics.observe_call(self.ctx.operation.key(), "ok", elapsed, points);
        tracing::info!(
            request_id = self.ctx.request_id,
            trace_id = self.ctx.trace_id.as_deref(),
            operation = self.ctx.operation.key(),
            account = self.ctx.account_id(),
            code = outcome,
            status = 200,
            points,
            elapsed_ms = mediaops_proto::logging::elapsed_ms(elapsed),
            "ok"
        );
    }
}

impl Drop for Settlement {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        self.settled = true;
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!(request_id = self.ctx.request_id, "call dropped outside the runtime; its hold expires");
            return;
        };
        let unsettled = Settlement {
            ledger: self.ledger.clone(),
            metrics: self.metrics.clone(),
            ctx: self.ctx.clone(),
            idempotency_key: self.idempotency_key.take(),
            replay: self.replay,
            started: self.started,
            settled: true,
            in_flight: self.in_flight.take(),
            answer_stored: self.answer_stored,
            span: self.span.clone(),
        };
        runtime.spawn(tracing::Instrument::instrument(unsettled.abandon(), self.span.clone()));
    }
}
