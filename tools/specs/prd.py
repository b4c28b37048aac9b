"""The PRD contract's tools: one adapter per tool (validated arguments in, the PRD result object
out) and their declarations."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from service.search.hits import SearchHit
from service.timeutil import parse_iso
from tools.specs.base import ASKS_USER, ENVELOPE, ToolSpec


def time_argument(arguments: dict[str, Any], name: str) -> Any:
    """An optional ISO-8601 argument as a datetime (None when absent)."""
    value = arguments.get(name)
    return None if value is None else parse_iso(value)


async def get_profile(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.profiles.get(a["user_id"])


async def update_profile(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.profiles.update(
        a["user_id"], a["patch"], a.get("reason"), a.get("source", "assistant"), a.get("create_if_missing", True)
    )


async def append_preference_event(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.profiles.append_event(
        a["user_id"], a["type"], a["payload"], a.get("source", "assistant"), time_argument(a, "timestamp")
    )


async def log_playlist_create(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.playlists.create(a, time_argument(a, "created_at"))


async def log_playlist_mutation(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.playlists.mutate(a, time_argument(a, "timestamp"))


async def get_playlists(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.playlists.page(a["user_id"], a.get("limit", 50), a.get("cursor"))


async def get_playlist(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    found = await service.playlists.get(a["user_id"], a["playlist_id"], a.get("include_events_limit", 50))
    head = found["head"]
    playlist = {
        "playlist_id": head["playlist_id"],
        "user_id": head["user_id"],
        "name": head["name"],
        "created_at": head["created_at"],
        "updated_at": head["updated_at"],
        "intent_tags": head["intent_tags"],
        "seed_context": head["seed_context"],
    }
    if head.get("description") is not None:
        playlist["description"] = head["description"]
    if head.get("forked_from"):
        playlist["forked_from"] = head["forked_from"]
    snapshot = head["latest_snapshot"]
    latest = {
        "snapshot_id": snapshot["snapshot_id"],
        "created_at": snapshot["created_at"],
        "track_ids": snapshot["track_ids"],
    }
    if a.get("include_tracks"):
        latest.update(await service.playlists.name_tracks(a["user_id"], snapshot["track_ids"]))
    return {
        "playlist": playlist,
        "latest_snapshot": latest,
        "recent_events": [
            {"event_id": e["event_id"], "timestamp": e["timestamp"], "type": e["type"], "payload": e["payload"]}
            for e in found["recent_events"]
        ],
    }


async def reconstruct_playlist(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    found = await service.playlists.reconstruct(a["user_id"], a["playlist_id"], time_argument(a, "at_time"))
    if a.get("include_tracks"):
        found.update(await service.playlists.name_tracks(a["user_id"], found["track_ids"]))
    return found


async def search(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    results: list[SearchHit] = await service.search.search(
        a["user_id"], a["query"], a.get("limit", 25), a.get("detail", "lean")
    )
    return {"results": results}


async def export_user_data(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    data = await service.transfer.export_part(a["user_id"], a.get("cursor"))
    return {"user_id": a["user_id"], "exported_at": data["as_of"], "data": data}


async def delete_user_data(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.users.delete(a["user_id"])


async def list_users(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    # Any caller may bootstrap; a user token sees only its own users.
    visible = None if caller.unrestricted or caller.role == "operator" else set(caller.user_ids)
    return {"users": await service.users.listed(a.get("limit", 50), visible)}


async def audit(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.audit.entries(
        a.get("user_id"),
        a.get("playlist_id"),
        time_argument(a, "since"),
        time_argument(a, "until"),
        a.get("limit", 100),
        a.get("cursor"),
    )


PRD_SPECS: list[ToolSpec] = [
    ToolSpec(
        "ops.list_users",
        "List users (ops.list_users)",
        "Session bootstrap, call first: the users whose memory exists, with profile version and counts of "
        "playlists and preference events. If exactly one user is listed use it; otherwise ask the person "
        "which user they are." + ENVELOPE,
        list_users,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.LIST_USERS,
    ),
    ToolSpec(
        "memory.get_profile",
        "Get taste profile (memory.get_profile)",
        "Read the user's durable taste profile (genres, energy preferences, playlist_rules such as "
        "max_tracks_per_artist, avoid list) and its version. Call at the start of every session and before "
        "building or expanding a playlist; apply its rules. A user without a profile gets profile {} and "
        "version 0." + ENVELOPE,
        get_profile,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.update_profile",
        "Update taste profile (memory.update_profile)",
        "Change the durable profile with a JSON Merge Patch (RFC 7396): objects merge, null deletes a key, "
        "arrays replace whole. Use it for the normalized rule after recording what the user said with "
        "memory_append_preference_event; give reason (e.g. 'User feedback: ...') and source='user' when the "
        "user asked. Returns the new profile and version; a patch that changes nothing keeps the version." + ENVELOPE,
        update_profile,
        read_only=False,
        destructive=True,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.append_preference_event",
        "Record preference or feedback (memory.append_preference_event)",
        "Record what the user actually said about their taste (like, dislike, rule, feedback, note), "
        "append-only. Put the user's own words in payload.raw_text, plus structured fields (artist, genre, "
        "track_id...). Then normalize the lasting rule into the profile with memory_update_profile." + ENVELOPE,
        append_preference_event,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.log_playlist_create",
        "Log a created playlist (memory.log_playlist_create)",
        "Immediately after creating a playlist on the music service and adding its tracks, log it here: the "
        "exact ordered track_ids you added, intent_tags (e.g. ['upbeat','breathers']) and seed_context (time "
        "window, inspiration artists/tracks, constraints applied). Memory, not the music service, is the "
        "record of what the playlist contains. Pass an idempotency_key to make retries safe; logging the same "
        "playlist twice without one is CONFLICT." + ENVELOPE,
        log_playlist_create,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.log_playlist_mutation",
        "Log a playlist change (memory.log_playlist_mutation)",
        "Log every change you make to a logged playlist, right after making it on the music service. "
        "ADD_TRACKS {track_ids, insert_at?} inserts at insert_at (default: append), or {track_ids, positions} "
        "puts track_ids[i] at index positions[i] of the resulting list; REMOVE_TRACKS {track_ids} removes "
        "every occurrence; REORDER {track_ids} is the full new order (must be a permutation of the current "
        "tracks, else CONFLICT); UPDATE_META {name?, description?, intent_tags?}. Timestamps must not go "
        "back before the last logged change. Pass client_event_id (a UUID) so a retry is applied once. "
        "result.new_snapshot_id is set when this change triggered a snapshot." + ENVELOPE,
        log_playlist_mutation,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.get_playlists",
        "List logged playlists (memory.get_playlists)",
        "Playlists logged for the user, most recently changed first, with track_count. Page with "
        "next_cursor (pass it back as cursor; null means no more). Use it when the user refers to 'the "
        "playlist you made last time'." + ENVELOPE,
        get_playlists,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.get_playlist",
        "Get a logged playlist (memory.get_playlist)",
        "Details of one logged playlist: metadata and seed_context, the latest stored snapshot (which may "
        "predate the most recent changes) and the most recent events, oldest first (older ones are left out "
        "when the answer would pass about 400 kB; memory_export_user_data has every event). For the exact "
        "current track list call memory_reconstruct_playlist. include_tracks=true adds latest_snapshot.tracks (name, "
        "artists, duration_ms per track ID from the catalog, memory_upsert_tracks). A fork shows forked_from."
        + ENVELOPE,
        get_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.reconstruct_playlist",
        "Reconstruct playlist contents (memory.reconstruct_playlist)",
        "The exact ordered track_ids of a logged playlist now, or at at_time. Use this instead of reading "
        "the playlist back from the music service (which may answer 403): the ledger is the truth. at_time "
        "before the playlist's creation is NOT_FOUND. include_tracks=true adds tracks: tracks[i] names track_ids[i] "
        "(name, artists, duration_ms; null when the catalog does not know the ID)." + ENVELOPE,
        reconstruct_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.search",
        "Search memory (memory.search)",
        "Keyword search over the user's playlists (name, tags, description, seed context), preference "
        "events and profile, best first. Use it to 'find that playlist from before' by vibe or name, then "
        "confirm with memory_get_playlist. Hits are lean (short snippet; a playlist's name, an event's type "
        "and time); detail='full' adds every stored field and the matched words. Hits found by meaning carry "
        "metadata.confidence (0-1; below 0.5 a guess). No hits: nothing stored matches, say so." + ENVELOPE,
        search,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.export_user_data",
        "Export user data (memory.export_user_data)",
        "Everything stored for the user as JSON (profile with history, preference events, every playlist "
        "with all snapshots and events). Large exports come in parts: while "
        "result.data.continuation.next_cursor is not null, call again with cursor set to it." + ENVELOPE,
        export_user_data,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.delete_user_data",
        "Delete user data (memory.delete_user_data)",
        "Permanently delete everything stored for the user (profile, events, playlists and their history). "
        "Only when the user explicitly asks; requires confirm: true. Cannot be undone." + ASKS_USER + ENVELOPE,
        delete_user_data,
        read_only=False,
        destructive=True,
        idempotent=True,
        access=Access.DELETE,
    ),
    ToolSpec(
        "ops.audit",
        "Audit trail (ops.audit)",
        "Operators only: who changed what and when. Entries (newest first) name the time, collection, "
        "operation, user_id, playlist_id, document key, tool, request_id and the principal (token id) of "
        "every change to profiles, preference events and playlist history, and one tombstone per deleted "
        "user. Filter by user_id, playlist_id and the time range [since, until); page with next_cursor." + ENVELOPE,
        audit,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.OPERATOR,
    ),
]
