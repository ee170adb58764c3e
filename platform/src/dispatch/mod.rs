//! The call pipeline in front of every operation, and the gRPC service that
//! runs it for every RPC of the registry.
//!
//! Order (ARCHITECTURE.md; docs/billing.md "The flow"):
//! 1. authenticate the key (401), or the admin token for `kind: admin` RPCs;
//!    then take one call from the key's and the account's rate-limit cells
//!    (429 `rate_limited`: nothing run, reserved or recorded;
//!    docs/rate-limits.md, [`crate::rate_limit`]). A limited account's answers, successes
//!    included, carry the `ratelimit-policy` and `ratelimit` metadata, a
//!    429 also `retry-after` ([`mediaops_proto::rate_limit`]);
//! 2. refuse operations under maintenance, declared or switched at run time
//!    ([`crate::maintenance`]; 503, nothing run or charged);
//! 3. validate the request (400; never reaches billing), reading its wire
//!    format once from the descriptors ([`FieldChecks::check`]);
//! 4. refuse operations not built yet (503 `not_implemented`, not charged);
//! 5. price it from its metadata ([`pricing`]);
//! 6. `Idempotency-Key`: replay a stored answer, or refuse a concurrent or
//!    different request under the same key (409);
//! 7. reserve the price (402 when the balance is short: nothing runs);
//! 8. run, within the operation timeout;
//! 9. release on any failure (502 upstream failures included); commit a
//!    success only once its answer is delivered (`delivery`), for a
//!    gateway once it says it wrote the answer to its client
//!    (`acknowledgement`); release at once when the caller goes away or the
//!    answer is lost (`settlement`); record usage. A reserve the caller drops
//!    unfinished is finished in a task of its own (`finish_on_drop`), so
//!    a caller gone mid-reserve leaves no hold. A handler whose work outlives the call
//!    (a task) takes the hold over and settles it when the task ends
//!    (docs/tasks.md "Billing"); such an operation may have its own timing
//!    ([`Registry::set_limits`]).
//!
//! A ledger that cannot be reached fails the call with 503
//! `billing_unavailable`: nothing runs for free.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use mediaops_proto::codec::BytesCodec;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::options::v1::MetadataKind;
use sha2::{Digest, Sha256};
use tonic::metadata::{MetadataMap, MetadataValue};

use crate::auth::Principal;
use crate::billing::{IdempotencyBegin, Ledger, Reserved};
use crate::call::{Hold, Limits};
use crate::registry::{BoxFuture, CallContext, OperationInfo, Registry};
use crate::validate::FieldChecks;
use mediaops_proto::error::ServiceError;

mod acknowledgement;
pub mod call_stream;
mod delivery;
mod finish_on_drop;
pub mod in_process;
pub mod inside;
pub mod pricing;
pub use crate::metrics::in_flight;
mod settlement;

use delivery::{PendingSettlement, SettleOnDelivery};
use finish_on_drop::FinishOnDrop;
use pricing::Pricing;
use settlement::Settlement;

/// Everything the pipeline needs, shared by all calls.
pub struct Pipeline {
    /// Every operation and its handler.
    pub registry: Registry,
    /// Where points are reserved, settled and released (spec 8).
    pub ledger: Arc<dyn Ledger>,
    /// The required fields and string limits checked before a handler runs.
    pub required: FieldChecks,
    /// The price of each call (spec 8).
    pub pricing: Pricing,
    /// Bearer token of the admin RPCs; `None` disables them.
    pub admin_token: Option<String>,
    /// Request size and time limits.
    pub limits: Limits,
    /// Per-operation counters served at `GET /metrics`.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Declared and run-time maintenance (step 2).
    pub maintenance: Arc<crate::maintenance::Maintenance>,
    /// Per-key and per-account rate limits (step 1).
    pub rate_limiter: Arc<dyn crate::rate_limit::RateLimiter>,
    /// Feed tokens: the credential of the `feed` RPCs (docs/watchlists.md
    /// "Feeds").
    pub feed_tokens: Arc<dyn mediaops_store::feed_token::FeedTokenStore>,
}

