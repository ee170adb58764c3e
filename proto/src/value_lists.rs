//! The named value lists declared as file options (spec 4.2 category lists,
//! the charter whitelists of spec 2.5), resolved for select fields.

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
}
