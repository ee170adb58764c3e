//! The closed sets of `build.rs`: one Rust enum per value list declared
//! `closed: true` (`(mediaops.options.v1.value_lists)`, e.g. `PERIOD` →
//! `Period`, `WATCH_CHANNELS` → `WatchChannel`), written to
//! `closed_sets.rs` in `OUT_DIR` and included as
//! `mediaops_proto::closed_sets`. Each enum has one variant per value (the
//! value in upper camel case, `""` → `Unset`), `ALL`, `LIST`, `as_str`,
//! `parse` and `parse_field` (a 400 naming the field and the allowed
//! values, the message of `value_lists::not_one_of`).

use std::fmt::Write;

use prost_reflect::{DescriptorPool, Value};

/// The enums of every closed value list in `pool`, in the order of their
/// files and declarations.
///
/// # Panics
/// A closed list with a value that is not ASCII letters, digits and `_`
/// (it could not be a variant name): closed sets are codes, not labels.
pub fn enums(pool: &DescriptorPool) -> String {
    let mut out = String::new();
    let Some(ext) = pool.get_extension_by_name("mediaops.options.v1.value_lists") else {
        return out;
    };
    for file in pool.files() {
        let options = file.options();
        if !options.has_extension(&ext) {
            continue;
        }
        let lists = options.get_extension(&ext);
        for list in lists.as_list().into_iter().flatten().filter_map(Value::as_message) {
            let text = |name: &str| list.get_field_by_name(name).and_then(|v| v.as_str().map(str::to_owned));
            if !list.get_field_by_name("closed").and_then(|v| v.as_bool()).unwrap_or(false) {
                continue;
            }
            let name = text("name").unwrap_or_default();
            let values: Vec<String> = list
                .get_field_by_name("values")
                .and_then(|v| v.as_list().map(|l| l.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()))
                .unwrap_or_default();
            write_enum(&mut out, &name, file.name(), &values);
        }
    }
    out
}

fn write_enum(out: &mut String, list: &str, file: &str, values: &[String]) {
    let name = type_name(list);
    let variants: Vec<(String, &String)> = values.iter().map(|v| (variant(list, v), v)).collect();
    let shown: Vec<String> = values.iter().map(|v| format!("`{v:?}`")).collect();
    let _ = writeln!(out, "/// The closed value list `{list}` (`{file}`): {}.", shown.join(", "));
    let _ = writeln!(out, "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]");
    let _ = writeln!(out, "pub enum {name} {{");
    for (variant, value) in &variants {
        let _ = writeln!(out, "    /// `{value:?}`.");
        let _ = writeln!(out, "    {variant},");
    }
    let _ = writeln!(out, "}}");
    let _ = writeln!(out);
    let _ = writeln!(out, "impl {name} {{");
    let _ = writeln!(out, "    /// The list's name in the protos.");
    let _ = writeln!(out, "    pub const LIST: &'static str = \"{list}\";");
    let _ = writeln!(out, "    /// Every value, in the list's order.");
    let all: Vec<String> = variants.iter().map(|(v, _)| format!("{name}::{v}")).collect();
    let _ = writeln!(out, "    pub const ALL: &'static [{name}] = &[{}];", all.join(", "));
    let _ = writeln!(out);
    let _ = writeln!(out, "    /// The value as the API spells it.");
    let _ = writeln!(out, "    pub fn as_str(self) -> &'static str {{");
    let _ = writeln!(out, "        match self {{");
    for (variant, value) in &variants {
        let _ = writeln!(out, "            {name}::{variant} => {value:?},");
    }
    let _ = writeln!(out, "        }}");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out);
    let _ = writeln!(out, "    /// The value `text` spells (white space around it ignored), if it is one.");
    let _ = writeln!(out, "    pub fn parse(text: &str) -> Option<{name}> {{");
    let _ = writeln!(out, "        match text.trim() {{");
    for (variant, value) in &variants {
        let _ = writeln!(out, "            {value:?} => Some({name}::{variant}),");
    }
    let _ = writeln!(out, "            _ => None,");
    let _ = writeln!(out, "        }}");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out);
    let _ = writeln!(out, "    /// [`{name}::parse`] of the request field `field`.");
    let _ = writeln!(out, "    ///");
    let _ = writeln!(out, "    /// # Errors");
    let _ = writeln!(out, "    /// 400 `invalid_input` naming `field` and the allowed values.");
    let _ = writeln!(
        out,
        "    pub fn parse_field(text: &str, field: &str) -> ::core::result::Result<{name}, crate::error::ServiceError> {{"
    );
    let _ = writeln!(out, "        {name}::parse(text).ok_or_else(|| {{");
    let _ = writeln!(out, "            let allowed: Vec<&str> = {name}::ALL.iter().map(|v| v.as_str()).collect();");
    let _ = writeln!(
        out,
        "            crate::error::ServiceError::invalid_field(field, crate::value_lists::not_one_of(field, text, &allowed))"
    );
    let _ = writeln!(out, "        }})");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "}}");
    let _ = writeln!(out);
    let _ = writeln!(out, "impl ::core::fmt::Display for {name} {{");
    let _ = writeln!(out, "    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {{");
    let _ = writeln!(out, "        f.write_str(self.as_str())");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "}}");
    let _ = writeln!(out);
}

/// `WATCH_CHANNELS` → `WatchChannel` (a plural's `S` dropped: one value),
/// `CHARTER_STAGE` → `CharterStage`.
fn type_name(list: &str) -> String {
    let singular = list.strip_suffix('S').unwrap_or(list);
    camel(&singular.to_ascii_lowercase())
}

/// `paid_knowledge` → `PaidKnowledge`; `""` → `Unset`.
fn variant(list: &str, value: &str) -> String {
    assert!(
        value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
        "closed value list {list}: {value:?} is not a code (ASCII letters, digits, _)"
    );
    if value.is_empty() { "Unset".to_owned() } else { camel(value) }
}

fn camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}
