"""Resources through the MCP client: one server, as many sessions as a test needs, and an inbox
of the ``resources/updated`` notifications a session received.

Absence is shown without sleeping: notifications on one connection arrive in order, so once a
later, expected one (a sentinel) is in, an earlier one that is missing never came.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceUpdatedNotification

from host.running import ServiceHolder, running_service
from service.settings import Settings
from tests.support import Caller, playlist, track
from tools.calls.policy import CallPolicy
from tools.server import create_mcp_server

USER, OTHER = 1, 2
MINE = playlist(1)
T_CREATED, T_BETWEEN, T_ADDED = "2025-01-01T10:00:00Z", "2025-01-01T12:00:00Z", "2025-01-02T10:00:00Z"
WAIT_SECONDS = 10.0


def uri(user_id: int, path: str) -> str:
    return f"memory://users/{user_id}/{path}"


@asynccontextmanager
async def memory_server(settings: Settings, policy: CallPolicy | None = None) -> AsyncIterator[MCPServer]:
    holder = ServiceHolder()
    server = create_mcp_server(holder, settings.tool_names, policy, toolsets=settings.toolsets)
    async with running_service(settings, holder):
        yield server


@asynccontextmanager
async def session(server: MCPServer, **options: Any) -> AsyncIterator[Caller]:
    async with Client(server, **options) as client:
        yield Caller(client, None)  # type: ignore[arg-type]


class Inbox:
    """A ``message_handler`` keeping the URIs of ``notifications/resources/updated``, in order."""

    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            self.uris.append(message.params.uri)

    async def until(self, *wanted: str) -> list[str]:
        """Every URI received until each of ``wanted`` is in (then forgotten), in order of arrival."""
        with anyio.fail_after(WAIT_SECONDS):
            while not set(wanted) <= set(self.uris):
                await anyio.sleep(0.01)
        cut = max(self.uris.index(w) for w in wanted) + 1
        received, self.uris = self.uris[:cut], self.uris[cut:]
        return received


async def seed(call: Any, user_id: int = USER) -> None:
    """A profile, a catalog of three named tracks, and MINE: two tracks, then a third a day later."""
    await call.ok("memory_update_profile", {"user_id": user_id, "patch": {"core_genres": ["polka"]}})
    await call.ok(
        "memory_upsert_tracks",
        {
            "user_id": user_id,
            "tracks": [{"track_id": track(n), "name": f"Polka {n}", "artists": ["Band"]} for n in (1, 2, 3)],
        },
    )
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": user_id,
            "playlist_id": MINE,
            "name": "Mine",
            "track_ids": [track(1), track(2)],
            "created_at": T_CREATED,
        },
    )
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": user_id,
            "playlist_id": MINE,
            "type": "ADD_TRACKS",
            "payload": {"track_ids": [track(3)]},
            "timestamp": T_ADDED,
        },
    )


async def refusal(read: Callable[[], Any]) -> dict[str, Any]:
    """The JSON-RPC error a read answers: code, message and data."""
    try:
        await read()
    except MCPError as exc:
        return {"code": exc.code, "message": exc.message, "data": exc.data}
    raise AssertionError("the read succeeded")


def without_uri(error: dict[str, Any]) -> dict[str, Any]:
    """An error as comparable across URIs: data echoes the URI asked for, nothing else differs."""
    return {**error, "data": {k: v for k, v in error["data"].items() if k != "uri"}}
