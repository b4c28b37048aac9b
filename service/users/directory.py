"""Users as a whole: who has data (the playbook's bootstrap call) and hard deletion."""

from __future__ import annotations

from typing import Any

from service.audit.trail import replace_with_tombstone
from service.storage.database import Database
from service.users import stats as user_stats


async def list_users(db: Database, limit: int, visible: set[int] | None = None) -> list[dict[str, Any]]:
    """Users with any stored data, from the counters the write path keeps (one small document
    per user, whatever their data weighs); ``visible`` limits it to the ids a caller may see."""
    return await user_stats.listed(db, limit, visible)


async def delete_user(db: Database, user_id: int) -> int:
    """Hard delete every document of the user in every collection, history included."""
    deleted = 0
    # History first: a playlist document without history cannot be rebuilt by a concurrent read,
    # while history without its document would be rolled forward into view again.
    for collection in (
        db.history,
        db.playlists,
        db.idempotency,
        db.cursors,
        db.preference_events,
        db.profiles,
        db.tracks,
        db.track_choices,
        db.memories,
        db.plays,
        db.memory_aging,
        db.memory_controls,
    ):
        deleted += await collection.delete_many({"user_id": user_id})
    await user_stats.forget(db, user_id)
    # The trail named playlists and requests of this user; what remains says only that, when and
    # by whom the data was deleted.
    await replace_with_tombstone(db.audit_log, user_id)
    return deleted
