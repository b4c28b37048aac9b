"""The user's switches: memory on/off, pause, and what is stored."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ENVELOPE, ToolSpec
from tools.specs.prd import time_argument


async def set_enabled(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.set_enabled(a["user_id"], a["enabled"])


async def pause(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.pause(a["user_id"], time_argument(a, "until"))


async def status(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.controls.status(a["user_id"])


async def inspect(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.inspector.inspect(a["user_id"], a.get("cursor"), a.get("detail", "summary"))


_STATUS = " Returns {enabled, paused_until (null when not paused), counts of what is stored}."
CONTROL_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.set_enabled",
        "Turn memory on or off (memory.set_enabled)",
        "Only when the user asks to turn memory off ('stop remembering things about me') or back on. Off: every "
        "memory write for the user is refused (CONFLICT, details.reason='memory_disabled') and every read answers "
        "as for a user with nothing stored; nothing is deleted, and turning it on brings everything back. To "
        "erase data use memory_delete_user_data instead." + _STATUS + ENVELOPE,
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
        "When the user wants a break without forgetting ('don't remember anything from tonight'): until the "
        "given time nothing new is stored (writes answer CONFLICT, details.reason='memory_paused', details.until), "
        "while what is stored can still be read. until=null resumes now." + _STATUS + ENVELOPE,
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
        "Whether memory is on and whether it is paused for the user, and how much is stored (preference events, "
        "playlists, catalog tracks, typed memories, play buckets, aging records, profile version). Works whatever "
        "the switches say." + _STATUS + ENVELOPE,
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
        "When the user asks what you remember about them, or why you said or did something ('what do you know "
        "about me?', 'why did you leave that out?'): what is stored and how it was used, in one answer. enabled, "
        "paused_until and counts as memory_status gives them; last_context, the last block memory_get_context "
        "served for this user (when, budget, focus, the block, and diagnostics: what was kept, what was left out "
        "and why: budget, superseded, unclassified), or null when none was served since the server started or "
        "since data was forgotten, imported or deleted; profile_fields, every profile field (a JSON Pointer such "
        "as /rules/max_tracks_per_artist, its value) with the patches that set it (version, time, source, reason "
        "cut at 200 characters) and the preference events that are its evidence, at most 5 of each, newest first, "
        "with full counts; for the whole story of one field call memory_explain with its path. At most 200 "
        "fields (unlisted_fields counts the rest). While memory is off, switches and counts only: no stored "
        "content (hidden='memory_disabled')." + ENVELOPE,
        inspect,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
        gated=False,
    ),
]
