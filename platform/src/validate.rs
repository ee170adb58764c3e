//! Generic request validation from the field options (spec 2.4: "declared
//! required flags ... actual enforcement follows request validation"), and
//! the length limit of every string (docs/errors.md "Limits of a request":
//! gRPC callers meet the same limits as the gateway's), and the closed sets
//! ([`crate::closed_sets`]).
//!
//! A field declared `required` must be present when it has presence
//! (messages, proto3 `optional`), and otherwise non-empty: a string with
//! something besides white space, a list with at least one element; unless
//! it is also declared `allow_empty` (the charter's lists). Numbers
//! and booleans without presence cannot be told from their zero, so they are
//! not checked here. The gateway separately rejects JSON that omits a
//! required key, so REST and gRPC callers meet the same rule.

use std::borrow::Cow;

use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::options::{FieldRules, RequiredField};
use mediaops_proto::wire::{Records, Scalar, WireError, for_each_value, last_value, merged};
use prost_reflect::{DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};

use crate::closed_sets::{ClosedSets, check_text};
use mediaops_proto::error::ServiceError;

/// The required fields, string limits and closed sets of every message in
/// the pool, computed once.
#[derive(Debug, Default)]
pub struct FieldChecks {
    rules: FieldRules,
    closed: ClosedSets,
}

/// Why a request failed the checks: its bytes are not a message of its
/// type, or a field breaks a rule.
enum Problem {
    Wire(WireError),
    Field(ServiceError),
}

impl From<WireError> for Problem {
    fn from(error: WireError) -> Self {
        Problem::Wire(error)
    }
}

impl From<ServiceError> for Problem {
    fn from(error: ServiceError) -> Self {
        Problem::Field(error)
    }
}

impl FieldChecks {
    /// Reads the `required` flag, length limit and closed set
    /// ([`ClosedSets`]) of every field of every message.
    pub fn from_pool(pool: &DescriptorPool) -> FieldChecks {
        FieldChecks { rules: FieldRules::from_pool(pool), closed: ClosedSets::from_pool(pool) }
    }

