//! The core over real gRPC: reflection (v1 and v1alpha) lists every service,
//! health answers, generated clients call operations with the Bearer key in
//! metadata, and failures carry the error object in the status details as a
//! standard `google.rpc.Status` (docs/openapi.md): read by tonic-types and,
//! when python3 has `grpcio` and `grpcio-status`, by grpcio's `rpc_status`.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::BTreeSet;

use common::{KEY, Service};
use mediaops::proto::grpc_error;
use mediaops::proto::mediaops::catalog::v1::{ListApisRequest, catalog_service_client::CatalogServiceClient};
use mediaops::proto::mediaops::charter::v1::{
    GetCharterRequest, PutCharterRequest, charter_service_client::CharterServiceClient,
};
use mediaops::proto::mediaops::common::v1::Error as ErrorObject;
use mediaops::proto::mediaops::lifestyle::v1::{SearchUserRequest, lifestyle_service_client::LifestyleServiceClient};
use mediaops::proto::mediaops::skills::v1::{TrendRadarRequest, skills_service_client::SkillsServiceClient};
use prost::Message;
use tokio_stream::StreamExt;

fn authorized<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    request
}

async fn channel(service: &Service) -> tonic::transport::Channel {
    tonic::transport::Endpoint::from_shared(service.grpc.clone()).unwrap().connect().await.unwrap()
}

/// The error object of `status`, whose details must be a `google.rpc.Status`.
fn error_object(status: &tonic::Status) -> ErrorObject {
    let raw = tonic_types::Status::decode(status.details()).expect("the details are a google.rpc.Status");
    assert_eq!(raw.code, status.code() as i32);
    grpc_error::error_object(status).expect("the details carry the error object")
}

fn expected_services() -> BTreeSet<String> {
    let mut services: BTreeSet<String> =
        mediaops::proto::descriptor_pool().services().map(|s| s.full_name().to_owned()).collect();
    services.insert("grpc.health.v1.Health".into());
    services.insert("grpc.reflection.v1.ServerReflection".into());
    services.insert("grpc.reflection.v1alpha.ServerReflection".into());
    services
}

#[tokio::test]
async fn reflection_v1_and_v1alpha_list_every_service() {
    let service = Service::start().await;
    assert!(expected_services().len() >= 16);

    use tonic_reflection::pb::v1;
    let mut client = v1::server_reflection_client::ServerReflectionClient::new(channel(&service).await);
    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(String::new())),
    };
    let mut responses = client.server_reflection_info(tokio_stream::iter([request])).await.unwrap().into_inner();
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        responses.next().await.unwrap().unwrap().message_response
    else {
        panic!("expected a service list")
    };
    let listed: BTreeSet<String> = list.service.into_iter().map(|s| s.name).collect();
    assert_eq!(listed, expected_services());

    // A type can be resolved, imports included (what `grpcurl describe` needs).
    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::FileContainingSymbol(
            "mediaops.charter.v1.CharterService".into(),
        )),
    };
    let mut responses = client.server_reflection_info(tokio_stream::iter([request])).await.unwrap().into_inner();
    let Some(v1::server_reflection_response::MessageResponse::FileDescriptorResponse(files)) =
        responses.next().await.unwrap().unwrap().message_response
    else {
        panic!("expected file descriptors")
    };
    assert!(!files.file_descriptor_proto.is_empty());

    use tonic_reflection::pb::v1alpha;
    let mut alpha = v1alpha::server_reflection_client::ServerReflectionClient::new(channel(&service).await);
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1alpha::server_reflection_request::MessageRequest::ListServices(String::new())),
    };
    let mut responses = alpha.server_reflection_info(tokio_stream::iter([request])).await.unwrap().into_inner();
    let Some(v1alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        responses.next().await.unwrap().unwrap().message_response
    else {
        panic!("expected a service list")
    };
    assert_eq!(list.service.len(), expected_services().len());
}

#[tokio::test]
async fn health_answers_serving() {
    let service = Service::start().await;
    let mut client = tonic_health::pb::health_client::HealthClient::new(channel(&service).await);
    for name in ["", "mediaops.catalog.v1.CatalogService"] {
        let response = client.check(tonic_health::pb::HealthCheckRequest { service: name.into() }).await.unwrap();
        assert_eq!(response.into_inner().status(), tonic_health::pb::health_check_response::ServingStatus::Serving);
    }
}

