//! JSON Schema (draft 2020-12) of a request message, of a response message
//! as the gateway writes it, and a response skeleton, all generated from the
//! descriptors (spec 2.2 `requestSchema`, `responseExample`; 2.3
//! `inputSchema`, `outputExample`; the OpenAPI document, docs/openapi.md).

use std::collections::BTreeMap;

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{Map, Value, json};

use crate::mediaops::options::v1::Field;
use crate::value_lists::ValueLists;

/// Nesting bound, so a recursive message type cannot loop.
const MAX_DEPTH: usize = 8;

/// The JSON Schema of `message` as a request: an object whose properties are
/// the fields' JSON names, `required` from the field options, no other
/// properties. It states what the gateway and the core enforce
/// (docs/errors.md "Limits"): `maxLength` of every string (each item of a
/// list of strings), the range of 32-bit integers, and for a required field
/// that is not `allow_empty` a non-blank string (`pattern: \S`) or a
/// non-empty list (`minItems: 1`). An optional date or datetime may be ""
/// (proto3's zero value: not given).
pub fn request_schema(message: &MessageDescriptor, lists: &ValueLists) -> Value {
    let mut schema = message_schema(message, lists, 0);
    if let Value::Object(map) = &mut schema {
        map.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
    }
    schema
}

fn message_schema(message: &MessageDescriptor, lists: &ValueLists, depth: usize) -> Value {
    if let Some(wkt) = well_known_schema(message.full_name()) {
        return wkt;
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in message.fields() {
        let options = crate::options::field(&field).unwrap_or_default();
        if options.required {
            required.push(json!(field.json_name()));
        }
        properties.insert(field.json_name().to_owned(), field_schema(&field, &options, lists, depth));
    }
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn field_schema(field: &FieldDescriptor, options: &Field, lists: &ValueLists, depth: usize) -> Value {
    let kind = field.kind();
    // Declared required and not `allow_empty`: the core wants a value
    // (platform validate.rs: non-blank strings, non-empty lists). A field
    // with presence (proto3 `optional`) need only be present: "" is a
    // value (the charter's "undecided", spec 2.5).
    let filled = options.required && !options.allow_empty && !field.supports_presence();
    let mut schema = if field.is_map() {
        let Kind::Message(entry) = &kind else { unreachable!("map fields are entry messages") };
        let value = entry.map_entry_value_field();
        let value_options = Field::default();
        json!({"type": "object", "additionalProperties": field_schema(&value, &value_options, lists, depth)})
    } else {
        let mut item = match &kind {
            Kind::Message(inner) if depth < MAX_DEPTH => message_schema(inner, lists, depth + 1),
            Kind::Message(_) => json!({"type": "object"}),
            kind => scalar_schema(kind, &options.format),
        };
        let map = item.as_object_mut().expect("schemas are objects");
        match kind {
            Kind::String => {
                map.insert("maxLength".into(), json!(crate::options::string_limit(Some(options))));
                if filled && !field.is_list() && !map.contains_key("pattern") {
                    map.insert("pattern".into(), json!(r"\S"));
                }
            }
            Kind::Bytes if filled && !field.is_list() => {
                map.insert("minLength".into(), json!(1));
            }
            _ => {}
        }
        if kind == Kind::String && !filled && matches!(options.format.as_str(), "date" | "datetime") {
            // An optional date may also be "" (proto3's "not given").
            item = json!({"anyOf": [item, {"type": "string", "maxLength": 0}]});
        }
        if field.is_list() {
            let mut list = json!({"type": "array", "items": item});
            if filled {
                list["minItems"] = json!(1);
            }
            list
        } else {
            item
        }
    };
    let map = schema.as_object_mut().expect("schemas are objects");
    let description = [options.label.as_str(), options.help.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("：");
    if !description.is_empty() {
        map.insert("description".into(), json!(description));
    }
    // Suggested values (a closed set is also an `enum`, below; spec 4.1 lets
    // out-of-list categories through: they give empty or other rankings). Each example
    // is a valid value of the schema it sits on: a list's choices are
    // examples of its items, an integer's are numbers, and a value the
    // field refuses ("" where a value is wanted) is left out.
    let examples: Vec<Value> = lists
        .choices(options)
        .iter()
        .filter_map(|choice| example_value(&kind, &choice.value, filled && !field.is_list()))
        .collect();
    // A closed set (`ValueLists::closed_values`) is an `enum`: the values
    // the core accepts (platform `closed_sets`), with "" (or 0) where the
    // field may be left empty.
    let closed = lists.closed_values(options).map(|values| {
        let mut values: Vec<Value> =
            values.iter().filter_map(|v| example_value(&kind, v, filled && !field.is_list())).collect();
        let empty = if kind == Kind::String { json!("") } else { json!(0) };
        if !filled && !field.is_list() && !values.contains(&empty) {
            values.push(empty);
        }
        values
    });
    let target = if field.is_list() { map.get_mut("items").and_then(Value::as_object_mut) } else { Some(map) };
    if let Some(target) = target {
        if !examples.is_empty() {
            target.insert("examples".into(), Value::Array(examples));
        }
        if let Some(values) = closed {
            target.insert("enum".into(), Value::Array(values));
        }
    }
    schema
}

/// A choice's value as an example of a field of `kind`: integers as
/// numbers (a choice that is not one is dropped), strings as they are
/// except a blank one when the field must not be blank.
fn example_value(kind: &Kind, value: &str, not_blank: bool) -> Option<Value> {
    match kind {
        Kind::String if not_blank && value.trim().is_empty() => None,
        Kind::String | Kind::Enum(_) => Some(json!(value)),
        Kind::Double | Kind::Float => value.parse::<f64>().ok().map(|v| json!(v)),
        Kind::Bool => value.parse::<bool>().ok().map(|v| json!(v)),
        _ => value.parse::<i64>().ok().map(|v| json!(v)),
    }
}

fn scalar_schema(kind: &Kind, format: &str) -> Value {
    match kind {
        Kind::String => match format {
            "date" => {
                json!({"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"})
            }
            "datetime" => {
                json!({"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"})
            }
            _ => json!({"type": "string"}),
        },
        Kind::Bytes => json!({"type": "string", "contentEncoding": "base64"}),
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Double | Kind::Float => json!({"type": "number"}),
        Kind::Enum(e) => {
            json!({"type": "string", "enum": e.values().map(|v| v.name().to_owned()).collect::<Vec<_>>()})
        }
        Kind::Message(_) => json!({"type": "object"}),
        kind => integer_schema(kind),
    }
}

/// An integer of a proto integer type. 32-bit types carry their range (the
/// gateway refuses a value outside it, rest-gateway `transcode/decode.rs`);
/// 64-bit types only their OpenAPI `format`, as their bounds do not survive
/// the doubles of a `google.protobuf.Struct` (the catalogs' schemas).
fn integer_schema(kind: &Kind) -> Value {
    match kind {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            json!({"type": "integer", "format": "int32", "minimum": i32::MIN, "maximum": i32::MAX})
        }
        Kind::Uint32 | Kind::Fixed32 => json!({"type": "integer", "minimum": 0, "maximum": u32::MAX}),
        Kind::Uint64 | Kind::Fixed64 => json!({"type": "integer", "minimum": 0}),
        _ => json!({"type": "integer", "format": "int64"}),
    }
}

fn well_known_schema(full_name: &str) -> Option<Value> {
    match full_name {
        "google.protobuf.Struct" => Some(json!({"type": "object"})),
        "google.protobuf.Value" => Some(json!({})),
        "google.protobuf.ListValue" => Some(json!({"type": "array"})),
        _ => None,
    }
}

/// JSON Schemas of response messages exactly as the gateway's encoder
/// writes them (rest-gateway `transcode/encode.rs`), one schema per message
/// type, referring to each other with `{"$ref": "<prefix><full name>"}`
/// (e.g. `#/components/schemas/mediaops.common.v1.ImageResult`):
///
/// - every field is written, so every field is `required`, except an unset
///   field with `(mediaops.options.v1.omit_unset)`, which is left out;
/// - a field with presence (a message, a proto3 `optional`) may be `null`;
/// - a `double`/`float` may be `null` (NaN and infinities have no JSON form);
/// - enums are strings (the value's name), bytes base64 strings, 64-bit
///   integers JSON numbers, maps objects;
/// - `google.protobuf.Struct`/`Value`/`ListValue` are free-form.
///
/// Descriptions are the proto comments. No `additionalProperties: false`:
/// a later version may add fields to an answer.
#[derive(Debug, Clone, Default)]
pub struct ResponseSchemas {
    prefix: String,
    schemas: BTreeMap<String, Value>,
}

impl ResponseSchemas {
    /// An empty set whose references start with `prefix`.
    pub fn new(prefix: impl Into<String>) -> ResponseSchemas {
        ResponseSchemas { prefix: prefix.into(), schemas: BTreeMap::new() }
    }

    /// The schema of a value of type `message`: a `$ref` to its schema
    /// (added to the set with those of the messages inside it, if not there
    /// yet), or the inline schema of a free-form well-known type.
    pub fn reference(&mut self, message: &MessageDescriptor) -> Value {
        if let Some(wkt) = well_known_schema(message.full_name()) {
            return wkt;
        }
        let name = message.full_name();
        if !self.schemas.contains_key(name) {
            // A placeholder first, so a recursive type refers to itself.
            self.schemas.insert(name.to_owned(), Value::Null);
            let schema = self.message_schema(message);
            self.schemas.insert(name.to_owned(), schema);
        }
        json!({"$ref": format!("{}{name}", self.prefix)})
    }

    /// Every schema added so far, by message full name.
    pub fn into_schemas(self) -> BTreeMap<String, Value> {
        self.schemas
    }

    fn message_schema(&mut self, message: &MessageDescriptor) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for field in message.fields() {
            let omitted = field.supports_presence() && crate::options::omit_unset(&field);
            if !omitted {
                required.push(json!(field.json_name()));
            }
            let mut schema = self.field_schema(&field);
            if field.supports_presence() && !omitted {
                schema = nullable(schema);
            }
            if let Some(text) = comment(message.parent_file_descriptor_proto(), field.path()) {
                schema.as_object_mut().expect("schemas are objects").insert("description".into(), json!(text));
            }
            properties.insert(field.json_name().to_owned(), schema);
        }
        let mut schema = json!({"type": "object", "properties": properties, "required": required});
        if let Some(text) = comment(message.parent_file_descriptor_proto(), message.path()) {
            schema["description"] = json!(text);
        }
        schema
    }

    fn field_schema(&mut self, field: &FieldDescriptor) -> Value {
        let kind = field.kind();
        if field.is_map() {
            let Kind::Message(entry) = &kind else { unreachable!("map fields are entry messages") };
            let value = self.single_schema(&entry.map_entry_value_field().kind());
            return json!({"type": "object", "additionalProperties": value});
        }
        let single = self.single_schema(&kind);
        if field.is_list() { json!({"type": "array", "items": single}) } else { single }
    }

    fn single_schema(&mut self, kind: &Kind) -> Value {
        match kind {
            Kind::Message(inner) => self.reference(inner),
            Kind::Double | Kind::Float => json!({"type": ["number", "null"]}),
            kind => scalar_schema(kind, ""),
        }
    }
}

/// `schema` or `null`: a `type` list gains `"null"`, anything else (a
/// `$ref`) is wrapped in `anyOf`.
fn nullable(mut schema: Value) -> Value {
    match schema.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            schema["type"] = json!([t, "null"]);
            schema
        }
        Some(Value::Array(types)) => {
            if !types.contains(&json!("null")) {
                types.push(json!("null"));
            }
            schema
        }
        _ => json!({"anyOf": [schema, {"type": "null"}]}),
    }
}

