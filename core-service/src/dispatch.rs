//! The call pipeline in front of every operation, and the gRPC service that
//! runs it for every RPC of the registry.
//!
//! Order (ARCHITECTURE.md; billing issue item 2):
//! 1. authenticate the key (401), or the admin token for `kind: admin` RPCs;
//! 2. refuse operations under maintenance, declared or switched at run time
//!    ([`crate::maintenance`]; 503, nothing run or charged);
//! 3. validate the request (400; never reaches billing);
//! 4. refuse operations not built yet (503 `not_implemented`, not charged);
//! 5. price it from its metadata ([`crate::billing::pricing`]);
//! 6. `Idempotency-Key`: replay a stored answer, or refuse a concurrent or
//!    different request under the same key (409);
//! 7. reserve the price (402 when the balance is short: nothing runs);
//! 8. run, within the operation timeout;
//! 9. commit on success, release on any failure (502 upstream failures
//!    included); record usage. A handler whose work outlives the call (a
//!    task) takes the hold over and settles it when the task ends
//!    (docs/tasks.md "Billing"); such an operation may have its own timing
//!    ([`Registry::set_limits`]).
//!
//! A ledger that cannot be reached fails the call with 503
//! `billing_unavailable`: nothing runs for free.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use mediaops_proto::codec::BytesCodec;
use mediaops_proto::error_code::ErrorCode;
use prost_reflect::DynamicMessage;
use sha2::{Digest, Sha256};
use tonic::metadata::{MetadataMap, MetadataValue};

use crate::auth::Principal;
use crate::billing::hold::Hold;
use crate::billing::pricing::Pricing;
use crate::billing::{IdempotencyBegin, Ledger, Reserved, UsageRecord};
use crate::error::ServiceError;
use crate::registry::{BoxFuture, CallContext, OperationInfo, Registry};
use crate::validate::RequiredFields;

/// Metadata key of the request id, in both directions.
pub const REQUEST_ID: &str = mediaops_proto::request_id::HEADER;

/// Metadata key (and HTTP header) of the idempotency key.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// Timing bounds of a call.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// After this an unsettled reservation is released.
    pub reservation_ttl: Duration,
    /// A handler running longer fails with 502 and its charge is released.
    /// Always below `reservation_ttl`, so a commit never finds its
    /// reservation expired.
    pub operation_timeout: Duration,
}

/// Everything the pipeline needs, shared by all calls.
pub struct Pipeline {
    pub registry: Registry,
    pub ledger: Arc<dyn Ledger>,
    pub required: RequiredFields,
    pub pricing: Pricing,
    /// Bearer token of the admin RPCs; `None` disables them.
    pub admin_token: Option<String>,
    pub limits: Limits,
    /// Per-operation counters served at `GET /metrics`.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Declared and run-time maintenance (step 2).
    pub maintenance: Arc<crate::maintenance::Maintenance>,
}

/// What a finished call leaves for the log.
struct Outcome {
    account: String,
    points: i64,
    /// The answer's warnings (sent as response metadata).
    warnings: Vec<String>,
    /// The task the call started, if its answer has no field for it (sent
    /// as response metadata).
    task_id: Option<String>,
}

impl Pipeline {
    /// Runs one call of `op` end to end; the error carries the request id.
    async fn call(
        &self,
        op: &Arc<OperationInfo>,
        request: tonic::Request<Bytes>,
    ) -> Result<tonic::Response<Bytes>, tonic::Status> {
        let started = Instant::now();
        let request_id = request_id(request.metadata());
        let outcome = self.run(op, &request_id, request).await;
        let elapsed = started.elapsed();
        let elapsed_ms = elapsed.as_secs_f64() * 1e3;
        match outcome {
            Ok((bytes, Outcome { account, points, warnings, task_id })) => {
                self.metrics.observe_call(op.key(), "ok", elapsed, points);
                tracing::info!(request_id, operation = op.key(), account, points, elapsed_ms, "ok");
                let mut response = tonic::Response::new(bytes);
                insert_request_id(response.metadata_mut(), &request_id);
                for warning in warnings {
                    response.metadata_mut().append_bin(
                        crate::registry::WARNINGS_METADATA,
                        tonic::metadata::BinaryMetadataValue::from_bytes(warning.as_bytes()),
                    );
                }
                if let Some(value) = task_id.and_then(|id| tonic::metadata::MetadataValue::try_from(id).ok()) {
                    response.metadata_mut().insert(crate::registry::TASK_ID_METADATA, value);
                }
                Ok(response)
            }
            Err(error) => {
                self.metrics.observe_call(op.key(), error.code.as_str(), elapsed, 0);
                tracing::info!(request_id, operation = op.key(), code = %error.code, elapsed_ms, "failed");
                let mut status = error.to_status();
                insert_request_id(status.metadata_mut(), &request_id);
                Err(status)
            }
        }
    }