#[tokio::test]
async fn generated_clients_call_with_the_key_in_metadata() {
    let service = Service::start().await;
    let mut catalog = CatalogServiceClient::connect(service.grpc.clone()).await.unwrap();
    let apis = catalog.list_apis(authorized(ListApisRequest::default())).await.unwrap().into_inner();
    assert_eq!(apis.total as usize, common::spec_tables::DATA_APIS.len());
    assert_eq!(apis.items.len(), apis.total as usize);

    let status = catalog.list_apis(ListApisRequest::default()).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);
    assert_eq!(error_object(&status).code, "unauthenticated");

    let mut charters = CharterServiceClient::connect(service.grpc.clone()).await.unwrap();
    let status = charters.get_charter(authorized(GetCharterRequest { id: "nobody".into() })).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);
    let status =
        charters.put_charter(authorized(PutCharterRequest { id: "p".into(), charter: None })).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert_eq!(error_object(&status).field.as_deref(), Some("charter"));

    if common::unbuilt_operations().await.iter().any(|(key, _)| key == "skills.trend-radar") {
        let mut skills = SkillsServiceClient::connect(service.grpc.clone()).await.unwrap();
        let request = TrendRadarRequest { keyword: "露营".into(), ..Default::default() };
        let status = skills.trend_radar(authorized(request)).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::Unimplemented);
        let error = error_object(&status);
        assert_eq!(error.code, "not_implemented");
        assert!(error.message.contains("skills.trend-radar"));
    }

    let mut lifestyle = LifestyleServiceClient::connect(service.grpc.clone()).await.unwrap();
    let status = lifestyle.search_user(authorized(SearchUserRequest::default())).await.unwrap_err();
    assert_eq!(error_object(&status).field.as_deref(), Some("keyword"), "gRPC callers meet the same required rule");
}

#[tokio::test]
async fn a_400_reads_as_error_info_and_bad_request() {
    use tonic_types::StatusExt;
    let service = Service::start().await;
    let mut lifestyle = LifestyleServiceClient::connect(service.grpc.clone()).await.unwrap();
    let status = lifestyle.search_user(authorized(SearchUserRequest::default())).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let request_id = status.metadata().get("x-request-id").unwrap().to_str().unwrap().to_owned();
    let details = status.get_error_details();
    let info = details.error_info().expect("google.rpc.ErrorInfo");
    assert_eq!(info.reason, "invalid_input");
    assert_eq!(info.domain, "mediaops");
    assert_eq!(info.metadata.get("field").map(String::as_str), Some("keyword"));
    assert_eq!(info.metadata.get("requestId"), Some(&request_id));
    let violations = &details.bad_request().expect("google.rpc.BadRequest").field_violations;
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].field, "keyword");
    assert_eq!(violations[0].description, status.message());
    assert_eq!(details.request_info().unwrap().request_id, request_id);
    assert!(details.retry_info().is_none(), "nothing to wait for");

    // Not a 400: no BadRequest, no field.
    let mut catalog = CatalogServiceClient::connect(service.grpc.clone()).await.unwrap();
    let status = catalog.list_apis(ListApisRequest::default()).await.unwrap_err();
    let details = status.get_error_details();
    let info = details.error_info().unwrap();
    assert_eq!(info.reason, "unauthenticated");
    assert!(!info.metadata.contains_key("field"));
    assert!(details.bad_request().is_none());
}

/// `tests/read_grpc_status.py` reads a failed call with grpcio's
/// `rpc_status.from_call`, what Python clients (and, the same proto,
/// grpcurl) do. Runs when python3 has `grpcio` and `grpcio-status`
/// (`pip install grpcio grpcio-status`); CI installs them. Set
/// `MEDIAOPS_TEST_REQUIRE_GRPCIO=1` to make their absence a failure.
#[tokio::test]
async fn grpcio_rpc_status_reads_the_details() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/read_grpc_status.py");
    let ready = std::process::Command::new("python3")
        .args(["-c", "import grpc, grpc_status"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !ready {
        assert!(std::env::var_os("MEDIAOPS_TEST_REQUIRE_GRPCIO").is_none(), "python3 lacks grpcio / grpcio-status");
        eprintln!("skipped: python3 with grpcio and grpcio-status not found (pip install grpcio grpcio-status)");
        return;
    }
    let service = Service::start().await;
    let target = service.grpc.trim_start_matches("http://").to_owned();
    let run = move || std::process::Command::new("python3").arg(&script).args([&target, KEY]).output();
    let out = tokio::task::spawn_blocking(run).await.unwrap().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let read: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read["code"], "INVALID_ARGUMENT");
    assert_eq!(read["errorInfo"]["reason"], "invalid_input");
    assert_eq!(read["errorInfo"]["domain"], "mediaops");
    assert_eq!(read["errorInfo"]["metadata"]["field"], "keyword");
    assert_eq!(read["errorInfo"]["metadata"]["requestId"], read["requestId"]);
    assert_eq!(read["badRequest"], serde_json::json!([{"field": "keyword", "description": read["message"]}]));
}