/// What identifies one call in its log lines, and when it arrived.
#[derive(Clone, Copy)]
struct Call<'a> {
    request_id: &'a str,
    trace_id: Option<&'a str>,
    started: Instant,
}

/// The trace id of the call's `traceparent` metadata (set by the gateway
/// from a client's well-formed header, or by a gRPC client); `None` when
/// absent or malformed.
fn trace_id(metadata: &MetadataMap) -> Option<String> {
    let value = metadata.get(&*mediaops_proto::keys::metadata::TRACEPARENT)?.to_str().ok()?;
    mediaops_proto::traceparent::trace_id(value.trim_matches([' ', '\t'])).map(str::to_owned)
}

/// A successful call's answer, with what is left to do once it is delivered.
struct Answer {
    bytes: Bytes,
    settlement: Settlement,
}

impl Pipeline {
    /// Runs one call of `op` end to end; the error carries the request id.
    /// A success carries its [`PendingSettlement`] in the response
    /// extensions: it is settled when the answer is delivered
    /// ([`delivery`]).
    async fn call(
        &self,
        op: &Arc<OperationInfo>,
        request: tonic::Request<Bytes>,
    ) -> Result<tonic::Response<Bytes>, tonic::Status> {
        let started = Instant::now();
        let request_id = request_id(request.metadata());
        let trace_id = trace_id(request.metadata());
        let (account, verdict, outcome) = match self.authenticate(op, request.metadata()).await {
            Ok(principal) => {
                let account = Some(principal.account_id.clone());
                match self.rate_limit(op, &principal).await {
                    Err(error) => (account, None, Err(error)),
                    Ok(Some(verdict)) if !verdict.allowed => (account, Some(verdict), Err(verdict.error())),
                    Ok(verdict) => {
                        let call = Call { request_id: &request_id, trace_id: trace_id.as_deref(), started };
                        (account, verdict, self.run(op, call, principal, request).await)
                    }
                }
            }
            Err(error) => (None, None, Err(error)),
        };
        match outcome {
            Ok(Answer { bytes, mut settlement }) => {
                settlement.store_answer(&bytes).await;
                let mut response = tonic::Response::new(bytes.clone());
                insert_request_id(response.metadata_mut(), &request_id);
                if let Some(verdict) = &verdict {
                    verdict.write(response.metadata_mut());
                }
                let ctx = settlement.context();
                for warning in ctx.warnings.list() {
                    response.metadata_mut().append_bin(
                        &*mediaops_proto::keys::metadata::WARNINGS,
                        tonic::metadata::BinaryMetadataValue::from_bytes(warning.as_bytes()),
                    );
                }
                if let Some(value) = ctx.task_id.get().and_then(|id| tonic::metadata::MetadataValue::try_from(id).ok())
                {
                    response.metadata_mut().insert(&*mediaops_proto::keys::metadata::TASK_ID, value);
                }
                if settlement.is_replay() {
                    use mediaops_proto::idempotency::REPLAYED_VALUE;
                    let key = &*mediaops_proto::keys::metadata::IDEMPOTENT_REPLAYED;
                    response.metadata_mut().insert(key, MetadataValue::from_static(REPLAYED_VALUE));
                }
                response.extensions_mut().insert(PendingSettlement::new(settlement, bytes));
                Ok(response)
            }
            Err(error) => {
                let elapsed = started.elapsed();
                self.metrics.observe_call(op.key(), error.code.as_str(), elapsed, 0);
                let error = self.hide_internal(error, &request_id, op.key());
                tracing::info!(
                    request_id,
                    trace_id = trace_id.as_deref(),
                    operation = op.key(),
                    account = account.as_deref().unwrap_or("-"),
                    code = %error.code,
                    status = error.code.http_status(),
                    points = 0,
                    elapsed_ms = mediaops_proto::logging::elapsed_ms(elapsed),
                    "failed"
                );
                let mut status = error.status(Some(&request_id));
                insert_request_id(status.metadata_mut(), &request_id);
                if let Some(verdict) = &verdict {
                    verdict.write(status.metadata_mut());
                }
                Err(status)
            }
        }
    }

