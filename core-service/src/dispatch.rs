//! The call pipeline in front of every operation, and the gRPC service that
//! runs it for every RPC of the registry.
//!
//! Order (ARCHITECTURE.md): authenticate the key → refuse operations under
//! maintenance → validate the request → run the handler. Operations without a
//! handler answer 503 `not_implemented` naming the operation. The billing
//! issue adds reserve/commit/release around "run".

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use mediaops_proto::codec::BytesCodec;
use mediaops_proto::error_code::ErrorCode;
use prost_reflect::DynamicMessage;
use tonic::metadata::{MetadataMap, MetadataValue};

use crate::auth::KeyStore;
use crate::error::ServiceError;
use crate::registry::{BoxFuture, CallContext, OperationInfo, Registry};
use crate::usage::UsageCounters;
use crate::validate::RequiredFields;

/// Metadata key of the request id, in both directions.
pub const REQUEST_ID: &str = mediaops_proto::request_id::HEADER;

/// Everything the pipeline needs, shared by all calls.
pub struct Pipeline {
    pub registry: Registry,
    pub keys: Arc<dyn KeyStore>,
    pub required: RequiredFields,
    pub usage: Arc<UsageCounters>,
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
        let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
        let mut response = match outcome {
            Ok((bytes, account)) => {
                tracing::info!(request_id, operation = op.key(), account, elapsed_ms, "ok");
                tonic::Response::new(bytes)
            }
            Err(error) => {
                tracing::info!(request_id, operation = op.key(), code = %error.code, elapsed_ms, "failed");
                let mut status = error.to_status();
                insert_request_id(status.metadata_mut(), &request_id);
                return Err(status);
            }
        };
        insert_request_id(response.metadata_mut(), &request_id);
        Ok(response)
    }

    async fn run(
        &self,
        op: &Arc<OperationInfo>,
        request_id: &str,
        request: tonic::Request<Bytes>,
    ) -> Result<(Bytes, String), ServiceError> {
        let authorization = request.metadata().get("authorization").and_then(|v| v.to_str().ok());
        let key = mediaops_proto::bearer::parse_bearer(authorization)
            .map_err(|e| ServiceError::unauthenticated(e.message()))?;
        let principal = self.keys.authenticate(key).await?;

        if op.under_maintenance() {
            let note = op.meta.availability.as_ref().map(|a| a.note.as_str()).unwrap_or_default();
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

        let handler = self.registry.handler(&op.grpc_path).ok_or_else(|| {
            ServiceError::new(
                ErrorCode::NotImplemented,
                format!("{} is modelled but not implemented yet: no data source is built for it", op.key()),
            )
        })?;
        let account = principal.account_id.clone();
        let ctx = CallContext { request_id: request_id.to_owned(), principal, operation: op.clone() };
        let response = handler(ctx, body).await?;
        self.usage.record(op.key());
        Ok((response, account))
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
