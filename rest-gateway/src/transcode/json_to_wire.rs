//! JSON → the request's protobuf wire format, straight from the message
//! descriptor (no `DynamicMessage` is built): the gateway's hot path. The
//! checks, their order and their 400s are those of [`super::decode`] (an
//! unknown field named with the closest known one, a value of the wrong JSON
//! type named with the expected type, a missing required field, a string
//! over its limit); the bytes are those `decode(…).encode_to_vec()` writes
//! (fields by number, proto3 zero values of fields without presence left
//! out, numeric lists packed, a field given under both its JSON and its
//! proto name counted once, the later one winning), so a request hashes the
//! same for its `Idempotency-Key` fingerprint either way.
//!
//! The one fallback: a field of a well-known type (`google.protobuf.Struct`,
//! …) has a JSON form of its own and goes through `DynamicMessage` (no
//! request of the API has one today).

use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint};
use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde_json::Value as Json;

use super::decode::{
    FieldRules, base64_bytes, check_required, enum_number, field_named, integer, is_well_known, json_object,
    well_known, wrong_type,
};
use super::{FieldError, join};

/// Encodes the JSON object `json` as a message of type `desc`.
///
/// # Errors
/// The first field that cannot be turned into the message, by its JSON path.
pub fn encode(desc: &MessageDescriptor, json: &Json, rules: &FieldRules) -> Result<Vec<u8>, FieldError> {
    let mut out = Vec::with_capacity(64);
    message(desc, json, "", rules, &mut out)?;
    Ok(out)
}

/// Where one field's records were written in the output.
struct Span {
    number: u32,
    start: usize,
    end: usize,
}

fn message(
    desc: &MessageDescriptor,
    json: &Json,
    path: &str,
    rules: &FieldRules,
    out: &mut Vec<u8>,
) -> Result<(), FieldError> {
    let object = json_object(json, path)?;
    let start = out.len();
    let mut spans: Vec<Span> = Vec::with_capacity(object.len());
    for (key, value) in object {
        let field = field_named(desc, key, path)?;
        if value.is_null() {
            continue;
        }
        let field_start = out.len();
        field_records(&field, value, &join(path, field.json_name()), rules, out)?;
        spans.push(Span { number: field.number(), start: field_start, end: out.len() });
    }
    check_required(desc, object, path, rules)?;
    if spans.windows(2).any(|w| w[0].number >= w[1].number) {
        in_number_order(out, start, spans);
    }
    Ok(())
}

/// Rewrites the records after `start` in field-number order, keeping of a
/// field given twice (JSON and proto name) the later one.
fn in_number_order(out: &mut Vec<u8>, start: usize, mut spans: Vec<Span>) {
    let written = out.split_off(start);
    spans.sort_by_key(|s| s.number);
    for (i, span) in spans.iter().enumerate() {
        if spans.get(i + 1).is_some_and(|next| next.number == span.number) {
            continue;
        }
        out.extend_from_slice(&written[span.start - start..span.end - start]);
    }
}

/// The records of one field with a non-null JSON value.
fn field_records(
    field: &FieldDescriptor,
    value: &Json,
    path: &str,
    rules: &FieldRules,
    out: &mut Vec<u8>,
) -> Result<(), FieldError> {
    let number = field.number();
    if field.is_map() {
        let Json::Object(entries) = value else { return Err(wrong_type(path, "an object", value)) };
        let Kind::Message(entry) = field.kind() else { unreachable!("map fields are entry messages") };
        let (key_field, value_field) = (entry.map_entry_key_field(), entry.map_entry_value_field());
        for (i, (key, item)) in entries.iter().enumerate() {
            if key_field.kind() != Kind::String {
                return Err(FieldError::new(
                    path,
                    format!("`{path}` has non-string keys, which this gateway does not accept"),
                ));
            }
            length_delimited(number, out, |out| {
                if !key.is_empty() {
                    prost::encoding::string::encode(key_field.number(), key, out);
                }
                single(&value_field, item, &format!("{path}.{i}"), rules, out)
            })?;
        }
        return Ok(());
    }
    if field.is_list() {
        let Json::Array(items) = value else { return Err(wrong_type(path, "an array", value)) };
        if items.is_empty() {
            return Ok(());
        }
        if field.is_packed() {
            return length_delimited(number, out, |out| {
                for (i, item) in items.iter().enumerate() {
                    let (value, _) = scalar(field, item, &format!("{path}[{i}]"), rules)?;
                    value.write(out);
                }
                Ok(())
            });
        }
        for (i, item) in items.iter().enumerate() {
            tagged(field, item, &format!("{path}[{i}]"), rules, out)?;
        }
        return Ok(());
    }
    single(field, value, path, rules, out)
}

