"""The session-cost benchmark's sessions are behaviour: each of the seeds' stories runs through the
in-process client on the default listing, every call answers success except the deliberate one,
and a tool missing from the listing is reached through ``memory_enable_toolsets`` or fails loudly.
Sizes are reported by the benchmark (docs/PERFORMANCE.md), not asserted here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

from scripts.benchmarks.session_cost import ENABLE, SESSIONS, Agent, SessionFailed, Tally, run_sessions
from tools.specs.catalog import TOOLSETS

DELIBERATE = [("control", "memory_append_preference_event")]  # a write while paused: CONFLICT


async def test_every_session_succeeds_on_the_default_listing(tmp_path: Path) -> None:
    result = await run_sessions(tmp_path)

    assert [s["name"] for s in result["sessions"]] == [name for name, _, _ in SESSIONS]
    assert result["listing"]["tools"] > 0 and result["listing"]["bytes"] > 0
    for session in result["sessions"]:
        assert session["tool_calls"] == len(session["calls"]) > 0
        assert session["list_calls"] >= 1 and session["definitions_bytes"] > 0 and session["answers_bytes"] > 0
        assert session["enable_calls"] <= session["list_calls"] - 1, "each enabling is followed by a re-list"
    failed = [(s["name"], tool) for s in result["sessions"] for tool, _, ok in s["calls"] if not ok]
    assert failed == DELIBERATE


class LeanServer:
    """A client stand-in listing a lean set; ``memory_enable_toolsets`` adds a toolset's tools."""

    def __init__(self, listed: set[str], with_enable: bool) -> None:
        self.listed = listed | ({ENABLE} if with_enable else set())
        self.called: list[str] = []

    async def list_tools(self, **_: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name=n, inputSchema={"type": "object"}) for n in sorted(self.listed)])

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        assert name in self.listed, f"{name} called while not listed"
        self.called.append(name)
        result: dict[str, Any] = {"echo": name}
        if name == ENABLE:
            added = {m.replace(".", "_") for t in arguments["toolsets"] for m in TOOLSETS[t]} - self.listed
            self.listed |= added
            result = {"enabled": arguments["toolsets"], "added": sorted(added)}
        envelope = {"success": True, "result": result}
        return CallToolResult(content=[TextContent(type="text", text="{}")], structured_content=envelope)


async def test_an_unlisted_tool_is_enabled_counted_and_relisted() -> None:
    server = LeanServer({"ops_list_users", "memory_get_profile"}, with_enable=True)
    agent = Agent(server, Tally("lean", "lean"))
    await agent.list_tools()
    first = agent.tally.definitions_bytes

    await agent.call("memory_inspect", {"user_id": 1})

    assert server.called == [ENABLE, "memory_inspect"]
    assert agent.tally.enable_calls == 1 and agent.tally.tool_calls == 2 and agent.tally.list_calls == 2
    assert agent.tally.definitions_bytes > 2 * first, "the re-listing's bytes are added"
    await agent.call("memory_inspect", {"user_id": 1})
    assert agent.tally.enable_calls == 1, "enabled once"


async def test_an_unlisted_tool_without_the_enabling_tool_fails_loudly() -> None:
    agent = Agent(LeanServer({"ops_list_users"}, with_enable=False), Tally("lean", "lean"))
    await agent.list_tools()
    with pytest.raises(SessionFailed, match="memory_inspect is not listed"):
        await agent.call("memory_inspect", {"user_id": 1})
