//! Response message → JSON for the envelope's `data` (DESIGN: "counts are
//! JSON numbers; an absent optional value is null").
//!
//! - Every field is written under its `json_name`, in declaration order.
//! - A field with presence (a message, a proto3 `optional`) that is unset is
//!   `null`, or left out when it carries `(mediaops.options.v1.omit_unset)`
//!   (the catalog's optional descriptor fields, spec 2.2-2.4: "absent");
//!   lists and maps are always written (`[]`, `{}`).
//! - 64-bit integers are JSON numbers, never strings.
//! - Inside free-form objects (`google.protobuf.Struct`, e.g. `raw`), whose
//!   numbers travel as doubles, a whole number is written as an integer.
//! - Enums are written by name, bytes as standard base64.

use base64::Engine;
use prost_reflect::{DynamicMessage, Kind, MapKey, ReflectMessage, Value};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value as Json};

/// A message seen as JSON: serializes straight to the output, building no
/// intermediate JSON tree (the gateway's hot path).
#[derive(Clone, Copy)]
pub struct JsonMessage<'a>(pub &'a DynamicMessage);

/// Encodes a message as a JSON value (for tests and callers that need a tree).
pub fn encode(message: &DynamicMessage) -> Json {
    serde_json::to_value(JsonMessage(message)).unwrap_or(Json::Null)
}

impl Serialize for JsonMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let message = self.0;
        let desc = message.descriptor();
        match desc.full_name() {
            "google.protobuf.Struct" | "google.protobuf.Value" | "google.protobuf.ListValue" => {
                free_form(message).serialize(serializer)
            }
            _ => {
                let mut map = serializer.serialize_map(None)?;
                for field in desc.fields() {
                    if field.supports_presence() && !message.has_field(&field) {
                        if !mediaops_proto::options::omit_unset(&field) {
                            map.serialize_entry(field.json_name(), &())?;
                        }
                    } else {
                        let value = message.get_field(&field);
                        map.serialize_entry(field.json_name(), &JsonValue { value: &value, kind: &field.kind() })?;
                    }
                }
                map.end()
            }
        }
    }
}

struct JsonValue<'a> {
    value: &'a Value,
    kind: &'a Kind,
}

impl Serialize for JsonValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::I32(n) => serializer.serialize_i32(*n),
            Value::I64(n) => serializer.serialize_i64(*n),
            Value::U32(n) => serializer.serialize_u32(*n),
            Value::U64(n) => serializer.serialize_u64(*n),
            Value::F32(n) => float(f64::from(*n), serializer),
            Value::F64(n) => float(*n, serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Bytes(b) => serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b)),
            Value::EnumNumber(n) => match self.kind {
                Kind::Enum(e) => match e.get_value(*n) {
                    Some(v) => serializer.serialize_str(v.name()),
                    None => serializer.serialize_i32(*n),
                },
                _ => serializer.serialize_i32(*n),
            },
            Value::Message(m) => JsonMessage(m).serialize(serializer),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&JsonValue { value: item, kind: self.kind })?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let value_kind = match self.kind {
                    Kind::Message(entry) => entry.map_entry_value_field().kind(),
                    other => other.clone(),
                };
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(&map_key(k), &JsonValue { value: v, kind: &value_kind })?;
                }
                map.end()
            }
        }
    }
}

/// NaN and infinities have no JSON form: `null`.
fn float<S: Serializer>(n: f64, serializer: S) -> Result<S::Ok, S::Error> {
    if n.is_finite() { serializer.serialize_f64(n) } else { serializer.serialize_unit() }
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