/// The leading comment of the element at `path` of `file`, trimmed; `None`
/// without one.
fn comment(file: &prost_types::FileDescriptorProto, path: &[i32]) -> Option<String> {
    let info = file.source_code_info.as_ref()?;
    let location = info.location.iter().find(|l| l.path == path)?;
    let text = location.leading_comments();
    let text = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// A skeleton of what the gateway returns in `data` for `message`: every
/// field with its zero value, `null` for unset optional scalars, one element
/// in lists of messages to show the element's shape. An optional scalar
/// with `(mediaops.options.v1.omit_unset)` is left out, as the gateway
/// leaves it out when unset.
pub fn example(message: &MessageDescriptor) -> Value {
    example_at(message, 0)
}

fn example_at(message: &MessageDescriptor, depth: usize) -> Value {
    if let Some(wkt) = well_known_schema(message.full_name()) {
        return if wkt.get("type") == Some(&json!("array")) { json!([]) } else { json!({}) };
    }
    let mut map = Map::new();
    for field in message.fields() {
        let value = match field.kind() {
            Kind::Message(_) if field.is_map() => json!({}),
            Kind::Message(inner) if depth < MAX_DEPTH => {
                let one = example_at(&inner, depth + 1);
                if field.is_list() { json!([one]) } else { one }
            }
            _ if field.is_list() => json!([]),
            _ if field.supports_presence() && crate::options::omit_unset(&field) => continue,
            _ if field.supports_presence() => Value::Null,
            kind => scalar_example(&kind),
        };
        map.insert(field.json_name().to_owned(), value);
    }
    Value::Object(map)
}

fn scalar_example(kind: &Kind) -> Value {
    match kind {
        Kind::String | Kind::Bytes => json!(""),
        Kind::Bool => json!(false),
        Kind::Double | Kind::Float => json!(0.0),
        Kind::Enum(e) => json!(e.default_value().name()),
        _ => json!(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor_pool;

    #[test]
    fn schema_names_json_fields_and_required() {
        let pool = descriptor_pool();
        let lists = ValueLists::from_pool(pool);
        let desc = pool.get_message_by_name("mediaops.lifestyle.v1.LifestyleAiFeedRequest").unwrap();
        let schema = request_schema(&desc, &lists);
        assert_eq!(schema["required"], json!(["keyword", "startTime", "endTime"]));
        assert_eq!(schema["properties"]["pageNum"]["type"], "integer");
        assert!(schema["properties"]["startTime"]["pattern"].as_str().unwrap().contains(r"\d{2}:\d{2}"));
        assert_eq!(schema["additionalProperties"], false);
    }

    #[test]
    fn request_schema_states_the_enforced_limits() {
        let pool = descriptor_pool();
        let lists = ValueLists::from_pool(pool);
        let desc = pool.get_message_by_name("mediaops.lifestyle.v1.LifestyleAiFeedRequest").unwrap();
        let properties = &request_schema(&desc, &lists)["properties"];
        let keyword = &properties["keyword"];
        assert_eq!(keyword["maxLength"], crate::options::DEFAULT_MAX_CHARS);
        assert_eq!(keyword["pattern"], r"\S", "required and not allow_empty: not blank");
        assert_eq!(properties["pageNum"]["maximum"], i32::MAX);
        assert_eq!(properties["pageNum"]["format"], "int32");
        let desc = pool.get_message_by_name("mediaops.lifestyle.v1.LifestyleAccountAnalyzerRequest").unwrap();
        let user_ids = &request_schema(&desc, &lists)["properties"]["userIds"];
        assert_eq!(user_ids["minItems"], 1);
        assert_eq!(user_ids["items"]["maxLength"], crate::options::DEFAULT_MAX_CHARS);
        let desc = pool.get_message_by_name("mediaops.lifestyle.v1.CrawlWorkRequest").unwrap();
        let end_date = &request_schema(&desc, &lists)["properties"]["endDate"];
        assert_eq!(end_date["anyOf"][0]["format"], "date");
        assert_eq!(end_date["anyOf"][1], json!({"type": "string", "maxLength": 0}), "optional: \"\" is not given");
        let desc = pool.get_message_by_name("mediaops.tool.v1.CheckBannedWordsRequest").unwrap();
        let content = &request_schema(&desc, &lists)["properties"]["content"];
        assert_eq!(content["maxLength"], crate::options::TEXTAREA_MAX_CHARS);
    }

    #[test]
    fn examples_are_values_of_their_own_schema() {
        let pool = descriptor_pool();
        let lists = ValueLists::from_pool(pool);
        let charter = pool.get_message_by_name("mediaops.charter.v1.Charter").unwrap();
        let charter = request_schema(&charter, &lists);
        let monetization = &charter["properties"]["monetization"]["properties"];
        // Present is enough for a proto3 optional: "" (undecided) is valid.
        assert_eq!(monetization["path"].get("pattern"), None, "{}", monetization["path"]);
        assert_eq!(monetization["path"]["examples"][0], "");
        assert_eq!(charter["properties"]["northStar"]["properties"]["metric"].get("pattern"), None);
        // A list's choices are examples of its items.
        let practical = &monetization["practicalPaths"];
        assert_eq!(practical.get("examples"), None);
        assert!(practical["items"]["examples"].as_array().unwrap().contains(&json!("consulting")));
        // An integer's choices are numbers.
        let feed = pool.get_message_by_name("mediaops.multi.v1.PlayletFeedRequest").unwrap();
        let platform = &request_schema(&feed, &lists)["properties"]["platform"];
        assert_eq!(platform["type"], "integer");
        assert!(platform["examples"].as_array().unwrap().iter().all(Value::is_i64), "{platform}");
        // Closed sets are enums: the values the core accepts.
        assert_eq!(platform["enum"], json!([0, 1, 3, 6]));
        let rank = pool.get_message_by_name("mediaops.shortvideo.v1.DouyinRiseFansRankRequest").unwrap();
        let rank = request_schema(&rank, &lists);
        assert_eq!(rank["properties"]["period"]["enum"], json!(["day", "week", "month", ""]));
        assert_eq!(rank["properties"]["category"].get("enum"), None, "spec 4.2 lists are not closed");
        assert_eq!(example_value(&Kind::String, " ", true), None, "not blank: \"\" is no example");
        assert_eq!(example_value(&Kind::Int32, "3", false), Some(json!(3)));
        assert_eq!(example_value(&Kind::Int32, "三", false), None);
    }

    #[test]
    fn response_schemas_follow_the_encoder() {
        let pool = descriptor_pool();
        let mut schemas = ResponseSchemas::new("#/s/");
        let image = pool.get_message_by_name("mediaops.common.v1.ImageResult").unwrap();
        assert_eq!(schemas.reference(&image), json!({"$ref": "#/s/mediaops.common.v1.ImageResult"}));
        let all = schemas.into_schemas();
        let result = &all["mediaops.common.v1.ImageResult"];
        assert_eq!(result["required"], json!(["source", "taskId", "status", "images"]));
        assert_eq!(result["properties"]["taskId"]["type"], json!(["string", "null"]), "proto3 optional");
        assert_eq!(result["properties"]["images"]["items"]["$ref"], "#/s/mediaops.common.v1.Image");
        assert!(all.contains_key("mediaops.common.v1.Image"));

        // An omit_unset field is not required and never null.
        let mut schemas = ResponseSchemas::new("#/s/");
        schemas.reference(&pool.get_message_by_name("mediaops.options.v1.TaskUi").unwrap());
        let task_ui = &schemas.into_schemas()["mediaops.options.v1.TaskUi"];
        assert!(!task_ui["required"].as_array().unwrap().contains(&json!("featuredRank")));
        assert_eq!(task_ui["properties"]["featuredRank"]["type"], "integer");
    }

    #[test]
    fn example_shows_nested_items() {
        let desc = descriptor_pool().get_message_by_name("mediaops.lifestyle.v1.LifestyleHitDataResponse").unwrap();
        let example = example(&desc);
        assert_eq!(example, json!({"items": [{"rank": "", "item": {"title": "", "coverUrl": "", "useLikeCount": 0}}]}));
    }
}
