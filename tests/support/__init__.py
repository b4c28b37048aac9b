"""Drive the server the way an agent does: through the MCP SDK's in-memory client.

Use inside the test body: ``async with connected(settings) as call: await call.ok(...)``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.client.client import Client

from host.running import ServiceHolder, running_service
from service.facade import MemoryService
from service.settings import Settings
from tools.server import create_mcp_server


class EnvelopeCaller:
    """``ok`` and ``error`` on top of a ``__call__`` that returns a tool's envelope."""

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    async def ok(self, tool: str, arguments: dict[str, Any]) -> Any:
        envelope = await self(tool, arguments)
        assert envelope["success"], f"{tool}({arguments}) failed: {envelope.get('error')}"
        return envelope["result"]

    async def error(self, tool: str, arguments: dict[str, Any], code: str) -> dict[str, Any]:
        envelope = await self(tool, arguments)
        assert not envelope["success"], f"{tool} unexpectedly succeeded: {envelope.get('result')}"
        assert envelope["error"]["code"] == code, envelope["error"]
        return envelope["error"]


class Caller(EnvelopeCaller):
    def __init__(self, client: Client, service: MemoryService) -> None:
        self.client = client
        self.service = service

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call a tool and return its envelope, checking the envelope's three renderings agree."""
        result = await self.client.call_tool(tool, arguments)
        envelope = result.structured_content
        assert envelope is not None, f"{tool} returned no structured content"
        assert json.loads(result.content[0].text) == envelope
        assert result.is_error == (not envelope["success"])
        return envelope


@asynccontextmanager
async def connected(settings: Settings, **client_options: Any) -> AsyncIterator[Caller]:
    """``client_options`` go to the SDK's ``Client`` (an ``elicitation_callback``, a ``message_handler``)."""
    holder = ServiceHolder()
    server = create_mcp_server(holder, settings.tool_names, toolsets=settings.toolsets)
    async with running_service(settings, holder) as service, Client(server, **client_options) as client:
        yield Caller(client, service)


def track(n: int) -> str:
    """A valid Spotify-like track id (10..80 characters)."""
    return f"track{n:017d}"


def playlist(n: int) -> str:
    return f"playlist{n:014d}"


async def every_tool(client: Client) -> list[Any]:
    """Every tool's definition, as a session lists them once it has enabled every toolset."""
    names = [tool.name for tool in (await client.list_tools()).tools]
    door = next(name for name in names if name.endswith("enable_toolsets"))  # either name style
    enabled = await client.call_tool(door, {"toolsets": ["all"]})
    assert enabled.structured_content and enabled.structured_content["success"], enabled
    return list((await client.list_tools()).tools)
