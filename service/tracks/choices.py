"""Confirmed resolutions (``memory_confirm_track``): this request means this track, for this user.

Keyed by the request's folded words, so "Viva la something", "viva la SOMETHING!" and
"viva la something" are one choice; confirming again (same or another track) replaces the track
and counts the confirmation.
"""

from __future__ import annotations

from typing import Any

from service.audit.origin import written_by
from service.storage.database import Database
from service.text.words import choice_key, folded_text
from service.timeutil import utc_now


async def confirmed(db: Database, user_id: int, text: str) -> dict[str, Any] | None:
    folded = folded_text(text)
    if not folded:
        return None
    return await db.track_choices.find_one({"_id": choice_key(user_id, folded), "user_id": user_id})


async def confirm(db: Database, user_id: int, text: str, track_id: str) -> dict[str, Any]:
    folded = folded_text(text)
    key = choice_key(user_id, folded)
    # One atomic update: two confirmations racing both count.
    stored = await db.track_choices.find_one_and_update(
        {"_id": key, "user_id": user_id},
        {
            "$set": {
                "text": text,
                "folded": folded,
                "track_id": track_id,
                "confirmed_at": utc_now(),
                "written_by": written_by(),
            },
            "$inc": {"confirmations": 1},
        },
        upsert=True,
    )
    assert stored is not None  # an upsert always leaves the document
    return stored


async def all_choices(db: Database, user_id: int) -> list[dict[str, Any]]:
    return await db.track_choices.find({"user_id": user_id}, sort=[("_id", 1)])
