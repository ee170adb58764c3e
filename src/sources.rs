//! Where answers come from (`mediaops sources`; docs/data-sources.md; the
//! workbench's "数据来源" line): per operation its chain and the packs that
//! map it, from the same code that builds the chains at start
//! (`core_service::vendors::routes`).

use core_service::catalog::PLATFORM_ORDER;
use core_service::registry::Registry;
use core_service::vendors::chain::VendorSettings;
use core_service::vendors::routes::{self, Kind, Word};
use mediaops_proto::mediaops::options::v1::MetadataKind;

/// One operation's sources.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// `videosite.search-work`.
    pub operation_key: String,
    /// `search`, `realtime`, `lookup`, `board` or `sync` (docs/vendors.md
    /// "Default chains").
    pub kind: Kind,
    /// Its steps in order: `store`, `store:fresh`, `upstream:<vendor>`;
    /// empty when nothing answers it (not built).
    pub chain: Vec<String>,
    /// The enabled packs that map it.
    pub packs: Vec<String>,
}

/// The lines of every data API, and of every other operation a vendor
/// answers, under `settings` over the handlers of `registry` (a core opened
/// without vendors: [`Registry::is_sourced`] tells which operations the
/// store answers through a chain), in the catalog's order.
///
/// # Errors
/// What the core would refuse at start: an unknown pack, a file that does
/// not parse, a chain that cannot be honoured. Keys are not needed.
pub fn lines(settings: &VendorSettings, registry: &Registry) -> anyhow::Result<Vec<Line>> {
    let files = core_service::vendors::packs::resolve(settings)?;
    let routes = routes::routes(settings, &files, registry)?;
    let mut operations: Vec<_> = registry.operations().collect();
    operations.sort_by_key(|op| {
        (op.meta.kind, PLATFORM_ORDER.iter().position(|p| *p == op.meta.platform).unwrap_or(PLATFORM_ORDER.len()))
    });
    let mut lines = Vec::new();
    for op in operations {
        let key = op.key();
        let route = routes.iter().find(|r| r.operation_key == key);
        if route.is_none() && op.meta.kind() != MetadataKind::DataApi {
            continue;
        }
        let sourced = registry.is_sourced(key);
        let implemented = registry.is_implemented(&op.grpc_path);
        let chain = match route {
            Some(route) => routes::settle(route, sourced, implemented)?,
            None => None,
        };
        let chain = match chain {
            Some(chain) => chain.iter().map(Word::to_string).collect(),
            None if implemented => vec!["store".to_owned()],
            None => Vec::new(),
        };
        lines.push(Line {
            operation_key: key.to_owned(),
            kind: routes::kind(op),
            chain,
            packs: route.map(|r| r.packs.clone()).unwrap_or_default(),
        });
    }
    Ok(lines)
}

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
    use core_service::vendors::packs::{PACKS, parse};
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
                (Some(mapping), _) => format!("`{} {}`", mapping.method.to_ascii_uppercase(), mapping.path),
                (None, Some(reason)) => format!("unmapped: {}", reason.replace('|', "\\|").replace('\n', " ")),
                (None, None) => "—".to_owned(),
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    Ok(out)
}

/// The marker lines around the generated part of docs/data-sources.md.
pub const MARKERS: (&str, &str) = ("<!-- sources:start -->", "<!-- sources:end -->");
