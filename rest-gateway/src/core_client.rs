//! The gateway's client to the core: raw protobuf bytes in and out, over
//! gRPC ([`BytesCodec`]) or, in one process, straight to the core's call
//! pipeline ([`LocalCore`]); the caller's `authorization` and the request id
//! in the metadata.

use bytes::Bytes;
use http::uri::PathAndQuery;
use mediaops_proto::codec::BytesCodec;
use mediaops_proto::delivery::ACK_VALUE;

use crate::call_stream::CallStreams;
pub use crate::core_service::{CoreService, TransportError};
use crate::delivery::{AckGate, Delivery};
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use tonic::metadata::MetadataValue;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
use tower::ServiceExt;

/// What the gateway passes on to the core with each call.
#[derive(Debug, Clone, Copy)]
pub struct CallMetadata<'a> {
    /// `Bearer <key>` exactly as the client sent it.
    pub authorization: &'a str,
    /// The request id, as `x-request-id`.
    pub request_id: &'a str,
    /// The client's `Idempotency-Key` header, if any.
    pub idempotency_key: Option<&'a str>,
    /// The client's well-formed W3C `traceparent` header, if any
    /// ([`crate::traceparent::from_headers`]).
    pub traceparent: Option<&'a str>,
}

/// The gateway's way to the core; cheap to clone. Either a lazily
/// connected gRPC channel (split deployments) or the core in the same
/// process (the one-process `mediaops`: no connection that one call could
/// break for another, no loopback hop, and the operations' calls made
/// without gRPC framing through [`LocalCore`]).
#[derive(Clone)]
pub struct CoreClient {
    /// The core's gRPC service: health checks, and the calls of a split
    /// gateway.
    service: CoreService,
    /// The core's call pipeline in this process, if it is here.
    local: Option<Arc<dyn LocalCore>>,
    /// The call streams to the cores, when the calls go as messages on
    /// them (`MEDIAOPS_CORE_TRANSPORT=stream`, [`crate::call_stream`]).
    streams: Option<Arc<CallStreams>>,
}

/// How a split gateway's calls reach the cores (`MEDIAOPS_CORE_TRANSPORT`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoreTransport {
    /// Each call is the operation's unary RPC, with the delivery
    /// acknowledgement on its request stream.
    Unary,
    /// The calls are messages on a few long-lived call streams
    /// ([`crate::call_stream`]; the default: a sixth of the unary call's
    /// transport CPU, docs/performance.md "Calls as messages on a stream").
    #[default]
    Stream,
}

/// The core's call pipeline in this process (the one-process `mediaops`),
/// called with the encoded request message and its metadata as they are:
/// no gRPC framing, no HTTP/2 body, no acknowledgement stream, one
/// transcoding per direction (docs/performance.md "The call in process and the allocator").
/// It runs every step a gRPC call runs (authentication, rate limit,
/// validation, pricing, idempotency, reservation, the operation) and
/// answers what a gRPC client would get.
pub trait LocalCore: Send + Sync + 'static {
    /// Runs the RPC at `grpc_path` with `request` (the input message,
    /// encoded, and the metadata of [`CallMetadata`]).
    ///
    /// # Errors
    /// The [`tonic::Status`] a gRPC client of the core would get.
    fn call<'a>(&'a self, grpc_path: &'a str, request: tonic::Request<Bytes>) -> LocalCall<'a>;
}

/// The future of one [`LocalCore::call`].
pub type LocalCall<'a> = Pin<Box<dyn Future<Output = Result<LocalAnswer, tonic::Status>> + Send + 'a>>;

/// A successful [`LocalCore::call`]: the encoded answer with its metadata,
/// and the call's settlement, to be told whether the answer reached the
/// client (`true`: commit; `false` or dropped: released at once;
/// docs/billing.md "When a call is charged").
pub struct LocalAnswer {
    /// The answer (the RPC's output message, encoded) and its metadata.
    pub response: tonic::Response<Bytes>,
    /// Settles the call: delivered or not.
    pub settle: Box<dyn FnOnce(bool) + Send>,
}

