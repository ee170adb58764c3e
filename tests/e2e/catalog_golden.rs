//! Golden catalogs (docs/architecture.md): the exact bytes of `GET /api/apis`,
//! `GET /api/skills` and `GET /api/skills/search`, and of the three gRPC
//! catalog answers, compared with the files in `tests/golden/catalog/`.
//!
//! Any change to the catalogs' JSON or wire form fails here, so a refactor of
//! the operation metadata (enums, derived paths) proves it changes nothing.
//! After an intended change, rewrite the files and review their diff:
//!
//! ```sh
//! MEDIAOPS_UPDATE_GOLDEN=1 cargo test -p mediaops --test e2e catalog_golden
//! ```
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::path::PathBuf;

use common::{KEY, Service};
use mediaops::proto::mediaops::catalog::v1::{
    ListApisRequest, ListSkillsRequest, SearchSkillsRequest, catalog_service_client::CatalogServiceClient,
};
use prost::Message;

/// Set to `1` to rewrite the golden files instead of comparing.
const UPDATE_ENV: &str = "MEDIAOPS_UPDATE_GOLDEN";

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/catalog").join(name)
}

/// Compares `actual` with the golden file `name` byte for byte, or rewrites
/// the file when [`UPDATE_ENV`] is `1`.
fn check_golden(name: &str, actual: &[u8]) {
    let path = golden_path(name);
    if std::env::var(UPDATE_ENV).as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected =
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; create it with {UPDATE_ENV}=1", path.display()));
    if expected == actual {
        return;
    }
    let at = expected.iter().zip(actual).position(|(a, b)| a != b).unwrap_or(expected.len().min(actual.len()));
    let around = |bytes: &[u8]| {
        let start = at.saturating_sub(120);
        let end = (at + 120).min(bytes.len());
        String::from_utf8_lossy(&bytes[start..end]).into_owned()
    };
    panic!(
        "{name} differs from {} at byte {at} (golden {} bytes, now {} bytes)\n golden: …{}…\n    now: …{}…\n\
         if the change is intended, rerun with {UPDATE_ENV}=1 and review the diff",
        path.display(),
        expected.len(),
        actual.len(),
        around(&expected),
        around(actual),
    );
}

/// The raw body of an authorized `GET path` (the whole envelope).
async fn raw_get(service: &Service, path: &str) -> Vec<u8> {
    let response = service
        .http
        .get(format!("{}{path}", service.base))
        .header("authorization", format!("Bearer {KEY}"))
        // a fixed request id, so the envelope's `requestId` is the same every run
        .header("x-request-id", "golden-catalog")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path}");
    response.bytes().await.unwrap().to_vec()
}

fn authorized<T>(message: T) -> tonic::Request<T> {
    common::with_token(message, KEY)
}

#[tokio::test]
async fn rest_catalogs_match_the_golden_files() {
    let service = Service::start().await;
    check_golden("apis.json", &raw_get(&service, "/api/apis").await);
    check_golden("apis-lifestyle.json", &raw_get(&service, "/api/apis?platform=lifestyle").await);
    check_golden("skills.json", &raw_get(&service, "/api/skills").await);
    let search = "/api/skills/search?q=%E7%83%AD%E7%82%B9&category=%E5%85%A8%E9%83%A8";
    check_golden("skills-search.json", &raw_get(&service, search).await);
}

#[tokio::test]
async fn grpc_catalogs_match_the_golden_files() {
    let service = Service::start().await;
    let mut catalog = CatalogServiceClient::connect(service.grpc.clone()).await.unwrap();
    let apis = catalog.list_apis(authorized(ListApisRequest::default())).await.unwrap().into_inner();
    check_golden("list-apis.pb", &apis.encode_to_vec());
    let skills = catalog.list_skills(authorized(ListSkillsRequest::default())).await.unwrap().into_inner();
    check_golden("list-skills.pb", &skills.encode_to_vec());
    let request = SearchSkillsRequest { q: "热点".into(), category: String::new() };
    let found = catalog.search_skills(authorized(request)).await.unwrap().into_inner();
    check_golden("search-skills.pb", &found.encode_to_vec());
}
