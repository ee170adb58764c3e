//! The core over real gRPC: reflection (v1 and v1alpha) lists every service,
//! health answers, generated clients call operations with the Bearer key in
//! metadata, and failures carry the error object in the status details.

mod common;

use std::collections::BTreeSet;

use common::{KEY, Service};
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

fn error_object(status: &tonic::Status) -> ErrorObject {
    ErrorObject::decode(status.details()).expect("the status details carry the error object")
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
