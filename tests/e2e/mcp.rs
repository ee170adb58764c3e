//! The MCP server (docs/mcp.md) against a real `mediaops`
//! process on embedded defaults, with the official MCP Python SDK (`mcp` on
//! PyPI) as the client (`tests/mcp_client.py`): over Streamable HTTP with the
//! current protocol and with the `initialize` handshake, and over stdio
//! through `mediaops mcp`. Needs python3 with `mcp` (CI installs it in
//! `.ci/run`); fails, rather than skips, without it.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::process::{Process, Spawn};
use common::success;
use serde_json::{Value, json};

/// A new key of `account` with `points`, made through the admin gRPC API of
/// the running `server` (the embedded ledger belongs to that process).
async fn create_key(server: &Process, account: &str, points: i64) -> String {
    use mediaops::proto::mediaops::admin::v1::CreateKeyRequest;
    use mediaops::proto::mediaops::admin::v1::admin_service_client::AdminServiceClient;
    let mut admin = AdminServiceClient::connect(server.grpc().to_owned()).await.unwrap();
    let request = CreateKeyRequest { account_id: account.into(), points, ..Default::default() };
    admin.create_key(common::with_token(request, common::ADMIN_TOKEN)).await.unwrap().into_inner().key
}

/// What the SDK client ran, as `tests/mcp_client.py` reports it, and the
/// lines it printed.
struct ClientRun {
    lines: Vec<String>,
    report: Value,
    /// The client's standard error, where the stdio proxy's log went.
    stderr: String,
}

/// Runs `tests/mcp_client.py` against `base` with a key of 100 points and
/// one of none.
fn run_python_client(base: &str, rich: &str, poor: &str) -> ClientRun {
    let ready = std::process::Command::new("python3").args(["-c", "import mcp, httpx2"]).output();
    let ready = ready.unwrap_or_else(|e| panic!("python3 is needed for the MCP client test ({e}); CI installs it"));
    assert!(
        ready.status.success(),
        "python3 lacks the official MCP SDK: `python3 -m pip install mcp` (.ci/run installs it): {}",
        String::from_utf8_lossy(&ready.stderr)
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let output = std::process::Command::new("python3")
        .arg(&script)
        .args([base, rich, poor, env!("CARGO_BIN_EXE_mediaops")])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "mcp_client.py failed:\n{stdout}\n{stderr}");
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    let report = lines
        .iter()
        .find_map(|l| l.strip_prefix("result: "))
        .unwrap_or_else(|| panic!("mcp_client.py printed no result line:\n{stdout}\n{stderr}"));
    ClientRun { report: serde_json::from_str(report).unwrap(), lines, stderr }
}

