//! The spec's names of the option enums (`MetadataKind`, `ExecutionMode`,
//! `SideEffect`, `PriceClass`, `Control`, `AvailabilityStatus` of
//! `mediaops/options/v1/options.proto`): each value states its name once, in
//! its `(mediaops.options.v1.spec_name)` option, e.g. `standardData` for
//! `PRICE_CLASS_STANDARD_DATA`; the catalogs, the OpenAPI document and the
//! MCP tools write that name (spec 2.2-2.4).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::mediaops::options::v1::{AvailabilityStatus, Control, ExecutionMode, MetadataKind, PriceClass, SideEffect};

const SPEC_NAME_EXT: &str = "mediaops.options.v1.spec_name";

/// An option enum whose values carry a spec name.
pub trait SpecName: Copy + Into<i32> {
    /// The enum's full proto name, e.g. `mediaops.options.v1.PriceClass`.
    const PROTO_NAME: &'static str;

    /// The value's spec name, e.g. `standardData`; `""` for the unset value
    /// (0), which has none.
    fn spec_name(self) -> &'static str {
        names().get(Self::PROTO_NAME).and_then(|values| values.get(&self.into())).map_or("", String::as_str)
    }
}

impl SpecName for MetadataKind {
    const PROTO_NAME: &'static str = "mediaops.options.v1.MetadataKind";
}
impl SpecName for ExecutionMode {
    const PROTO_NAME: &'static str = "mediaops.options.v1.ExecutionMode";
}
impl SpecName for SideEffect {
    const PROTO_NAME: &'static str = "mediaops.options.v1.SideEffect";
}
impl SpecName for PriceClass {
    const PROTO_NAME: &'static str = "mediaops.options.v1.PriceClass";
}
impl SpecName for Control {
    const PROTO_NAME: &'static str = "mediaops.options.v1.Control";
}
impl SpecName for AvailabilityStatus {
    const PROTO_NAME: &'static str = "mediaops.options.v1.AvailabilityStatus";
}

/// Spec names by enum full name and value number, read once from the
/// embedded descriptor pool.
fn names() -> &'static HashMap<String, HashMap<i32, String>> {
    static NAMES: OnceLock<HashMap<String, HashMap<i32, String>>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let pool = crate::descriptor_pool();
        let Some(ext) = pool.get_extension_by_name(SPEC_NAME_EXT) else {
            return HashMap::new();
        };
        pool.all_enums()
            .map(|e| {
                let values = e
                    .values()
                    .filter_map(|v| {
                        let options = v.options();
                        let name = options.has_extension(&ext).then(|| options.get_extension(&ext))?;
                        Some((v.number(), name.as_str()?.to_owned()))
                    })
                    .collect();
                (e.full_name().to_owned(), values)
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all<E: SpecName + std::fmt::Debug>(values: &[E]) -> Vec<&'static str> {
        values.iter().map(|v| v.spec_name()).collect()
    }

    #[test]
    fn every_set_value_has_its_spec_name() {
        assert_eq!(
            all(&[
                PriceClass::StandardData,
                PriceClass::Lightweight,
                PriceClass::RealtimeData,
                PriceClass::ValueScaled,
                PriceClass::Free
            ]),
            ["standardData", "lightweight", "realtimeData", "valueScaled", "free"]
        );
        assert_eq!(
            all(&[
                MetadataKind::DataApi,
                MetadataKind::Skill,
                MetadataKind::Dedicated,
                MetadataKind::Catalog,
                MetadataKind::Admin
            ]),
            ["data_api", "skill", "dedicated", "catalog", "admin"]
        );
        assert_eq!(
            all(&[ExecutionMode::Generic, ExecutionMode::Dedicated, ExecutionMode::Unavailable]),
            ["generic", "dedicated", "unavailable"]
        );
        assert_eq!(
            all(&[SideEffect::Read, SideEffect::Generate, SideEffect::WriteExternal, SideEffect::WriteInternal]),
            ["read", "generate", "write_external", "write_internal"]
        );
        assert_eq!(
            all(&[
                Control::Text,
                Control::Textarea,
                Control::Number,
                Control::Tags,
                Control::Url,
                Control::Date,
                Control::Select
            ]),
            ["text", "textarea", "number", "tags", "url", "date", "select"]
        );
        assert_eq!(AvailabilityStatus::Maintenance.spec_name(), "maintenance");
    }

    #[test]
    fn unset_values_have_none() {
        assert_eq!(PriceClass::Unspecified.spec_name(), "");
        assert_eq!(Control::Unspecified.spec_name(), "");
        assert_eq!(MetadataKind::Unspecified.spec_name(), "");
    }
}
