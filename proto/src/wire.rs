//! Reading the protobuf wire format from the message descriptors, without
//! building a `prost_reflect::DynamicMessage` (the core's request checks, the
//! gateway's answer → JSON writer). The encoding is the one of
//! <https://protobuf.dev/programming-guides/encoding/>: a message is a list
//! of (field number, wire type, value) records in any order; a scalar field
//! written twice keeps its last value, a message field written twice is the
//! merge of its records (their bytes concatenated), and a repeated scalar
//! field may come packed (one length-delimited record holding many values)
//! or one record per value.

use std::borrow::Cow;

use prost::encoding::{WireType, decode_varint};
use prost_reflect::Kind;

/// Why bytes are not a message of the expected type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub &'static str);

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for WireError {}

/// One record of a message: its field number, wire type and value bytes
/// (the varint's bytes, the 4 or 8 fixed bytes, or a length-delimited
/// payload without its length).
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// The field number.
    pub number: u32,
    /// How the value is encoded.
    pub wire_type: WireType,
    /// The value's bytes.
    pub value: &'a [u8],
}

/// The records of one message, ordered by field number (records of one
/// field keep their order on the wire). Up to [`INLINE_RECORDS`] are held
/// without an allocation: most messages of free-form JSON
/// (`google.protobuf.Value`, a `Struct`'s map entry) have one or two
/// (docs/performance.md "The settlement as the group commit's
/// continuation").
#[derive(Debug, Default)]
pub struct Records<'a>(smallvec::SmallVec<[Record<'a>; INLINE_RECORDS]>);

/// Records of a message held without an allocation.
pub const INLINE_RECORDS: usize = 4;

impl<'a> Records<'a> {
    /// Splits `bytes` into its records.
    ///
    /// # Errors
    /// A truncated record, a bad varint, a field number 0, a group (not
    /// used by proto3).
    pub fn parse(mut bytes: &'a [u8]) -> Result<Records<'a>, WireError> {
        let mut records = smallvec::SmallVec::new();
        let mut sorted = true;
        while !bytes.is_empty() {
            let key = decode_varint(&mut bytes).map_err(|_| WireError("a bad field key"))?;
            let number = u32::try_from(key >> 3).map_err(|_| WireError("a field number out of range"))?;
            if number == 0 {
                return Err(WireError("a field number 0"));
            }
            let wire_type = WireType::try_from(key & 7).map_err(|_| WireError("an unknown wire type"))?;
            let length = match wire_type {
                WireType::Varint => {
                    let start = bytes;
                    decode_varint(&mut bytes).map_err(|_| WireError("a bad varint"))?;
                    let length = start.len() - bytes.len();
                    bytes = start;
                    length
                }
                WireType::SixtyFourBit => 8,
                WireType::ThirtyTwoBit => 4,
                WireType::LengthDelimited => {
                    usize::try_from(decode_varint(&mut bytes).map_err(|_| WireError("a bad length"))?)
                        .map_err(|_| WireError("a length out of range"))?
                }
                WireType::StartGroup | WireType::EndGroup => return Err(WireError("a group")),
            };
            if bytes.len() < length {
                return Err(WireError("a truncated value"));
            }
            let (value, rest) = bytes.split_at(length);
            bytes = rest;
            sorted &= records.last().is_none_or(|last: &Record<'_>| last.number <= number);
            records.push(Record { number, wire_type, value });
        }
        if !sorted {
            records.sort_by_key(|r| r.number);
        }
        Ok(Records(records))
    }

    /// The records of field `number`, in wire order.
    pub fn of(&self, number: u32) -> &[Record<'a>] {
        let start = self.0.partition_point(|r| r.number < number);
        let end = start + self.0[start..].partition_point(|r| r.number == number);
        &self.0[start..end]
    }

    /// The value of a singular message field: its one record's bytes, or
    /// the records' bytes concatenated (the merge the encoding defines);
    /// `None` when absent.
    ///
    /// # Errors
    /// A record that is not length-delimited.
    pub fn message(&self, number: u32) -> Result<Option<Cow<'a, [u8]>>, WireError> {
        merged(self.of(number))
    }

    /// Every record, ordered by field number.
    pub fn iter(&self) -> impl Iterator<Item = &Record<'a>> {
        self.0.iter()
    }
}

/// The bytes of the message records `records` (of one singular message
/// field) merged: `None` when there is none.
///
/// # Errors
/// A record that is not length-delimited.
pub fn merged<'a>(records: &[Record<'a>]) -> Result<Option<Cow<'a, [u8]>>, WireError> {
    for record in records {
        if record.wire_type != WireType::LengthDelimited {
            return Err(WireError("a message field not length-delimited"));
        }
    }
    Ok(match records {
        [] => None,
        [one] => Some(Cow::Borrowed(one.value)),
        many => Some(Cow::Owned(many.iter().flat_map(|r| r.value.iter().copied()).collect())),
    })
}

