//! Closed sets enforced before an operation runs (docs/errors.md "Closed
//! sets"): a request field whose values are a closed set
//! ([`ValueLists::closed_values`]: the field's own `choices`, or a value
//! list declared `closed`) refuses any other value with a 400
//! `invalid_input` naming the field by its JSON path and listing the
//! allowed values ([`not_one_of`]), nothing charged. An empty string (or
//! 0) is "not given" and left to the `required` check; each item of a
//! repeated field is checked. Called by [`crate::validate::FieldChecks`].

// Keys from a fixed set (operations, fields): foldhash, not SipHash
// (docs/performance.md "Fixed-key maps with foldhash").
use foldhash::HashMap;

use mediaops_proto::value_lists::{ValueLists, not_one_of};
use prost_reflect::{DescriptorPool, DynamicMessage, FieldDescriptor, Value};

use mediaops_proto::error::ServiceError;

/// The closed set of every request field that has one, computed once.
#[derive(Debug, Default)]
pub struct ClosedSets {
    /// By the field's full name (`mediaops.watch.v1.WatchlistSpec.status`).
    by_field: HashMap<String, Vec<String>>,
}

impl ClosedSets {
    /// Reads the closed sets of every field of every message in `pool`.
    pub fn from_pool(pool: &DescriptorPool) -> ClosedSets {
        let lists = ValueLists::from_pool(pool);
        let by_field = pool
            .all_messages()
            .flat_map(|message| message.fields().collect::<Vec<_>>())
            .filter_map(|field| {
                let options = mediaops_proto::options::field(&field)?;
                Some((field.full_name().to_owned(), lists.closed_values(&options)?))
            })
            .collect();
        ClosedSets { by_field }
    }

    /// The closed set of `field`, if it has one.
    pub fn of(&self, field: &FieldDescriptor) -> Option<&[String]> {
        self.by_field.get(field.full_name()).map(Vec::as_slice)
    }

    /// Checks the value of `field` in `message`, a message found at the
    /// JSON path `prefix` (empty at the top).
    ///
    /// # Errors
    /// 400 `invalid_input` naming the field by its JSON path (`path[i]` for
    /// an item of a list) for a value outside the field's closed set.
    pub fn check(&self, message: &DynamicMessage, field: &FieldDescriptor, prefix: &str) -> Result<(), ServiceError> {
        let Some(allowed) = self.of(field) else { return Ok(()) };
        if !message.has_field(field) {
            return Ok(());
        }
        let name = field.json_name();
        let path = if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") };
        match &*message.get_field(field) {
            Value::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    check_value(allowed, &format!("{path}[{i}]"), item)?;
                }
                Ok(())
            }
            value => check_value(allowed, &path, value),
        }
    }
}

fn check_value(allowed: &[String], path: &str, value: &Value) -> Result<(), ServiceError> {
    match value {
        Value::String(text) => check_text(allowed, path, text),
        Value::I32(n) => check_text(allowed, path, &n.to_string()),
        Value::I64(n) => check_text(allowed, path, &n.to_string()),
        Value::U32(n) => check_text(allowed, path, &n.to_string()),
        Value::U64(n) => check_text(allowed, path, &n.to_string()),
        _ => Ok(()),
    }
}

/// Checks one value, as text (a string, or an integer written in decimal),
/// against `allowed`, the closed set of the field at the JSON path `path`
/// (`path[i]` for an item of a list). Surrounding white space is ignored;
/// an empty value is "not given" and passes.
///
/// # Errors
/// 400 `invalid_input` naming `path` and listing the allowed values.
pub fn check_text(allowed: &[String], path: &str, text: &str) -> Result<(), ServiceError> {
    let text = text.trim();
    if text.is_empty() || allowed.iter().any(|a| a == text) {
        return Ok(());
    }
    let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
    Err(ServiceError::invalid_field(path, not_one_of(path, text, &allowed)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::descriptor_pool;

    fn check(name: &str, json: serde_json::Value) -> Result<(), ServiceError> {
        let desc = descriptor_pool().get_message_by_name(name).unwrap();
        let message = DynamicMessage::deserialize(desc.clone(), json).unwrap();
        let sets = ClosedSets::from_pool(descriptor_pool());
        desc.fields().try_for_each(|field| sets.check(&message, &field, ""))
    }

    #[test]
    fn a_value_outside_a_closed_set_names_the_field_and_the_values() {
        let period = "mediaops.shortvideo.v1.DouyinRiseFansRankRequest";
        assert!(check(period, serde_json::json!({"period": "week"})).is_ok());
        assert!(check(period, serde_json::json!({"period": ""})).is_ok(), "empty is not given");
        let error = check(period, serde_json::json!({"period": "weeks"})).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("period"));
        assert_eq!(error.message, r#"`period` "weeks" is not one of "day", "week", "month""#);
        // A spec 4.2 category list is not closed: out-of-list values pass.
        assert!(check(period, serde_json::json!({"category": "不在列表"})).is_ok());
    }

    #[test]
    fn items_of_lists_and_numbers_are_checked() {
        let trend = "mediaops.trend.v1.HotTopicsRequest";
        let error = check(trend, serde_json::json!({"platforms": ["lifestyle", "tv"]})).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("platforms[1]"));
        let multi = "mediaops.multi.v1.PlayletFeedRequest";
        assert!(check(multi, serde_json::json!({"platform": 3})).is_ok());
        assert_eq!(check(multi, serde_json::json!({"platform": 2})).unwrap_err().field.as_deref(), Some("platform"));
    }
}
