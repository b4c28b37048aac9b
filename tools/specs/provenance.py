"""Pairwise choices and provenance: ``memory_record_choice`` and ``memory_explain``."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ENVELOPE, ToolSpec


async def record_choice(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.choices.record(a["user_id"], a["chose"], a["over"], a.get("dimensions"), a.get("context"))


async def explain(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.provenance.explain(a["user_id"], a["path"], a.get("cursor"))


PROVENANCE_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.record_choice",
        "Record a choice between two (memory.record_choice)",
        "When the user picks one of two tracks, artists or playlists ('the first one, not that', 'more like X "
        "than Y'): record that they chose `chose` over `over`. A choice is a stronger signal than a like: in "
        "memory_get_context a subject chosen over others is listed in Prefer with its wins, above plain likes; "
        "a subject passed over at least twice and never chosen is listed in Avoid. Each side is {kind: track | "
        "artist | playlist (the same on both sides), id (a track or playlist ID), name} with id or name or "
        "both; dimensions are what the choice was about ('energy', 'vocals'); context a short note of the "
        "situation. Stored as a preference event of type 'feedback', source 'user', payload {choice: {kind, "
        "chose, over, dimensions}, raw_text (a sentence saying the choice), context}: it is searchable, "
        "exported and forgettable like any event. Returns event_id, user_id, timestamp, type, source and the "
        "payload." + ENVELOPE,
        record_choice,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.explain",
        "Why memory holds something (memory.explain)",
        "When the user asks 'why do you think I like X?' or you need to know where a preference came from. path "
        "is a JSON Pointer into the profile ('/likes/artists/0', '/rules/max_tracks_per_artist'; NOT_FOUND "
        "when the profile has no such field) or, not starting with '/', a subject ('Nightwish'). Returns value "
        "(the field's current value; null for a subject), set_by (the profile updates that set it or wrote the "
        "subject: version, applied_at, source, reason, path written, value set), evidence (preference events "
        "about the value or subject: time, type, source, raw_text, superseded_by when a newer like/dislike "
        "replaced it, choice when a pairwise choice; and memories about it: summary, entities, importance), "
        "newest first, at most 50 of each (truncated says more exist), and history_complete (false when "
        "profile updates older than the kept history are no longer known)." + ENVELOPE,
        explain,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
