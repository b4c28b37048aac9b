"""Users as a whole: who has data (the playbook's bootstrap call) and hard deletion."""

from __future__ import annotations

from typing import Any

from service.audit.trail import replace_with_tombstone
from service.storage import Database


async def _counts(db: Database, collection: Any) -> dict[int, int]:
    rows = await collection.aggregate([{"$group": {"_id": "$user_id", "n": {"$sum": 1}}}])
    return {row["_id"]: row["n"] for row in rows}


async def list_users(db: Database, limit: int, visible: set[int] | None = None) -> list[dict[str, Any]]:
    """Users with any stored data; ``visible`` limits the answer to the ids a caller may see."""
    profiles = {p["_id"]: p for p in await db.profiles.find({}, {"version": 1, "updated_at": 1})}
    playlists = await _counts(db, db.playlists)
    events = await _counts(db, db.preference_events)
    user_ids = sorted(set(profiles) | set(playlists) | set(events))
    if visible is not None:
        user_ids = [u for u in user_ids if u in visible]
    return [
        {
            "user_id": user_id,
            "profile_version": profiles[user_id]["version"] if user_id in profiles else 0,
            "playlist_count": playlists.get(user_id, 0),
            "preference_event_count": events.get(user_id, 0),
            "updated_at": profiles[user_id]["updated_at"] if user_id in profiles else None,
        }
        for user_id in user_ids[:limit]
    ]


async def delete_user(db: Database, user_id: int) -> int:
    """Hard delete every document of the user in every collection, history included."""
    deleted = 0
    # History first: a playlist document without history cannot be rebuilt by a concurrent read,
    # while history without its document would be rolled forward into view again.
    for collection in (db.history, db.playlists, db.idempotency, db.cursors, db.preference_events, db.profiles):
        deleted += await collection.delete_many({"user_id": user_id})
    # The trail named playlists and requests of this user; what remains says only that, when and
    # by whom the data was deleted.
    await replace_with_tombstone(db.audit_log, user_id)
    return deleted
