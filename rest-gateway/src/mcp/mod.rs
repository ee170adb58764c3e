//! The MCP server at `POST /mcp` on the REST port (docs/mcp.md), built on the official Rust SDK (`rmcp`): Streamable HTTP,
//! stateless (no session: any gateway replica answers any request), JSON
//! answers rather than SSE streams. Tools come from [`tools::ToolTable`];
//! a `tools/call` runs the REST pipeline ([`crate::call::invoke`]) with the
//! HTTP request's own `Authorization`, so it is authenticated, charged and
//! failed exactly as the REST call.

pub mod answer;
pub mod jsonrpc;
pub mod tools;

use std::sync::Arc;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::call;
use crate::envelope;
use crate::state::AppState;
use tools::ToolTable;

/// Where the MCP endpoint is served on the REST port.
pub const PATH: &str = "/mcp";

/// What an agent is told at `initialize` / `server/discover`.
pub const INSTRUCTIONS: &str = "mediaops answers data questions about Chinese content platforms and runs skills. \
Every tool call is charged in points from the API key's account; each tool's description gives its price. \
A result's structuredContent is the REST envelope {success, requestId, data, error}. \
A call that answers status \"running\" with a taskId finishes in the background: call tasks_get with that taskId \
until its status is success or failed.";

/// The MCP handler: the tool table and the gateway's state.
#[derive(Clone)]
pub struct McpServer {
    state: Arc<AppState>,
    tools: Arc<ToolTable>,
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mediaops", env!("CARGO_PKG_VERSION")).with_title("mediaops"))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.tools().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.get(name).map(|(tool, _)| tool.clone())
    }

    /// Runs the tool's operation through [`call::invoke`]. An unknown tool
    /// is a protocol error (-32602, MCP "Tools" error handling); every
    /// failure of the call itself is a tool result with `isError: true`
    /// ([`answer::failure`]). A cancelled call (the client went away or
    /// sent `notifications/cancelled`) drops the core call, which then
    /// charges nothing (docs/billing.md).
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some((_, route)) = self.tools.get(&request.name) else {
            let name = mediaops_proto::excerpt::excerpt(&request.name);
            return Err(McpError::invalid_params(format!("unknown tool {name}: tools/list names the tools"), None));
        };
        let Some(parts) = context.extensions.get::<http::request::Parts>() else {
            return Err(McpError::internal_error("the call came without its HTTP request", None));
        };
        let request_id = envelope::request_id(&parts.headers);
        let arguments = request.arguments.unwrap_or_default();
        let outcome = async {
            let metadata = call::call_metadata(&parts.headers, &request_id)?;
            call::invoke(&self.state, route, arguments, &metadata).await
        };
        let outcome = tokio::select! {
            outcome = outcome => outcome,
            () = context.ct.cancelled() => {
                return Err(McpError::internal_error("the call was cancelled; nothing was charged", None));
            }
        };
        let result = match outcome {
            Ok((data, notes, delivery)) => {
                // The tool's answer goes out through rmcp's transport,
                // which does not say whether it was written: charged when
                // the gateway has it (docs/billing.md).
                delivery.written(true);
                answer::success(&request_id, &data, &notes)
            }
            Err(error) => {
                call::log_failure(&request_id, route, &error);
                answer::failure(&request_id, &error)
            }
        };
        Ok(result.into())
    }
}

/// The `/mcp` route: [`require_bearer`], then [`jsonrpc::parse_errors`]
/// (JSON-RPC errors for bodies that are not JSON-RPC), in front of rmcp's
/// Streamable HTTP service over `tools`, stateless, answering JSON, with
/// request bodies up to `state.max_body_bytes`. Any `Host` is accepted: every request needs a key,
/// which a DNS-rebinding page does not have (rmcp's default allows only
/// loopback names, which a deployed gateway is not called by).
pub fn router(state: Arc<AppState>, tools: Arc<ToolTable>) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts()
        .with_max_request_body_bytes(state.max_body_bytes);
    let max_body_bytes = state.max_body_bytes;
    let server = McpServer { state, tools };
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::new(NeverSessionManager::default()), config);
    axum::Router::new()
        .route_service(PATH, service)
        .route_layer(axum::middleware::from_fn_with_state(max_body_bytes, jsonrpc::parse_errors))
        .route_layer(axum::middleware::from_fn(require_bearer))
}

/// Every MCP request needs `Authorization: Bearer <key>`: without one (or
/// with a malformed one) the answer is the REST 401 `unauthenticated`
/// envelope, before any MCP message is read (MCP "Authorization": a
/// request without valid credentials gets HTTP 401). Whether the key is
/// known is the core's answer to a `tools/call`.
pub async fn require_bearer(request: Request, next: Next) -> Response {
    if let Err(error) = call::authorization(request.headers()) {
        let request_id = envelope::request_id(request.headers());
        return envelope::failure(&request_id, &error);
    }
    next.run(request).await
}
