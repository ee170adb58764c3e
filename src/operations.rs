//! The operation status table (`mediaops operations`): every operation of
//! the descriptor pool, its REST path, price and whether it is built. The
//! README's table is this command's output.

use mediaops_platform::registry::Registry;
use mediaops_store::rules::platforms::PLATFORM_ORDER;

/// What a caller gets from an operation today.
pub fn status(registry: &Registry, grpc_path: &str) -> &'static str {
    let op = registry.get(grpc_path).expect("listed operations exist");
    if op.under_maintenance() {
        "maintenance (503)"
    } else if registry.is_implemented(grpc_path) {
        "built"
    } else {
        "not built (503 not_implemented)"
    }
}

/// The table as Markdown: key, method and path, price, status; data APIs
/// in the spec's platform order (then ours, `history`), then skills, dedicated endpoints, catalogs,
/// the feed (served by the gateway's feed URLs), admin RPCs.
pub fn markdown(registry: &Registry) -> String {
    let mut out = String::from("| operationKey | method and path | price | status |\n|---|---|---|---|\n");
    let mut operations: Vec<_> = registry.operations().collect();
    operations.sort_by_key(|op| {
        // MetadataKind's numbers follow the table's order (data APIs first).
        let kind = op.meta.kind;
        // A platform token of ours (`history`) after the spec's.
        let platform = PLATFORM_ORDER.iter().position(|p| *p == op.meta.platform).unwrap_or(PLATFORM_ORDER.len());
        (kind, platform)
    });
    for op in operations {
        let paths = match &op.meta.http {
            Some(http) => {
                let mut paths = vec![format!("`{} {}`", http.method, http.path)];
                paths.extend(http.alias_paths.iter().map(|p| format!("`{p}`")));
                paths
            }
            None if op.meta.kind() == mediaops_proto::mediaops::options::v1::MetadataKind::Feed => vec![format!(
                "`GET /api/feeds/hotlists/{{source}}.atom`, `/api/watchlists/{{id}}.atom` (feed token; gRPC `{}`)",
                op.method.full_name()
            )],
            None => vec![format!("gRPC only: `{}` (admin token)", op.method.full_name())],
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            op.key(),
            paths.join(" or "),
            op.meta.unit_price,
            status(registry, &op.grpc_path)
        ));
    }
    out
}
