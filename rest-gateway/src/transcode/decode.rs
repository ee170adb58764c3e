//! JSON → request message, with the checks the gateway owes its clients
//! (docs/errors.md, docs/operations.md): an unknown field is named with the closest known
//! one, a value of the wrong JSON type is named with the expected type, and a
//! field declared required that is absent (or `null`) is named. Numbers must
//! be JSON numbers (no numeric strings); integers must be whole and in range.

use std::collections::HashMap;

use base64::Engine;
use prost_reflect::{DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor, Value};
use serde_json::Value as Json;

use super::{FieldError, join};

/// Required fields and string limits (from the field options).
pub use mediaops_proto::options::FieldRules;

/// Decodes a JSON object into a message of type `desc`.
pub fn decode(desc: &MessageDescriptor, json: &Json, rules: &FieldRules) -> Result<DynamicMessage, FieldError> {
    decode_message(desc, json, "", rules)
}

fn decode_message(
    desc: &MessageDescriptor,
    json: &Json,
    path: &str,
    rules: &FieldRules,
) -> Result<DynamicMessage, FieldError> {
    let object = json_object(json, path)?;
    let mut message = DynamicMessage::new(desc.clone());
    for (key, value) in object {
        let field = field_named(desc, key, path)?;
        if value.is_null() {
            continue;
        }
        let field_path = join(path, field.json_name());
        let converted = if field.is_map() {
            decode_map(&field, value, &field_path, rules)?
        } else if field.is_list() {
            let Json::Array(items) = value else {
                return Err(wrong_type(&field_path, "an array", value));
            };
            let values = items
                .iter()
                .enumerate()
                .map(|(i, item)| decode_single(&field, item, &format!("{field_path}[{i}]"), rules))
                .collect::<Result<Vec<_>, _>>()?;
            Value::List(values)
        } else {
            decode_single(&field, value, &field_path, rules)?
        };
        message.set_field(&field, converted);
    }
    check_required(desc, object, path, rules)?;
    Ok(message)
}

/// `json` as an object; else the error naming `path` (the body at the top).
pub(crate) fn json_object<'a>(json: &'a Json, path: &str) -> Result<&'a serde_json::Map<String, Json>, FieldError> {
    let Json::Object(object) = json else {
        let what = if path.is_empty() { "the request body".to_owned() } else { format!("`{path}`") };
        return Err(FieldError::new(path, format!("{what} must be a JSON object, not {}", json_type(json))));
    };
    Ok(object)
}

/// The field of `desc` that `key` names, by JSON or proto name; else the
/// error naming the closest one.
pub(crate) fn field_named(desc: &MessageDescriptor, key: &str, path: &str) -> Result<FieldDescriptor, FieldError> {
    desc.get_field_by_json_name(key)
        .or_else(|| desc.get_field_by_name(key))
        .ok_or_else(|| unknown_field(desc, key, path))
}

/// The first required field of `desc` that `object` lacks (or gives as
/// `null`), as an error.
pub(crate) fn check_required(
    desc: &MessageDescriptor,
    object: &serde_json::Map<String, Json>,
    path: &str,
    rules: &FieldRules,
) -> Result<(), FieldError> {
    for field in rules.required(desc.full_name()).iter().map(|r| &r.field) {
        let present = object.get(field.json_name()).or_else(|| object.get(field.name())).is_some_and(|v| !v.is_null());
        if !present {
            let field_path = join(path, field.json_name());
            return Err(FieldError::new(&field_path, format!("`{field_path}` is required")));
        }
    }
    Ok(())
}

fn decode_map(field: &FieldDescriptor, value: &Json, path: &str, rules: &FieldRules) -> Result<Value, FieldError> {
    let Json::Object(entries) = value else {
        return Err(wrong_type(path, "an object", value));
    };
    let Kind::Message(entry) = field.kind() else { unreachable!("map fields are entry messages") };
    let value_field = entry.map_entry_value_field();
    let mut map = HashMap::new();
    for (key, item) in entries {
        let key = match entry.map_entry_key_field().kind() {
            Kind::String => MapKey::String(key.clone()),
            _ => {
                return Err(FieldError::new(
                    path,
                    format!("`{path}` has non-string keys, which this gateway does not accept"),
                ));
            }
        };
        map.insert(key, decode_single(&value_field, item, &format!("{path}.{}", map.len()), rules)?);
    }
    Ok(Value::Map(map))
}

