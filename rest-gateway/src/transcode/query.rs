//! Query-string and path parameters → a JSON object that
//! [`super::decode::decode`] then treats like a body. Each value is typed by
//! its field: numbers must parse as numbers, booleans as `true`/`false`; a
//! repeated field takes its key several times (`?tags=a&tags=b`).

use prost_reflect::{Kind, MessageDescriptor};
use serde_json::{Map, Value as Json};

use super::FieldError;
use super::decode::unknown_field;

/// Adds each `(name, value)` to `object` as the JSON value its field expects.
pub fn merge_params<'a>(
    desc: &MessageDescriptor,
    params: impl IntoIterator<Item = (&'a str, &'a str)>,
    object: &mut Map<String, Json>,
) -> Result<(), FieldError> {
    for (name, raw) in params {
        let field = desc
            .get_field_by_json_name(name)
            .or_else(|| desc.get_field_by_name(name))
            .ok_or_else(|| unknown_field(desc, name, ""))?;
        let key = field.json_name().to_owned();
        let value = typed(&field.kind(), raw, &key)?;
        if field.is_list() {
            match object.entry(key).or_insert_with(|| Json::Array(Vec::new())) {
                Json::Array(items) => items.push(value),
                _ => unreachable!("list fields are only ever arrays here"),
            }
        } else {
            object.insert(key, value);
        }
    }
    Ok(())
}

fn typed(kind: &Kind, raw: &str, name: &str) -> Result<Json, FieldError> {
    let number = |raw: &str| {
        raw.parse::<i64>()
            .map(Json::from)
            .ok()
            .or_else(|| raw.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(Json::Number))
            .ok_or_else(|| FieldError::new(name, format!("`{name}` must be a number, not {raw:?}")))
    };
    match kind {
        Kind::String | Kind::Bytes | Kind::Enum(_) => Ok(Json::String(raw.to_owned())),
        Kind::Bool => match raw {
            "true" => Ok(Json::Bool(true)),
            "false" => Ok(Json::Bool(false)),
            _ => Err(FieldError::new(name, format!("`{name}` must be true or false, not {raw:?}"))),
        },
        Kind::Message(_) => Err(FieldError::new(name, format!("`{name}` cannot be given as a parameter"))),
        _ => number(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_follow_the_fields() {
        let pool = mediaops_proto::descriptor_pool();
        let desc = pool.get_message_by_name("mediaops.catalog.v1.SearchSkillsRequest").unwrap();
        let mut object = Map::new();
        merge_params(&desc, [("q", "热点"), ("category", "全部")], &mut object).unwrap();
        assert_eq!(Json::Object(object), json!({"q": "热点", "category": "全部"}));
        let err = merge_params(&desc, [("query", "x")], &mut Map::new()).unwrap_err();
        assert_eq!(err.field, "query");
        assert!(err.message.contains("`q`") || err.message.contains("`category`"));

        let desc = pool.get_message_by_name("mediaops.lifestyle.v1.SearchWorkRequest").unwrap();
        let err = merge_params(&desc, [("page", "two")], &mut Map::new()).unwrap_err();
        assert_eq!(err.field, "page");
    }
}
