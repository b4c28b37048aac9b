"""Forget one item: a preference event, memory, play, playlist or profile field."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ASKS_USER, ENVELOPE, ToolSpec


async def forget(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.forgetter.forget(a["user_id"], a["kind"], a["id"])


FORGET_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.forget",
        "Forget one item (memory.forget)",
        "Only when the user explicitly asks to forget one thing ('forget that I said I hate jazz', 'forget that "
        "playlist'); requires confirm: true. kind and id: preference_event + its event_id; memory + its memory_id; "
        "playlist + its playlist_id (history, snapshots and all); play + '<artist>|<track>|<played_at>' as logged "
        "with memory_log_plays (track empty if none; names compared ignoring case, accents and 'the'); "
        "profile_field + a JSON Pointer such as /rules/max_tracks_per_artist (the field leaves the profile as a "
        "new version, and the value is taken out of the profile's history too). The item is then gone from every "
        "read, search, export and context block, and from disk; only an audit entry that it was forgotten, when "
        "and by whom remains. Cannot be undone. An item not stored for this user is NOT_FOUND (so is a second "
        "forget of the same item). To erase everything use memory_delete_user_data. Returns {user_id, kind, id, "
        "forgotten_at, forgotten: true}." + ASKS_USER + ENVELOPE,
        forget,
        read_only=False,
        destructive=True,
        idempotent=False,
        access=Access.DELETE,
        gated=False,
    )
]