fn decode_single(field: &FieldDescriptor, value: &Json, path: &str, rules: &FieldRules) -> Result<Value, FieldError> {
    Ok(match field.kind() {
        Kind::String => {
            let text = value.as_str().ok_or_else(|| wrong_type(path, "a string", value))?;
            rules.check_length(field, path, text).map_err(|message| FieldError::new(path, message))?;
            Value::String(text.to_owned())
        }
        Kind::Bool => Value::Bool(value.as_bool().ok_or_else(|| wrong_type(path, "true or false", value))?),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            Value::I32(integer(value, path, i32::MIN as f64, i32::MAX as f64)? as i32)
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
            Value::I64(integer(value, path, i64::MIN as f64, i64::MAX as f64)? as i64)
        }
        Kind::Uint32 | Kind::Fixed32 => Value::U32(integer(value, path, 0.0, u32::MAX as f64)? as u32),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(integer(value, path, 0.0, u64::MAX as f64)? as u64),
        Kind::Double => Value::F64(value.as_f64().ok_or_else(|| wrong_type(path, "a number", value))?),
        Kind::Float => Value::F32(value.as_f64().ok_or_else(|| wrong_type(path, "a number", value))? as f32),
        Kind::Bytes => Value::Bytes(base64_bytes(value, path)?.into()),
        Kind::Enum(e) => Value::EnumNumber(enum_number(&e, value, path)?),
        Kind::Message(inner) if is_well_known(&inner) => Value::Message(well_known(&inner, value, path)?),
        Kind::Message(inner) => Value::Message(decode_message(&inner, value, path, rules)?),
    })
}

/// A `bytes` value: a string in standard or URL-safe base64.
pub(crate) fn base64_bytes(value: &Json, path: &str) -> Result<Vec<u8>, FieldError> {
    let text = value.as_str().ok_or_else(|| wrong_type(path, "a base64 string", value))?;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(text))
        .map_err(|_| FieldError::new(path, format!("`{path}` must be base64")))
}

/// An enum value, by name or by number, as its number.
pub(crate) fn enum_number(e: &prost_reflect::EnumDescriptor, value: &Json, path: &str) -> Result<i32, FieldError> {
    let number = match value {
        Json::String(name) => e.get_value_by_name(name).map(|v| v.number()),
        Json::Number(n) => n.as_i64().and_then(|n| e.get_value(n as i32)).map(|v| v.number()),
        _ => None,
    };
    number.ok_or_else(|| {
        let names: Vec<_> = e.values().map(|v| v.name().to_owned()).collect();
        FieldError::new(path, format!("`{path}` must be one of {}", names.join(", ")))
    })
}

/// Whether `desc` is one of protobuf's well-known types
/// (`google.protobuf.Struct`, …), whose JSON form is their own.
pub(crate) fn is_well_known(desc: &MessageDescriptor) -> bool {
    desc.full_name().starts_with("google.protobuf.")
}

/// A well-known type from its proto3 JSON form (prost-reflect's mapping).
pub(crate) fn well_known(desc: &MessageDescriptor, value: &Json, path: &str) -> Result<DynamicMessage, FieldError> {
    DynamicMessage::deserialize(desc.clone(), value.clone())
        .map_err(|e| FieldError::new(path, format!("`{path}` is not a valid {}: {e}", desc.name())))
}

