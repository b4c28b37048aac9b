"""The user's switches: memory on/off, pause, and what is stored."""

from __future__ import annotations

from typing import Any

from service.auth import Access, Principal
from service.memory import MemoryService
from tools.handlers import time_argument
from tools.spec import ENVELOPE, ToolSpec


async def set_enabled(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.set_enabled(a["user_id"], a["enabled"])


async def pause(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.pause(a["user_id"], time_argument(a, "until"))


async def status(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.status(a["user_id"])


_STATUS = " Returns {enabled, paused_until (null when not paused), counts of what is stored}."
CONTROL_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.set_enabled", "Turn memory on or off (memory.set_enabled)",
        "Only when the user asks to turn memory off ('stop remembering things about me') or back on. Off: every "
        "memory write for the user is refused (CONFLICT, details.reason='memory_disabled') and every read answers "
        "as for a user with nothing stored; nothing is deleted, and turning it on brings everything back. To "
        "erase data use memory_delete_user_data instead." + _STATUS + ENVELOPE,
        set_enabled, read_only=False, destructive=False, idempotent=True, access=Access.WRITE, gated=False,
    ),
    ToolSpec(
        "memory.pause", "Pause memory (memory.pause)",
        "When the user wants a break without forgetting ('don't remember anything from tonight'): until the "
        "given time nothing new is stored (writes answer CONFLICT, details.reason='memory_paused', details.until), "
        "while what is stored can still be read. until=null resumes now." + _STATUS + ENVELOPE,
        pause, read_only=False, destructive=False, idempotent=True, access=Access.WRITE, gated=False,
    ),
    ToolSpec(
        "memory.status", "Memory switches and counts (memory.status)",
        "Whether memory is on and whether it is paused for the user, and how much is stored (preference events, "
        "playlists, catalog tracks, typed memories, play buckets, aging records, profile version). Works whatever "
        "the switches say." + _STATUS + ENVELOPE,
        status, read_only=True, destructive=False, idempotent=True, access=Access.READ, gated=False,
    ),
]
