//! JSON Schema (draft 2020-12) of a request message and a response skeleton,
//! both generated from the descriptors (spec 2.2 `requestSchema`,
//! `responseExample`; 2.3 `inputSchema`, `outputExample`).

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{Map, Value, json};

use crate::value_lists::ValueLists;

/// Nesting bound, so a recursive message type cannot loop.
const MAX_DEPTH: usize = 8;

/// The JSON Schema of `message`: an object whose properties are the fields'
/// JSON names, `required` from the field options, no other properties.
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

fn field_schema(
    field: &FieldDescriptor,
    options: &crate::mediaops::options::v1::Field,
    lists: &ValueLists,
    depth: usize,
) -> Value {
    let mut schema = match field.kind() {
        Kind::Message(inner) if depth < MAX_DEPTH => message_schema(&inner, lists, depth + 1),
        Kind::Message(_) => json!({"type": "object"}),
        kind => scalar_schema(&kind, &options.format),
    };
    if field.is_list() {
        schema = json!({"type": "array", "items": schema});
    }
    let map = schema.as_object_mut().expect("schemas are objects");
    let description = [options.label.as_str(), options.help.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("：");
    if !description.is_empty() {
        map.insert("description".into(), json!(description));
    }
    let choices = lists.choices(options);
    if !choices.is_empty() {
        // Suggested values, not a closed enum: spec 4.1 lets out-of-list
        // categories through (they give empty or other rankings).
        map.insert("examples".into(), json!(choices.iter().map(|c| &c.value).collect::<Vec<_>>()));
    }
    schema
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
        _ => json!({"type": "integer"}),
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

/// A skeleton of what the gateway returns in `data` for `message`: every
/// field with its zero value, `null` for unset optional scalars, one element
/// in lists of messages to show the element's shape.
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
            Kind::Message(inner) if depth < MAX_DEPTH => {
                let one = example_at(&inner, depth + 1);
                if field.is_list() { json!([one]) } else { one }
            }
            _ if field.is_list() => json!([]),
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
    fn example_shows_nested_items() {
        let desc = descriptor_pool().get_message_by_name("mediaops.lifestyle.v1.LifestyleHitDataResponse").unwrap();
        let example = example(&desc);
        assert_eq!(example, json!({"items": [{"rank": "", "item": {"title": "", "coverUrl": "", "useLikeCount": 0}}]}));
    }
}