impl CoreClient {
    /// A client for the cores of `core_addr` (`MEDIAOPS_CORE_ADDR`: one or
    /// more `http://host:port`, comma-separated, or a DNS name with one
    /// record per core), balanced and health-checked as [`crate::core_set`]
    /// describes. Connects on first use and reconnects by itself; must be
    /// called inside the Tokio runtime.
    ///
    /// # Errors
    /// An entry of `core_addr` that is not an `http://` URI with a host.
    /// With `transport` [`CoreTransport::Stream`] the operations' calls go
    /// as messages on `refresh.connections` call streams per core in use
    /// ([`crate::call_stream`]), each taking new calls for one refresh
    /// interval.
    pub fn connect(
        core_addr: &str,
        refresh: crate::core_set::Refresh,
        transport: CoreTransport,
    ) -> anyhow::Result<CoreClient> {
        let targets = crate::core_set::parse_targets(core_addr)?;
        let (channel, in_use) = crate::core_set::balanced_channel(targets, refresh);
        let service = channel.map_request(crate::delivery::gate).map_err(|e| TransportError(e.into()));
        let service = CoreService::new(service);
        let streams = (transport == CoreTransport::Stream)
            .then(|| Arc::new(CallStreams::new(service.clone(), in_use, refresh.connections, refresh.every)));
        Ok(CoreClient { service, local: None, streams })
    }

    /// A client of the core in this process: each operation's call goes
    /// straight to `local`, the core's call pipeline (the same metadata and
    /// pipeline as over a connection, without the transport); health checks
    /// go to `service`, the core's gRPC service.
    pub fn in_process<S, B>(service: S, local: Arc<dyn LocalCore>) -> CoreClient
    where
        S: tower::Service<http::Request<tonic::body::Body>, Response = http::Response<B>>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Error: Into<tower::BoxError>,
        S::Future: Send + 'static,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<tower::BoxError>,
    {
        // Only health checks use it: no call here carries an acknowledgement gate.
        let service =
            service.map_response(|response| response.map(tonic::body::Body::new)).map_err(|e| TransportError(e.into()));
        CoreClient { service: CoreService::new(service), local: Some(local), streams: None }
    }

