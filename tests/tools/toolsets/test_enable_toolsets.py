"""memory_enable_toolsets through the in-memory MCP client: a session lists more tools, is told its
list changed, and nothing changes for any other session; every tool stays callable whatever is listed."""

from __future__ import annotations

from typing import Any

import anyio
from mcp.shared.subscriptions import ToolsListChanged
from mcp_types import ToolListChangedNotification

from service.settings import Settings
from tests.support import Caller, playlist
from tests.tools.resources.support import memory_server, session
from tools.specs.catalog import TOOLSETS, listed_names
from tools.specs.toolsets import ENABLE_TOOLSETS

WAIT_SECONDS = 10.0


def wire(names: frozenset[str]) -> set[str]:
    return {name.replace(".", "_") for name in names}


class ListChanges:
    """A ``message_handler`` counting ``notifications/tools/list_changed``."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            self.count += 1

    async def until(self, count: int) -> None:
        with anyio.fail_after(WAIT_SECONDS):
            while self.count < count:
                await anyio.sleep(0.01)


async def listed(call: Caller) -> set[str]:
    return {tool.name for tool in (await call.client.list_tools()).tools}


async def test_a_session_lists_a_toolset_more_is_told_and_the_others_are_not_touched(settings: Settings) -> None:
    changes, others = ListChanges(), ListChanges()
    async with (
        memory_server(settings) as server,
        session(server, mode="legacy", message_handler=changes) as mine,
        session(server, mode="legacy", message_handler=others) as other,
    ):
        assert mine.client.server_capabilities.tools.list_changed is True  # type: ignore[union-attr]
        start = wire(listed_names(settings.toolsets))
        assert await listed(mine) == start == await listed(other)

        answer = await mine.ok("memory_enable_toolsets", {"toolsets": ["ledger"]})
        assert answer == {"enabled": [*settings.toolsets, "ledger"], "added": sorted(wire(TOOLSETS["ledger"]) - start)}
        await changes.until(1)
        assert await listed(mine) == start | wire(TOOLSETS["ledger"])
        assert await listed(other) == start and others.count == 0

        again = await mine.ok("memory_enable_toolsets", {"toolsets": ["ledger", "core"]})
        assert again["added"] == [] and again["enabled"] == answer["enabled"]
        everything = await mine.ok("memory_enable_toolsets", {"toolsets": ["all"]})
        await changes.until(2)
        assert await listed(mine) == wire(listed_names(None)) == start | set(answer["added"]) | set(everything["added"])
        assert changes.count == 2  # nothing added, nothing told


async def test_a_tool_not_listed_can_still_be_called(settings: Settings) -> None:
    async with memory_server(settings.model_copy(update={"toolsets": ["core"]})) as server, session(server) as call:
        assert "memory_forget" not in await listed(call)
        refused = await call.error(
            "memory_forget", {"user_id": 1, "kind": "playlist", "id": playlist(1), "confirm": True}, "NOT_FOUND"
        )
        assert refused["details"] == {"field": "id"}


async def test_a_bad_toolset_is_refused_naming_the_ones_there_are(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as call:
        error = await call.error("memory_enable_toolsets", {"toolsets": ["everything"]}, "INVALID_ARGUMENT")
        assert error["details"]["field"].startswith("toolsets")
        assert "ledger" in error["message"]
        await call.error("memory_enable_toolsets", {"toolsets": []}, "INVALID_ARGUMENT")
        assert await listed(call) == wire(listed_names(settings.toolsets))


async def test_without_a_session_the_caller_keeps_its_toolsets_and_listen_streams_are_told(settings: Settings) -> None:
    """Protocol 2026-07-28 has no session: the toolsets belong to the caller, and a listen stream
    that asked for tool list changes hears of it."""
    async with memory_server(settings) as server, session(server) as mine, session(server) as later:
        async with mine.client.listen(tools_list_changed=True) as stream:
            await mine.ok("memory_enable_toolsets", {"toolsets": ["control"]})
            with anyio.fail_after(WAIT_SECONDS):
                event = await anext(aiter(stream))
            assert isinstance(event, ToolsListChanged)
        assert await listed(later) == wire(listed_names([*settings.toolsets, "control"]))


async def test_the_door_is_always_listed(settings: Settings) -> None:
    for toolsets in (["core"], ["ops"], list(TOOLSETS)):
        async with memory_server(settings.model_copy(update={"toolsets": toolsets})) as server, session(server) as call:
            assert ENABLE_TOOLSETS.replace(".", "_") in await listed(call)