    /// An `internal` error's text may hold anything (a database's message,
    /// a path): it is logged with the request id and the client gets the
    /// request id only (docs/errors.md "Limits of a request").
    fn hide_internal(&self, error: ServiceError, request_id: &str, operation: &str) -> ServiceError {
        if error.code != ErrorCode::Internal {
            return error;
        }
        tracing::error!(
            request_id,
            operation,
            error = %mediaops_proto::excerpt::cap_message(&error.message),
            "internal error"
        );
        ServiceError::internal(format!(
            "internal error; the operator can find it in the log under request id {request_id}"
        ))
    }

    async fn run(
        &self,
        op: &Arc<OperationInfo>,
        call: Call<'_>,
        principal: Principal,
        request: tonic::Request<Bytes>,
    ) -> Result<Answer, ServiceError> {
        let Call { request_id, trace_id, started } = call;
        // Read now (the request is consumed below), answered in its turn.
        let idempotency = idempotency_key(request.metadata());
        if let Some(note) = self.maintenance.note_if_down(op).await {
            return Err(ServiceError::new(
                ErrorCode::Maintenance,
                format!("{} is under maintenance and was not run or charged: {note}", op.key()),
            ));
        }
        let body = request.into_inner();
        // The request is read once, from the wire, for its checks and its
        // price; the handler decodes its own typed message.
        let request = self.required.check(&op.method.input(), &body)?;
        if !self.registry.is_implemented(&op.grpc_path) {
            return Err(ServiceError::new(
                ErrorCode::NotImplemented,
                format!(
                    "{} is modelled but not implemented yet: no data source is built for it; nothing was charged",
                    op.key()
                ),
            ));
        }
        let price = self.pricing.rule(&op.grpc_path).price(&request)?;
        drop(request); // its records borrow `body`, which the handler takes
        let ctx = CallContext::traced(request_id.to_owned(), principal, op.clone(), trace_id.map(str::to_owned));
        let limits = self.registry.limits(&op.grpc_path).unwrap_or(self.limits);

        let idempotency = idempotency?;
        if let Some(key) = &idempotency {
            let fingerprint = hex::encode(Sha256::new().chain_update(op.key()).chain_update(&body).finalize());
            match self.ledger.idempotency_begin(ctx.account_id(), key, &fingerprint, limits.reservation_ttl).await? {
                IdempotencyBegin::New => {}
                IdempotencyBegin::Replay { same_request: true, response } => {
                    let settlement = Settlement::replay(self.ledger.clone(), self.metrics.clone(), ctx, started);
                    return Ok(Answer { bytes: Bytes::from(response), settlement });
                }
                IdempotencyBegin::Replay { same_request: false, .. } => {
                    return Err(ServiceError::new(
                        ErrorCode::Conflict,
                        "this Idempotency-Key was used for a different request in the last 24 hours",
                    ));
                }
                IdempotencyBegin::InProgress => {
                    return Err(ServiceError::new(
                        ErrorCode::Conflict,
                        "a request with this Idempotency-Key is still running; retry later",
                    ));
                }
            }
        }
        // From here on the call owns an idempotency record and, after
        // reserving, a hold: the settlement finishes both however the call
        // ends, also when this future is dropped (the caller went away).
        let settlement = Settlement::new(self.ledger.clone(), self.metrics.clone(), ctx.clone(), idempotency, started);
        match self.charge_and_run(&ctx, price, body, limits).await {
            Ok(bytes) => Ok(Answer { bytes, settlement }),
            Err(error) => {
                settlement.failed(&error).await;
                Err(error)
            }
        }
    }