/// A singular field: left out when it has no presence and its value is
/// proto3's zero.
fn single(
    field: &FieldDescriptor,
    value: &Json,
    path: &str,
    rules: &FieldRules,
    out: &mut Vec<u8>,
) -> Result<(), FieldError> {
    if let Kind::Message(_) = field.kind() {
        return tagged(field, value, path, rules, out);
    }
    let (encoded, is_default) = scalar(field, value, path, rules)?;
    if !is_default || field.supports_presence() {
        encode_key(field.number(), encoded.wire_type(), out);
        encoded.write(out);
    }
    Ok(())
}

/// One record of `field` (an item of a list, or a singular field), always
/// written.
fn tagged(
    field: &FieldDescriptor,
    value: &Json,
    path: &str,
    rules: &FieldRules,
    out: &mut Vec<u8>,
) -> Result<(), FieldError> {
    match field.kind() {
        Kind::Message(inner) if is_well_known(&inner) => {
            let bytes = well_known(&inner, value, path)?.encode_to_vec();
            length_delimited(field.number(), out, |out| {
                out.extend_from_slice(&bytes);
                Ok(())
            })
        }
        Kind::Message(inner) => length_delimited(field.number(), out, |out| message(&inner, value, path, rules, out)),
        _ => {
            let (encoded, _) = scalar(field, value, path, rules)?;
            encode_key(field.number(), encoded.wire_type(), out);
            encoded.write(out);
            Ok(())
        }
    }
}

/// Writes the key of field `number` as length-delimited, then what `body`
/// writes, preceded by its length.
fn length_delimited(
    number: u32,
    out: &mut Vec<u8>,
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), FieldError>,
) -> Result<(), FieldError> {
    encode_key(number, WireType::LengthDelimited, out);
    let start = out.len();
    body(out)?;
    let length = out.len() - start;
    let mut prefix = Vec::with_capacity(encoded_len_varint(length as u64));
    encode_varint(length as u64, &mut prefix);
    out.splice(start..start, prefix);
    Ok(())
}

/// A scalar value as it goes on the wire.
enum Encoded<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64(u64),
    Text(&'a str),
    Bytes(Vec<u8>),
}

impl Encoded<'_> {
    fn wire_type(&self) -> WireType {
        match self {
            Encoded::Varint(_) => WireType::Varint,
            Encoded::Fixed32(_) => WireType::ThirtyTwoBit,
            Encoded::Fixed64(_) => WireType::SixtyFourBit,
            Encoded::Text(_) | Encoded::Bytes(_) => WireType::LengthDelimited,
        }
    }

    /// The value without its key (length-prefixed when length-delimited).
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Encoded::Varint(n) => encode_varint(*n, out),
            Encoded::Fixed32(n) => out.extend_from_slice(&n.to_le_bytes()),
            Encoded::Fixed64(n) => out.extend_from_slice(&n.to_le_bytes()),
            Encoded::Text(text) => {
                encode_varint(text.len() as u64, out);
                out.extend_from_slice(text.as_bytes());
            }
            Encoded::Bytes(bytes) => {
                encode_varint(bytes.len() as u64, out);
                out.extend_from_slice(bytes);
            }
        }
    }
}

