//! The core's answer, protobuf wire format → the envelope's `data` JSON,
//! straight from the message descriptor (no `DynamicMessage` is built): the
//! gateway's hot path. The JSON is the one [`super::encode`] writes of the
//! decoded message (its rules are listed there: `json_name`s in declaration
//! order, an unset field with presence `null` or left out under
//! `omit_unset`, lists and maps always written, zero values of fields
//! without presence written, 64-bit integers as numbers, enums by name,
//! bytes as standard base64, whole numbers of free-form objects as
//! integers). The keys of a free-form object are sorted, as the descriptor
//! path wrote them; the entries of a map field come in the order the core
//! wrote them (the descriptor path wrote them in hash order).

use std::borrow::Cow;

use base64::Engine;
use bytes::Bytes;
use mediaops_proto::wire::{Record, Records, Scalar, WireError, default_of, for_each_value, last_value, merged};
use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde::ser::{Error as _, Serialize, SerializeMap, SerializeSeq, Serializer};

/// An encoded message of a known type, written as JSON by serializing it
/// (nothing is decoded before the JSON is written; bytes that are not a
/// message of the type fail the serialization).
#[derive(Debug, Clone)]
pub struct EncodedMessage {
    /// The message's type.
    pub desc: MessageDescriptor,
    /// The message in the protobuf wire format.
    pub bytes: Bytes,
}

impl Serialize for EncodedMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WireJson { desc: &self.desc, bytes: &self.bytes }.serialize(serializer)
    }
}

/// A borrowed encoded message of type `desc`, as JSON.
#[derive(Clone, Copy)]
pub struct WireJson<'a> {
    /// The message's type.
    pub desc: &'a MessageDescriptor,
    /// The message in the protobuf wire format.
    pub bytes: &'a [u8],
}

/// A serializer's error, from a wire error met while writing.
struct Fail<E>(E);

impl<E: serde::ser::Error> From<WireError> for Fail<E> {
    fn from(error: WireError) -> Self {
        Fail(E::custom(format!("the answer is not a valid message: {error}")))
    }
}

fn wire<E: serde::ser::Error>(error: WireError) -> E {
    Fail::<E>::from(error).0
}

impl Serialize for WireJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.desc.full_name() {
            "google.protobuf.Struct" => return FreeForm::Struct(self.bytes).serialize(serializer),
            "google.protobuf.Value" => return FreeForm::Value(self.bytes).serialize(serializer),
            "google.protobuf.ListValue" => return FreeForm::List(self.bytes).serialize(serializer),
            _ => {}
        }
        let records = Records::parse(self.bytes).map_err(wire)?;
        let mut map = serializer.serialize_map(None)?;
        for field in self.desc.fields() {
            let found = records.of(field.number());
            let name = field.json_name();
            let kind = field.kind();
            if field.is_map() {
                map.serialize_entry(name, &MapJson { field: &field, records: found })?;
            } else if field.is_list() {
                map.serialize_entry(name, &ListJson { kind: &kind, records: found })?;
            } else if field.supports_presence() && found.is_empty() {
                if !omits_unset(&field) {
                    map.serialize_entry(name, &())?;
                }
            } else if let Kind::Message(inner) = &kind {
                let bytes = merged(found).map_err(wire)?.unwrap_or_default();
                map.serialize_entry(name, &WireJson { desc: inner, bytes: &bytes })?;
            } else {
                let value = last_value(&kind, found).map_err(wire)?.or_else(|| default_of(&kind));
                map.serialize_entry(name, &value.map(|value| ScalarJson { value, kind: &kind }))?;
            }
        }
        map.end()
    }
}

/// Whether `field` carries `(mediaops.options.v1.omit_unset)`
/// ([`mediaops_proto::options::omit_unset`]), read once for every field of
/// the embedded descriptor pool, the gateway's (reading a field's options
/// decodes them).
fn omits_unset(field: &FieldDescriptor) -> bool {
    static OMITTED: std::sync::OnceLock<std::collections::HashSet<String>> = std::sync::OnceLock::new();
    OMITTED
        .get_or_init(|| {
            mediaops_proto::descriptor_pool()
                .all_messages()
                .flat_map(|message| message.fields().collect::<Vec<_>>())
                .filter(mediaops_proto::options::omit_unset)
                .map(|field| field.full_name().to_owned())
                .collect()
        })
        .contains(field.full_name())
}