    async fn run(
        &self,
        op: &Arc<OperationInfo>,
        request_id: &str,
        request: tonic::Request<Bytes>,
    ) -> Result<(Bytes, Outcome), ServiceError> {
        let metadata = request.metadata().clone();
        let principal = self.authenticate(op, &metadata).await?;
        if let Some(note) = self.maintenance.note_if_down(op).await {
            return Err(ServiceError::new(
                ErrorCode::Maintenance,
                format!("{} is under maintenance and was not run or charged: {note}", op.key()),
            ));
        }
        let body = request.into_inner();
        let message = DynamicMessage::decode(op.method.input(), body.clone()).map_err(|e| {
            ServiceError::new(
                ErrorCode::InvalidInput,
                format!("the request is not a valid {}: {e}", op.method.input().full_name()),
            )
        })?;
        self.required.check(&message)?;
        if !self.registry.is_implemented(&op.grpc_path) {
            return Err(ServiceError::new(
                ErrorCode::NotImplemented,
                format!(
                    "{} is modelled but not implemented yet: no data source is built for it; nothing was charged",
                    op.key()
                ),
            ));
        }
        let price = self.pricing.rule(&op.grpc_path).price(&message)?;
        let ctx = CallContext::new(request_id.to_owned(), principal, op.clone());
        let limits = self.registry.limits(&op.grpc_path).unwrap_or(self.limits);

        let idempotency = idempotency_key(&metadata)?;
        if let Some(key) = &idempotency {
            let fingerprint = hex::encode(Sha256::new().chain_update(op.key()).chain_update(&body).finalize());
            match self.ledger.idempotency_begin(ctx.account_id(), key, &fingerprint, limits.reservation_ttl).await? {
                IdempotencyBegin::New => {}
                IdempotencyBegin::Replay { same_request: true, response } => {
                    self.record(&ctx, 0, "replayed").await;
                    let outcome =
                        Outcome { account: ctx.principal.account_id, points: 0, warnings: Vec::new(), task_id: None };
                    return Ok((Bytes::from(response), outcome));
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

        let result = self.charge_and_run(&ctx, price, body, limits).await;
        if let Some(key) = &idempotency {
            let stored = result.as_ref().ok().map(|(bytes, _)| bytes.as_ref());
            if let Err(e) = self.ledger.idempotency_finish(ctx.account_id(), key, stored).await {
                tracing::warn!(request_id, error = %e, "idempotency record not finished");
            }
        }
        let outcome = match &result {
            Ok((_, points)) => ("ok", *points),
            Err(error) => (error.code.as_str(), 0),
        };
        self.record(&ctx, outcome.1, outcome.0).await;
        let (warnings, task_id) = (ctx.warnings.list(), ctx.task_id.get());
        result.map(|(bytes, points)| {
            (bytes, Outcome { account: ctx.principal.account_id.clone(), points, warnings, task_id })
        })
    }

    /// Reserve → run → commit or release. Returns the answer and the points
    /// kept; 0 when the handler took the hold over to settle it itself
    /// (a task: docs/tasks.md "Billing").
    async fn charge_and_run(
        &self,
        ctx: &CallContext,
        price: i64,
        body: Bytes,
        limits: Limits,
    ) -> Result<(Bytes, i64), ServiceError> {
        let handler = self.registry.handler(&ctx.operation.grpc_path).expect("checked before");
        let reservation = uuid::Uuid::new_v4().to_string();
        let account = ctx.account_id().to_owned();
        if price > 0 {
            match self.ledger.reserve(&account, &reservation, price, limits.reservation_ttl).await? {
                Reserved::Held { .. } => ctx.hold.put(Hold {
                    account_id: account.clone(),
                    reservation_id: reservation.clone(),
                    points: price,
                }),
                Reserved::Insufficient { balance } => {
                    return Err(ServiceError::new(
                        ErrorCode::InsufficientPoints,
                        format!(
                            "{} costs {price} points and the balance is {balance}; nothing was run or charged",
                            ctx.operation.key()
                        ),
                    ));
                }
            }
        }
        let result = match tokio::time::timeout(limits.operation_timeout, handler(ctx.clone(), body)).await {
            Ok(result) => result,
            Err(_) => Err(ServiceError::new(
                ErrorCode::UpstreamUnavailable,
                format!(
                    "{} did not finish within {} s; nothing was charged",
                    ctx.operation.key(),
                    limits.operation_timeout.as_secs()
                ),
            )),
        };
        if price == 0 || ctx.hold.take().is_none() {
            return result.map(|bytes| (bytes, 0));
        }
        match result {
            Ok(bytes) => {
                if let Err(e) = self.ledger.commit(&account, &reservation).await {
                    // The work is done; the reservation expires and is
                    // released, so the call ends up free rather than lost.
                    tracing::error!(request_id = ctx.request_id, error = %e, "commit failed; the reservation will be released");
                }
                Ok((bytes, price))
            }
            Err(error) => {
                if let Err(e) = self.ledger.release(&account, &reservation).await {
                    tracing::warn!(request_id = ctx.request_id, error = %e, "release failed; the reservation expires instead");
                }
                Err(error)
            }
        }
    }

    /// The caller: an API key's account, or the admin for admin RPCs.
    async fn authenticate(&self, op: &OperationInfo, metadata: &MetadataMap) -> Result<Principal, ServiceError> {
        let authorization = metadata.get("authorization").and_then(|v| v.to_str().ok());
        let token =
            mediaops_proto::bearer::parse_bearer(authorization).map_err(|e| ServiceError::unauthenticated(e.message()));
        if op.meta.kind == "admin" {
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
                Ok(Principal { account_id: "admin".into(), key_prefix: "admin".into() })
            } else {
                Err(ServiceError::unauthenticated("wrong admin token"))
            };
        }
        self.ledger.authenticate(token?).await
    }

    async fn record(&self, ctx: &CallContext, points: i64, outcome: &str) {
        let record = UsageRecord {
            request_id: ctx.request_id.clone(),
            account_id: ctx.principal.account_id.clone(),
            operation_key: ctx.operation.key().to_owned(),
            points,
            outcome: outcome.to_owned(),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        };
        if let Err(e) = self.ledger.record_usage(&record).await {
            tracing::warn!(request_id = ctx.request_id, error = %e, "usage not recorded");
        }
    }
}

/// The `idempotency-key` metadata: 1-255 printable ASCII characters.
fn idempotency_key(metadata: &MetadataMap) -> Result<Option<String>, ServiceError> {
    let Some(value) = metadata.get(IDEMPOTENCY_KEY) else { return Ok(None) };
    match value.to_str() {
        Ok(key) if (1..=255).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(key.to_owned()))
        }
        _ => Err(ServiceError::invalid_field(
            "Idempotency-Key",
            "Idempotency-Key must be 1-255 printable ASCII characters",
        )),
    }
}

fn request_id(metadata: &MetadataMap) -> String {
    mediaops_proto::request_id::accept_or_new(metadata.get(REQUEST_ID).and_then(|v| v.to_str().ok()))
}

fn insert_request_id(metadata: &mut MetadataMap, request_id: &str) {
    if let Ok(value) = MetadataValue::try_from(request_id) {
        metadata.insert(REQUEST_ID, value);
    }
}

/// The gRPC service answering every RPC of the registry (mounted as the
/// fallback of the tonic router, beside reflection and health).
#[derive(Clone)]
pub struct OperationService {
    pipeline: Arc<Pipeline>,
}

impl OperationService {
    pub fn new(pipeline: Arc<Pipeline>) -> Self {
        OperationService { pipeline }
    }
}

impl<B> tower::Service<http::Request<B>> for OperationService
where
    B: http_body::Body + Send + 'static,
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
            Ok(tonic::server::Grpc::new(BytesCodec).unary(unary, request).await)
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
