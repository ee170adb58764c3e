//! The MCP tool table (docs/mcp.md "Tools"), derived from
//! the descriptors as the catalogs are: one tool per operation of
//! `GET /api/apis` and `GET /api/skills` (by `operationKey`), plus
//! [`POLL_OPERATION`], which those operations' `taskId`s point to.

use std::collections::HashMap;
use std::sync::Arc;

use mediaops_proto::mediaops::options::v1::{Operation, SideEffect};
use mediaops_proto::options::{is_data_api, is_skill};
use mediaops_proto::value_lists::ValueLists;
use prost_reflect::{DescriptorPool, MethodDescriptor};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};

use crate::routes::Route;

/// The one tool that is not a catalog operation: reading a task
/// (`GET /api/tasks/{taskId}`), how an agent gets the result of a call that
/// answered `status: running` with a `taskId` (docs/tasks.md).
pub const POLL_OPERATION: &str = "tasks.get";

/// Longest tool name: MCP allows 128 characters (2025-11-25 "Tool names"),
/// the model APIs agents put tools into allow 64 (`^[a-zA-Z0-9_-]{1,64}$`).
pub const MAX_NAME_CHARS: usize = 64;

/// Side effects (`execution.sideEffect`, spec 2.4) of tools announced
/// `readOnlyHint: true`: they change nothing the caller keeps besides the
/// points every call is charged.
pub const READ_ONLY_SIDE_EFFECTS: [SideEffect; 2] = [SideEffect::Read, SideEffect::Generate];

/// The tool name of an operation: its `operationKey` with each `.` replaced
/// by `_` (`videosite.search-work` → `videosite_search-work`), since the
/// model APIs refuse dots in tool names. [`ToolTable::build`] checks that the
/// names are allowed and tell the operations apart.
pub fn tool_name(operation_key: &str) -> String {
    operation_key.replace('.', "_")
}