/// One value of a field, read from the wire as its kind says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    /// `bool`.
    Bool(bool),
    /// `int32`, `sint32`, `sfixed32`.
    I32(i32),
    /// `int64`, `sint64`, `sfixed64`.
    I64(i64),
    /// `uint32`, `fixed32`.
    U32(u32),
    /// `uint64`, `fixed64`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// An enum's number.
    Enum(i32),
    /// `string` (checked UTF-8).
    Str(&'a str),
    /// `bytes`.
    Bytes(&'a [u8]),
    /// A message's encoded bytes.
    Message(&'a [u8]),
}

impl Scalar<'_> {
    /// Whether this is the value proto3 leaves off the wire for a field
    /// without presence (0, `false`, `""`, empty bytes).
    pub fn is_default(&self) -> bool {
        match *self {
            Scalar::Bool(b) => !b,
            Scalar::I32(n) | Scalar::Enum(n) => n == 0,
            Scalar::I64(n) => n == 0,
            Scalar::U32(n) => n == 0,
            Scalar::U64(n) => n == 0,
            Scalar::F32(n) => n == 0.0,
            Scalar::F64(n) => n == 0.0,
            Scalar::Str(s) => s.is_empty(),
            Scalar::Bytes(b) => b.is_empty(),
            Scalar::Message(_) => false,
        }
    }
}

/// The zero value of a field of `kind` without presence (what a reader
/// sees for an absent field); `None` for messages.
pub fn default_of(kind: &Kind) -> Option<Scalar<'static>> {
    Some(match kind {
        Kind::Bool => Scalar::Bool(false),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Scalar::I32(0),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Scalar::I64(0),
        Kind::Uint32 | Kind::Fixed32 => Scalar::U32(0),
        Kind::Uint64 | Kind::Fixed64 => Scalar::U64(0),
        Kind::Float => Scalar::F32(0.0),
        Kind::Double => Scalar::F64(0.0),
        Kind::Enum(_) => Scalar::Enum(0),
        Kind::String => Scalar::Str(""),
        Kind::Bytes => Scalar::Bytes(&[]),
        Kind::Message(_) => return None,
    })
}

/// Calls `each` with every value `record` holds for a field of `kind`: one,
/// or many for a packed record of a repeated numeric field.
///
/// # Errors
/// A wire type that does not fit the kind, a bad varint, a truncated packed
/// value, a string that is not UTF-8; or the error of `each`.
pub fn for_each_value<'a, E: From<WireError>>(
    kind: &Kind,
    record: &Record<'a>,
    mut each: impl FnMut(Scalar<'a>) -> Result<(), E>,
) -> Result<(), E> {
    let fixed = fixed_width(kind);
    match (record.wire_type, kind) {
        (WireType::LengthDelimited, Kind::String) => {
            // simdutf8: the standard check takes a byte at a time through
            // the Chinese text most strings are (docs/performance.md "The
            // settlement as the group commit's continuation").
            each(Scalar::Str(simdutf8::basic::from_utf8(record.value).map_err(|_| WireError("a string not UTF-8"))?))
        }
        (WireType::LengthDelimited, Kind::Bytes) => each(Scalar::Bytes(record.value)),
        (WireType::LengthDelimited, Kind::Message(_)) => each(Scalar::Message(record.value)),
        (WireType::LengthDelimited, _) => {
            let mut packed = record.value;
            while !packed.is_empty() {
                each(read_one(kind, fixed, &mut packed)?)?;
            }
            Ok(())
        }
        (wire_type, _) if wire_type == scalar_wire_type(fixed) => {
            let mut value = record.value;
            each(read_one(kind, fixed, &mut value)?)
        }
        _ => Err(WireError("a wire type that does not fit the field").into()),
    }
}

/// The last value of a singular field among `records`, or `None`.
///
/// # Errors
/// As [`for_each_value`].
pub fn last_value<'a>(kind: &Kind, records: &[Record<'a>]) -> Result<Option<Scalar<'a>>, WireError> {
    let mut last = None;
    for record in records {
        for_each_value(kind, record, |v| {
            last = Some(v);
            Ok::<_, WireError>(())
        })?;
    }
    Ok(last)
}

/// 0 for a varint kind, else its fixed width in bytes (4 or 8).
fn fixed_width(kind: &Kind) -> usize {
    match kind {
        Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => 4,
        Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => 8,
        _ => 0,
    }
}

fn scalar_wire_type(fixed: usize) -> WireType {
    match fixed {
        4 => WireType::ThirtyTwoBit,
        8 => WireType::SixtyFourBit,
        _ => WireType::Varint,
    }
}

