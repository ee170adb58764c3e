//! Conversions between `serde_json::Value` and `google.protobuf.Struct`, for
//! the free-form objects of the catalogs (`requestSchema`, `responseExample`)
//! and results (`raw`).
//!
//! `Struct` holds every number as a double; the gateway writes whole numbers
//! back as JSON integers, so `5` stays `5`.

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};

/// A JSON object as a `Struct`; anything else becomes an empty `Struct`.
pub fn to_struct(json: serde_json::Value) -> Struct {
    match json {
        serde_json::Value::Object(map) => Struct { fields: map.into_iter().map(|(k, v)| (k, to_value(v))).collect() },
        _ => Struct::default(),
    }
}

/// Any JSON value as a `google.protobuf.Value`.
pub fn to_value(json: serde_json::Value) -> Value {
    let kind = match json {
        serde_json::Value::Null => Kind::NullValue(0),
        serde_json::Value::Bool(b) => Kind::BoolValue(b),
        serde_json::Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Kind::StringValue(s),
        serde_json::Value::Array(items) => {
            Kind::ListValue(ListValue { values: items.into_iter().map(to_value).collect() })
        }
        object @ serde_json::Value::Object(_) => Kind::StructValue(to_struct(object)),
    };
    Value { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_json_becomes_struct() {
        let s = to_struct(serde_json::json!({"a": [1, "x", null], "b": {"c": true}}));
        let Some(Kind::ListValue(list)) = &s.fields["a"].kind else { panic!() };
        assert_eq!(list.values[0].kind, Some(Kind::NumberValue(1.0)));
        assert_eq!(list.values[2].kind, Some(Kind::NullValue(0)));
        let Some(Kind::StructValue(b)) = &s.fields["b"].kind else { panic!() };
        assert_eq!(b.fields["c"].kind, Some(Kind::BoolValue(true)));
    }
}
