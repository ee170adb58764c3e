//! Typed access to the custom options of `mediaops/options/v1/options.proto`
//! (operation metadata on RPCs, UI descriptors on request fields, value lists
//! on files).

use prost_reflect::{DescriptorPool, FieldDescriptor, MethodDescriptor, ReflectMessage};

use crate::mediaops::options::v1::{Control, Field, MetadataKind, Operation, ValueList};

const OPERATION_EXT: &str = "mediaops.options.v1.operation";
const FIELD_EXT: &str = "mediaops.options.v1.field";
const VALUE_LISTS_EXT: &str = "mediaops.options.v1.value_lists";
const OMIT_UNSET_EXT: &str = "mediaops.options.v1.omit_unset";

fn extension<T: prost::Message + Default>(options: &prost_reflect::DynamicMessage, name: &str) -> Option<T> {
    let pool = options.descriptor().parent_pool().clone();
    let ext = pool.get_extension_by_name(name)?;
    if !options.has_extension(&ext) {
        return None;
    }
    options.get_extension(&ext).as_message()?.transcode_to::<T>().ok()
}

/// The `(mediaops.options.v1.operation)` option of an RPC, if it has one,
/// with the identity a data API or a skill leaves unset filled in from its
/// platform and slug ([`derived_identity`]).
pub fn operation(method: &MethodDescriptor) -> Option<Operation> {
    extension(&method.options(), OPERATION_EXT).map(with_derived_identity)
}

/// The method of a derived HTTP rule (spec 2.2, 2.3: data APIs and skills
/// are called with `POST`).
pub const DERIVED_METHOD: &str = "POST";

/// The `operation_key` and `http.path` the spec's path shapes give an
/// operation from its platform and slug: `<platform>.<slug>` and
/// `/api/apis/<platform>/<slug>/call` for a data API (spec 2.2),
/// `skills.<slug>` and `/api/skills/<slug>/invoke` for a skill (spec 2.3);
/// `None` for other kinds, which state their own.
pub fn derived_identity(meta: &Operation) -> Option<(String, String)> {
    let (platform, slug) = (&meta.platform, &meta.slug);
    match meta.kind() {
        MetadataKind::DataApi => Some((format!("{platform}.{slug}"), format!("/api/apis/{platform}/{slug}/call"))),
        MetadataKind::Skill => Some((format!("skills.{slug}"), format!("/api/skills/{slug}/invoke"))),
        _ => None,
    }
}

/// `meta` with an unset `operation_key`, `http.method` and `http.path`
/// filled from [`derived_identity`], so the protos state a data API's or a
/// skill's identity once (platform and slug).
fn with_derived_identity(mut meta: Operation) -> Operation {
    let Some((key, path)) = derived_identity(&meta) else { return meta };
    if meta.operation_key.is_empty() {
        meta.operation_key = key;
    }
    let http = meta.http.get_or_insert_with(Default::default);
    if http.method.is_empty() {
        http.method = DERIVED_METHOD.to_owned();
    }
    if http.path.is_empty() {
        http.path = path;
    }
    meta
}

/// The `(mediaops.options.v1.field)` option of a request field, if it has one.
pub fn field(field: &FieldDescriptor) -> Option<Field> {
    extension(&field.options(), FIELD_EXT)
}

