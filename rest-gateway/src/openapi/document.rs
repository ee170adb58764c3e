//! The whole OpenAPI 3.1 document (docs/openapi.md), built once at start-up
//! from the descriptor pool: one path item per path of the route table
//! ([`crate::routes::routes`]), one operation per route, the tags in the
//! order the operations first use them, and the shared components.

use std::collections::HashMap;

use mediaops_proto::json_schema::ResponseSchemas;
use mediaops_proto::value_lists::ValueLists;
use prost_reflect::DescriptorPool;
use serde_json::{Map, Value, json};

use super::components::{self, BEARER, SCHEMAS};
use super::paths::{Binding, Builder, tag};
use super::statuses;
use crate::routes::routes;

/// The OpenAPI version written.
pub const OPENAPI_VERSION: &str = "3.1.0";

/// What the document says about the API as a whole.
const DESCRIPTION: &str = "The REST/JSON API of mediaops, generated at start-up from the same proto descriptors \
as the catalogs (`GET /api/apis`, `GET /api/skills`) and the route table: nothing in it is written per operation.\n\n\
Every answer is the envelope `{success, requestId, data, error}` (spec 2.1); `data` is the operation's result, \
`error` the error object of docs/errors.md. Every operation takes `Authorization: Bearer <API key>` (spec 5) and \
is charged in points (`x-price`, `x-price-class`; a call is charged only when it succeeds). The same operations \
are gRPC methods (`x-grpc-method`) on the core's port, with server reflection.";

/// The document for the operations of `pool`.
///
/// # Errors
/// A route table that cannot be built ([`routes`]).
pub fn document(pool: &DescriptorPool) -> anyhow::Result<Value> {
    let metas: HashMap<String, _> = mediaops_proto::options::operations(pool)
        .into_iter()
        .map(|(_, meta)| (meta.operation_key.clone(), meta))
        .collect();
    let lists = ValueLists::from_pool(pool);
    let mut builder = Builder { lists: &lists, schemas: ResponseSchemas::new(SCHEMAS) };
    let mut paths = Map::new();
    let mut tags: Vec<(u8, String)> = Vec::new();
    let mut used_statuses: Vec<u16> = Vec::new();
    for route in routes(pool)? {
        let meta = metas
            .get(&route.operation_key)
            .ok_or_else(|| anyhow::anyhow!("route {} has no operation {}", route.path, route.operation_key))?;
        let http = meta.http.clone().unwrap_or_default();
        let binding = match http.alias_paths.iter().position(|p| p == &route.path) {
            Some(i) if route.path != http.path => Binding::Alias(i + 1),
            _ => Binding::Primary,
        };
        let operation = builder.operation(&route, meta, binding);
        let (group, tag) = (tag_group(meta), tag(meta));
        match tags.iter_mut().find(|(_, listed)| listed == &tag) {
            Some((listed_group, _)) => *listed_group = (*listed_group).min(group),
            None => tags.push((group, tag)),
        }
        for status in statuses::error_statuses(&route, meta) {
            if !used_statuses.contains(&status) {
                used_statuses.push(status);
            }
        }
        let item = paths.entry(route.path.clone()).or_insert_with(|| json!({}));
        item[route.method.as_str().to_ascii_lowercase()] = operation;
    }
    used_statuses.sort_unstable();
    // Data APIs first, then skills, then the rest; each in route order.
    tags.sort_by_key(|(group, _)| *group);
    let tags: Vec<Value> = tags.into_iter().map(|(_, name)| json!({"name": name})).collect();
    Ok(json!({
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "mediaops",
            "version": env!("CARGO_PKG_VERSION"),
            "summary": "Data, trend and skill service for Chinese new-media operations teams",
            "description": DESCRIPTION,
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"}
        },
        "servers": [{"url": "/", "description": "The host this document was read from"}],
        "security": [{BEARER: []}],
        "tags": tags,
        "paths": paths,
        "components": components::components(builder.schemas.into_schemas(), &used_statuses)
    }))
}

/// Where an operation's tag is listed: data APIs (0), skills (1), the
/// rest (2). A tag shared by several groups is listed in the earliest.
fn tag_group(meta: &mediaops_proto::mediaops::options::v1::Operation) -> u8 {
    match meta.kind() {
        mediaops_proto::mediaops::options::v1::MetadataKind::DataApi => 0,
        _ if meta.skill.is_some() => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_operation_per_route_with_unique_ids() {
        let pool = mediaops_proto::descriptor_pool();
        let document = document(pool).unwrap();
        let routes = routes(pool).unwrap();
        let operations: Vec<&Value> = document["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| item.as_object().unwrap().values())
            .collect();
        assert_eq!(operations.len(), routes.len());
        let mut ids: Vec<&str> = operations.iter().map(|op| op["operationId"].as_str().unwrap()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), routes.len(), "operationIds are unique");
        let alias = &document["paths"]["/api/apis/shortvideo/shortvideo-rise-fans-rank/call"]["post"];
        assert_eq!(alias["operationId"], "shortvideo.douyin-rise-fans-rank.alias-1");
        assert_eq!(alias["x-alias-of"], "shortvideo.douyin-rise-fans-rank");
    }

    #[test]
    fn get_fields_are_parameters_and_bodies_keep_path_fields_out() {
        let document = document(mediaops_proto::descriptor_pool()).unwrap();
        let search = &document["paths"]["/api/skills/search"]["get"];
        let names: Vec<&str> =
            search["parameters"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
        assert_eq!(names, ["q", "category"]);
        assert!(search.get("requestBody").is_none());
        assert!(search["responses"]["304"].is_object());

        let put = &document["paths"]["/api/ip-profile/{id}/charter"]["put"];
        assert_eq!(put["parameters"][0]["in"], "path");
        let body = &put["requestBody"]["content"]["application/json"]["schema"];
        assert!(body["properties"]["positioning"].is_object(), "the body is the charter: {body}");
        assert!(put["responses"]["415"]["$ref"].is_string());

        let note = &document["paths"]["/api/apis/lifestyle/search-note/call"]["post"];
        assert_eq!(note["x-price"], 4);
        assert_eq!(note["tags"], json!(["lifestyle"]));
        let data = &note["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]["$ref"];
        let name = data.as_str().unwrap().trim_start_matches(SCHEMAS);
        assert!(document["components"]["schemas"][name]["properties"]["items"].is_object());
    }
}