/// One value of a field of `kind`.
struct ScalarJson<'a, 'k> {
    value: Scalar<'a>,
    kind: &'k Kind,
}

impl Serialize for ScalarJson<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Scalar::Bool(b) => serializer.serialize_bool(b),
            Scalar::I32(n) => serializer.serialize_i32(n),
            Scalar::I64(n) => serializer.serialize_i64(n),
            Scalar::U32(n) => serializer.serialize_u32(n),
            Scalar::U64(n) => serializer.serialize_u64(n),
            Scalar::F32(n) => float(f64::from(n), serializer),
            Scalar::F64(n) => float(n, serializer),
            Scalar::Str(s) => serializer.serialize_str(s),
            Scalar::Bytes(b) => serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b)),
            Scalar::Enum(n) => match self.kind {
                Kind::Enum(e) => match e.get_value(n) {
                    Some(v) => serializer.serialize_str(v.name()),
                    None => serializer.serialize_i32(n),
                },
                _ => serializer.serialize_i32(n),
            },
            Scalar::Message(bytes) => match self.kind {
                Kind::Message(desc) => WireJson { desc, bytes }.serialize(serializer),
                _ => Err(S::Error::custom("a message value of a field that is not a message")),
            },
        }
    }
}

/// NaN and infinities have no JSON form: `null`.
fn float<S: Serializer>(n: f64, serializer: S) -> Result<S::Ok, S::Error> {
    if n.is_finite() { serializer.serialize_f64(n) } else { serializer.serialize_unit() }
}

/// The values of a repeated field, packed or not.
struct ListJson<'a, 'k> {
    kind: &'k Kind,
    records: &'k [Record<'a>],
}

impl Serialize for ListJson<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for record in self.records {
            for_each_value(self.kind, record, |value| {
                seq.serialize_element(&ScalarJson { value, kind: self.kind }).map_err(Fail)
            })
            .map_err(|Fail(e)| e)?;
        }
        seq.end()
    }
}

/// A map field: an object, keys as text; a key written twice keeps its
/// last value, at the place of its first.
struct MapJson<'a, 'k> {
    field: &'k FieldDescriptor,
    records: &'k [Record<'a>],
}

impl Serialize for MapJson<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Kind::Message(entry) = self.field.kind() else { return Err(S::Error::custom("a map of no entry type")) };
        let (key_field, value_field) = (entry.map_entry_key_field(), entry.map_entry_value_field());
        let (key_kind, value_kind) = (key_field.kind(), value_field.kind());
        let mut entries: Vec<(String, Option<Scalar<'_>>, Cow<'_, [u8]>)> = Vec::with_capacity(self.records.len());
        for record in self.records {
            let Scalar::Message(bytes) = one_message(record).map_err(wire)? else { unreachable!() };
            let fields = Records::parse(bytes).map_err(wire)?;
            let key =
                last_value(&key_kind, fields.of(key_field.number())).map_err(wire)?.or_else(|| default_of(&key_kind));
            let key = key.map(map_key).unwrap_or_default();
            let found = fields.of(value_field.number());
            let value = match &value_kind {
                Kind::Message(_) => (None, merged(found).map_err(wire)?.unwrap_or_default()),
                kind => (last_value(kind, found).map_err(wire)?.or_else(|| default_of(kind)), Cow::Borrowed(&[][..])),
            };
            match entries.iter_mut().find(|(k, ..)| *k == key) {
                Some(slot) => (slot.1, slot.2) = value,
                None => entries.push((key, value.0, value.1)),
            }
        }
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for (key, value, bytes) in &entries {
            match (&value_kind, value) {
                (Kind::Message(desc), _) => map.serialize_entry(key, &WireJson { desc, bytes })?,
                (kind, Some(value)) => map.serialize_entry(key, &ScalarJson { value: *value, kind })?,
                (_, None) => map.serialize_entry(key, &())?,
            }
        }
        map.end()
    }
}

