"""What each successful write does to a user's held search index: one update per kind of write.

Every update is idempotent (it sets an entry to what the store now holds), so the engine may apply
it to a built index, queue it behind a build under way, or drop it when no index is held.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from service.ledger.keys import head_id
from service.search.fields import (
    PLAYLIST_FIELDS,
    event_entry,
    memory_entry,
    playlist_entry,
    profile_entries,
    track_entry,
)
from service.search.index import UserIndex
from service.storage.database import Database

Update = Callable[[UserIndex], Awaitable[None] | None]


def profile_update(user_id: int, view: dict[str, Any], versions: dict[int, int]) -> Update:
    """``versions``: the profile version each user's index holds, kept by the engine."""

    def update(index: UserIndex) -> None:
        if view.get("version", 0) < versions.get(user_id, 0):
            return  # an older view than the one indexed
        versions[user_id] = view.get("version", 0)
        for key in index.keys_of_kind("profile"):
            index.remove(key)
        for entry in profile_entries(view):
            index.put(entry)

    return update


def event_update(event: dict[str, Any]) -> Update:
    return lambda index: index.put(event_entry(event))


def playlist_created_update(arguments: dict[str, Any], created_at: datetime) -> Update:
    def update(index: UserIndex) -> None:
        if ("playlist", arguments["playlist_id"]) in index.entries:
            return  # a replayed create changes nothing (and must not undo a later rename)
        head: dict[str, Any] = {
            k: arguments[k]
            for k in ("playlist_id", "name", "description", "intent_tags", "seed_context")
            if k in arguments
        }
        index.put(playlist_entry({**head, "created_at": created_at, "updated_at": created_at}))

    return update


def playlist_changed_update(
    db: Database, user_id: int, playlist_id: str, mutation_type: str, moment: datetime
) -> Update:
    async def update(index: UserIndex) -> None:
        if mutation_type == "UPDATE_META":
            head = await db.playlists.find_one(
                {"_id": head_id(user_id, playlist_id), "user_id": user_id}, PLAYLIST_FIELDS
            )
            if head is not None:
                index.put(playlist_entry(head))
            return
        indexed = index.entries.get(("playlist", playlist_id))
        if indexed is not None:
            known = indexed.entry.metadata.get("updated_at")
            try:
                later = known is None or moment > known
            except TypeError:  # naive and aware datetimes: trust the newest write
                later = True
            if later:
                indexed.entry.metadata["updated_at"] = moment

    return update


def tracks_update(tracks: dict[str, dict[str, Any]]) -> Update:
    def update(index: UserIndex) -> None:
        for track in tracks.values():
            index.put(track_entry(track))

    return update


def memories_update(memories: list[dict[str, Any]]) -> Update:
    def update(index: UserIndex) -> None:
        for memory in memories:
            index.put(memory_entry(memory))

    return update


def memories_removed_update(memory_ids: list[str]) -> Update:
    def update(index: UserIndex) -> None:
        for memory_id in memory_ids:
            index.remove(("memory", memory_id))

    return update
