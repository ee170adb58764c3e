//! JSON ⇄ protobuf transcoding driven by message descriptors (no
//! per-operation code). JSON names are the fields' `json_name`s; the proto
//! field names are accepted on input too, as proto3 JSON allows.
//!
//! A call goes JSON → wire ([`json_to_wire`]) and wire → JSON
//! ([`wire_to_json`]) without a decoded message in between. [`decode`] and
//! [`encode`] do the same through `prost_reflect::DynamicMessage`: they are
//! the reference the wire path is tested against, and what callers that
//! need a message (not bytes) use.

pub mod decode;
pub mod encode;
pub mod json_to_wire;
pub mod multipart;
pub mod query;
pub mod wire_to_json;

/// A request field that could not be turned into the request message: a 400
/// `invalid_input` naming `field` (a JSON path such as `items[2].title`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// JSON path of the field; empty for the body as a whole.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl FieldError {
    /// An error at `field` saying `message`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { field: field.into(), message: message.into() }
    }
}

/// `prefix.name`, or `name` at the top.
pub(crate) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") }
}
