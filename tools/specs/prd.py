"""The PRD contract's tools: one adapter per tool (validated arguments in, the PRD result object
out) and their declarations."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from service.search.hits import SearchHit
from service.timeutil import parse_iso
from tools.specs.base import ToolSpec


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
        "Call first in every session: lists the users whose memory exists, with profile version and counts of "
        "playlists and preference events. If exactly one user is listed use it; otherwise ask the person which user "
        "they are.",
        list_users,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.LIST_USERS,
    ),
    ToolSpec(
        "memory.get_profile",
        "Get taste profile (memory.get_profile)",
        "Call before building or expanding a playlist, or when you need the raw profile: returns the user's durable "
        "taste profile (genres, energy, playlist_rules such as max_tracks_per_artist, avoid) and its version; apply "
        "its rules. No profile yet: profile {} and version 0.",
        get_profile,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.update_profile",
        "Update taste profile (memory.update_profile)",
        "Call after memory_append_preference_event to store the normalized, lasting rule as a JSON Merge Patch "
        "(objects merge, null deletes a key, arrays replace whole), with a reason and source 'user' when the user "
        "asked. Returns the new profile and version.",
        update_profile,
        read_only=False,
        destructive=True,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.append_preference_event",
        "Record preference or feedback (memory.append_preference_event)",
        "Call whenever the user states a taste or gives feedback ('I like', 'avoid', 'more/less', 'remember'): "
        "records what they said, append-only, their own words in payload.raw_text. Then store the lasting rule with "
        "memory_update_profile. Returns the event's id.",
        append_preference_event,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.log_playlist_create",
        "Log a created playlist (memory.log_playlist_create)",
        "Call right after creating a playlist on the music service and adding its tracks: logs the exact ordered "
        "track_ids, intent_tags and seed_context (time window, inspiration, constraints). Memory, not the music "
        "service, is the record of its contents. An idempotency_key makes retries safe. Returns the first snapshot's "
        "id.",
        log_playlist_create,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.log_playlist_mutation",
        "Log a playlist change (memory.log_playlist_mutation)",
        "Call after every edit you make to a logged playlist on the music service. ADD_TRACKS inserts at insert_at "
        "(default: append) or at positions (track_ids[i] lands at positions[i]); REMOVE_TRACKS removes every "
        "occurrence; REORDER takes the full new order; UPDATE_META changes only the given fields. Timestamps must "
        "not go back. A client_event_id makes retries safe. Returns the event.",
        log_playlist_mutation,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.get_playlists",
        "List logged playlists (memory.get_playlists)",
        "Call when the user refers to an earlier playlist ('the one you made last time'): the user's logged "
        "playlists, most recently changed first, with track_count. Page by passing next_cursor back as cursor until "
        "it is null.",
        get_playlists,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.get_playlist",
        "Get a logged playlist (memory.get_playlist)",
        "Call for one logged playlist's details: metadata, seed_context, the latest stored snapshot (it may predate "
        "recent changes) and recent events, oldest first. For the exact current tracks call "
        "memory_reconstruct_playlist.",
        get_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.reconstruct_playlist",
        "Reconstruct playlist contents (memory.reconstruct_playlist)",
        "Call for 'what's in it now?', or instead of reading a playlist back from the music service (which may "
        "fail): the exact ordered track_ids of a logged playlist now, or at at_time, from the ledger, which is the "
        "truth.",
        reconstruct_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.search",
        "Search memory (memory.search)",
        "Call to find something from before ('that rainy-day playlist') by name or vibe: ranked hits over the user's "
        "playlists, preference events and profile; confirm a playlist with memory_get_playlist. A hit whose "
        "metadata.confidence is below 0.5 is a guess; no hits means nothing stored matches, so say so.",
        search,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.export_user_data",
        "Export user data (memory.export_user_data)",
        "Call when the user asks for a copy of their data: everything stored for them, as JSON that "
        "memory_import_user_data takes back. While result.data.continuation.next_cursor is not null, call again with "
        "it as cursor for the next part.",
        export_user_data,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.delete_user_data",
        "Delete user data (memory.delete_user_data)",
        "Call only when the user explicitly asks to erase everything stored about them: deletes it all permanently; "
        "cannot be undone. Needs confirm: true, and the user is asked to confirm too when your client supports "
        "elicitation.",
        delete_user_data,
        read_only=False,
        destructive=True,
        idempotent=True,
        access=Access.DELETE,
    ),
    ToolSpec(
        "ops.audit",
        "Audit trail (ops.audit)",
        "Operators only, when asked who changed what and when: audit entries, newest first, with time, collection, "
        "operation, user, playlist, tool, request and token of every change, and a tombstone per deleted user. "
        "Filter by user_id, playlist_id and [since, until); page with next_cursor.",
        audit,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.OPERATOR,
    ),
]