    /// Checks the encoded request `bytes`, a message of type `desc`, and
    /// every message inside it, reading the wire format once from the
    /// descriptors (no decoded copy of the request is built). Answers the
    /// request's top-level records, for what else reads the request before
    /// its handler ([`crate::dispatch::pricing`]).
    ///
    /// # Errors
    /// 400 `invalid_input`: the bytes are not a `desc` message; or, naming
    /// the field by its JSON path, the first missing field, the first
    /// string longer than its limit, or the first value outside its closed
    /// set.
    pub fn check<'a>(&self, desc: &MessageDescriptor, bytes: &'a [u8]) -> Result<Records<'a>, ServiceError> {
        self.check_at(desc, bytes, "").map_err(|problem| match problem {
            Problem::Field(error) => error,
            Problem::Wire(error) => ServiceError::new(
                ErrorCode::InvalidInput,
                format!("the request is not a valid {}: {error}", desc.full_name()),
            ),
        })
    }

    fn check_at<'a>(&self, desc: &MessageDescriptor, bytes: &'a [u8], prefix: &str) -> Result<Records<'a>, Problem> {
        let records = Records::parse(bytes)?;
        for required in self.rules.required(desc.full_name()) {
            if !is_filled(&records, required)? {
                let path = join(prefix, required.field.json_name());
                return Err(ServiceError::invalid_field(path.clone(), format!("`{path}` is required")).into());
            }
        }
        for field in desc.fields() {
            let found = records.of(field.number());
            if found.is_empty() {
                continue;
            }
            let kind = field.kind();
            let path = join(prefix, field.json_name());
            if field.is_list() || field.is_map() {
                let closed = self.closed.of(&field);
                if let Some(allowed) = closed {
                    self.each_item(&field, found, &path, |item, value| closed_value(allowed, item, value))?;
                }
                self.each_item(&field, found, &path, |item, value| self.check_value(&field, item, value))?;
            } else if let Kind::Message(inner) = &kind {
                let bytes: Cow<'_, [u8]> = merged(found)?.unwrap_or_default();
                self.check_at(inner, &bytes, &path)?;
            } else if let Some(value) = last_value(&kind, found)? {
                if !field.supports_presence() && value.is_default() {
                    continue;
                }
                if let Some(allowed) = self.closed.of(&field) {
                    closed_value(allowed, &path, value)?;
                }
                self.check_value(&field, &path, value)?;
            }
        }
        Ok(records)
    }

    /// Calls `each` with the path (`path[i]`) and value of every item of the
    /// list or map field `field`.
    fn each_item<'a>(
        &self,
        field: &FieldDescriptor,
        records: &[mediaops_proto::wire::Record<'a>],
        path: &str,
        mut each: impl FnMut(&str, Scalar<'a>) -> Result<(), Problem>,
    ) -> Result<(), Problem> {
        let kind = field.kind();
        let mut i = 0;
        for record in records {
            for_each_value(&kind, record, |value| {
                let result = each(&format!("{path}[{i}]"), value);
                i += 1;
                result
            })?;
        }
        Ok(())
    }

    /// A string's length, a message's own checks; nothing for other values.
    fn check_value(&self, field: &FieldDescriptor, path: &str, value: Scalar<'_>) -> Result<(), Problem> {
        match (value, field.kind()) {
            (Scalar::Str(text), _) => {
                self.rules
                    .check_length(field, path, text)
                    .map_err(|message| ServiceError::invalid_field(path, message))?;
            }
            // A map's entries are checked as messages of their entry type,
            // which declares no rules: only their encoding is read.
            (Scalar::Message(bytes), Kind::Message(inner)) => {
                self.check_at(&inner, bytes, path)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// A string or integer value against its field's closed set.
fn closed_value(allowed: &[String], path: &str, value: Scalar<'_>) -> Result<(), Problem> {
    let text = match value {
        Scalar::Str(text) => Cow::Borrowed(text),
        Scalar::I32(n) => Cow::Owned(n.to_string()),
        Scalar::I64(n) => Cow::Owned(n.to_string()),
        Scalar::U32(n) => Cow::Owned(n.to_string()),
        Scalar::U64(n) => Cow::Owned(n.to_string()),
        _ => return Ok(()),
    };
    Ok(check_text(allowed, path, &text)?)
}

/// Whether the required field is filled in `records`: present when it has
/// presence; else, unless `allow_empty`, a string with something besides
/// white space, a non-empty list, non-empty bytes (other values cannot be
/// told from their zero).
fn is_filled(records: &Records<'_>, required: &RequiredField) -> Result<bool, WireError> {
    let field = &required.field;
    let found = records.of(field.number());
    if field.supports_presence() {
        return Ok(!found.is_empty());
    }
    if required.allow_empty || field.is_map() {
        return Ok(true);
    }
    let kind = field.kind();
    if field.is_list() {
        let mut any = false;
        for record in found {
            for_each_value(&kind, record, |_| {
                any = true;
                Ok::<_, WireError>(())
            })?;
        }
        return Ok(any);
    }
    Ok(match last_value(&kind, found)? {
        Some(Scalar::Str(s)) => !s.trim().is_empty(),
        Some(Scalar::Bytes(b)) => !b.is_empty(),
        None => !matches!(kind, Kind::String | Kind::Bytes),
        Some(_) => true,
    })
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") }
}

/// Whether `id` is a record id of the API (profiles, watch lists): 1 to 64
/// characters of `A-Z a-z 0-9 _ -`.
pub fn is_record_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::descriptor_pool;
    use prost::Message;

    fn check(name: &str, json: serde_json::Value) -> Result<(), ServiceError> {
        let desc = descriptor_pool().get_message_by_name(name).unwrap();
        let bytes = prost_reflect::DynamicMessage::deserialize(desc.clone(), json).unwrap().encode_to_vec();
        FieldChecks::from_pool(descriptor_pool()).check(&desc, &bytes).map(|_| ())
    }

    #[test]
    fn required_string_must_not_be_blank() {
        let search = "mediaops.lifestyle.v1.SearchUserRequest";
        assert!(check(search, serde_json::json!({"keyword": "露营"})).is_ok());
        assert_eq!(check(search, serde_json::json!({"keyword": "  "})).unwrap_err().field.as_deref(), Some("keyword"));
        assert_eq!(check(search, serde_json::json!({})).unwrap_err().field.as_deref(), Some("keyword"));
    }

    #[test]
    fn nested_presence_fields_are_named_by_json_path() {
        let charter = serde_json::json!({"id": "p1", "charter": {"version": 1, "positioning": {"oneLiner": ""}}});
        let err = check("mediaops.charter.v1.PutCharterRequest", charter).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("charter.audience"));
    }

    #[test]
    fn closed_sets_and_lengths_are_checked_per_item() {
        let trend = "mediaops.trend.v1.HotTopicsRequest";
        assert!(check(trend, serde_json::json!({"platforms": ["lifestyle", "articles"]})).is_ok());
        let err = check(trend, serde_json::json!({"platforms": ["lifestyle", "tv"]})).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("platforms[1]"));
        let multi = "mediaops.multi.v1.PlayletFeedRequest";
        assert!(check(multi, serde_json::json!({"platform": 3})).is_ok());
        assert_eq!(check(multi, serde_json::json!({"platform": 2})).unwrap_err().field.as_deref(), Some("platform"));
        let long = "x".repeat(1_001);
        let err = check("mediaops.lifestyle.v1.SearchUserRequest", serde_json::json!({"keyword": long})).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("keyword"));
        assert!(err.message.contains("1001 characters"), "{}", err.message);
    }

    #[test]
    fn bytes_that_are_not_the_message_are_refused() {
        let desc = descriptor_pool().get_message_by_name("mediaops.lifestyle.v1.SearchUserRequest").unwrap();
        let checks = FieldChecks::from_pool(descriptor_pool());
        // Field 1 (`keyword`) as a length-delimited value longer than the bytes.
        let err = checks.check(&desc, &[0x0a, 0x05, b'a']).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.contains("not a valid mediaops.lifestyle.v1.SearchUserRequest"), "{}", err.message);
        // A string that is not UTF-8.
        assert!(checks.check(&desc, &[0x0a, 0x01, 0xff]).is_err());
        // The same field twice: the last value counts.
        let mut twice = Vec::new();
        prost::encoding::string::encode(1, &"a".to_owned(), &mut twice);
        prost::encoding::string::encode(1, &" ".to_owned(), &mut twice);
        assert_eq!(checks.check(&desc, &twice).unwrap_err().field.as_deref(), Some("keyword"));
    }
}
