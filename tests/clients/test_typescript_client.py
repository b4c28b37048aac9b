"""The official TypeScript SDK client (npm ``@modelcontextprotocol/sdk``, pinned in
tests/clients/typescript) against the real server over SSE and streamable HTTP: list
tools, a write then a read, a resource, a prompt. Skipped only when node or npm is missing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from service.settings import Settings
from tests.clients.node_package import TYPESCRIPT_SDK, skip_without_node
from tests.support.mcp_sessions import sse_session, streamable_http_session
from tests.support.server_process import running_server

pytestmark = [pytest.mark.slow, skip_without_node]

PATCH = {"playlist_rules": {"max_tracks_per_artist": 2}, "core_genres": ["symphonic metal"]}
PROMPTS = {
    "start_session",
    "remember_preference",
    "make_playlist_under_my_rules",
    "what_was_in_that_playlist",
    "follow_up_recommendations",
}
SCRIPT_TIMEOUT = 60.0


def run_script(url: str, transport: str, user_id: int) -> dict[str, Any]:
    package = TYPESCRIPT_SDK.directory
    done = subprocess.run(
        ["node", str(package / "client.mjs"), url, transport, str(user_id)],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"client.mjs exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


async def python_tools(server: Any, transport: str) -> dict[str, dict[str, Any]]:
    """What the Python SDK client lists on the same server: name -> published outputSchema."""
    session = sse_session(server) if transport == "sse" else streamable_http_session(server)
    async with session as call:
        return {tool.name: tool.output_schema for tool in (await call.client.list_tools()).tools}


@pytest.mark.parametrize(("transport", "path"), [("sse", "/sse"), ("streamable-http", "/mcp")])
async def test_the_typescript_sdk_client(settings: Settings, tmp_path: Path, transport: str, path: str) -> None:
    TYPESCRIPT_SDK.ensure_installed()
    with running_server(settings, tmp_path, transport=transport) as server:
        summary = run_script(server.base_url + path, transport, 1)
        tools = await python_tools(server, transport)

    assert summary["server"]["name"] == "taste-memory"
    listed = summary["tools"]
    assert listed["count"] == len(tools) and set(listed["names"]) == set(tools)
    # The TS client checks structuredContent against the outputSchema itself and throws on a mismatch:
    # the two calls below succeeding means both answers passed it.
    assert {"memory_update_profile", "memory_get_profile"} <= set(listed["withOutputSchema"])

    for name, tool in (("write", "memory_update_profile"), ("read", "memory_get_profile")):
        result = summary[name]
        assert "error" not in result, f"{tool} over {transport}: {result}"
        envelope = result["structuredContent"]
        assert result["isError"] is False and envelope["success"] is True, result
        assert json.loads(result["content"][0]["text"]) == envelope
        errors = list(Draft202012Validator(tools[tool]).iter_errors(envelope))
        assert not errors, [error.message for error in errors]
    read = summary["read"]["structuredContent"]["result"]
    assert read["profile"] == PATCH and read["version"] == 1  # the write round-trips

    assert set(summary["prompts"]) == PROMPTS
    prompt = summary["prompt"]
    assert "error" not in prompt, prompt
    assert "memory_get_profile(user_id=1)" in prompt["messages"][0]["content"]["text"]

    toolsets = summary["toolsets"]
    assert "error" not in toolsets, toolsets
    added = toolsets["enabled"]["result"]["added"]
    assert "memory_get_playlist_timeline" in added and toolsets["told"] is True  # notifications/tools/list_changed
    assert set(toolsets["names"]) == set(listed["names"]) | set(added)
    assert toolsets["timeline"]["error"]["code"] == "NOT_FOUND"  # called, and no such playlist

    assert "memory://users/{user_id}/profile" in summary["resourceTemplates"], summary["resourceTemplates"]
    resource = summary["resource"]
    assert "error" not in resource, resource
    contents = resource["contents"]
    assert contents and contents[0]["uri"] == "memory://users/1/profile"
    assert "symphonic metal" in contents[0]["text"]
