//! The gateway's gRPC client to the core: raw protobuf bytes in and out
//! ([`BytesCodec`]), the caller's `authorization` and the request id in the
//! metadata.

use std::str::FromStr;
use std::time::Duration;

use bytes::Bytes;
use http::uri::PathAndQuery;
use mediaops_proto::codec::BytesCodec;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// What the gateway passes on to the core with each call.
#[derive(Debug, Clone, Copy)]
pub struct CallMetadata<'a> {
    /// `Bearer <key>` exactly as the client sent it.
    pub authorization: &'a str,
    pub request_id: &'a str,
    /// The client's `Idempotency-Key` header, if any.
    pub idempotency_key: Option<&'a str>,
}

/// A lazily connected channel to the core; cheap to clone.
#[derive(Clone)]
pub struct CoreClient {
    channel: Channel,
}

impl CoreClient {
    /// A client for `addr` (`http://host:port`). Connects on first use and
    /// reconnects by itself.
    pub fn connect_lazy(addr: &str) -> anyhow::Result<CoreClient> {
        let endpoint = Endpoint::from_shared(addr.to_owned())
            .map_err(|e| anyhow::anyhow!("core address {addr:?} is not a URI: {e}"))?
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(300))
            .tcp_nodelay(true);
        Ok(CoreClient { channel: endpoint.connect_lazy() })
    }

    /// Calls the unary RPC at `grpc_path` with an encoded request; the
    /// caller's `authorization`, the request id and, when given, the
    /// `Idempotency-Key` travel as metadata.
    /// One call: the encoded response and its [`AnswerNotes`].
    pub async fn unary(
        &self,
        grpc_path: &str,
        body: Bytes,
        call: &CallMetadata<'_>,
    ) -> Result<(Bytes, AnswerNotes), tonic::Status> {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone());
        grpc.ready().await.map_err(|e| tonic::Status::unavailable(format!("core not ready: {e}")))?;
        let path = PathAndQuery::from_str(grpc_path).map_err(|e| tonic::Status::internal(e.to_string()))?;
        let mut request = tonic::Request::new(body);
        let metadata = request.metadata_mut();
        let pairs = [
            ("authorization", Some(call.authorization)),
            ("x-request-id", Some(call.request_id)),
            ("idempotency-key", call.idempotency_key),
        ];
        for (name, value) in pairs {
            if let Some(value) = value.and_then(|v| MetadataValue::try_from(v).ok()) {
                metadata.insert(name, value);
            }
        }
        let response = grpc.unary(request, path, BytesCodec).await?;
        let warnings = response
            .metadata()
            .get_all_bin(mediaops_proto::warnings::METADATA)
            .iter()
            .filter_map(|v| v.to_bytes().ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect();
        let task_id =
            response.metadata().get(mediaops_proto::task_id::METADATA).and_then(|v| v.to_str().ok()).map(str::to_owned);
        Ok((response.into_inner(), AnswerNotes { warnings, task_id }))
    }

    /// The core's overall `grpc.health.v1` status.
    pub async fn health(&self) -> Result<ServingStatus, tonic::Status> {
        self.health_of("").await
    }

    /// The core's `grpc.health.v1` status of `service` (`""` = overall).
    pub async fn health_of(&self, service: &str) -> Result<ServingStatus, tonic::Status> {
        let request = HealthCheckRequest { service: service.to_owned() };
        let response = HealthClient::new(self.channel.clone()).check(request).await?;
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
}
