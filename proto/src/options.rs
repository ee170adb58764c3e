//! Typed access to the custom options of `mediaops/options/v1/options.proto`
//! (operation metadata on RPCs, UI descriptors on request fields, value lists
//! on files).

use prost_reflect::{DescriptorPool, FieldDescriptor, MethodDescriptor, ReflectMessage};

use crate::mediaops::options::v1::{Field, Operation, ValueList};

const OPERATION_EXT: &str = "mediaops.options.v1.operation";
const FIELD_EXT: &str = "mediaops.options.v1.field";
const VALUE_LISTS_EXT: &str = "mediaops.options.v1.value_lists";

fn extension<T: prost::Message + Default>(options: &prost_reflect::DynamicMessage, name: &str) -> Option<T> {
    let pool = options.descriptor().parent_pool().clone();
    let ext = pool.get_extension_by_name(name)?;
    if !options.has_extension(&ext) {
        return None;
    }
    options.get_extension(&ext).as_message()?.transcode_to::<T>().ok()
}

/// The `(mediaops.options.v1.operation)` option of an RPC, if it has one.
pub fn operation(method: &MethodDescriptor) -> Option<Operation> {
    extension(&method.options(), OPERATION_EXT)
}

/// The `(mediaops.options.v1.field)` option of a request field, if it has one.
pub fn field(field: &FieldDescriptor) -> Option<Field> {
    extension(&field.options(), FIELD_EXT)
}

/// Every `(mediaops.options.v1.value_lists)` declared in any file of the pool
/// (spec 4.2 category lists), by name.
pub fn value_lists(pool: &DescriptorPool) -> Vec<ValueList> {
    let Some(ext) = pool.get_extension_by_name(VALUE_LISTS_EXT) else {
        return Vec::new();
    };
    let mut lists = Vec::new();
    for file in pool.files() {
        let options = file.options();
        if !options.has_extension(&ext) {
            continue;
        }
        if let Some(values) = options.get_extension(&ext).as_list() {
            lists.extend(values.iter().filter_map(|v| v.as_message()?.transcode_to::<ValueList>().ok()));
        }
    }
    lists
}

/// Every RPC of the pool that carries an operation option, in file order.
pub fn operations(pool: &DescriptorPool) -> Vec<(MethodDescriptor, Operation)> {
    pool.services()
        .flat_map(|service| service.methods().collect::<Vec<_>>())
        .filter_map(|method| operation(&method).map(|op| (method, op)))
        .collect()
}

/// A field declared `required` (`(mediaops.options.v1.field).required`).
#[derive(Debug, Clone)]
pub struct RequiredField {
    pub field: FieldDescriptor,
    /// `allow_empty`: present is enough; "" and [] are valid values.
    pub allow_empty: bool,
}

/// The required fields of every message of the pool, by message full name.
/// Computed once by each user: decoding options is too slow for a
/// per-request path.
pub fn required_fields(pool: &DescriptorPool) -> std::collections::HashMap<String, Vec<RequiredField>> {
    pool.all_messages()
        .map(|message| {
            let required = message
                .fields()
                .filter_map(|f| {
                    let options = field(&f)?;
                    options.required.then_some(RequiredField { field: f, allow_empty: options.allow_empty })
                })
                .collect();
            (message.full_name().to_owned(), required)
        })
        .collect()
}
