"""The track catalog: upsert, resolve, confirm, and rule checks of a playlist."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def upsert_tracks(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.upsert_tracks(a["user_id"], a["tracks"])


async def resolve_track(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.resolve_track(a["user_id"], a["text"], a.get("limit", 5))


async def confirm_track(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.confirm_track(a["user_id"], a["text"], a["track_id"])


async def check_playlist(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.check_playlist(
        a["user_id"], a["track_ids"], a.get("rules"), a.get("cursor"), a.get("situation")
    )


TRACK_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.upsert_tracks",
        "Upsert tracks (memory.upsert_tracks)",
        "Call whenever you learn what tracks are (search results, a playlist's tracks, what is playing): stores them "
        "in the user's catalog, which lets memory name tracks, resolve loose titles and check playlists. Safe to "
        "repeat. Returns counts inserted, updated and unchanged.",
        upsert_tracks,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.resolve_track",
        "Resolve a half-remembered track (memory.resolve_track)",
        "Call when the user names a song loosely ('viva la something', 'that nightwsh song'), before searching the "
        "music service: the best match in the user's catalog with a confidence, and alternatives. If resolved is "
        "false or confidence is under 0.8, ask the user to pick, then record it with memory_confirm_track.",
        resolve_track,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.confirm_track",
        "Confirm which track was meant (memory.confirm_track)",
        "Call after the user confirms which track they meant: the same text then resolves to that track first. The "
        "track must be in the catalog (memory_upsert_tracks). Returns the track and how often it was confirmed.",
        confirm_track,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.check_playlist",
        "Check a playlist against the rules (memory.check_playlist)",
        "Call before creating or changing a playlist: checks the ordered track_ids against the user's rules (tracks "
        "per artist, duration, avoid list, duplicates, breathers, rest for tracks played too often). Returns ok, violations with suggestions, "
        "unverified rules and unknown_tracks (store those with memory_upsert_tracks). ok is true only with nothing "
        "violated or unverified.",
        check_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
