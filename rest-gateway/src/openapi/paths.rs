//! One OpenAPI operation object per route of the route table
//! ([`crate::routes::routes`]), from the RPC's descriptors and operation
//! metadata (docs/openapi.md): path and query parameters (GET) or the JSON
//! body (and `multipart/form-data` for uploads) with the catalogs' request
//! schema, the envelope with the operation's `data` schema, its error
//! statuses, security and the price extensions.

use axum::http::Method;
use mediaops_proto::json_schema::{self, ResponseSchemas};
use mediaops_proto::mediaops::options::v1::{AvailabilityStatus, Operation};
use mediaops_proto::spec_names::SpecName;
use mediaops_proto::value_lists::ValueLists;
use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{Map, Value, json};

use super::components::{self, BEARER, parameter, reference};
use super::statuses;
use crate::routes::Route;

/// What every operation object is built with.
pub struct Builder<'a> {
    /// The value lists, for select fields.
    pub lists: &'a ValueLists,
    /// The response schemas collected so far.
    pub schemas: ResponseSchemas,
}

/// How a route relates to its operation: the primary path, or the `n`th
/// (from 1) alias path of `http.alias_paths`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// The operation's own path.
    Primary,
    /// Its `n`th alias path (from 1).
    Alias(usize),
}

impl Builder<'_> {
    /// The operation object of `route`, bound to `meta` as `binding`.
    /// `operationId` is the operationKey; an alias path's is
    /// `<operationKey>.alias-<n>`, with `x-alias-of` naming the key.
    pub fn operation(&mut self, route: &Route, meta: &Operation, binding: Binding) -> Value {
        let get = route.method == Method::GET;
        // GET and DELETE: fields in the query, no body.
        let in_query = get || route.method == Method::DELETE;
        let request = json_schema::request_schema(&route.input, self.lists);
        let path_names = path_parameters(&route.path);
        let mut parameters: Vec<Value> =
            path_names.iter().map(|name| parameter(&route.input, &request, name, "path")).collect();
        let path_fields: Vec<String> =
            path_names.iter().filter_map(|name| field(&route.input, name)).map(|f| f.json_name().to_owned()).collect();
        if in_query {
            for f in route.input.fields() {
                let json_name = f.json_name().to_owned();
                if !path_fields.contains(&json_name) && !matches!(f.kind(), Kind::Message(_)) {
                    parameters.push(parameter(&route.input, &request, &json_name, "query"));
                }
            }
        }
        parameters.push(reference("parameters", parameter::IDEMPOTENCY_KEY));
        parameters.push(reference("parameters", parameter::REQUEST_ID));

        let operation_id = match binding {
            Binding::Primary => meta.operation_key.clone(),
            Binding::Alias(n) => format!("{}.alias-{n}", meta.operation_key),
        };
        let mut operation = json!({
            "operationId": operation_id,
            "summary": meta.title,
            "description": description(meta, binding),
            "tags": [tag(meta)],
            "parameters": parameters,
        });
        if !in_query {
            operation["requestBody"] = self.request_body(route, &request, &path_fields);
        }
        operation["responses"] = self.responses(route, meta, get);
        operation["security"] = json!([{BEARER: []}]);
        for (name, value) in extensions(route, meta, binding) {
            operation[name] = value;
        }
        operation
    }

    fn request_body(&self, route: &Route, request: &Value, path_fields: &[String]) -> Value {
        let (schema, required) = match &route.body_field {
            Some(body) => {
                let name = body.json_name();
                (request["properties"][name].clone(), is_required(request, name))
            }
            None => {
                let mut schema = request.clone();
                let map = schema.as_object_mut().expect("schemas are objects");
                map.remove("$schema");
                if let Some(Value::Object(properties)) = map.get_mut("properties") {
                    properties.retain(|name, _| !path_fields.contains(name));
                }
                if let Some(Value::Array(names)) = map.get_mut("required") {
                    names.retain(|name| !path_fields.iter().any(|f| name == f));
                }
                let required = map.get("required").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
                (schema, required)
            }
        };
        let mut schema = schema;
        allow_null_when_optional(&mut schema);
        let mut content = Map::new();
        content.insert("application/json".into(), json!({"schema": schema}));
        if let Some(upload) = &route.upload {
            content.insert("multipart/form-data".into(), json!({"schema": multipart_schema(route, request, upload)}));
        }
        json!({"required": required, "content": content})
    }

    fn responses(&mut self, route: &Route, meta: &Operation, get: bool) -> Value {
        let data = self.schemas.reference(&route.output);
        let example = json!({
            "success": true,
            "requestId": "7f0c5a4e-3b1d-4c2a-9e8f-0a1b2c3d4e5f",
            "data": json_schema::example(&route.output),
            "error": null
        });
        let mut responses = Map::new();
        responses.insert(
            "200".into(),
            json!({
                "description": "Success: the operation's result in `data` (spec 2.1).",
                "headers": components::success_headers(get),
                "content": {"application/json": {
                    "schema": components::success_envelope(data),
                    "examples": {"shape": {
                        "summary": "The shape of `data`: every field with its zero value (the catalogs' responseExample)",
                        "value": example
                    }}
                }}
            }),
        );
        if get {
            responses.insert(
                "304".into(),
                json!({
                    "description": "Not Modified: `If-None-Match` matched the answer's `ETag` (docs/http.md); no body.",
                    "headers": {
                        components::header::ETAG: reference("headers", components::header::ETAG),
                        components::header::CACHE_CONTROL: reference("headers", components::header::CACHE_CONTROL),
                        components::header::REQUEST_ID: reference("headers", components::header::REQUEST_ID)
                    }
                }),
            );
        }
        for status in statuses::error_statuses(route, meta) {
            responses.insert(status.to_string(), reference("responses", &components::response_name(status)));
        }
        Value::Object(responses)
    }
}

