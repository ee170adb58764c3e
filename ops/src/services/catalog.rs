//! `mediaops.catalog.v1.CatalogService`: the three catalogs
//! ([`mediaops_platform::catalog`]).

use std::sync::Arc;

use mediaops_proto::mediaops::catalog::v1::catalog_service::CatalogService;
use mediaops_proto::mediaops::catalog::v1::{
    ListApisRequest, ListApisResponse, ListSkillsRequest, ListSkillsResponse, SearchSkillsRequest, SearchSkillsResponse,
};

use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The catalog RPCs over the catalogs built from the descriptors.
pub struct Catalog(pub Arc<mediaops_platform::catalog::Catalog>);

impl CatalogService<Registry> for Catalog {
    async fn list_apis(&self, _: CallContext, request: ListApisRequest) -> Result<ListApisResponse, ServiceError> {
        Ok(self.0.list_apis(&request).await)
    }

    async fn list_skills(
        &self,
        _: CallContext,
        request: ListSkillsRequest,
    ) -> Result<ListSkillsResponse, ServiceError> {
        self.0.list_skills(&request).await
    }

    async fn search_skills(
        &self,
        _: CallContext,
        request: SearchSkillsRequest,
    ) -> Result<SearchSkillsResponse, ServiceError> {
        self.0.search_skills(&request).await
    }
}