    /// Calls the unary RPC at `grpc_path` with an encoded request; the
    /// caller's `authorization`, the request id and, when given, the
    /// `Idempotency-Key` and `traceparent` travel as metadata.
    /// One call: the encoded response, its [`AnswerNotes`], and the
    /// [`Delivery`] that tells the core whether the answer reached the
    /// client: the core charges the call only then (docs/billing.md "When a
    /// call is charged").
    pub async fn unary(
        &self,
        grpc_path: &str,
        body: Bytes,
        call: &CallMetadata<'_>,
    ) -> Result<(Bytes, AnswerNotes, Delivery), tonic::Status> {
        let mut request = tonic::Request::new(body);
        let metadata = request.metadata_mut();
        use mediaops_proto::keys::metadata as key;
        // With each entry: whether its value is new with each call (the
        // request id, an idempotency key, the trace context). Such a value
        // goes without entering the connection's HPACK header table, which
        // it would only churn (docs/performance.md "Request ids outside the
        // header tables"); the key repeats and stays indexed.
        let pairs = [
            (&key::AUTHORIZATION, Some(call.authorization), false),
            (&key::REQUEST_ID, Some(call.request_id), true),
            (&key::IDEMPOTENCY_KEY, call.idempotency_key, true),
            (&key::TRACEPARENT, call.traceparent, true),
        ];
        for (name, value, per_call) in pairs {
            if let Some(mut value) = value.and_then(|v| MetadataValue::try_from(v).ok()) {
                value.set_sensitive(per_call);
                metadata.insert(&**name, value);
            }
        }
        if let Some(local) = &self.local {
            let LocalAnswer { response, settle } = local.call(grpc_path, request).await?;
            let notes = AnswerNotes::from_metadata(response.metadata());
            return Ok((response.into_inner(), notes, Delivery::local(settle, call.request_id)));
        }
        if let Some(streams) = &self.streams {
            let (metadata, _, body) = request.into_parts();
            let entries = mediaops_proto::call_stream::entries(metadata);
            let (response, settle) = streams.call(grpc_path, body, entries).await?;
            let notes = AnswerNotes::from_metadata(response.metadata());
            return Ok((response.into_inner(), notes, Delivery::streamed(settle, call.request_id)));
        }
        let mut grpc = tonic::client::Grpc::new(self.service.clone());
        grpc.ready().await.map_err(|e| tonic::Status::unavailable(format!("core not ready: {e}")))?;
        let path = PathAndQuery::from_str(grpc_path).map_err(|e| tonic::Status::internal(e.to_string()))?;
        request
            .metadata_mut()
            .insert(&*mediaops_proto::keys::metadata::DELIVERY_ACK, MetadataValue::from_static(ACK_VALUE));
        let (ack, gate) = tokio::sync::oneshot::channel();
        request.extensions_mut().insert(AckGate::new(gate));
        let response = grpc.server_streaming(request, path, BytesCodec).await?;
        let notes = AnswerNotes::from_metadata(response.metadata());
        let mut stream = response.into_inner();
        let answer = stream.message().await?.ok_or_else(|| tonic::Status::internal("the core answered no message"))?;
        let delivery = Delivery::new(ack, stream, call.request_id);
        Ok((answer, notes, delivery))
    }

    /// The core's overall `grpc.health.v1` status.
    pub async fn health(&self) -> Result<ServingStatus, tonic::Status> {
        self.health_of("").await
    }

    /// The core's `grpc.health.v1` status of `service` (`""` = overall).
    pub async fn health_of(&self, service: &str) -> Result<ServingStatus, tonic::Status> {
        let request = HealthCheckRequest { service: service.to_owned() };
        let response = HealthClient::new(self.service.clone()).check(request).await?;
        Ok(response.into_inner().status())
    }
}

/// What the core says of an answer beside its message, put at the top level
/// of the envelope.
#[derive(Debug, Clone, Default)]
pub struct AnswerNotes {
    /// `warnings`: the [`mediaops_proto::warnings::METADATA`] entries
    /// (docs/rankings.md "Warnings").
    pub warnings: Vec<String>,
    /// `taskId`: the [`mediaops_proto::task_id::METADATA`] value, for an
    /// answer that started a task it has no field for (docs/sync.md).
    pub task_id: Option<String>,
    /// The answer was replayed under its `Idempotency-Key`
    /// ([`mediaops_proto::idempotency::REPLAYED_METADATA`]): the
    /// `Idempotent-Replayed: true` header.
    pub replayed: bool,
    /// The `RateLimit-Policy` and `RateLimit` headers of a limited account
    /// ([`mediaops_proto::rate_limit::from_metadata`]; docs/rate-limits.md).
    pub rate_limit: Vec<(&'static str, String)>,
}

impl AnswerNotes {
    /// The notes of an answer's gRPC metadata.
    fn from_metadata(metadata: &tonic::metadata::MetadataMap) -> AnswerNotes {
        let warnings = metadata
            .get_all_bin(&*mediaops_proto::keys::metadata::WARNINGS)
            .iter()
            .filter_map(|v| v.to_bytes().ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect();
        let task_id =
            metadata.get(&*mediaops_proto::keys::metadata::TASK_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let replayed = metadata.get(&*mediaops_proto::keys::metadata::IDEMPOTENT_REPLAYED).is_some();
        let rate_limit = mediaops_proto::rate_limit::from_metadata(metadata);
        AnswerNotes { warnings, task_id, replayed, rate_limit }
    }
}
