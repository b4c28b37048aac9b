"""Reading a user's searchable entries from the store: all of them (an index build), or a few by
key (MongoDB checks that a hit found by meaning in its held vectors still exists, as it now reads)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any

from service.ledger.keys import head_id
from service.search.fields import (
    MEMORY_FIELDS,
    PLAYLIST_FIELDS,
    TRACK_FIELDS,
    Entry,
    event_entry,
    memory_entry,
    playlist_entry,
    profile_entries,
    track_entry,
)
from service.search.index import Key, UserIndex
from service.storage.database import Database

SLICE_SECONDS = 0.005  # a build hands the event loop back at least this often


async def load_entries(db: Database, user_id: int, index: UserIndex) -> int | None:
    """Put every entry of the user into ``index``, yielding to the event loop between slices of
    the work (and between embedding batches); return the profile version indexed, if any."""
    clock = [time.perf_counter()]

    async def put_all(entries: Iterable[Entry]) -> None:
        for entry in entries:
            index.put(entry)
            if time.perf_counter() - clock[0] > SLICE_SECONDS:
                await asyncio.sleep(0)
                clock[0] = time.perf_counter()

    heads = await db.playlists.find({"user_id": user_id}, PLAYLIST_FIELDS)
    await put_all(playlist_entry(h) for h in heads)
    del heads
    await asyncio.sleep(0)
    events = await db.preference_events.find({"user_id": user_id})
    await put_all(event_entry(e) for e in events)
    del events
    tracks = await db.tracks.find({"user_id": user_id}, TRACK_FIELDS)
    await put_all(track_entry(t) for t in tracks)
    del tracks
    memories = await db.memories.find({"user_id": user_id}, MEMORY_FIELDS)
    await put_all(memory_entry(m) for m in memories)
    del memories
    profile = await db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"history": 0})
    if profile is not None:
        await put_all(profile_entries(profile))
    if index.meaning is not None:
        await index.meaning.flush_async()
    return None if profile is None else profile["version"]


# kind → (collection, stored _id of an entry id, projection, entry builder). The _id forms are those
# of service.tracks.catalog.track_key and service.memories.keys.memory_key (importing them here
# would import those packages, which import the search engine: a test checks they agree).
_SOURCES: dict[str, tuple[str, Any, dict[str, int] | None, Any]] = {
    "playlist": ("playlists", head_id, PLAYLIST_FIELDS, playlist_entry),
    "preference_event": ("preference_events", lambda _user, entry_id: entry_id, None, event_entry),
    "track": ("tracks", lambda user, entry_id: f"{user}:{entry_id}", TRACK_FIELDS, track_entry),
    "memory": ("memories", lambda user, entry_id: f"{user}:{entry_id}", MEMORY_FIELDS, memory_entry),
}


async def current_entries(
    db: Database, user_id: int, keys: Iterable[Key], profile: dict[str, Any] | None
) -> dict[Key, Entry]:
    """The entries of ``keys`` as the store holds them now; keys whose document is gone (deleted,
    forgotten, another user's) are absent. Profile keys come from ``profile``, already read."""
    wanted: dict[str, list[str]] = {}
    for kind, entry_id in keys:
        wanted.setdefault(kind, []).append(entry_id)
    found: dict[Key, Entry] = {}
    if "profile" in wanted and profile is not None:
        present = {entry.id: entry for entry in profile_entries(profile)}
        found.update({("profile", i): present[i] for i in wanted.pop("profile") if i in present})
    for kind, ids in wanted.items():
        if kind not in _SOURCES:
            continue
        collection, stored_id, projection, build = _SOURCES[kind]
        documents = await getattr(db, collection).find(
            {"_id": {"$in": [stored_id(user_id, i) for i in ids]}, "user_id": user_id}, projection
        )
        for document in documents:
            entry = build(document)
            found[(entry.kind, entry.id)] = entry
    return found
