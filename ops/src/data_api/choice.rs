//! Request strings with a closed set of values that the spec leaves open
//! (`sortType`, `publishTime`, …): each operation lists the values it
//! accepts and what they mean; empty is the listed default, anything else
//! is a 400 naming the field (docs/data/*.md give each operation's values).

use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

/// The meaning of `value` (trimmed) in `choices`; a value not listed is a
/// 400 naming `field` that lists the accepted values.
pub fn choose<T: Copy>(value: &str, field: &str, choices: &[(&str, T)]) -> Result<T, ServiceError> {
    let value = value.trim();
    if let Some((_, meaning)) = choices.iter().find(|(name, _)| *name == value) {
        return Ok(*meaning);
    }
    let accepted: Vec<String> = choices
        .iter()
        .map(|(name, _)| if name.is_empty() { "empty".to_owned() } else { format!("{name:?}") })
        .collect();
    Err(ServiceError::invalid_field(field, format!("{field} {} is not one of {}", excerpt(value), accepted.join(", "))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_values_map_and_others_name_the_field() {
        let choices = [("", 0), ("fans", 1)];
        assert_eq!(choose(" fans ", "sortType", &choices).unwrap(), 1);
        assert_eq!(choose("", "sortType", &choices).unwrap(), 0);
        let err = choose("likes", "sortType", &choices).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("sortType"));
        assert!(err.message.contains("empty, \"fans\""), "{}", err.message);
    }
}
