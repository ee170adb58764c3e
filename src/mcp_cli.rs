//! `mediaops mcp --url URL --key KEY`: an MCP server on standard input and
//! output for desktop agents that start their servers as commands (issue 17
//! item 5; docs/mcp.md "Stdio"). It is a proxy: an rmcp client of the
//! server's `/mcp` endpoint (Streamable HTTP, `Authorization: Bearer KEY`)
//! and an rmcp server on stdio whose `tools/list` and `tools/call` are the
//! remote ones, so tools, prices and errors are the server's own. Standard
//! output carries only the protocol; logs go to standard error; the key is
//! never logged.

use std::sync::Arc;

use anyhow::{Context, anyhow, bail};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ResultType,
    ServerConfig,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{
    ClientLifecycleMode, ClientServiceExt, ErrorData as McpError, Peer, RoleClient, RoleServer, ServerHandler,
    ServiceError, ServiceExt,
};

/// The arguments of `mediaops mcp`.
#[derive(clap::Args)]
pub struct McpArgs {
    /// The mediaops server: its REST base URL (`/mcp` is appended) or the
    /// full `…/mcp` URL.
    #[arg(long, env = "MEDIAOPS_URL", default_value = "http://127.0.0.1:8080")]
    url: String,
    /// The API key calls are made and charged with. Prefer the variable: a
    /// command line is visible to other local users.
    #[arg(long, env = "MEDIAOPS_API_KEY", hide_env_values = true)]
    key: String,
}

/// The MCP endpoint of `url`: `url` itself when its path ends in `/mcp`,
/// else `url` with `/mcp` appended to its path.
///
/// # Errors
/// Not an absolute `http://` or `https://` URL.
pub fn endpoint(url: &str) -> anyhow::Result<String> {
    let mut parsed = reqwest::Url::parse(url).with_context(|| format!("--url {url:?} is not a URL"))?;
    if !matches!(parsed.scheme(), "http" | "https") || !parsed.has_host() {
        bail!("--url {url:?}: expected http://host[:port] or https://host[:port]");
    }
    let path = parsed.path().trim_end_matches('/').to_owned();
    if !path.ends_with(rest_gateway::mcp::PATH) {
        parsed.set_path(&format!("{path}{}", rest_gateway::mcp::PATH));
    }
    Ok(parsed.into())
}

/// Connects to the server's endpoint, then serves MCP on stdio until the
/// agent closes standard input.
///
/// # Errors
/// A bad URL; the endpoint cannot be reached or refuses the key (401).
pub async fn serve(args: &McpArgs) -> anyhow::Result<()> {
    // rmcp's reqwest has no TLS provider of its own: ring, as the
    // workspace's reqwest uses. Installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let endpoint = endpoint(&args.url)?;
    let config = StreamableHttpClientTransportConfig::with_uri(endpoint.clone()).auth_header(args.key.clone());
    // The current protocol (`server/discover`), the `initialize` handshake
    // with an older server.
    let lifecycle =
        ClientLifecycleMode::Auto { preferred_versions: vec![ProtocolVersion::LATEST], legacy_version: None };
    let remote =
        ().serve_with_lifecycle(StreamableHttpClientTransport::from_config(config), lifecycle)
            .await
            .map_err(|e| anyhow!("cannot start MCP with {endpoint}: {e}"))?;
    let proxy = Proxy::new(&remote)?;
    let protocol = remote.peer_info().map(|info| info.protocol_version.to_string()).unwrap_or_default();
    tracing::info!(endpoint, protocol, "connected; serving MCP on stdio");
    let local = proxy.serve(rmcp::transport::stdio()).await.context("cannot serve MCP on stdio")?;
    let reason = local.waiting().await;
    let _ = remote.cancel().await;
    tracing::info!(?reason, "stdio closed");
    Ok(())
}

/// The stdio server: the remote server's description and tools.
#[derive(Clone)]
struct Proxy {
    remote: Peer<RoleClient>,
    info: Arc<ServerConfig>,
}

impl Proxy {
    /// The remote's capabilities, identity and instructions, offered at the
    /// newest protocol version (the stdio agent negotiates its own).
    fn new(remote: &RunningService<RoleClient, ()>) -> anyhow::Result<Proxy> {
        let remote_info = remote.peer_info().ok_or_else(|| anyhow!("the server sent no initialize result"))?;
        let mut info = ServerConfig::new(remote_info.capabilities.clone());
        if let Some(server) = &remote_info.server_info {
            info = info.with_server_info(server.clone());
        }
        if let Some(instructions) = &remote_info.instructions {
            info = info.with_instructions(instructions.clone());
        }
        Ok(Proxy { remote: remote.peer().clone(), info: Arc::new(info) })
    }
}

/// A remote failure as the stdio client sees it: the server's own MCP error,
/// else an internal error naming what broke.
fn remote_error(error: ServiceError) -> McpError {
    match error {
        ServiceError::McpError(error) => error,
        other => McpError::internal_error(format!("the mediaops server could not be reached: {other}"), None),
    }
}

impl ServerHandler for Proxy {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::clone(&self.info)
    }

    async fn list_tools(
        &self,
        mut request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // The stdio side's own request metadata stays on the stdio side.
        if let Some(request) = &mut request {
            request.meta = None;
        }
        let mut result = self.remote.list_tools(request).await.map_err(remote_error)?;
        // A handshake-era answer has no `resultType`; the stdio side may be
        // on the current protocol, which needs it (rmcp drops it for older
        // agents).
        result.result_type.get_or_insert(ResultType::COMPLETE);
        Ok(result)
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // The stdio side's own request metadata stays on the stdio side.
        request.meta = None;
        let mut response = self.remote.call_tool_once(request).await.map_err(remote_error)?;
        if let CallToolResponse::Complete(result) = &mut response {
            result.result_type.get_or_insert(ResultType::COMPLETE);
        }
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_the_servers_mcp_path() {
        assert_eq!(endpoint("http://127.0.0.1:8080").unwrap(), "http://127.0.0.1:8080/mcp");
        assert_eq!(endpoint("http://h:8080/").unwrap(), "http://h:8080/mcp");
        assert_eq!(endpoint("https://h/mediaops").unwrap(), "https://h/mediaops/mcp");
        assert_eq!(endpoint("https://h/mediaops/mcp").unwrap(), "https://h/mediaops/mcp");
        assert!(endpoint("h:8080").is_err());
        assert!(endpoint("ftp://h").is_err());
    }
}
