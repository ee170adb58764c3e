//! Start-up check of every operation's metadata against the rules of spec
//! 2.2-2.4, so a mistake in a proto option fails the build's tests and the
//! start, never a client. The enumerations that are proto enums (kind,
//! price class, execution mode and side effect, control, availability
//! status) are checked by the proto compiler; here only that they are set.

use anyhow::{bail, ensure};
use mediaops_proto::mediaops::options::v1::{
    AvailabilityStatus, ExecutionMode, MetadataKind, Operation, PriceClass, SideEffect,
};
use prost_reflect::MethodDescriptor;

use super::SKILL_CATEGORIES;
use mediaops_proto::value_lists::ValueLists;

const TASK_FAMILIES: [&str; 6] =
    ["find_trends", "search_content", "create_media", "write_content", "analyze_account", "publish_sync"];
const VALUE_TYPES: [&str; 4] = ["string", "number", "string[]", "number[]"];
/// The section kinds of spec 2.4, and `chart`, ours (docs/catalog.md "Chart sections").
const SECTION_KINDS: [&str; 6] = ["collection", "fields", "document", "media", "articlePreview", "chart"];
const ROLES: [&str; 4] = ["title", "meta", "summary", "url"];
const HTTP_METHODS: [&str; 4] = ["GET", "POST", "PUT", "DELETE"];

fn one_of(what: &str, value: &str, allowed: &[&str], rpc: &str) -> anyhow::Result<()> {
    ensure!(allowed.contains(&value), "{rpc}: {what} {value:?} is not one of {allowed:?}");
    Ok(())
}

/// Checks one RPC's operation option and its request fields' options.
pub fn check(method: &MethodDescriptor, meta: &Operation, lists: &ValueLists) -> anyhow::Result<()> {
    let rpc = method.full_name();
    ensure!(!meta.operation_key.is_empty(), "{rpc}: operation_key is empty");
    ensure!(!meta.title.is_empty(), "{rpc}: title is empty");
    ensure!(meta.unit_price >= 0, "{rpc}: unit_price is negative");
    ensure!(meta.kind() != MetadataKind::Unspecified, "{rpc}: kind is not set");
    ensure!(meta.price_class() != PriceClass::Unspecified, "{rpc}: price_class is not set");
    // Admin RPCs are gRPC only (admin token); the feed is served by the
    // gateway's own feed URLs (docs/watchlists.md "Feeds"). Both are free.
    let kind = meta.kind();
    if matches!(kind, MetadataKind::Admin | MetadataKind::Feed) {
        let name = mediaops_proto::spec_names::SpecName::spec_name(kind);
        ensure!(meta.http.is_none(), "{rpc}: {name} operations take no http rule");
        ensure!(meta.skill.is_none() && meta.unit_price == 0, "{rpc}: {name} operations are free and not skills");
        return Ok(());
    }
    let Some(http) = &meta.http else { bail!("{rpc}: no http rule") };
    one_of("http.method", &http.method, &HTTP_METHODS, rpc)?;
    ensure!(http.path.starts_with("/api/"), "{rpc}: path {:?} is not under /api/", http.path);
    let Some(execution) = &meta.execution else { bail!("{rpc}: no execution") };
    ensure!(execution.mode() != ExecutionMode::Unspecified, "{rpc}: execution.mode is not set");
    ensure!(execution.side_effect() != SideEffect::Unspecified, "{rpc}: execution.side_effect is not set");
    if let Some(availability) = &meta.availability {
        ensure!(availability.status() != AvailabilityStatus::Unspecified, "{rpc}: availability.status is not set");
    }
    let maintenance = meta.availability.as_ref().is_some_and(|a| a.status() == AvailabilityStatus::Maintenance);
    ensure!(
        maintenance == (execution.mode() == ExecutionMode::Unavailable),
        "{rpc}: availability maintenance and execution.mode unavailable go together (spec 3)"
    );
    if let Some(task_ui) = &meta.task_ui {
        one_of("task_ui.task_family", &task_ui.task_family, &TASK_FAMILIES, rpc)?;
    }
    if let Some((key, path)) = mediaops_proto::options::derived_identity(meta) {
        // Data APIs and skills (spec 2.2, 2.3): stated, they must be what
        // platform and slug give; unset, they were filled from them.
        ensure!(http.path == path, "{rpc}: path {:?} is not {path:?}, the path its platform and slug give", http.path);
        ensure!(
            meta.operation_key == key,
            "{rpc}: operation_key {:?} is not {key:?}, the key its platform and slug give",
            meta.operation_key
        );
    }
    if let Some(skill) = &meta.skill {
        one_of("skill.category", &skill.category, &SKILL_CATEGORIES, rpc)?;
        ensure!(!meta.slug.is_empty(), "{rpc}: a skill needs a slug");
    }
    if meta.kind() == MetadataKind::Skill {
        ensure!(meta.skill.is_some(), "{rpc}: kind skill without a skill option");
    }
    if let Some(output) = &meta.output {
        for section in &output.sections {
            one_of("output section kind", &section.kind, &SECTION_KINDS, rpc)?;
            if section.kind == "chart" {
                ensure!(
                    section.collection_path.is_some() && section.x_path.is_some() && !section.fields.is_empty(),
                    "{rpc}: a chart section needs collection_path, x_path and one field per series"
                );
            }
            for field in &section.fields {
                one_of("output field role", &field.role, &ROLES, rpc)?;
            }
        }
    }
    if let Some(billing) = meta.billing.as_ref().filter(|b| !b.platforms_field.is_empty()) {
        ensure!(
            method.input().get_field_by_name(&billing.platforms_field).is_some_and(|f| f.is_list()),
            "{rpc}: billing.platforms_field names no list field of the request"
        );
    }
    for field in method.input().fields() {
        let Some(options) = mediaops_proto::options::field(&field) else {
            continue;
        };
        if !options.value_type.is_empty() {
            one_of("field value_type", &options.value_type, &VALUE_TYPES, rpc)?;
        }
        if !options.choices_from.is_empty() {
            ensure!(lists.get(&options.choices_from).is_some(), "{rpc}: unknown value list {}", options.choices_from);
        }
    }
    Ok(())
}
