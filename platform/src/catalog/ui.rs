//! Input and output UI descriptors (spec 2.4) generated from descriptors.
//!
//! Input: one field descriptor per request field (nested messages flattened
//! to dotted paths), from the field options. Output: the RPC's explicit
//! `output` option when it has one, else derived from the response message
//! by the rules in docs/catalog.md.

use mediaops_proto::mediaops::catalog::v1::{InputDescriptor, InputField};
use mediaops_proto::mediaops::options::v1::{Control, Operation, OutputDescriptor, OutputField, OutputSection};
use mediaops_proto::spec_names::SpecName;
use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};

use mediaops_proto::value_lists::ValueLists;

/// The input descriptor of a request message.
pub fn input_descriptor(message: &MessageDescriptor, lists: &ValueLists) -> InputDescriptor {
    let mut fields = Vec::new();
    push_inputs(message, "", lists, &mut fields);
    InputDescriptor { fields }
}

fn push_inputs(message: &MessageDescriptor, prefix: &str, lists: &ValueLists, out: &mut Vec<InputField>) {
    for field in message.fields() {
        let path = format!("{prefix}{}", field.json_name());
        if let Kind::Message(inner) = field.kind()
            && !field.is_list()
            && !is_free_form(&inner)
        {
            push_inputs(&inner, &format!("{path}."), lists, out);
            continue;
        }
        let options = mediaops_proto::options::field(&field).unwrap_or_default();
        let choices = lists.choices(&options);
        let control = match options.control() {
            Control::Unspecified => default_control(&field),
            declared => declared,
        };
        out.push(InputField {
            label: if options.label.is_empty() { field.json_name().to_owned() } else { options.label.clone() },
            control: control.spec_name().to_owned(),
            value_type: if options.value_type.is_empty() {
                value_type(&field).to_owned()
            } else {
                options.value_type.clone()
            },
            required: options.required,
            placeholder: non_empty(options.placeholder),
            help: non_empty(options.help),
            advanced: options.advanced.then_some(true),
            options: choices,
            path,
        });
    }
}

fn non_empty(s: String) -> Option<String> {
    if s.is_empty() { None } else { Some(s) }
}

fn is_free_form(message: &MessageDescriptor) -> bool {
    message.full_name().starts_with("google.protobuf.")
}

fn is_number(kind: &Kind) -> bool {
    !matches!(kind, Kind::String | Kind::Bytes | Kind::Bool | Kind::Message(_) | Kind::Enum(_))
}

/// `valueType` of spec 2.4 from the field's type.
fn value_type(field: &FieldDescriptor) -> &'static str {
    match (field.is_list(), is_number(&field.kind())) {
        (false, false) => "string",
        (false, true) => "number",
        (true, false) => "string[]",
        (true, true) => "number[]",
    }
}

/// The control of a field that declares none: tags, number or text by type.
fn default_control(field: &FieldDescriptor) -> Control {
    if field.is_list() {
        Control::Tags
    } else if is_number(&field.kind()) {
        Control::Number
    } else {
        Control::Text
    }
}

/// The heading of the scalar fields of an answer that also has a list.
pub const SUMMARY_LABEL: &str = "概要";

/// The output descriptor of an RPC.
pub fn output_descriptor(meta: &Operation, response: &MessageDescriptor) -> OutputDescriptor {
    if let Some(explicit) = meta.output.as_ref().filter(|o| !o.sections.is_empty()) {
        return OutputDescriptor { version: 1, sections: explicit.sections.clone() };
    }
    let label = meta
        .task_ui
        .as_ref()
        .map(|t| t.result_label.clone())
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| meta.title.clone());
    let mut sections = Vec::new();
    let mut scalars = Vec::new();
    for field in response.fields() {
        match field.kind() {
            Kind::Message(item) if field.is_list() && item.full_name() == "mediaops.common.v1.Image" => {
                sections.push(OutputSection {
                    kind: "media".into(),
                    label: label.clone(),
                    empty_text: "没有生成图片".into(),
                    collection_path: Some(field.json_name().into()),
                    url_path: Some("b64".into()),
                    title_path: Some("mime".into()),
                    ..Default::default()
                });
            }
            Kind::Message(item) if field.is_list() => sections.push(OutputSection {
                kind: "collection".into(),
                label: match super::labels::label(field.json_name()) {
                    _ if field.json_name() == "items" => label.clone(),
                    Some(known) => known.to_owned(),
                    None => field.json_name().into(),
                },
                empty_text: "暂无数据".into(),
                collection_path: Some(field.json_name().into()),
                fields: item_fields(&item),
                ..Default::default()
            }),
            Kind::Message(inner) if !is_free_form(&inner) => {
                scalars.extend(scalar_fields(&inner, &format!("{}.", field.json_name())));
            }
            Kind::Message(_) => {}
            _ => scalars.push(output_field(field.json_name(), &field)),
        }
    }
    if !scalars.is_empty() {
        assign_title(&mut scalars);
        // Beside a list, the scalars (a total, a status) are its summary:
        // one heading per section, the result's label on the list.
        let label = if sections.is_empty() { label } else { SUMMARY_LABEL.to_owned() };
        sections.insert(
            0,
            OutputSection {
                kind: "fields".into(),
                label,
                empty_text: "暂无数据".into(),
                fields: scalars,
                ..Default::default()
            },
        );
    }
    OutputDescriptor { version: 1, sections }
}

