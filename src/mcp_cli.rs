//! `mediaops mcp --url URL --key KEY`: an MCP server on standard input and
//! output for desktop agents that start their servers as commands (docs/mcp.md "Stdio"). It is a proxy: an rmcp client of the
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
    preflight(&endpoint, &args.key).await?;
    let config = StreamableHttpClientTransportConfig::with_uri(endpoint.clone()).auth_header(args.key.clone());
    // The current protocol (`server/discover`), the `initialize` handshake
    // with an older server.
    let lifecycle =
        ClientLifecycleMode::Auto { preferred_versions: vec![ProtocolVersion::LATEST], legacy_version: None };
    let remote =
        ().serve_with_lifecycle(StreamableHttpClientTransport::from_config(config), lifecycle)
            .await
            .map_err(|e| anyhow!("cannot start MCP with {endpoint}: {}", without_type_names(&e.to_string())))?;
    let proxy = Proxy::new(&remote)?;
    let protocol = remote.peer_info().map(|info| info.protocol_version.to_string()).unwrap_or_default();
    tracing::info!(endpoint, protocol, "connected; serving MCP on stdio");
    let local = proxy.serve(rmcp::transport::stdio()).await.context("cannot serve MCP on stdio")?;
    let reason = local.waiting().await;
    let _ = remote.cancel().await;
    tracing::info!(?reason, "stdio closed");
    Ok(())
}

/// Asks `endpoint` for its tools once, with our own HTTP client, before the
/// MCP session starts, so that the usual failures are said in words: the
/// server cannot be reached (and why), it refuses the key, or the URL is not
/// an MCP endpoint. The MCP client's own errors name its Rust types.
///
/// # Errors
/// Those three, with the server's own message when it sent one.
async fn preflight(endpoint: &str, key: &str) -> anyhow::Result<()> {
    let http = reqwest::Client::builder().timeout(std::time::Duration::from_secs(30)).build()?;
    let answer = http
        .post(endpoint)
        .bearer_auth(key)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .json(&serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list"}))
        .send()
        .await
        .map_err(|e| anyhow!("cannot reach the mediaops server at {endpoint}: {}", root_cause(&e)))?;
    let status = answer.status();
    if status.is_success() {
        return Ok(());
    }
    let body = answer.text().await.unwrap_or_default();
    let said = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_else(|| mediaops_proto::excerpt::excerpt(body.trim()).to_string());
    match status.as_u16() {
        401 => bail!("the server at {endpoint} refused the key (HTTP 401): {said}"),
        404 | 405 => bail!(
            "{endpoint} is not an MCP endpoint (HTTP {status}); --url takes the server's REST base URL, e.g. http://127.0.0.1:8080"
        ),
        _ => bail!("{endpoint} answered HTTP {status}: {said}"),
    }
}

/// The innermost cause of `error`: `Connection refused (os error 111)`
/// rather than the client's wrapping of it.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    cause.to_string()
}

/// `text` without the Rust type names the MCP client's errors carry
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error: …`):
/// every bracketed or parenthesized part naming a path (`::`) goes.
fn without_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(['[', '(']) {
        let close_char = if rest[open..].starts_with('[') { ']' } else { ')' };
        let (before, from) = rest.split_at(open);
        out.push_str(before);
        // The matching bracket, counting nesting of the same kind.
        let opening = from.chars().next().unwrap_or('[');
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in from.char_indices() {
            if c == opening {
                depth += 1;
            } else if c == close_char {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
            }
        }
        let Some(end) = end else {
            out.push_str(from);
            return tidy(&out);
        };
        let part = &from[..=end];
        if !part.contains("::") {
            out.push_str(part);
        }
        rest = &from[end + 1..];
    }
    out.push_str(rest);
    tidy(&out)
}

fn tidy(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
        other => McpError::internal_error(
            format!("the mediaops server could not be reached: {}", without_type_names(&other.to_string())),
            None,
        ),
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

    #[test]
    fn errors_lose_their_rust_type_names() {
        // What the MCP client said when the server was down.
        let raw = "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::\
                   streamable_http_client::StreamableHttpClientWorker<reqwest::async_impl::client::Client>>] error: \
                   Client error: error sending request for url (http://127.0.0.1:9/mcp), when send discover request";
        let plain = without_type_names(raw);
        assert!(!plain.contains("::") && !plain.contains("Worker"), "{plain}");
        assert!(plain.contains("error sending request for url (http://127.0.0.1:9/mcp)"), "{plain}");
        assert_eq!(without_type_names("refused (HTTP 401) [x]"), "refused (HTTP 401) [x]");
    }

    #[tokio::test]
    async fn an_unreachable_server_is_said_in_words() {
        // Port 9 (discard) is closed on the test machine.
        let error = preflight("http://127.0.0.1:9/mcp", "mk_x").await.unwrap_err().to_string();
        assert!(error.starts_with("cannot reach the mediaops server at http://127.0.0.1:9/mcp: "), "{error}");
        assert!(!error.contains("::") && !error.contains("reqwest"), "{error}");
    }
}
