//! The named value lists declared as file options (spec 4.2 category lists,
//! the charter whitelists of spec 2.5), resolved for select fields, and the
//! closed sets among them: the one place that says which values a field
//! accepts, read by validation (platform `closed_sets`), the UI descriptors
//! (`choices`) and the JSON Schema of OpenAPI and MCP (`enum`).

use std::collections::HashMap;

use crate::mediaops::options::v1::{Field, FieldChoice, ValueList};
use prost_reflect::DescriptorPool;

/// Every value list of the pool, by name.
#[derive(Debug, Default, Clone)]
pub struct ValueLists {
    by_name: HashMap<String, ValueList>,
}

impl ValueLists {
    /// Every value list declared in `pool`, by name.
    pub fn from_pool(pool: &DescriptorPool) -> ValueLists {
        ValueLists { by_name: crate::options::value_lists(pool).into_iter().map(|l| (l.name.clone(), l)).collect() }
    }

    /// The list called `name` (e.g. `LIST_LIFESTYLE`).
    pub fn get(&self, name: &str) -> Option<&ValueList> {
        self.by_name.get(name)
    }

    /// The select options of a field: its own `choices`, or the values of the
    /// list named by `choices_from` (a value's note, if any, in the label).
    pub fn choices(&self, field: &Field) -> Vec<FieldChoice> {
        if !field.choices.is_empty() {
            return field.choices.clone();
        }
        let Some(list) = self.get(&field.choices_from) else {
            return Vec::new();
        };
        list.values
            .iter()
            .map(|value| {
                let label = match (value.as_str(), list.notes.get(value)) {
                    ("", Some(note)) => format!("（{note}）"),
                    (_, Some(note)) => format!("{value}（{note}）"),
                    (_, None) => value.clone(),
                };
                FieldChoice { label, value: value.clone() }
            })
            .collect()
    }
}

impl ValueLists {
    /// The values a field accepts when they are a closed set: its own
    /// `choices`, or a list named by `choices_from` that is declared
    /// `closed`; `None` when any value is accepted (no choices, or a spec
    /// 4.2 category list, whose out-of-list values the operations answer).
    pub fn closed_values(&self, field: &Field) -> Option<Vec<String>> {
        if !field.choices.is_empty() {
            return Some(field.choices.iter().map(|c| c.value.clone()).collect());
        }
        let list = self.get(&field.choices_from)?;
        list.closed.then(|| list.values.clone())
    }
}

/// The message of a value outside a closed set (docs/errors.md "Closed
/// sets"): `` `<field>` "<value>" is not one of "a", "b" `` (`""` shown
/// as `empty`; the value as a capped excerpt).
pub fn not_one_of(field: &str, value: &str, allowed: &[&str]) -> String {
    let allowed: Vec<String> =
        allowed.iter().map(|v| if v.is_empty() { "empty".to_owned() } else { format!("{v:?}") }).collect();
    format!("`{field}` {} is not one of {}", crate::excerpt::excerpt(value.trim()), allowed.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_4_2_lists_have_their_sizes() {
        let lists = ValueLists::from_pool(crate::descriptor_pool());
        assert_eq!(lists.get("LIST_ARTICLES").unwrap().values.len(), 22);
        assert_eq!(lists.get("LIST_SHORTVIDEO").unwrap().values.len(), 28);
        assert_eq!(lists.get("LIST_LIFESTYLE").unwrap().values.len(), 25);
        let field = Field { choices_from: "LIST_ARTICLES".into(), ..Default::default() };
        let choices = lists.choices(&field);
        assert!(choices.iter().any(|c| c.value == "民生资讯" && c.label.contains("no data")));
    }

    #[test]
    fn closed_sets_are_choices_and_closed_lists() {
        let lists = ValueLists::from_pool(crate::descriptor_pool());
        let period = Field { choices_from: "PERIOD".into(), ..Default::default() };
        assert_eq!(lists.closed_values(&period).unwrap(), ["day", "week", "month"]);
        let category = Field { choices_from: "LIST_ARTICLES".into(), ..Default::default() };
        assert_eq!(lists.closed_values(&category), None, "spec 4.2 lets out-of-list categories through");
        let own = Field {
            choices: vec![FieldChoice { label: "启用".into(), value: "active".into() }],
            ..Default::default()
        };
        assert_eq!(lists.closed_values(&own).unwrap(), ["active"]);
        // The generated enums are the closed lists, value for value.
        use crate::closed_sets::{Period, WatchChannel};
        let values = |list: &str| lists.get(list).unwrap().values.clone();
        assert_eq!(Period::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>(), values(Period::LIST));
        assert_eq!(WatchChannel::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>(), values(WatchChannel::LIST));
        assert_eq!(WatchChannel::parse(" email "), Some(WatchChannel::Email));
        let refused = Period::parse_field("weeks", "period").unwrap_err();
        assert_eq!(refused.field.as_deref(), Some("period"));
        assert_eq!(refused.message, r#"`period` "weeks" is not one of "day", "week", "month""#);
    }
}