/// Fields of one collection element; a `{rank, item}` board element shows
/// `rank` and the fields of `item`.
fn item_fields(item: &MessageDescriptor) -> Vec<OutputField> {
    let mut fields = scalar_fields(item, "");
    for field in item.fields() {
        if let Kind::Message(inner) = field.kind()
            && !field.is_list()
            && !is_free_form(&inner)
        {
            fields.extend(scalar_fields(&inner, &format!("{}.", field.json_name())));
        }
    }
    assign_title(&mut fields);
    fields
}

fn scalar_fields(message: &MessageDescriptor, prefix: &str) -> Vec<OutputField> {
    message
        .fields()
        .filter(|f| !matches!(f.kind(), Kind::Message(_)))
        .map(|f| output_field(&format!("{prefix}{}", f.json_name()), &f))
        .collect()
}

const TITLE_NAMES: [&str; 10] =
    ["title", "workTitle", "description", "caption", "content", "text", "keyword", "accountName", "nickname", "name"];

fn output_field(path: &str, field: &FieldDescriptor) -> OutputField {
    let name = field.json_name();
    let lower = name.to_ascii_lowercase();
    let role =
        if (lower.ends_with("url")) && !["coverurl", "headurl", "coverimgurl", "avatar"].contains(&lower.as_str()) {
            "url"
        } else if ["workDesc", "signature", "intro", "digest", "summary", "description", "content"].contains(&name) {
            "summary"
        } else {
            "meta"
        };
    let declared = mediaops_proto::options::field(field).map(|o| o.label).filter(|l| !l.is_empty());
    let label = declared.unwrap_or_else(|| super::labels::label(name).unwrap_or(name).to_owned());
    OutputField { path: path.to_owned(), label, role: role.to_owned() }
}

/// The first title-like field (by [`TITLE_NAMES`] order) gets role `title`.
fn assign_title(fields: &mut [OutputField]) {
    let leaf = |f: &OutputField| f.path.rsplit('.').next().unwrap_or_default().to_owned();
    if let Some(best) = TITLE_NAMES.iter().find_map(|name| fields.iter().position(|f| leaf(f) == *name)) {
        fields[best].role = "title".into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::descriptor_pool;

    #[test]
    fn charter_input_is_flattened_and_uses_whitelists() {
        let pool = descriptor_pool();
        let lists = ValueLists::from_pool(pool);
        let desc = pool.get_message_by_name("mediaops.charter.v1.PutCharterRequest").unwrap();
        let input = input_descriptor(&desc, &lists);
        let paths: Vec<_> = input.fields.iter().map(|f| f.path.as_str()).collect();
        assert!(paths.contains(&"charter.positioning.oneLiner"));
        let practical = input.fields.iter().find(|f| f.path == "charter.monetization.practicalPaths").unwrap();
        assert_eq!(practical.value_type, "string[]");
        assert!(practical.options.iter().any(|o| o.value == "paid_knowledge"));
    }

    #[test]
    fn every_catalog_output_field_has_a_chinese_label_and_every_section_one_heading() {
        let pool = descriptor_pool();
        let mut unlabelled = std::collections::BTreeSet::new();
        let mut checked = 0;
        for service in pool.services() {
            for method in service.methods() {
                let Some(meta) = mediaops_proto::options::operation(&method) else { continue };
                // The catalogs' operations: the ones the workbench shows.
                if !mediaops_proto::options::is_data_api(&meta) && !mediaops_proto::options::is_skill(&meta) {
                    continue;
                }
                let out = output_descriptor(&meta, &method.output());
                let headings: Vec<_> = out.sections.iter().map(|s| s.label.as_str()).collect();
                let distinct: std::collections::BTreeSet<_> = headings.iter().collect();
                assert_eq!(distinct.len(), headings.len(), "{}: {headings:?}", meta.operation_key);
                for section in &out.sections {
                    if section.label.is_ascii() {
                        unlabelled.insert(format!("section {}", section.label));
                    }
                    for field in &section.fields {
                        checked += 1;
                        if field.label.is_ascii() {
                            unlabelled.insert(field.label.clone());
                        }
                    }
                }
            }
        }
        assert!(checked > 300, "{checked} fields");
        assert!(unlabelled.is_empty(), "response fields without a Chinese label (catalog/labels.rs): {unlabelled:?}");
    }

    #[test]
    fn board_output_shows_rank_and_item_fields() {
        let pool = descriptor_pool();
        let method = pool
            .get_service_by_name("mediaops.lifestyle.v1.LifestyleService")
            .unwrap()
            .methods()
            .find(|m| m.name() == "LifestyleHitData")
            .unwrap();
        let meta = mediaops_proto::options::operation(&method).unwrap();
        let out = output_descriptor(&meta, &method.output());
        assert_eq!(out.version, 1);
        let section = &out.sections[0];
        assert_eq!(section.kind, "collection");
        assert_eq!(section.collection_path.as_deref(), Some("items"));
        let paths: Vec<_> = section.fields.iter().map(|f| (f.path.as_str(), f.role.as_str())).collect();
        assert_eq!(
            paths,
            vec![("rank", "meta"), ("item.title", "title"), ("item.coverUrl", "meta"), ("item.useLikeCount", "meta")]
        );
    }
}
