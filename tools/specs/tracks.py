"""The track catalog: upsert, resolve, confirm, and rule checks of a playlist."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ENVELOPE, ToolSpec


async def upsert_tracks(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.upsert_tracks(a["user_id"], a["tracks"])


async def resolve_track(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.resolve_track(a["user_id"], a["text"], a.get("limit", 5))


async def confirm_track(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.confirm_track(a["user_id"], a["text"], a["track_id"])


async def check_playlist(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.tracks.check_playlist(a["user_id"], a["track_ids"], a.get("rules"), a.get("cursor"))


TRACK_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.upsert_tracks",
        "Upsert tracks (memory.upsert_tracks)",
        "Whenever you learn what tracks are (search results, a playlist's tracks, what is playing), store them "
        "here: track_id, name, artists, and album, duration_ms, popularity, genres, energy (0..1) when known; at "
        "most 500 per call. This catalog is what lets memory name tracks, resolve half-remembered titles "
        "(memory_resolve_track) and check playlists (memory_check_playlist). Idempotent: a track stored exactly "
        "so is not rewritten; a field left out is stored as unknown. Returns counts inserted/updated/unchanged."
        + ENVELOPE,
        upsert_tracks,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.resolve_track",
        "Resolve a half-remembered track (memory.resolve_track)",
        "When the user names a song loosely ('viva la something', 'that nightwsh song', 'beyonce halo'), call "
        "this before searching the music service: it matches the user's catalog by title, artist and album, "
        "tolerating typos, partial titles, word order, accents and a leading 'the', and prefers tracks the user "
        "keeps in playlists. Returns best {track_id, name, artists, confidence 0..1, reason} (null if the "
        "catalog has nothing), up to limit alternatives, and resolved = confidence >= 0.5. If resolved is false "
        "or the confidence is under 0.8, ask the user to pick (best or an alternative), then record the answer "
        "with memory_confirm_track. A text the user confirmed before resolves to that track first." + ENVELOPE,
        resolve_track,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.confirm_track",
        "Confirm which track was meant (memory.confirm_track)",
        "After the user confirms which track they meant by a request, record it: the same text (case, accents "
        "and punctuation aside) then resolves to this track first, with confidence 0.99. Confirming again "
        "replaces the track and counts the confirmation. The track must be in the user's catalog "
        "(memory_upsert_tracks), else NOT_FOUND. Returns the track and the confirmation count." + ENVELOPE,
        confirm_track,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.check_playlist",
        "Check a playlist against the rules (memory.check_playlist)",
        "Before creating or changing a playlist, check the ordered track_ids against the user's rules: at most "
        "max_tracks_per_artist per artist, total duration within the target, avoided artists/tracks/genres, no "
        "duplicates, and breathers (energy <= 0.4) mid-way, not first or last, when the profile asks for an "
        "arc. Rules come from the profile (playlist_rules, energy_preferences, and avoid entries that name a "
        "catalog artist or genre; free-text avoid entries are left to you), or pass rules inline to check "
        "exactly those. Returns ok, violations [{rule, track_ids, message, suggestion}] (at most 50, "
        "violation_count says how many), unverified (rules that need data of tracks not in the catalog or "
        "lacking the field), unknown_tracks (ids not in the catalog: add them with memory_upsert_tracks) and "
        "the rules applied. ok is true only with no violation and nothing unverified." + ENVELOPE,
        check_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
