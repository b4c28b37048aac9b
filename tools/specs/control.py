"""The user's switches: memory on/off, pause, and what is stored."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec
from tools.specs.prd import time_argument


async def set_enabled(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.set_enabled(a["user_id"], a["enabled"])


async def pause(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.pause(a["user_id"], time_argument(a, "until"))


async def status(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.status(a["user_id"])


async def inspect(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.inspector.inspect(a["user_id"], a.get("cursor"), a.get("detail", "summary"))


CONTROL_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.set_enabled",
        "Turn memory on or off (memory.set_enabled)",
        "Call only when the user asks to stop remembering things about them, or to start again. Off: writes are "
        "refused and reads answer as if nothing were stored; nothing is deleted. To erase data use "
        "memory_delete_user_data. Returns the switches and counts.",
        set_enabled,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
        gated=False,
    ),
    ToolSpec(
        "memory.pause",
        "Pause memory (memory.pause)",
        "Call when the user wants a break without forgetting ('don't remember anything from tonight'): nothing new "
        "is stored until the given time, while stored memory can still be read. Returns the switches and counts.",
        pause,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
        gated=False,
    ),
    ToolSpec(
        "memory.status",
        "Memory switches and counts (memory.status)",
        "Call when the user asks whether memory is on or how much is stored: returns enabled, paused_until and "
        "counts of what is stored. Works whatever the switches say.",
        status,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
        gated=False,
    ),
    ToolSpec(
        "memory.inspect",
        "Inspect the memory (memory.inspect)",
        "Call when the user asks what you remember about them, or why you said or did something: switches and "
        "counts, the last context block served and what it left out and why, and each profile field with the patches "
        "and events behind it. For one field's whole story call memory_explain.",
        inspect,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
        gated=False,
    ),
]
