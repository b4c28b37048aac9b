"""Per-user counters kept by the write path, so the bootstrap call reads one small document per
user instead of aggregating every stored document of every user.

One ``user_stats`` document per user: playlist and preference-event counts, the profile's
version and time. Writers bump them right after their commit point; ``recount`` derives them
from the records themselves (after an import, and at start-up: a crash between a commit point
and its bump, or a commit that caught another call half-way, leaves a counter behind).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from service.storage.database import Database

# Records that make a user listed without being shown by ops.list_users: (collection, counter).
CATALOG_COUNTS = (
    ("tracks", "track_count"),
    ("memories", "memory_count"),
    ("plays", "play_bucket_count"),
    ("memory_aging", "aging_event_count"),
)
FIELDS = (
    "playlist_count",
    "preference_event_count",
    "profile_version",
    "updated_at",
    *(field for _, field in CATALOG_COUNTS),
)


def _key(user_id: int) -> dict[str, int]:
    return {"_id": user_id, "user_id": user_id}


async def count_playlist_created(db: Database, user_id: int) -> None:
    await db.user_stats.update_one(_key(user_id), {"$inc": {"playlist_count": 1}}, upsert=True)


async def count_preference_event(db: Database, user_id: int) -> None:
    await db.user_stats.update_one(_key(user_id), {"$inc": {"preference_event_count": 1}}, upsert=True)


async def count_tracks_added(db: Database, user_id: int, added: int) -> None:
    """Catalog tracks count as memory too: a user who only taught the catalog is listed."""
    if added:
        await db.user_stats.update_one(_key(user_id), {"$inc": {"track_count": added}}, upsert=True)


async def count_records_added(db: Database, user_id: int, field: str, added: int) -> None:
    """Memories, play buckets and aging records count as memory too (``CATALOG_COUNTS``); a
    negative ``added`` counts records removed (aging)."""
    if added:
        await db.user_stats.update_one(_key(user_id), {"$inc": {field: added}}, upsert=True)


async def note_profile(db: Database, user_id: int, version: int, updated_at: datetime | None) -> None:
    # $max: two racing updates may bump in either order; the newest version stays.
    update: dict[str, Any] = {"$max": {"profile_version": version}}
    if updated_at is not None:
        update["$max"]["updated_at"] = updated_at
    await db.user_stats.update_one(_key(user_id), update, upsert=True)


async def forget(db: Database, user_id: int) -> None:
    await db.user_stats.delete_many({"user_id": user_id})


async def derive(db: Database, user_id: int) -> dict[str, Any] | None:
    """The counters of one user as its records say, without storing them; None if it has none."""
    profile = await db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"version": 1, "updated_at": 1})
    counts = {
        "playlist_count": await db.playlists.count_documents({"user_id": user_id}),
        "preference_event_count": await db.preference_events.count_documents({"user_id": user_id}),
        "profile_version": profile["version"] if profile else 0,
        "updated_at": profile["updated_at"] if profile else None,
        **{field: await getattr(db, name).count_documents({"user_id": user_id}) for name, field in CATALOG_COUNTS},
    }
    if profile is None and not any(counts[f] for f in FIELDS if f.endswith("_count")):
        return None
    return counts


async def stored(db: Database, user_id: int) -> dict[str, Any] | None:
    return await db.user_stats.find_one(_key(user_id))


async def recount(db: Database, user_id: int) -> dict[str, Any] | None:
    """Store the counters of one user as its records say; None (and no document) if it has none."""
    counts = await derive(db, user_id)
    if counts is None:
        await forget(db, user_id)
        return None
    await db.user_stats.replace_one({**_key(user_id), **counts})
    return counts


async def recount_all(db: Database) -> int:
    """Start-up: every user's counters from the records; returns how many users have data.

    One grouped count per collection, not a query per user."""
    groups: dict[int, dict[str, Any]] = {}
    for collection, field in (
        (db.playlists, "playlist_count"),
        (db.preference_events, "preference_event_count"),
        *((getattr(db, name), field) for name, field in CATALOG_COUNTS),
    ):
        for user_id, count in (await collection.count_by_user()).items():
            groups.setdefault(user_id, {})[field] = count
    for profile in await db.profiles.find({}, {"version": 1, "updated_at": 1}):
        groups.setdefault(profile["_id"], {}).update(
            profile_version=profile["version"], updated_at=profile["updated_at"]
        )
    stored = {s["_id"]: s for s in await db.user_stats.find({})}
    for user_id, found in groups.items():
        counts = {**dict.fromkeys(FIELDS, 0), "updated_at": None, **found}
        current = stored.pop(user_id, None)
        if current is None or any(current.get(f) != counts[f] for f in FIELDS):
            await db.user_stats.replace_one({**_key(user_id), **counts})
    for user_id in stored:  # counters of a user whose records are all gone
        await forget(db, user_id)
    return len(groups)


async def listed(db: Database, limit: int, visible: set[int] | None) -> list[dict[str, Any]]:
    """Users with stored data, by id; ``visible`` limits the answer to the ids a caller may see."""
    query: dict[str, Any] = {} if visible is None else {"_id": {"$in": sorted(visible)}}
    rows = await db.user_stats.find(query, sort=[("_id", 1)], limit=limit)
    return [
        {
            "user_id": row["_id"],
            "profile_version": row.get("profile_version", 0),
            "playlist_count": row.get("playlist_count", 0),
            "preference_event_count": row.get("preference_event_count", 0),
            "updated_at": row.get("updated_at"),
        }
        for row in rows
    ]
