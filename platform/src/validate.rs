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

use mediaops_proto::options::{FieldRules, RequiredField};
use prost_reflect::{DescriptorPool, DynamicMessage, Kind, ReflectMessage, Value};

use crate::closed_sets::ClosedSets;
use mediaops_proto::error::ServiceError;

/// The required fields, string limits and closed sets of every message in
/// the pool, computed once.
#[derive(Debug, Default)]
pub struct FieldChecks {
    rules: FieldRules,
    closed: ClosedSets,
}

impl FieldChecks {
    /// Reads the `required` flag, length limit and closed set
    /// ([`ClosedSets`]) of every field of every message.
    pub fn from_pool(pool: &DescriptorPool) -> FieldChecks {
        FieldChecks { rules: FieldRules::from_pool(pool), closed: ClosedSets::from_pool(pool) }
    }

    /// Checks `message` and every message inside it.
    ///
    /// # Errors
    /// 400 `invalid_input` naming, by its JSON path, the first missing
    /// field, the first string longer than its limit, or the first value
    /// outside its closed set.
    pub fn check(&self, message: &DynamicMessage) -> Result<(), ServiceError> {
        self.check_at(message, "")
    }

    fn check_at(&self, message: &DynamicMessage, prefix: &str) -> Result<(), ServiceError> {
        let desc = message.descriptor();
        for required in self.rules.required(desc.full_name()) {
            if !is_filled(message, required) {
                let path = join(prefix, required.field.json_name());
                return Err(ServiceError::invalid_field(path.clone(), format!("`{path}` is required")));
            }
        }
        for field in desc.fields() {
            self.closed.check(message, &field, prefix)?;
            if !matches!(field.kind(), Kind::Message(_) | Kind::String) || !message.has_field(&field) {
                continue;
            }
            let path = join(prefix, field.json_name());
            match &*message.get_field(&field) {
                Value::Message(inner) => self.check_at(inner, &path)?,
                Value::String(text) => self.check_length(&field, &path, text)?,
                Value::List(items) => {
                    for (i, item) in items.iter().enumerate() {
                        match item {
                            Value::Message(inner) => self.check_at(inner, &format!("{path}[{i}]"))?,
                            Value::String(text) => self.check_length(&field, &format!("{path}[{i}]"), text)?,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl FieldChecks {
    fn check_length(&self, field: &prost_reflect::FieldDescriptor, path: &str, text: &str) -> Result<(), ServiceError> {
        self.rules.check_length(field, path, text).map_err(|message| ServiceError::invalid_field(path, message))
    }
}

fn is_filled(message: &DynamicMessage, required: &RequiredField) -> bool {
    let field = &required.field;
    if field.supports_presence() {
        return message.has_field(field);
    }
    if required.allow_empty {
        return true;
    }
    match &*message.get_field(field) {
        Value::String(s) => !s.trim().is_empty(),
        Value::List(items) => !items.is_empty(),
        Value::Bytes(b) => !b.is_empty(),
        _ => true,
    }
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

    fn message(name: &str, json: serde_json::Value) -> DynamicMessage {
        let desc = descriptor_pool().get_message_by_name(name).unwrap();
        DynamicMessage::deserialize(desc, json).unwrap()
    }

    #[test]
    fn required_string_must_not_be_blank() {
        let rules = FieldChecks::from_pool(descriptor_pool());
        let ok = message("mediaops.lifestyle.v1.SearchUserRequest", serde_json::json!({"keyword": "露营"}));
        assert!(rules.check(&ok).is_ok());
        let blank = message("mediaops.lifestyle.v1.SearchUserRequest", serde_json::json!({"keyword": "  "}));
        assert_eq!(rules.check(&blank).unwrap_err().field.as_deref(), Some("keyword"));
    }

    #[test]
    fn nested_presence_fields_are_named_by_json_path() {
        let rules = FieldChecks::from_pool(descriptor_pool());
        let charter = message(
            "mediaops.charter.v1.PutCharterRequest",
            serde_json::json!({"id": "p1", "charter": {"version": 1, "positioning": {"oneLiner": ""}}}),
        );
        let err = rules.check(&charter).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("charter.audience"));
    }
}
