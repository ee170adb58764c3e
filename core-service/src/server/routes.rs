//! The core's gRPC routes besides the operations: reflection (v1 and
//! v1alpha), `grpc.health.v1` and the gateways' call stream
//! (`mediaops_platform::dispatch::call_stream`), with `GET /metrics` (docs/metrics.md)
//! merged in, every other path falling back to the operation service
//! (`mediaops_platform::dispatch::OperationService`).

use std::sync::Arc;

use mediaops_platform::dispatch::call_stream::CallStreamService;
use mediaops_platform::dispatch::{OperationService, Pipeline};

/// The router of a started core: reflection, `health` (the service
/// `tonic_health::server::health_reporter` made), the call stream (whose
/// streams say `goaway` once the port stops accepting, as `draining` tells),
/// `GET /metrics`, and
/// the operation service over `pipeline` for every other path.
///
/// # Errors
/// A reflection service cannot be built from the embedded descriptor sets.
pub(super) fn router(
    pipeline: Arc<Pipeline>,
    health: tonic_health::pb::health_server::HealthServer<impl tonic_health::pb::health_server::Health>,
    draining: mediaops_listener::Draining,
) -> anyhow::Result<axum::Router> {
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
    let mut routes = tonic::service::Routes::builder();
    routes
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(health)
        .add_service(CallStreamService::new(pipeline.clone(), draining));
    let metrics = pipeline.metrics.clone().router();
    Ok(routes.routes().into_axum_router().merge(metrics).fallback_service(OperationService::new(pipeline)))
}

/// A reflection builder that knows our files and the standard services we
/// serve, so `grpcurl list` shows health and both reflection versions too.
fn reflection() -> tonic_reflection::server::Builder<'static> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(mediaops_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET)
}