fn read_one<'a>(kind: &Kind, fixed: usize, bytes: &mut &'a [u8]) -> Result<Scalar<'a>, WireError> {
    if fixed > 0 {
        if bytes.len() < fixed {
            return Err(WireError("a truncated fixed-width value"));
        }
        let (value, rest) = bytes.split_at(fixed);
        *bytes = rest;
        let mut b8 = [0u8; 8];
        b8[..fixed].copy_from_slice(value);
        let (n32, n64) = (u32::from_le_bytes([b8[0], b8[1], b8[2], b8[3]]), u64::from_le_bytes(b8));
        return Ok(match kind {
            Kind::Fixed32 => Scalar::U32(n32),
            Kind::Sfixed32 => Scalar::I32(n32 as i32),
            Kind::Float => Scalar::F32(f32::from_bits(n32)),
            Kind::Fixed64 => Scalar::U64(n64),
            Kind::Sfixed64 => Scalar::I64(n64 as i64),
            _ => Scalar::F64(f64::from_bits(n64)),
        });
    }
    let n = decode_varint(bytes).map_err(|_| WireError("a bad varint"))?;
    Ok(match kind {
        Kind::Bool => Scalar::Bool(n != 0),
        Kind::Int32 => Scalar::I32(n as i32),
        Kind::Sint32 => Scalar::I32(((n as u32) >> 1) as i32 ^ -((n & 1) as i32)),
        Kind::Int64 => Scalar::I64(n as i64),
        Kind::Sint64 => Scalar::I64((n >> 1) as i64 ^ -((n & 1) as i64)),
        Kind::Uint32 => Scalar::U32(n as u32),
        Kind::Uint64 => Scalar::U64(n),
        Kind::Enum(_) => Scalar::Enum(n as i32),
        _ => return Err(WireError("a wire type that does not fit the field")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn reads_what_prost_writes() {
        let pool = crate::descriptor_pool();
        let desc = pool.get_message_by_name("mediaops.common.v1.TitleLikeList").unwrap();
        let json = serde_json::json!({"items": [{"title": "a", "likeCount": "-5"}, {"title": "b"}]});
        let bytes = prost_reflect::DynamicMessage::deserialize(desc.clone(), json).unwrap().encode_to_vec();
        let records = Records::parse(&bytes).unwrap();
        let items = desc.get_field_by_name("items").unwrap();
        let item_records = records.of(items.number());
        assert_eq!(item_records.len(), 2);
        let Kind::Message(item) = items.kind() else { panic!() };
        let first = Records::parse(item_records[0].value).unwrap();
        let like = item.get_field_by_json_name("likeCount").unwrap();
        assert_eq!(last_value(&like.kind(), first.of(like.number())).unwrap(), Some(Scalar::I64(-5)));
        let title = item.get_field_by_name("title").unwrap();
        assert_eq!(last_value(&title.kind(), first.of(title.number())).unwrap(), Some(Scalar::Str("a")));
        assert!(Records::parse(&bytes[..bytes.len() - 1]).is_err());
    }

    /// Strings are checked: Chinese text passes whole, a string cut inside
    /// a character is refused.
    #[test]
    fn strings_must_be_utf8() {
        let text = "《史记》原文全解读！二十四史之首";
        let mut buf = Vec::new();
        prost::encoding::bytes::encode(1, &text.as_bytes().to_vec(), &mut buf);
        prost::encoding::bytes::encode(2, &text.as_bytes()[..4].to_vec(), &mut buf);
        let records = Records::parse(&buf).unwrap();
        assert_eq!(last_value(&Kind::String, records.of(1)).unwrap(), Some(Scalar::Str(text)));
        assert_eq!(last_value(&Kind::String, records.of(2)).unwrap_err().0, "a string not UTF-8");
    }

    #[test]
    fn packed_and_zigzag_values() {
        let mut buf = Vec::new();
        prost::encoding::sint64::encode_packed(3, &[-1, 2, -300], &mut buf);
        prost::encoding::sint32::encode(4, &-7, &mut buf);
        prost::encoding::sint32::encode(4, &9, &mut buf);
        let records = Records::parse(&buf).unwrap();
        let mut values = Vec::new();
        for_each_value(&Kind::Sint64, &records.of(3)[0], |v| {
            values.push(v);
            Ok::<_, WireError>(())
        })
        .unwrap();
        assert_eq!(values, [Scalar::I64(-1), Scalar::I64(2), Scalar::I64(-300)]);
        assert_eq!(last_value(&Kind::Sint32, records.of(4)).unwrap(), Some(Scalar::I32(9)));
        assert!(last_value(&Kind::Double, records.of(4)).is_err());
    }
}