/// A length-delimited record as a message value.
fn one_message<'a>(record: &Record<'a>) -> Result<Scalar<'a>, WireError> {
    match record.wire_type {
        prost::encoding::WireType::LengthDelimited => Ok(Scalar::Message(record.value)),
        _ => Err(WireError("a message field not length-delimited")),
    }
}

/// A map key as JSON object key text.
fn map_key(key: Scalar<'_>) -> String {
    match key {
        Scalar::Bool(b) => b.to_string(),
        Scalar::I32(n) | Scalar::Enum(n) => n.to_string(),
        Scalar::I64(n) => n.to_string(),
        Scalar::U32(n) => n.to_string(),
        Scalar::U64(n) => n.to_string(),
        Scalar::Str(s) => s.to_owned(),
        Scalar::F32(_) | Scalar::F64(_) | Scalar::Bytes(_) | Scalar::Message(_) => String::new(),
    }
}

/// `google.protobuf.Struct`, `Value` and `ListValue` (free-form JSON), with
/// whole numbers written as integers.
enum FreeForm<'a> {
    Struct(&'a [u8]),
    Value(&'a [u8]),
    List(&'a [u8]),
}

/// Largest integer a double holds exactly (2^53).
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// Field numbers of `google.protobuf.Value`'s kinds.
mod value_kind {
    pub const NUMBER: u32 = 2;
    pub const STRING: u32 = 3;
    pub const BOOL: u32 = 4;
    pub const STRUCT: u32 = 5;
    pub const LIST: u32 = 6;
}

impl Serialize for FreeForm<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            FreeForm::Struct(bytes) => {
                // `fields` (1): map<string, Value>.
                let records = Records::parse(bytes).map_err(wire)?;
                let mut entries: Vec<(&str, &[u8])> = Vec::new();
                for record in records.of(1) {
                    let Scalar::Message(entry) = one_message(record).map_err(wire)? else { unreachable!() };
                    let fields = Records::parse(entry).map_err(wire)?;
                    let key = match last_value(&Kind::String, fields.of(1)).map_err(wire)? {
                        Some(Scalar::Str(key)) => key,
                        _ => "",
                    };
                    entries.push((key, fields.of(2).last().map_or(&[][..], |r| r.value)));
                }
                // By key, as protobuf's own `Struct` (a sorted map) holds
                // them; of a key written twice, the last.
                entries.sort_by_key(|(key, _)| *key);
                entries.dedup_by(|later, earlier| {
                    let same = later.0 == earlier.0;
                    if same {
                        earlier.1 = later.1;
                    }
                    same
                });
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, &FreeForm::Value(value))?;
                }
                map.end()
            }
            FreeForm::List(bytes) => {
                let records = Records::parse(bytes).map_err(wire)?;
                let mut seq = serializer.serialize_seq(None)?;
                for record in records.of(1) {
                    let Scalar::Message(value) = one_message(record).map_err(wire)? else { unreachable!() };
                    seq.serialize_element(&FreeForm::Value(value))?;
                }
                seq.end()
            }
            FreeForm::Value(bytes) => {
                let records = Records::parse(bytes).map_err(wire)?;
                // One kind is set; were several, the last on the wire wins,
                // here the one of highest number.
                let Some(record) = records.iter().filter(|r| r.number <= value_kind::LIST).last() else {
                    return serializer.serialize_unit();
                };
                let one = std::slice::from_ref(record);
                match record.number {
                    value_kind::NUMBER => match last_value(&Kind::Double, one).map_err(wire)? {
                        Some(Scalar::F64(n)) if n.is_finite() && n.fract() == 0.0 && n.abs() <= MAX_EXACT => {
                            serializer.serialize_i64(n as i64)
                        }
                        Some(Scalar::F64(n)) => float(n, serializer),
                        _ => serializer.serialize_unit(),
                    },
                    value_kind::STRING => match last_value(&Kind::String, one).map_err(wire)? {
                        Some(Scalar::Str(s)) => serializer.serialize_str(s),
                        _ => serializer.serialize_unit(),
                    },
                    value_kind::BOOL => match last_value(&Kind::Bool, one).map_err(wire)? {
                        Some(Scalar::Bool(b)) => serializer.serialize_bool(b),
                        _ => serializer.serialize_unit(),
                    },
                    value_kind::STRUCT | value_kind::LIST => {
                        let Scalar::Message(inner) = one_message(record).map_err(wire)? else { unreachable!() };
                        if record.number == value_kind::STRUCT {
                            FreeForm::Struct(inner).serialize(serializer)
                        } else {
                            FreeForm::List(inner).serialize(serializer)
                        }
                    }
                    // `null_value` (1), the one kind left.
                    _ => serializer.serialize_unit(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::descriptor_pool;
    use prost::Message;
    use prost_reflect::DynamicMessage;
    use serde_json::{Value as Json, json};

    /// The wire writer and the descriptor path (`DynamicMessage` →
    /// [`super::super::encode`]) write the same JSON.
    fn same(name: &str, json: Json) -> Json {
        let desc = descriptor_pool().get_message_by_name(name).unwrap();
        let message = DynamicMessage::deserialize(desc.clone(), json).unwrap();
        let bytes = message.encode_to_vec();
        let text = serde_json::to_string(&WireJson { desc: &desc, bytes: &bytes }).unwrap();
        let reference = serde_json::to_string(&super::super::encode::JsonMessage(&message)).unwrap();
        let (ours, theirs): (Json, Json) =
            (serde_json::from_str(&text).unwrap(), serde_json::from_str(&reference).unwrap());
        assert_eq!(ours, theirs, "{name}");
        ours
    }

    #[test]
    fn writes_the_json_the_descriptor_path_writes() {
        let out = same("mediaops.common.v1.ImageResult", json!({"source": "x", "status": "success"}));
        assert_eq!(out, json!({"source": "x", "taskId": null, "status": "success", "images": []}));
        let out = same(
            "mediaops.common.v1.TitleLikeList",
            json!({"items": [{"title": "a", "likeCount": "9007199254740993"}, {}]}),
        );
        assert_eq!(out["items"][0]["likeCount"], json!(9007199254740993i64));
        let raw = json!({"hits": [{"start": 5, "end": 7, "score": 0.5}], "n": 3, "big": 1e300, "s": "t",
            "b": false, "z": null, "nested": {"list": [[1.5, -2], {}]}});
        let out = same("mediaops.common.v1.BannedWordResult", json!({"raw": raw}));
        assert_eq!(out["raw"], raw);
        same("mediaops.shortvideo.v1.SurgeWork", json!({"title": "t", "share_url": "u"}));
        same("mediaops.account.v1.Usage", json!({"usageCounts": {"a": 1, "b": 0}}));
        same("mediaops.trend.v1.HotTopicsRequest", json!({"platforms": ["lifestyle", "articles"]}));
        let charter = json!({"id": "p", "charter": {"version": 1, "positioning": {"oneLiner": "一句话"}}});
        same("mediaops.charter.v1.PutCharterRequest", charter);
    }

    #[test]
    fn whole_numbers_stay_whole_in_free_form_objects() {
        let raw = json!({"n": 3, "f": 0.25});
        let desc = descriptor_pool().get_message_by_name("mediaops.common.v1.BannedWordResult").unwrap();
        let bytes = DynamicMessage::deserialize(desc.clone(), json!({"raw": raw})).unwrap().encode_to_vec();
        let text = serde_json::to_string(&WireJson { desc: &desc, bytes: &bytes }).unwrap();
        assert!(text.contains(r#""n":3"#) && text.contains(r#""f":0.25"#), "{text}");
    }

    #[test]
    fn bytes_that_are_not_the_message_fail() {
        let desc = descriptor_pool().get_message_by_name("mediaops.common.v1.ImageResult").unwrap();
        assert!(serde_json::to_string(&WireJson { desc: &desc, bytes: &[0x0a, 0x05, b'a'] }).is_err());
    }
}
