"""Pairwise choices and provenance: ``memory_record_choice`` and ``memory_explain``."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def record_choice(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.choices.record(a["user_id"], a["chose"], a["over"], a.get("dimensions"), a.get("context"))


async def explain(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.provenance.explain(a["user_id"], a["path"], a.get("cursor"))


PROVENANCE_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.record_choice",
        "Record a choice between two (memory.record_choice)",
        "Call when the user picks one of two tracks, artists or playlists ('the first one, not that'): records that "
        "they chose `chose` over `over`, a stronger signal than a like (memory_get_context lists it in Prefer, and "
        "what is passed over twice in Avoid). Stored and returned as a feedback preference event.",
        record_choice,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.explain",
        "Why memory holds something (memory.explain)",
        "Call when the user asks 'why do you think I like X?' or you need to know where a preference came from: for "
        "a profile path or a subject, its value, the profile updates that set it and the events and memories behind "
        "it, newest first.",
        explain,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