/// Whether `name` keeps the rule of [`MAX_NAME_CHARS`]: 1 to 64 of
/// `[A-Za-z0-9_-]`.
pub fn is_allowed_name(name: &str) -> bool {
    (1..=MAX_NAME_CHARS).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The tools, in descriptor order, and the route each one calls.
#[derive(Debug)]
pub struct ToolTable {
    tools: Vec<Tool>,
    by_name: HashMap<String, (usize, Arc<Route>)>,
}

impl ToolTable {
    /// Every tool of `pool`: data APIs and skills, plus [`POLL_OPERATION`];
    /// each calls its operation's primary route among `routes` (the first
    /// route of its `operationKey`; aliases are not tools).
    ///
    /// # Errors
    /// An operation without a route, or whose tool name is not allowed or
    /// is another operation's (so bad metadata never serves).
    pub fn build(pool: &DescriptorPool, routes: &[Arc<Route>]) -> anyhow::Result<ToolTable> {
        let lists = ValueLists::from_pool(pool);
        let mut table = ToolTable { tools: Vec::new(), by_name: HashMap::new() };
        for (method, meta) in mediaops_proto::options::operations(pool) {
            if !(is_data_api(&meta) || is_skill(&meta) || meta.operation_key == POLL_OPERATION) {
                continue;
            }
            let key = &meta.operation_key;
            let route = routes
                .iter()
                .find(|r| &r.operation_key == key)
                .ok_or_else(|| anyhow::anyhow!("{key}: a catalog operation without a REST route"))?;
            let name = tool_name(key);
            anyhow::ensure!(is_allowed_name(&name), "{key}: tool name {name:?} is not 1-64 of [A-Za-z0-9_-]");
            anyhow::ensure!(!table.by_name.contains_key(&name), "{key}: tool name {name:?} is taken");
            table.by_name.insert(name.clone(), (table.tools.len(), route.clone()));
            table.tools.push(tool(name, &method, &meta, &lists));
        }
        Ok(table)
    }

    /// Every tool, for `tools/list`.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool called `name` and the route it calls.
    pub fn get(&self, name: &str) -> Option<(&Tool, &Arc<Route>)> {
        self.by_name.get(name).map(|(index, route)| (&self.tools[*index], route))
    }
}

fn tool(name: String, method: &MethodDescriptor, meta: &Operation, lists: &ValueLists) -> Tool {
    let schema = match mediaops_proto::json_schema::request_schema(&method.input(), lists) {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(), // request_schema always gives an object
    };
    let description = format!("{}\n{}\n{}", meta.title, meta.summary, price(method, meta));
    let side_effect = meta.execution.unwrap_or_default().side_effect();
    let annotations = ToolAnnotations::new().read_only(READ_ONLY_SIDE_EFFECTS.contains(&side_effect));
    Tool::new(name, description, Arc::new(schema)).with_title(meta.title.clone()).with_annotations(annotations)
}

/// The price sentence of a tool's description, from the same metadata the
/// core charges by (docs/billing.md "The flow" 5).
pub fn price(method: &MethodDescriptor, meta: &Operation) -> String {
    let billing = meta.billing.clone().unwrap_or_default();
    let listed = points(meta.unit_price);
    if billing.listed_not_charged {
        format!("Price: listed at {listed}, not charged.")
    } else if billing.price_per_platform > 0 {
        let field = method.input().get_field_by_name(&billing.platforms_field);
        let field = field.as_ref().map_or(billing.platforms_field.as_str(), |f| f.json_name());
        format!(
            "Price: {} per distinct platform in `{field}` (none given = every platform, {listed}), \
             charged only when the call succeeds.",
            points(billing.price_per_platform)
        )
    } else if meta.unit_price == 0 {
        "Price: free (0 points).".to_owned()
    } else {
        format!("Price: {listed} per call, charged only when the call succeeds.")
    }
}

/// `1 point`, `6 points`.
fn points(n: i32) -> String {
    if n == 1 { "1 point".to_owned() } else { format!("{n} points") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> ToolTable {
        let pool = mediaops_proto::descriptor_pool();
        let routes: Vec<_> = crate::routes::routes(pool).unwrap().into_iter().map(Arc::new).collect();
        ToolTable::build(pool, &routes).unwrap()
    }

    #[test]
    fn one_tool_per_catalog_operation_and_the_task_poll() {
        let pool = mediaops_proto::descriptor_pool();
        let mut keys: Vec<String> = mediaops_proto::options::operations(pool)
            .into_iter()
            .filter(|(_, m)| is_data_api(m) || is_skill(m))
            .map(|(_, m)| tool_name(&m.operation_key))
            .collect();
        keys.push(tool_name(POLL_OPERATION));
        keys.sort();
        let table = table();
        let mut names: Vec<&str> = table.tools().iter().map(|t| t.name.as_ref()).collect();
        names.sort();
        assert_eq!(names, keys);
        assert!(names.contains(&"tasks_get") && !names.contains(&"account_balance"));
        assert!(names.iter().all(|n| is_allowed_name(n)));
    }

    #[test]
    fn a_tool_says_what_the_catalog_says() {
        let table = table();
        let (tool, route) = table.get("videosite_search-work").unwrap();
        assert_eq!(route.path, "/api/apis/videosite/search-work/call");
        assert!(
            tool.description
                .as_deref()
                .unwrap()
                .ends_with("Price: 4 points per call, charged only when the call succeeds.")
        );
        assert_eq!(tool.input_schema.get("type").unwrap(), "object");
        assert!(tool.input_schema["properties"].get("keyword").is_some());
        assert_eq!(tool.annotations.as_ref().unwrap().read_only_hint, Some(true));
        // An alias is no tool; the primary path serves the operation.
        let (_, rise) = table.get("shortvideo_douyin-rise-fans-rank").unwrap();
        assert_eq!(rise.path, "/api/apis/shortvideo/douyin-rise-fans-rank/call");
        assert!(table.get("shortvideo_shortvideo-rise-fans-rank").is_none());
        // A write is not read-only; per-platform and free prices are spelled out.
        let (publish, _) = table.get("articles_publish").unwrap();
        assert_eq!(publish.annotations.as_ref().unwrap().read_only_hint, Some(false));
        let (radar, _) = table.get("skills_trend-radar").unwrap();
        assert!(radar.description.as_deref().unwrap().contains("4 points per distinct platform in `platforms`"));
        let (render, _) = table.get("articles_render").unwrap();
        assert!(render.description.as_deref().unwrap().ends_with("Price: free (0 points)."));
    }

    #[test]
    fn names_follow_the_rule() {
        assert_eq!(tool_name("ip-profile.charter.put"), "ip-profile_charter_put");
        assert!(is_allowed_name("a-b_c9"));
        assert!(!is_allowed_name("a.b") && !is_allowed_name("") && !is_allowed_name(&"a".repeat(65)));
    }
}