/// A scalar JSON value of `field` (not a message), checked as
/// [`super::decode`] checks it, and whether it is proto3's zero.
fn scalar<'a>(
    field: &FieldDescriptor,
    value: &'a Json,
    path: &str,
    rules: &FieldRules,
) -> Result<(Encoded<'a>, bool), FieldError> {
    Ok(match field.kind() {
        Kind::String => {
            let text = value.as_str().ok_or_else(|| wrong_type(path, "a string", value))?;
            rules.check_length(field, path, text).map_err(|message| FieldError::new(path, message))?;
            (Encoded::Text(text), text.is_empty())
        }
        Kind::Bool => {
            let b = value.as_bool().ok_or_else(|| wrong_type(path, "true or false", value))?;
            (Encoded::Varint(u64::from(b)), !b)
        }
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            let n = integer(value, path, i32::MIN as f64, i32::MAX as f64)? as i32;
            let encoded = match field.kind() {
                Kind::Int32 => Encoded::Varint(i64::from(n) as u64),
                Kind::Sint32 => Encoded::Varint(u64::from(((n << 1) ^ (n >> 31)) as u32)),
                _ => Encoded::Fixed32(n as u32),
            };
            (encoded, n == 0)
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
            let n = integer(value, path, i64::MIN as f64, i64::MAX as f64)? as i64;
            let encoded = match field.kind() {
                Kind::Int64 => Encoded::Varint(n as u64),
                Kind::Sint64 => Encoded::Varint(((n << 1) ^ (n >> 63)) as u64),
                _ => Encoded::Fixed64(n as u64),
            };
            (encoded, n == 0)
        }
        Kind::Uint32 | Kind::Fixed32 => {
            let n = integer(value, path, 0.0, u32::MAX as f64)? as u32;
            let encoded =
                if field.kind() == Kind::Uint32 { Encoded::Varint(u64::from(n)) } else { Encoded::Fixed32(n) };
            (encoded, n == 0)
        }
        Kind::Uint64 | Kind::Fixed64 => {
            let n = integer(value, path, 0.0, u64::MAX as f64)? as u64;
            let encoded = if field.kind() == Kind::Uint64 { Encoded::Varint(n) } else { Encoded::Fixed64(n) };
            (encoded, n == 0)
        }
        Kind::Double => {
            let n = value.as_f64().ok_or_else(|| wrong_type(path, "a number", value))?;
            (Encoded::Fixed64(n.to_bits()), n == 0.0)
        }
        Kind::Float => {
            let n = value.as_f64().ok_or_else(|| wrong_type(path, "a number", value))? as f32;
            (Encoded::Fixed32(n.to_bits()), n == 0.0)
        }
        Kind::Bytes => {
            let bytes = base64_bytes(value, path)?;
            let empty = bytes.is_empty();
            (Encoded::Bytes(bytes), empty)
        }
        Kind::Enum(e) => {
            let n = enum_number(&e, value, path)?;
            (Encoded::Varint(i64::from(n) as u64), n == 0)
        }
        Kind::Message(_) => unreachable!("messages are written by `tagged`"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::descriptor_pool;
    use serde_json::json;

    /// The new encoder and `decode(…).encode_to_vec()` agree: same bytes,
    /// or the same error.
    fn same(message: &str, body: Json) -> Result<Vec<u8>, FieldError> {
        let pool = descriptor_pool();
        let rules = FieldRules::from_pool(pool);
        let desc = pool.get_message_by_name(message).unwrap();
        let reference = super::super::decode::decode(&desc, &body, &rules).map(|m| m.encode_to_vec());
        let wire = encode(&desc, &body, &rules);
        assert_eq!(wire, reference, "{message} {body}");
        wire
    }

    const SEARCH: &str = "mediaops.lifestyle.v1.SearchWorkRequest";

    #[test]
    fn writes_the_bytes_the_descriptor_path_writes() {
        same(SEARCH, json!({"keyword": "露营", "pageSize": 20, "page": 2.0})).unwrap();
        // Out of number order, and a field under both names: the later wins.
        same(SEARCH, json!({"page": 3, "keyword": "露营", "page_size": 5, "pageSize": 20})).unwrap();
        same(SEARCH, json!({"keyword": "x", "page": 0, "pageSize": null})).unwrap();
        same("mediaops.trend.v1.HotTopicsRequest", json!({"platforms": ["lifestyle", "articles"]})).unwrap();
        same("mediaops.trend.v1.HotTopicsRequest", json!({"platforms": []})).unwrap();
        same("mediaops.multi.v1.PlayletFeedRequest", json!({"platform": 3})).unwrap();
        same("mediaops.lifestyle.v1.LifestyleAccountAnalyzerRequest", json!({"userIds": ["a", "", "c"]})).unwrap();
        let positioning = json!({"oneLiner": "一句话", "domain": "", "niche": "n", "tag": "t"});
        same("mediaops.charter.v1.Positioning", positioning.clone()).unwrap();
        let charter = json!({"id": "p", "charter": {"version": 0, "positioning": positioning}});
        assert_eq!(same("mediaops.charter.v1.PutCharterRequest", charter).unwrap_err().field, "charter.audience");
        let field = json!({"label": "x", "control": "CONTROL_TEXTAREA", "maxLength": 3, "required": false});
        same("mediaops.options.v1.Field", field).unwrap();
        // Response types cover maps, 64-bit integers, enums, doubles.
        // One entry each: the descriptor path writes a map in hash order.
        same("mediaops.account.v1.Usage", json!({"usageCounts": {"a": 1}})).unwrap();
        same("mediaops.account.v1.Usage", json!({"usageCounts": {"": 0}})).unwrap();
        same(
            "mediaops.common.v1.TitleLikeList",
            json!({"items": [{"title": "a", "likeCount": -9007199254740993i64}, {}]}),
        )
        .unwrap();
        same("mediaops.common.v1.ImageResult", json!({"source": "x", "status": "success"})).unwrap();
        // The one fallback: a well-known type.
        // (one key: the descriptor path writes a Struct in hash order).
        same("mediaops.common.v1.BannedWordResult", json!({"raw": {"hits": [{"start": 5}]}})).unwrap();
    }

    #[test]
    fn refuses_what_the_descriptor_path_refuses() {
        assert_eq!(same(SEARCH, json!({})).unwrap_err(), FieldError::new("keyword", "`keyword` is required"));
        assert_eq!(same(SEARCH, json!({"keyword": null})).unwrap_err().field, "keyword");
        same(SEARCH, json!({"keyword": "x", "page": "2"})).unwrap_err();
        same(SEARCH, json!({"keyword": "x", "page": 1.5})).unwrap_err();
        same(SEARCH, json!({"keyword": "x", "page": 1e12})).unwrap_err();
        same(SEARCH, json!({"keywrd": "x"})).unwrap_err();
        same(SEARCH, json!([1])).unwrap_err();
        same(SEARCH, json!({"keyword": "x".repeat(5_000)})).unwrap_err();
        let body = json!({"id": "p", "charter": {"version": 1, "positioning": {"oneLiner": 3}}});
        assert_eq!(
            same("mediaops.charter.v1.PutCharterRequest", body).unwrap_err().field,
            "charter.positioning.oneLiner"
        );
        let body = json!({"userIds": ["a", 2]});
        assert_eq!(
            same("mediaops.lifestyle.v1.LifestyleAccountAnalyzerRequest", body).unwrap_err().field,
            "userIds[1]"
        );
        same("mediaops.options.v1.Field", json!({"control": "CONTROL_NOPE"})).unwrap_err();
        same("mediaops.account.v1.Usage", json!({"usageCounts": {"a": "1"}})).unwrap_err();
    }
}