    /// Reserve, then run within the timeout. The hold is left in
    /// `ctx.hold` for the settlement (or taken over by the handler: a task,
    /// docs/tasks.md "Billing").
    async fn charge_and_run(
        &self,
        ctx: &CallContext,
        price: i64,
        body: Bytes,
        limits: Limits,
    ) -> Result<Bytes, ServiceError> {
        let handler = self.registry.handler(&ctx.operation.grpc_path).expect("checked before");
        if price > 0 {
            let hold = Hold {
                account_id: ctx.account_id().to_owned(),
                reservation_id: uuid::Uuid::new_v4().to_string(),
                points: price,
            };
            match self.reserve(ctx, hold, limits.reservation_ttl).await? {
                Reserved::Held { .. } => {}
                Reserved::Insufficient { balance } => {
                    return Err(ServiceError::new(
                        ErrorCode::InsufficientPoints,
                        format!(
                            "{} costs {price} {} and the balance is {balance}; nothing was run or charged",
                            ctx.operation.key(),
                            if price == 1 { "point" } else { "points" }
                        ),
                    ));
                }
            }
        }
        match tokio::time::timeout(limits.operation_timeout, handler(ctx.clone(), body)).await {
            Ok(result) => result,
            Err(_) => Err(ServiceError::new(
                ErrorCode::UpstreamUnavailable,
                format!(
                    "{} did not finish within {} s; nothing was charged",
                    ctx.operation.key(),
                    limits.operation_timeout.as_secs()
                ),
            )),
        }
    }

    /// Reserves `hold` and puts it in `ctx.hold`, in this task, but
    /// finished in a task of its own when this future is dropped first
    /// ([`FinishOnDrop`]): a caller that goes away while the ledger answers
    /// (its connection dropped this future) cannot leave the reservation
    /// unrecorded. If the call was settled meanwhile, what was reserved is
    /// released at once ([`crate::call::HoldSlot::close`]).
    async fn reserve(&self, ctx: &CallContext, hold: Hold, ttl: std::time::Duration) -> Result<Reserved, ServiceError> {
        let (ledger, slot, request_id) = (self.ledger.clone(), ctx.hold.clone(), ctx.request_id.clone());
        FinishOnDrop::new(async move {
            let reserved = ledger.reserve(&hold.account_id, &hold.reservation_id, hold.points, ttl).await;
            if let Ok(Reserved::Held { .. }) = &reserved
                && let Err(hold) = slot.put(hold)
                && let Err(e) = ledger.release(&hold.account_id, &hold.reservation_id).await
            {
                tracing::warn!(request_id, error = %e, "the release of a call gone away failed; the ledger retries it");
            }
            reserved
        })
        .await
    }

    /// Takes one call from the caller's rate-limit cells; `None` for an
    /// account without a limit and for admin RPCs (the admin token is not
    /// limited).
    async fn rate_limit(
        &self,
        op: &OperationInfo,
        principal: &Principal,
    ) -> Result<Option<crate::rate_limit::Verdict>, ServiceError> {
        if op.meta.kind() == MetadataKind::Admin {
            return Ok(None);
        }
        self.rate_limiter.check(&principal.account_id, &principal.key_id).await
    }

    /// The caller: an API key's account, the admin for admin RPCs, or a
    /// feed token's account for `feed` RPCs (its `key_id` names the feed,
    /// [`crate::auth::feed_principal_key_id`]; an API key does not open a feed,
    /// a feed token opens nothing else).
    async fn authenticate(&self, op: &OperationInfo, metadata: &MetadataMap) -> Result<Principal, ServiceError> {
        let authorization = metadata.get(&*mediaops_proto::keys::metadata::AUTHORIZATION).and_then(|v| v.to_str().ok());
        let token =
            mediaops_proto::bearer::parse_bearer(authorization).map_err(|e| ServiceError::unauthenticated(e.message()));
        if op.meta.kind() == MetadataKind::Feed {
            let token = token?;
            let hash = crate::auth::keys::hash_key(token);
            return match self.feed_tokens.find_feed_token(&hash).await? {
                Some((account_id, feed)) => Ok(Principal {
                    account_id,
                    key_id: crate::auth::feed_principal_key_id(&feed),
                    key_prefix: crate::auth::keys::display_prefix(token),
                }),
                // An API key in a feed URL is a common slip: say so, rather
                // than that a token was revoked.
                None if self.ledger.authenticate(token).await.is_ok() => Err(ServiceError::unauthenticated(
                    "an API key does not open a feed: a feed is opened by its own feed token (`token=mf_…`); \
                     POST /api/feeds/tokens with the feed's name makes one and answers the feed's URL with it",
                )),
                None => Err(ServiceError::unauthenticated(
                    "this feed token is not valid: it was rotated or revoked (POST /api/feeds/tokens makes a new one)",
                )),
            };
        }
        if op.meta.kind() == MetadataKind::Admin {
            let Some(expected) = &self.admin_token else {
                return Err(ServiceError::new(
                    ErrorCode::Forbidden,
                    "the admin API is disabled: set MEDIAOPS_ADMIN_TOKEN",
                ));
            };
            let given = token?;
            let equal = given.len() == expected.len()
                && given.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
            return if equal {
                Ok(Principal { account_id: "admin".into(), key_id: "admin".into(), key_prefix: "admin".into() })
            } else {
                Err(ServiceError::unauthenticated("wrong admin token"))
            };
        }
        self.ledger.authenticate(token?).await
    }
}

