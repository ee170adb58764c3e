//! Where answers come from (`mediaops sources`; docs/data-sources.md; the
//! workbench's "数据来源" line): per operation its chain and the packs that
//! map it, from the same code that builds the chains at start
//! (`mediaops_connectors::vendors::routes`, whose [`lines`] the core also serves in
//! the catalog's `dataSources`).

use mediaops_connectors::vendors::mapping::OperationMapping;
use mediaops_connectors::vendors::settings::VendorSettings;
use mediaops_platform::registry::Registry;

pub use mediaops_connectors::vendors::routes::{Line, lines};

/// The lines as a plain table (`mediaops sources`).
pub fn table(lines: &[Line]) -> String {
    let width = lines.iter().map(|l| l.operation_key.len()).max().unwrap_or(0);
    let mut out = String::new();
    for line in lines {
        let chain = if line.chain.is_empty() { "(not built)".to_owned() } else { line.chain.join(",") };
        let packs = if line.packs.is_empty() { String::new() } else { format!("  packs: {}", line.packs.join(", ")) };
        out.push_str(&format!("{:width$}  {:8}  {chain}{packs}\n", line.operation_key, line.kind.name()));
    }
    out
}

/// The generated part of docs/data-sources.md: per data API its kind, its
/// chain with every pack enabled (in the order of `vendors::packs::PACKS`),
/// and for each pack the route it calls or why it maps none.
///
/// # Errors
/// A pack that does not parse or whose chains cannot be built.
pub fn markdown(registry: &Registry) -> anyhow::Result<String> {
    use mediaops_connectors::vendors::packs::{PACKS, parse};
    let settings =
        VendorSettings { packs: PACKS.iter().map(|p| p.name.to_owned()).collect(), ..VendorSettings::default() };
    let files: Vec<_> = PACKS.iter().map(parse).collect::<anyhow::Result<_>>()?;
    let mut out = String::from("| operation | kind | chain with every pack enabled |");
    for pack in PACKS {
        out.push_str(&format!(" {} |", pack.name));
    }
    out.push_str("\n|---|---|---|");
    out.push_str(&"---|".repeat(PACKS.len()));
    out.push('\n');
    for line in lines(&settings, registry)? {
        let key = &line.operation_key;
        let chain = if line.chain.is_empty() { "not built".to_owned() } else { format!("`{}`", line.chain.join(",")) };
        out.push_str(&format!("| `{key}` | {} | {chain} |", line.kind.name()));
        for file in &files {
            let cell = match (file.operations.get(key), file.unmapped.get(key)) {
                (Some(mapping), _) => route_cell(file, mapping),
                (None, Some(reason)) => format!("unmapped: {}", reason.replace('|', "\\|").replace('\n', " ")),
                (None, None) => "—".to_owned(),
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    Ok(out)
}

/// What a pack calls for one operation: its route (`GET /api/…`); for an
/// operation of several calls (docs/vendors.md "Several calls") each call's
/// route with the operation it goes through, then its own route, or "then
/// the store" for a refresh.
fn route_cell(file: &mediaops_connectors::vendors::mapping::VendorFile, mapping: &OperationMapping) -> String {
    let route = |m: &OperationMapping| format!("`{} {}`", m.method.to_ascii_uppercase(), m.path);
    let mut parts: Vec<String> = mapping
        .calls
        .iter()
        .map(|call| {
            let (target, via) = match (&call.operation, &call.route) {
                (Some(key), _) => (file.operations.get(key), format!(" ({key})")),
                (None, Some(name)) => (file.routes.get(name), String::new()),
                (None, None) => (None, String::new()),
            };
            target.map(|t| format!("{}{via}", route(t))).unwrap_or_default()
        })
        .collect();
    parts.dedup();
    if !mapping.path.is_empty() {
        parts.push(route(mapping));
    }
    let text = parts.join(", then ");
    if mapping.refresh { format!("refresh: {text}, then the store") } else { text }
}

/// The marker lines around the generated part of docs/data-sources.md.
pub const MARKERS: (&str, &str) = ("<!-- sources:start -->", "<!-- sources:end -->");
