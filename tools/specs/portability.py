"""Carrying a playlist to another service: which of its tracks the catalog can name there."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def playlist_portability(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.portability.report(a["user_id"], a["playlist_id"], a["target"], a.get("cursor"))


PORTABILITY_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.playlist_portability",
        "Carry a playlist to another service (memory.playlist_portability)",
        "Call when the user wants a logged playlist on another service (Spotify, Apple Music) or as ISRCs: per "
        "track in order, its id there (target_id) or unmatched with the reason (other ids known, name only, "
        "nothing known), and counts. Store ids you learn with memory_upsert_tracks (external_ids).",
        playlist_portability,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    )
]
