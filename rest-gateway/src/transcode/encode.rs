//! Response message → JSON for the envelope's `data` (DESIGN: "counts are
//! JSON numbers; an absent optional value is null").
//!
//! - Every field is written under its `json_name`, in declaration order.
//! - A field with presence (a message, a proto3 `optional`) that is unset is
//!   `null`; lists and maps are always written (`[]`, `{}`).
//! - 64-bit integers are JSON numbers, never strings.
//! - Inside free-form objects (`google.protobuf.Struct`, e.g. `raw`), whose
//!   numbers travel as doubles, a whole number is written as an integer.
//! - Enums are written by name, bytes as standard base64.

use base64::Engine;
use prost_reflect::{DynamicMessage, Kind, MapKey, ReflectMessage, Value};
use serde_json::{Map, Number, Value as Json};

/// Encodes a message as a JSON object.
pub fn encode(message: &DynamicMessage) -> Json {
    let desc = message.descriptor();
    match desc.full_name() {
        "google.protobuf.Struct" | "google.protobuf.Value" | "google.protobuf.ListValue" => free_form(message),
        _ => {
            let mut object = Map::with_capacity(desc.fields().len());
            for field in desc.fields() {
                let value = if field.supports_presence() && !message.has_field(&field) {
                    Json::Null
                } else {
                    value_to_json(&message.get_field(&field), &field.kind())
                };
                object.insert(field.json_name().to_owned(), value);
            }
            Json::Object(object)
        }
    }
}

fn value_to_json(value: &Value, kind: &Kind) -> Json {
    match value {
        Value::Bool(b) => Json::Bool(*b),
        Value::I32(n) => Json::from(*n),
        Value::I64(n) => Json::from(*n),
        Value::U32(n) => Json::from(*n),
        Value::U64(n) => Json::from(*n),
        Value::F32(n) => float(f64::from(*n)),
        Value::F64(n) => float(*n),
        Value::String(s) => Json::String(s.clone()),
        Value::Bytes(b) => Json::String(base64::engine::general_purpose::STANDARD.encode(b)),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(e) => {
                e.get_value(*n).map(|v| Json::String(v.name().to_owned())).unwrap_or_else(|| Json::from(*n))
            }
            _ => Json::from(*n),
        },
        Value::Message(m) => encode(m),
        Value::List(items) => Json::Array(items.iter().map(|item| value_to_json(item, kind)).collect()),
        Value::Map(entries) => {
            let value_kind = match kind {
                Kind::Message(entry) => entry.map_entry_value_field().kind(),
                other => other.clone(),
            };
            Json::Object(entries.iter().map(|(k, v)| (map_key(k), value_to_json(v, &value_kind))).collect())
        }
    }
}

fn map_key(key: &MapKey) -> String {
    match key {
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(n) => n.to_string(),
        MapKey::I64(n) => n.to_string(),
        MapKey::U32(n) => n.to_string(),
        MapKey::U64(n) => n.to_string(),
        MapKey::String(s) => s.clone(),
    }
}

fn float(n: f64) -> Json {
    Number::from_f64(n).map(Json::Number).unwrap_or(Json::Null)
}

/// A `Struct`/`Value`/`ListValue` through prost-reflect's proto3 JSON, then
/// whole doubles back to integers.
fn free_form(message: &DynamicMessage) -> Json {
    let mut json = serde_json::to_value(message).unwrap_or(Json::Null);
    whole_numbers_to_integers(&mut json);
    json
}

/// Largest integer a double holds exactly (2^53).
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

fn whole_numbers_to_integers(json: &mut Json) {
    match json {
        Json::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() <= MAX_EXACT) {
                *n = Number::from(f as i64);
            }
        }
        Json::Array(items) => items.iter_mut().for_each(whole_numbers_to_integers),
        Json::Object(map) => map.values_mut().for_each(whole_numbers_to_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::descriptor_pool;
    use serde_json::json;

    fn message(name: &str, json: Json) -> DynamicMessage {
        DynamicMessage::deserialize(descriptor_pool().get_message_by_name(name).unwrap(), json).unwrap()
    }

    #[test]
    fn counts_are_numbers_and_absent_optionals_are_null() {
        let m = message("mediaops.common.v1.ImageResult", json!({"source": "x", "status": "success"}));
        assert_eq!(encode(&m), json!({"source": "x", "taskId": null, "status": "success", "images": []}));
        let m = message(
            "mediaops.common.v1.TitleLikeList",
            json!({"items": [{"title": "a", "likeCount": "9007199254740993"}]}),
        );
        assert_eq!(encode(&m), json!({"items": [{"title": "a", "likeCount": 9007199254740993i64}]}));
    }

    #[test]
    fn whole_numbers_stay_whole_in_free_form_objects() {
        let raw = json!({"hits": [{"start": 5, "end": 7, "score": 0.5}], "n": 3});
        let m = message("mediaops.common.v1.BannedWordResult", json!({"raw": raw}));
        let out = encode(&m);
        assert_eq!(out["raw"], raw);
        assert_eq!(serde_json::to_string(&out["raw"]["n"]).unwrap(), "3");
    }

    #[test]
    fn spec_snake_case_names_survive() {
        let m = message("mediaops.shortvideo.v1.SurgeWork", json!({"title": "t", "share_url": "u"}));
        assert_eq!(encode(&m), json!({"title": "t", "category": "", "share_url": "u"}));
    }
}
