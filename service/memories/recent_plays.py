"""The plays of a time window (what ``rest`` counts): only this user's buckets of the months the
window touches are read, so the cost follows the window, not the rest of the history nor other
users' plays. The window is closed at both ends: a play exactly at ``since`` or at ``until`` is in it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from service.memories.plays import month_of
from service.storage.database import Database
from service.timeutil import as_utc


def months_between(since: datetime, until: datetime) -> list[str]:
    """Every "YYYY-MM" from the month of ``since`` to the month of ``until``, in order."""
    year, month = since.year, since.month
    months: list[str] = []
    while (year, month) <= (until.year, until.month):
        months.append(month_of(datetime(year, month, 1)))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months


async def plays_between(db: Database, user_id: int, since: datetime, until: datetime) -> AsyncIterator[dict[str, Any]]:
    """The user's plays with ``since <= played_at <= until``, read-only: on the embedded engine the
    stored plays themselves (no copy), so callers must not change them."""
    if since > until:
        return
    query = {"user_id": user_id, "month": {"$in": months_between(since, until)}}
    for head in await db.plays.find(query, {"_id": 1}, sort=[("_id", 1)]):
        bucket = await db.plays.find_one_shared({"_id": head["_id"], "user_id": user_id})
        if bucket is None:  # deleted meanwhile
            continue
        for play in bucket["plays"]:
            if since <= as_utc(play["played_at"]) <= until:
                yield play