/// The tag of an operation: its skill category, else its platform token,
/// else the first segment of its operationKey (`articles`, `catalog`).
pub fn tag(meta: &Operation) -> String {
    match &meta.skill {
        Some(skill) if !skill.category.is_empty() => skill.category.clone(),
        _ if !meta.platform.is_empty() => meta.platform.clone(),
        _ => meta.operation_key.split('.').next().unwrap_or_default().to_owned(),
    }
}

/// The catalog summary, then the price, maintenance and alias notes.
fn description(meta: &Operation, binding: Binding) -> String {
    let billing = meta.billing.clone().unwrap_or_default();
    let price = if billing.listed_not_charged {
        format!("Listed at {} points; not charged (spec 8).", meta.unit_price)
    } else if billing.price_per_platform > 0 {
        format!(
            "{} points per distinct platform in `{}` (every allowed platform when none is given), per successful call.",
            billing.price_per_platform, billing.platforms_field
        )
    } else if meta.unit_price > 0 {
        format!("{} points per successful call (`{}`).", meta.unit_price, meta.price_class().spec_name())
    } else {
        "Free.".to_owned()
    };
    let mut text = format!("{}\n\n{price}", meta.summary);
    if let Some(availability) = meta.availability.as_ref().filter(|a| a.status() != AvailabilityStatus::Unspecified) {
        text.push_str(&format!(
            "\n\nUnder {}: {} Answers 503 `maintenance` and charges nothing.",
            availability.status().spec_name(),
            availability.note
        ));
    }
    if meta.shape_is_ours {
        text.push_str("\n\nThe spec does not show this operation's shape; this one is ours (docs/operations.md).");
    }
    if let (Binding::Alias(_), Some(http)) = (binding, &meta.http) {
        text.push_str(&format!("\n\nAnother path of `{}` ({} {}).", meta.operation_key, http.method, http.path));
    }
    text
}

/// `x-` extensions: the operationKey, the gRPC method, the price and how
/// it is charged, the side effect, availability and alias.
fn extensions(route: &Route, meta: &Operation, binding: Binding) -> Vec<(&'static str, Value)> {
    let billing = meta.billing.clone().unwrap_or_default();
    let execution = meta.execution.unwrap_or_default();
    let mut out = vec![
        ("x-operation-key", json!(meta.operation_key)),
        ("x-grpc-method", json!(route.grpc_path)),
        ("x-price", json!(meta.unit_price)),
        ("x-price-class", json!(meta.price_class().spec_name())),
        ("x-charged", json!(mediaops_proto::options::is_charged(meta))),
        ("x-side-effect", json!(execution.side_effect().spec_name())),
        ("x-kind", json!(meta.kind().spec_name())),
    ];
    if billing.price_per_platform > 0 {
        out.push(("x-price-per-platform", json!(billing.price_per_platform)));
    }
    if let Some(availability) = meta.availability.as_ref().filter(|a| a.status() != AvailabilityStatus::Unspecified) {
        let status = availability.status().spec_name();
        out.push(("x-availability", json!({"status": status, "note": availability.note})));
    }
    if let Binding::Alias(_) = binding {
        out.push(("x-alias-of", json!(meta.operation_key)));
    }
    out
}

/// Lets every optional property of an object schema (and of the objects
/// inside it) be `null`: the gateway's decoder reads a `null` field as not
/// given (proto3 JSON; rest-gateway `transcode/decode.rs`). A required
/// field stays non-null (`null` is "missing", a 400), as do list items.
fn allow_null_when_optional(schema: &mut Value) {
    let required: Vec<Value> = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            allow_null_when_optional(property);
            if !required.iter().any(|r| r == name.as_str()) {
                add_null(property);
            }
        }
    }
    if let Some(items) = schema.get_mut("items") {
        allow_null_when_optional(items);
    }
}