/// A whole JSON number within `[min, max]`.
pub(crate) fn integer(value: &Json, path: &str, min: f64, max: f64) -> Result<f64, FieldError> {
    let Json::Number(n) = value else {
        return Err(wrong_type(path, "a whole number", value));
    };
    if let Some(i) = n.as_i64() {
        if (i as f64) >= min && (i as f64) <= max {
            return Ok(i as f64);
        }
    } else if let Some(u) = n.as_u64() {
        if (u as f64) <= max {
            return Ok(u as f64);
        }
    } else if let Some(f) = n.as_f64() {
        if f.fract() != 0.0 {
            return Err(FieldError::new(path, format!("`{path}` must be a whole number, not {f}")));
        }
        if f >= min && f <= max {
            return Ok(f);
        }
    }
    Err(FieldError::new(path, format!("`{path}` is out of range ({min} to {max})")))
}

pub(crate) fn wrong_type(path: &str, expected: &str, value: &Json) -> FieldError {
    FieldError::new(path, format!("`{path}` must be {expected}, not {}", json_type(value)))
}

/// How a JSON value's type reads in messages ("a string", "an array", …).
pub(crate) fn json_type(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// The error for a key no field of `desc` has, naming the closest field.
pub fn unknown_field(desc: &MessageDescriptor, key: &str, path: &str) -> FieldError {
    let key = &mediaops_proto::excerpt::shorten(key, mediaops_proto::excerpt::SHOWN_CHARS);
    let field_path = join(path, key);
    let closest = desc
        .fields()
        .map(|f| (strsim::jaro_winkler(&key.to_lowercase(), &f.json_name().to_lowercase()), f.json_name().to_owned()))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let message = match closest {
        Some((_, name)) => format!("unknown field `{field_path}`; the closest known field is `{}`", join(path, &name)),
        None => format!("unknown field `{field_path}`; this request takes no fields"),
    };
    FieldError::new(field_path, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::descriptor_pool;
    use serde_json::json;

    fn run(message: &str, body: Json) -> Result<DynamicMessage, FieldError> {
        let pool = descriptor_pool();
        let rules = FieldRules::from_pool(pool);
        decode(&pool.get_message_by_name(message).unwrap(), &body, &rules)
    }

    const SEARCH: &str = "mediaops.lifestyle.v1.SearchWorkRequest";

    #[test]
    fn accepts_json_and_proto_names() {
        let m = run(SEARCH, json!({"keyword": "露营", "pageSize": 20, "page_size": 20, "page": 2.0})).unwrap();
        assert_eq!(m.get_field_by_name("page_size").unwrap().as_i32(), Some(20));
        assert_eq!(m.get_field_by_name("page").unwrap().as_i32(), Some(2));
    }

    #[test]
    fn names_missing_wrong_and_unknown_fields() {
        assert_eq!(run(SEARCH, json!({})).unwrap_err(), FieldError::new("keyword", "`keyword` is required"));
        assert_eq!(run(SEARCH, json!({"keyword": null})).unwrap_err().field, "keyword");
        let wrong = run(SEARCH, json!({"keyword": "x", "page": "2"})).unwrap_err();
        assert_eq!(wrong, FieldError::new("page", "`page` must be a whole number, not a string"));
        assert_eq!(run(SEARCH, json!({"keyword": "x", "page": 1.5})).unwrap_err().field, "page");
        assert_eq!(run(SEARCH, json!({"keyword": "x", "page": 1e12})).unwrap_err().field, "page");
        let unknown = run(SEARCH, json!({"keywrd": "x"})).unwrap_err();
        assert_eq!(unknown.field, "keywrd");
        assert!(unknown.message.contains("`keyword`"), "{}", unknown.message);
        assert_eq!(run(SEARCH, json!([1])).unwrap_err().field, "");
    }

    #[test]
    fn nested_paths_are_named() {
        let body = json!({"id": "p", "charter": {"version": 1, "positioning": {"oneLiner": 3}}});
        let err = run("mediaops.charter.v1.PutCharterRequest", body).unwrap_err();
        assert_eq!(err.field, "charter.positioning.oneLiner");
        let body = json!({"userIds": ["a", 2]});
        let err = run("mediaops.lifestyle.v1.LifestyleAccountAnalyzerRequest", body).unwrap_err();
        assert_eq!(err.field, "userIds[1]");
    }
}
