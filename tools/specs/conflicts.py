"""Stated versus played: the conflicts between what the person said and what they played."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def list_conflicts(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.conflicts.list(a["user_id"], a.get("limit", 20), a.get("cursor"))


async def resolve_conflict(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.conflicts.resolve(a["user_id"], a["conflict_id"], a["resolution"], a.get("note"))


CONFLICT_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.list_conflicts",
        "Stated versus played (memory.list_conflicts)",
        "Call when the user asks what doesn't add up in their taste, or before leaning on a like/dislike: conflicts "
        "between a like/dislike event in force and the plays. played_despite_dislike: >=5 plays in the last 30 days "
        "of a disliked artist or genre; liked_but_unplayed: a like >=180 days old, unplayed for 180 days, >=100 plays "
        "logged. Ask the person, then resolve.",
        list_conflicts,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.resolve_conflict",
        "Settle a conflict (memory.resolve_conflict)",
        "Call once the user settles a conflict from memory_list_conflicts: keep_statement restates it, "
        "update_preference records the opposite like/dislike (superseding it), dismiss a note. Records a preference "
        "event (source user); the conflict stays closed until new plays cross the threshold again. Returns the event. "
        "A retry answers the same.",
        resolve_conflict,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
]