/// Adds `null` to a schema's `type` (and `enum`) or `anyOf`; a schema
/// without either (any value) already takes it.
fn add_null(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else { return };
    if !map.contains_key("type")
        && let Some(Value::Array(alternatives)) = map.get_mut("anyOf")
    {
        alternatives.push(json!({"type": "null"}));
        return;
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) if !types.contains(&json!("null")) => types.push(json!("null")),
        _ => return,
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
}

/// The `{name}` placeholders of an axum path, in order.
fn path_parameters(path: &str) -> Vec<&str> {
    path.split('/').filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}')).collect()
}

/// The field a parameter called `name` fills (JSON name or proto name, as
/// [`crate::transcode::query::merge_params`] reads it).
fn field(message: &MessageDescriptor, name: &str) -> Option<FieldDescriptor> {
    message.get_field_by_json_name(name).or_else(|| message.get_field_by_name(name))
}

fn is_required(request: &Value, json_name: &str) -> bool {
    request["required"].as_array().is_some_and(|r| r.iter().any(|n| n == json_name))
}

/// A path or query parameter `name`, with the schema of its field in the
/// request schema (the field's description moved to the parameter). A
/// repeated field is a query key given once per value (`?a=1&a=2`).
fn parameter(message: &MessageDescriptor, request: &Value, name: &str, location: &str) -> Value {
    let json_name = field(message, name).map(|f| f.json_name().to_owned()).unwrap_or_else(|| name.to_owned());
    let mut schema = request["properties"][&json_name].clone();
    let description = schema.as_object_mut().and_then(|m| m.remove("description"));
    let mut parameter = json!({
        "name": name,
        "in": location,
        "required": location == "path" || is_required(request, &json_name),
        "schema": schema,
    });
    if let Some(text) = description {
        parameter["description"] = text;
    }
    if request["properties"][&json_name]["type"] == "array" {
        parameter["style"] = json!("form");
        parameter["explode"] = json!(true);
    }
    parameter
}

/// The `multipart/form-data` form of an upload (docs/wechat.md
/// "Multipart"): one file part (any name) fills the data, file name and
/// content type fields; every other part fills the string field of its name.
fn multipart_schema(route: &Route, request: &Value, upload: &mediaops_proto::mediaops::options::v1::Upload) -> Value {
    let filled_by_file = [&upload.data_field, &upload.filename_field, &upload.content_type_field];
    let mut properties = Map::new();
    let mut required = vec![json!("file")];
    properties.insert(
        "file".into(),
        json!({
            "type": "string",
            "format": "binary",
            "contentMediaType": "application/octet-stream",
            "description": format!(
                "The file (a part with a file name; any part name). Its bytes, file name and Content-Type fill `{}`, `{}` and `{}`.",
                upload.data_field, upload.filename_field, upload.content_type_field
            )
        }),
    );
    for f in route.input.fields() {
        if filled_by_file.contains(&&f.name().to_owned()) || f.kind() != Kind::String || f.is_list() {
            continue;
        }
        let name = f.json_name();
        properties.insert(name.to_owned(), request["properties"][name].clone());
        if is_required(request, name) {
            required.push(json!(name));
        }
    }
    json!({"type": "object", "properties": properties, "required": required})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_take_null() {
        let mut schema = json!({
            "type": "object", "required": ["a"],
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "string", "enum": ["X"]},
                "c": {"type": "array", "items": {"type": "object", "required": [], "properties": {"d": {"type": "integer"}}}},
                "e": {},
                "f": {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "maxLength": 0}]}
            }
        });
        allow_null_when_optional(&mut schema);
        let p = &schema["properties"];
        assert_eq!(p["a"]["type"], "string");
        assert_eq!(p["b"], json!({"type": ["string", "null"], "enum": ["X", null]}));
        assert_eq!(p["c"]["type"], json!(["array", "null"]));
        assert_eq!(p["c"]["items"]["type"], "object", "list items are never null");
        assert_eq!(p["c"]["items"]["properties"]["d"]["type"], json!(["integer", "null"]));
        assert_eq!(p["e"], json!({}));
        assert_eq!(p["f"]["anyOf"][2], json!({"type": "null"}));
    }

    #[test]
    fn path_placeholders_are_found() {
        assert_eq!(path_parameters("/api/ip-profile/{id}/charter"), ["id"]);
        assert_eq!(path_parameters("/api/tasks/{taskId}"), ["taskId"]);
        assert!(path_parameters("/api/apis").is_empty());
    }
}
