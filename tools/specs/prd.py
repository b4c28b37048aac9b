"""One adapter per tool: validated arguments in, the PRD result object out."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Principal
from service.facade import MemoryService
from service.search.hits import SearchHit
from service.timeutil import parse_iso


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
