"""The door to the tools not listed by default: list more toolsets in this session."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Principal
from service.errors import Conflict
from service.facade import MemoryService
from tools.specs.base import ToolSpec
from tools.specs.listing import current_listing

ENABLE_TOOLSETS = "memory.enable_toolsets"


async def enable_toolsets(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    listing = current_listing.get()
    if listing is None:
        raise Conflict("only an MCP session has a tool listing to change", {"reason": "no_session"})
    return await listing.enable(a["toolsets"])


TOOLSET_SPECS: list[ToolSpec] = [
    ToolSpec(
        ENABLE_TOOLSETS,
        "List more tools (memory.enable_toolsets)",
        "Call when you need a tool that is not listed; it lists a toolset's tools for the rest of this session. "
        "ledger: undo, fork, resync, diff, timeline, rotation, portability. tracks: catalog, check rules. memories: plays, "
        "follow-ups, recommendations, choices, explain, feedback. control: pause, status, inspect, explain, forget, "
        "import, conflicts. ops: audit. all: everything. Returns what it added.",
        enable_toolsets,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=None,
        gated=False,
    )
]