/// A REST call with `key`: status and envelope.
async fn rest(
    http: &reqwest::Client,
    base: &str,
    method: reqwest::Method,
    path: &str,
    key: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = http.request(method, format!("{base}{path}")).bearer_auth(key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn balance(http: &reqwest::Client, base: &str, key: &str) -> i64 {
    let (status, body) = rest(http, base, reqwest::Method::GET, "/api/account/balance", key, None).await;
    success(status, &body)["points"].as_i64().unwrap()
}

/// Every operation of `GET /api/apis` and `GET /api/skills`: key → unitPrice.
async fn catalog_operations(http: &reqwest::Client, base: &str, key: &str) -> std::collections::BTreeMap<String, i64> {
    let mut operations = std::collections::BTreeMap::new();
    for path in ["/api/apis", "/api/skills"] {
        let (status, body) = rest(http, base, reqwest::Method::GET, path, key, None).await;
        for item in success(status, &body)["items"].as_array().unwrap() {
            let key = item["operationKey"].as_str().unwrap().to_owned();
            operations.insert(key, item["unitPrice"].as_i64().unwrap());
        }
    }
    operations
}

#[tokio::test]
async fn the_python_sdk_lists_calls_and_is_charged_like_rest() {
    let data = tempfile::tempdir().unwrap();
    let server = Process::spawn(data.path(), Spawn { args: vec![], env: vec![] });
    let base = server.rest().to_owned();
    let (rich, poor) = (create_key(&server, "mcp-agent", 100).await, create_key(&server, "mcp-poor", 0).await);
    let (rich, poor) = (rich.as_str(), poor.as_str());
    let http = reqwest::Client::new();

    // Without a Bearer key, /mcp answers the REST 401 before reading MCP.
    let answer = http
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    common::failure(status, &answer.json().await.unwrap(), 401, "unauthenticated");

    let catalog = catalog_operations(&http, &base, rich).await;
    let price = catalog["tool.check-banned-words"];
    assert!(price > 0, "the charged tool costs points");
    let before = balance(&http, &base, rich).await;

    let run = run_python_client(&base, rich, poor);
    for line in run.lines.iter().filter(|l| l.starts_with("mcp: ")) {
        println!("{line}");
    }
    let report = &run.report;

    // tools/list: one tool per catalog operation, plus tasks_get.
    let mut expected: BTreeSet<String> = catalog.keys().map(|k| k.replace('.', "_")).collect();
    expected.insert("tasks_get".into());
    let tools = report["http"]["tools"].as_object().unwrap();
    let listed: BTreeSet<String> = tools.keys().cloned().collect();
    assert_eq!(listed, expected);
    assert_eq!(tools.len(), catalog.len() + 1);
    let charged_tool = &tools["tool_check-banned-words"];
    let description = charged_tool["description"].as_str().unwrap();
    let points = if price == 1 { "1 point".to_owned() } else { format!("{price} points") };
    assert!(description.ends_with(&format!("Price: {points} per call, charged only when the call succeeds.")));
    assert_eq!(charged_tool["readOnlyHint"], true);
    assert_eq!(charged_tool["required"], json!(["platform", "content"]));
    assert_eq!(tools["articles_publish"]["readOnlyHint"], false);

    // The current protocol over HTTP (server/discover), the handshake era too.
    use rmcp::model::ProtocolVersion;
    assert_eq!(report["http"]["protocolVersion"], ProtocolVersion::LATEST.as_str());
    assert_eq!(report["poor"]["protocolVersion"], ProtocolVersion::LATEST_WITH_INITIALIZE.as_str());
    assert_eq!(report["poor"]["toolCount"], tools.len());
    assert_eq!(report["stdio"]["toolCount"], tools.len());

    // A free call: the same data as the REST call.
    let free = &report["http"]["calls"]["free"];
    assert_eq!(free["isError"], false, "{free}");
    let body = json!({"title": "标题", "markdown": "正文，[链接](https://example.com)", "themeId": "magazine"});
    let (status, rest_answer) =
        rest(&http, &base, reqwest::Method::POST, "/api/articles/render", rich, Some(body)).await;
    assert_eq!(free["structured"]["data"], success(status, &rest_answer));
    assert_eq!(free["structured"]["success"], true);
    assert_eq!(serde_json::from_str::<Value>(free["text"].as_str().unwrap()).unwrap(), free["structured"]);

    // Charged calls, over HTTP and over stdio: the balance drops by the price of each.
    for call in [&report["http"]["calls"]["charged"], &report["stdio"]["call"]] {
        assert_eq!(call["isError"], false, "{call}");
        assert!(call["structured"]["data"].is_object(), "{call}");
    }
    assert_eq!(balance(&http, &base, rich).await, before - 2 * price);

    // Errors are tool errors naming the code, with the REST error object.
    let invalid = &report["http"]["calls"]["invalid"];
    assert_eq!(invalid["isError"], true);
    assert!(invalid["text"].as_str().unwrap().starts_with("invalid_input: "), "{invalid}");
    assert_eq!(invalid["structured"]["error"]["field"], "content");
    let refused = &report["poor"]["call"];
    assert_eq!(refused["isError"], true);
    let text = refused["text"].as_str().unwrap();
    assert!(text.starts_with("insufficient_points: ") && text.ends_with("(HTTP 402)"), "{text}");
    assert_eq!(refused["structured"]["success"], false);
    assert_eq!(refused["structured"]["error"]["code"], "insufficient_points");
    assert_eq!(balance(&http, &base, poor).await, 0);

    // The stdio proxy logs (to stderr; stdout is the protocol the SDK read), never the key.
    assert!(run.stderr.contains("serving MCP on stdio"), "{}", run.stderr);
    assert!(!run.stderr.contains(rich), "the key was logged: {}", run.stderr);
}

/// The fenced block of `lang` in the README's MCP client entry (the
/// `- **MCP**` item of "## Clients"), without the list indent.
fn readme_mcp_block(lang: &str) -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("\n## Clients\n").expect("README has a Clients section");
    let item = &readme[start..][readme[start..].find("- **MCP**").expect("README lists the MCP client")..];
    let (open, close) = (format!("  ```{lang}\n"), "\n  ```\n");
    let body = &item[item.find(&open).unwrap_or_else(|| panic!("no {lang} block in the MCP entry")) + open.len()..];
    let body = &body[..body.find(close).expect("the block ends")];
    body.lines().map(|l| l.strip_prefix("  ").unwrap_or(l)).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn the_readme_mcp_commands_work() {
    for tool in ["bash", "curl", "jq"] {
        let found = std::process::Command::new("sh").args(["-c", &format!("command -v {tool}")]).output();
        assert!(found.is_ok_and(|o| o.status.success()), "{tool} is needed (.ci/run installs curl and jq)");
    }
    let data = tempfile::tempdir().unwrap();
    let server = Process::spawn(data.path(), Spawn { args: vec![], env: vec![] });
    let script = readme_mcp_block("sh").replace("localhost:8080", server.rest().trim_start_matches("http://"));
    let output = std::process::Command::new("bash")
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .env("KEY", common::KEY)
        .output()
        .unwrap();
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{script}\n{out}\n{err}");
    let mut answers = serde_json::Deserializer::from_str(&out).into_iter::<Value>().map(Result::unwrap);
    let (count, call) = (answers.next().unwrap(), answers.next().unwrap());
    let http = reqwest::Client::new();
    assert_eq!(count, catalog_operations(&http, server.rest(), common::KEY).await.len() + 1, "{out}");
    assert_eq!(call, json!({"isError": false, "data": ["极限用语"]}), "{out}");

    // The agent configuration: the stdio entry runs `mediaops mcp --url` with
    // the key in the environment (as tests/mcp_client.py does), the HTTP
    // entry names /mcp and the Bearer header.
    let config: Value = serde_json::from_str(&readme_mcp_block("json")).unwrap();
    let stdio = &config["mcpServers"]["mediaops"];
    assert_eq!(stdio["args"], json!(["mcp", "--url", "http://127.0.0.1:8080"]));
    assert!(stdio["env"]["MEDIAOPS_API_KEY"].is_string());
    let remote = &config["mcpServers"]["mediaops-http"];
    assert_eq!(remote["url"], "http://127.0.0.1:8080/mcp");
    assert!(remote["headers"]["Authorization"].as_str().unwrap().starts_with("Bearer "));
}

#[tokio::test]
async fn malformed_messages_get_json_rpc_errors_and_the_proxy_fails_in_words() {
    let data = tempfile::tempdir().unwrap();
    let server = Process::spawn(data.path(), Spawn { args: vec![], env: vec![] });
    let http = reqwest::Client::new();
    let post = |body: &'static str| {
        http.post(format!("{}/mcp", server.rest()))
            .bearer_auth(common::KEY)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body)
            .send()
    };
    // JSON-RPC 2.0 section 5.1: -32700 for a body that is not JSON, -32600
    // for JSON that is not a request; HTTP 400, a JSON answer, id null when
    // it cannot be read.
    for (body, code, id) in [
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#, -32700, Value::Null),
        ("not json at all", -32700, Value::Null),
        (r#"{"jsonrpc":"2.0","id":5}"#, -32600, json!(5)),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#, -32600, Value::Null),
        (r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"x"}"#, -32602, json!(6)),
        (r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}"#, -32602, json!(7)),
    ] {
        let answer = post(body).await.unwrap();
        assert_eq!(answer.status(), 400, "{body}");
        assert!(answer.headers()["content-type"].to_str().unwrap().starts_with("application/json"), "{body}");
        let error: Value = answer.json().await.unwrap();
        assert_eq!((error["jsonrpc"].as_str(), error["id"].clone()), (Some("2.0"), id), "{body}: {error}");
        assert_eq!(error["error"]["code"], code, "{body}: {error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(!message.contains("::") && !message.contains("deserialize"), "{message}");
    }
    // A well-formed request still works after the check read its body.
    let answer = post(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).await.unwrap();
    assert_eq!(answer.status(), 200);
    assert!(answer.json::<Value>().await.unwrap()["result"]["tools"].is_array());

    // The stdio proxy: an unreachable server, a refused key, a URL that is
    // not an MCP endpoint, each said without Rust type names.
    let proxy = |url: &str, key: &str| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_mediaops"))
            .args(["mcp", "--url", url])
            .env("MEDIAOPS_API_KEY", key)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{url}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let unreachable = proxy("http://127.0.0.1:9", common::KEY);
    assert!(unreachable.contains("cannot reach the mediaops server at http://127.0.0.1:9/mcp"), "{unreachable}");
    let refused = proxy(server.rest(), "Bearer with spaces");
    assert!(refused.contains("refused the key (HTTP 401)"), "{refused}");
    let wrong = proxy(&format!("{}/openapi.json", server.rest()), common::KEY);
    assert!(wrong.contains("is not an MCP endpoint (HTTP 404"), "{wrong}");
    for stderr in [&unreachable, &refused, &wrong] {
        assert!(!stderr.contains("::") && !stderr.contains("reqwest") && !stderr.contains("Worker"), "{stderr}");
    }
}
