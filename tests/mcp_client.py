#!/usr/bin/env python3
"""The official MCP Python SDK (`mcp` on PyPI) as a real client of mediaops
(docs/mcp.md), run by tests/e2e/mcp.rs.

Usage: mcp_client.py BASE_URL RICH_KEY POOR_KEY MEDIAOPS_BINARY

1. Streamable HTTP at BASE_URL/mcp with RICH_KEY, the SDK's default connect
   (`server/discover`, falling back to `initialize`): list the tools, call a
   free one (articles_render), a charged one (tool_check-banned-words) and one
   with a missing required argument.
2. Streamable HTTP with POOR_KEY (too few points) and the `initialize`
   handshake: list the tools, call the charged one.
3. Stdio: `MEDIAOPS_BINARY mcp --url BASE_URL` with the key in
   MEDIAOPS_API_KEY: list the tools, call the charged one.

Prints one `mcp: ...` line per step, then `result: <JSON>` with what the
Rust test checks. Asserts nothing itself.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

FREE = ("articles_render", {"title": "标题", "markdown": "正文，[链接](https://example.com)", "themeId": "magazine"})
CHARGED = ("tool_check-banned-words", {"platform": "公众号", "content": "全网最低价，加微信领取"})
MISSING_CONTENT = ("tool_check-banned-words", {"platform": "公众号"})


def show(line):
    print(f"mcp: {line}", flush=True)


def outcome(result):
    """What a tools/call answered: isError, the first text block, structuredContent."""
    text = result.content[0].text if result.content else None
    return {"isError": bool(result.is_error), "text": text, "structured": result.structured_content}


def describe(result):
    data = (result.structured_content or {}).get("data")
    if result.is_error:
        return f"isError=true, text {result.content[0].text!r}"
    return f"isError=false, structuredContent.data keys {sorted(data)[:6]}"


async def tools_of(client):
    listed = (await client.list_tools()).tools
    return {
        t.name: {
            "readOnlyHint": t.annotations.read_only_hint if t.annotations else None,
            "description": t.description,
            "required": (t.input_schema or {}).get("required", []),
        }
        for t in listed
    }


def http(key):
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(30, read=120))


async def main(base, rich, poor, binary):
    url = f"{base}/mcp"
    report = {}

    async with http(rich) as session, Client(streamable_http_client(url, http_client=session)) as client:
        show(f"http {url}: connected, protocol {client.protocol_version}, server {client.server_info}")
        tools = await tools_of(client)
        show(f"http: tools/list -> {len(tools)} tools, e.g. {sorted(tools)[:3]}")
        calls = {}
        for label, (name, arguments) in {"free": FREE, "charged": CHARGED, "invalid": MISSING_CONTENT}.items():
            result = await client.call_tool(name, arguments)
            show(f"http: tools/call {name} ({label}) -> {describe(result)}")
            calls[label] = outcome(result)
        report["http"] = {"protocolVersion": client.protocol_version, "tools": tools, "calls": calls}

    async with http(poor) as session, Client(streamable_http_client(url, http_client=session), mode="legacy") as client:
        show(f"http (initialize handshake, poor key): protocol {client.protocol_version}")
        tools = await tools_of(client)
        show(f"http (poor key): tools/list -> {len(tools)} tools")
        result = await client.call_tool(*CHARGED)
        show(f"http (poor key): tools/call {CHARGED[0]} -> {describe(result)}")
        report["poor"] = {"protocolVersion": client.protocol_version, "toolCount": len(tools), "call": outcome(result)}

    command = StdioServerParameters(
        command=binary, args=["mcp", "--url", base], env={"MEDIAOPS_API_KEY": rich, "RUST_LOG": "info"}
    )
    async with Client(command) as client:
        show(f"stdio {binary} mcp --url {base}: connected, protocol {client.protocol_version}")
        tools = await tools_of(client)
        show(f"stdio: tools/list -> {len(tools)} tools")
        result = await client.call_tool(*CHARGED)
        show(f"stdio: tools/call {CHARGED[0]} -> {describe(result)}")
        report["stdio"] = {"protocolVersion": client.protocol_version, "toolCount": len(tools), "call": outcome(result)}

    print("result: " + json.dumps(report, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