/// Whether a response field carries `(mediaops.options.v1.omit_unset) =
/// true`: when unset, JSON leaves it out instead of writing `null` (spec
/// 2.2-2.4 optional catalog descriptor fields).
pub fn omit_unset(field: &FieldDescriptor) -> bool {
    let options = field.options();
    let Some(ext) = options.descriptor().parent_pool().get_extension_by_name(OMIT_UNSET_EXT) else {
        return false;
    };
    options.has_extension(&ext) && options.get_extension(&ext).as_bool().unwrap_or(false)
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

/// Whether `meta` is listed in the data API catalog, `GET /api/apis`
/// (spec 2.2: kind `data_api`).
pub fn is_data_api(meta: &Operation) -> bool {
    meta.kind() == MetadataKind::DataApi
}

/// Whether `meta` is listed in the skill catalog, `GET /api/skills` (spec
/// 2.3: it carries skill metadata, whatever its kind: a dedicated endpoint
/// such as the Markdown render can be a skill too).
pub fn is_skill(meta: &Operation) -> bool {
    meta.skill.is_some()
}

/// Whether a call of `meta` can be charged, and so answer 402
/// `insufficient_points`: a unit price or a per-platform price above 0,
/// unless the operation is `listed_not_charged` (the sync operations). The
/// price itself is core-service `dispatch::pricing::PriceRule` (spec 8).
pub fn is_charged(meta: &Operation) -> bool {
    let billing = meta.billing.clone().unwrap_or_default();
    !billing.listed_not_charged && (meta.unit_price > 0 || billing.price_per_platform > 0)
}

/// A field declared `required` (`(mediaops.options.v1.field).required`).
#[derive(Debug, Clone)]
pub struct RequiredField {
    /// The field.
    pub field: FieldDescriptor,
    /// `allow_empty`: present is enough; "" and [] are valid values.
    pub allow_empty: bool,
}

/// Most characters of a string value whose field declares no `max_length`
/// and whose control is neither `textarea` nor `url` (docs/errors.md "Limits").
pub const DEFAULT_MAX_CHARS: usize = 1_000;
/// Default most characters of a `textarea` field (article bodies, Markdown,
/// HTML); the body limit (`MEDIAOPS_MAX_BODY_BYTES`) usually binds first.
pub const TEXTAREA_MAX_CHARS: usize = 1_000_000;
/// Default most characters of a `url` field.
pub const URL_MAX_CHARS: usize = 4_096;

/// The per-field rules both the gateway and the core check on every
/// request, read once from the field options (decoding options is too slow
/// for a per-request path): which fields are required, and how long a
/// string may be.
#[derive(Debug, Clone, Default)]
pub struct FieldRules {
    /// Required fields by message full name.
    required: foldhash::HashMap<String, Vec<RequiredField>>,
    /// Most characters by field full name, for string fields whose limit
    /// is not [`DEFAULT_MAX_CHARS`].
    max_chars: foldhash::HashMap<String, usize>,
}

impl FieldRules {
    /// Reads the rules of every field of every message of `pool`.
    pub fn from_pool(pool: &DescriptorPool) -> FieldRules {
        let mut rules = FieldRules::default();
        for message in pool.all_messages() {
            let mut required = Vec::new();
            for f in message.fields() {
                let options = field(&f);
                if let Some(options) = options.as_ref().filter(|o| o.required) {
                    required.push(RequiredField { field: f.clone(), allow_empty: options.allow_empty });
                }
                if f.kind() == prost_reflect::Kind::String {
                    let limit = string_limit(options.as_ref());
                    if limit != DEFAULT_MAX_CHARS {
                        rules.max_chars.insert(f.full_name().to_owned(), limit);
                    }
                }
            }
            rules.required.insert(message.full_name().to_owned(), required);
        }
        rules
    }

    /// The required fields of the message named `message` (full name).
    pub fn required(&self, message: &str) -> &[RequiredField] {
        self.required.get(message).map(Vec::as_slice).unwrap_or_default()
    }

    /// Most characters a value of the string field `field` may have.
    pub fn max_chars(&self, field: &FieldDescriptor) -> usize {
        self.max_chars.get(field.full_name()).copied().unwrap_or(DEFAULT_MAX_CHARS)
    }

    /// `Err` with a message naming `path` when `value` is longer than the
    /// field allows (a 400 naming the field).
    pub fn check_length(&self, field: &FieldDescriptor, path: &str, value: &str) -> Result<(), String> {
        let limit = self.max_chars(field);
        // A string has at least as many bytes as characters: most values
        // are decided without counting.
        if value.len() <= limit {
            return Ok(());
        }
        let count = value.chars().count();
        if count <= limit {
            return Ok(());
        }
        Err(format!("`{path}` is {count} characters long; at most {limit} are accepted"))
    }
}

/// Most characters of a string field with these options: `max_length`,
/// else the control's default (docs/errors.md "Limits"). Also the JSON
/// Schema's `maxLength` ([`crate::json_schema`]).
pub fn string_limit(options: Option<&Field>) -> usize {
    match options {
        Some(o) if o.max_length > 0 => o.max_length as usize,
        Some(o) if o.control() == Control::Textarea => TEXTAREA_MAX_CHARS,
        Some(o) if o.control() == Control::Url => URL_MAX_CHARS,
        _ => DEFAULT_MAX_CHARS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_limits_follow_the_control() {
        let pool = crate::descriptor_pool();
        let rules = FieldRules::from_pool(pool);
        let field =
            |message: &str, name: &str| pool.get_message_by_name(message).unwrap().get_field_by_name(name).unwrap();
        let keyword = field("mediaops.lifestyle.v1.SearchUserRequest", "keyword");
        assert_eq!(rules.max_chars(&keyword), DEFAULT_MAX_CHARS);
        let content = field("mediaops.tool.v1.CheckBannedWordsRequest", "content");
        assert_eq!(rules.max_chars(&content), TEXTAREA_MAX_CHARS);
        assert!(rules.check_length(&keyword, "keyword", &"露".repeat(1_000)).is_ok());
        let error = rules.check_length(&keyword, "keyword", &"露".repeat(1_001)).unwrap_err();
        assert_eq!(error, "`keyword` is 1001 characters long; at most 1000 are accepted");
        assert_eq!(rules.required("mediaops.lifestyle.v1.SearchUserRequest")[0].field.name(), "keyword");
    }
}