/// The `idempotency-key` metadata, if it keeps the rule
/// ([`mediaops_proto::idempotency::is_well_formed`]); else a 400 naming it.
fn idempotency_key(metadata: &MetadataMap) -> Result<Option<String>, ServiceError> {
    use mediaops_proto::idempotency::{RULE, is_well_formed};
    let Some(value) = metadata.get(&*mediaops_proto::keys::metadata::IDEMPOTENCY_KEY) else { return Ok(None) };
    match value.to_str() {
        Ok(key) if is_well_formed(key) => Ok(Some(key.to_owned())),
        _ => Err(ServiceError::invalid_field("Idempotency-Key", RULE)),
    }
}

fn request_id(metadata: &MetadataMap) -> String {
    mediaops_proto::request_id::accept_or_new(
        metadata.get(&*mediaops_proto::keys::metadata::REQUEST_ID).and_then(|v| v.to_str().ok()),
    )
}

fn insert_request_id(metadata: &mut MetadataMap, request_id: &str) {
    if let Ok(mut value) = MetadataValue::try_from(request_id) {
        // Each call's id is new: HPACK sends it without adding it to the
        // connection's header table, where it would only push out the
        // values that repeat (docs/performance.md "Request ids outside the header tables").
        value.set_sensitive(true);
        metadata.insert(&*mediaops_proto::keys::metadata::REQUEST_ID, value);
    }
}

/// The gRPC service answering every RPC of the registry (mounted as the
/// fallback of the tonic router, beside reflection and health).
#[derive(Clone)]
pub struct OperationService {
    pipeline: Arc<Pipeline>,
}

impl OperationService {
    /// The gRPC service that runs every call through `pipeline`.
    pub fn new(pipeline: Arc<Pipeline>) -> Self {
        OperationService { pipeline }
    }
}

impl<B> tower::Service<http::Request<B>> for OperationService
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>> + Send,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let pipeline = self.pipeline.clone();
        Box::pin(async move {
            let Some(op) = pipeline.registry.get(request.uri().path()).cloned() else {
                let status = tonic::Status::unimplemented(format!("unknown method {}", request.uri().path()));
                return Ok(status.into_http());
            };
            let unary = UnaryCall { pipeline, op };
            let acknowledging = request
                .headers()
                .get(mediaops_proto::keys::header::DELIVERY_ACK)
                .is_some_and(|v| v == mediaops_proto::delivery::ACK_VALUE);
            let (parts, body) = request.into_parts();
            let (first, ack) = acknowledgement::split(body, acknowledging);
            let request = http::Request::from_parts(parts, first);
            let mut response = tonic::server::Grpc::new(BytesCodec).unary(unary, request).await;
            let pending = response.extensions_mut().remove::<PendingSettlement>().and_then(|p| p.take());
            Ok(match pending {
                Some((settlement, answer)) => {
                    response.map(|body| tonic::body::Body::new(SettleOnDelivery::new(body, settlement, answer, ack)))
                }
                None => response,
            })
        })
    }
}

struct UnaryCall {
    pipeline: Arc<Pipeline>,
    op: Arc<OperationInfo>,
}

impl tonic::server::UnaryService<Bytes> for UnaryCall {
    type Response = Bytes;
    type Future = BoxFuture<Result<tonic::Response<Bytes>, tonic::Status>>;

    fn call(&mut self, request: tonic::Request<Bytes>) -> Self::Future {
        let pipeline = self.pipeline.clone();
        let op = self.op.clone();
        Box::pin(async move { pipeline.call(&op, request).await })
    }
}
