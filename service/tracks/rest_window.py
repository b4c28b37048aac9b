"""The plays of a rest window, counted once and then slid forward, for the embedded engine: a rule
check on every write would otherwise walk a heavy listener's month of plays (thousands) each time.

A ``Window`` holds the plays of the window's months sorted by moment, and the count of each play's
key (``("id", track_id)``, or ``("name", (title, artist))`` folded) between two positions. As the
clock moves on, the plays now due are added and those now too old removed: a call costs the plays
that crossed an edge, not the window. It is rebuilt when its months' buckets changed (a play
logged, forgotten or imported): the buckets are the store's own shared documents, kept referenced,
so the same objects with the same lengths are the same plays (a write replaces or grows a bucket).
"""

from __future__ import annotations

import bisect
from collections import Counter, OrderedDict
from datetime import datetime
from typing import Any

from service.memories.recent_plays import months_between
from service.storage.database import Database
from service.timeutil import as_utc
from service.tracks.facts import NameKey, play_name

PlayKey = tuple[str, Any]  # ("id", track_id) | ("name", NameKey)
KEPT = 256  # (user, days) windows kept, least recently used first out


def key_of(play: dict[str, Any]) -> PlayKey | None:
    if play.get("track_id"):
        return "id", play["track_id"]
    named: NameKey | None = play_name(play)
    return ("name", named) if named is not None else None


class Window:
    def __init__(self, buckets: list[dict[str, Any]], since: datetime, until: datetime) -> None:
        self.buckets = buckets  # referenced, so no other object takes their ids while kept
        self.stamp = stamp(buckets)
        rows = sorted(
            ((as_utc(p["played_at"]), k) for b in buckets for p in b["plays"] if (k := key_of(p)) is not None),
            key=lambda row: row[0],
        )
        self.moments = [moment for moment, _ in rows]
        self.keys = [key for _, key in rows]
        self.since, self.until = since, until
        self.low = bisect.bisect_left(self.moments, since)
        self.high = bisect.bisect_right(self.moments, until)
        self.counts: Counter[PlayKey] = Counter(self.keys[self.low : self.high])
        self.version = 0  # moves when the counts do: what is derived from them is kept until then
        self.derived: tuple[object, int, Counter[str]] | None = None

    def slide(self, since: datetime, until: datetime) -> bool:
        """Move to [since, until]; False when that is not forward (rebuild instead)."""
        if since < self.since or until < self.until:
            return False
        high = bisect.bisect_right(self.moments, until)
        low = bisect.bisect_left(self.moments, since)
        if (low, high) != (self.low, self.high):
            self.version += 1
        self.counts.update(self.keys[self.high : high])
        self.counts.subtract(self.keys[self.low : low])
        for key in set(self.keys[self.low : low]):
            if self.counts[key] <= 0:
                del self.counts[key]
        self.since, self.until, self.low, self.high = since, until, low, high
        return True


def stamp(buckets: list[dict[str, Any]]) -> tuple[tuple[int, int], ...]:
    return tuple((id(b), len(b["plays"])) for b in buckets)


class Windows:
    """Per (user, days), the window last counted."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[int, int], Window] = OrderedDict()

    async def window(self, db: Database, user_id: int, days: int, since: datetime, until: datetime) -> Window:
        """The plays with ``since <= played_at <= until`` counted by key (``Window.counts``); read-only."""
        query = {"user_id": user_id, "month": {"$in": months_between(since, until)}}
        buckets = []
        for head in await db.plays.find(query, {"_id": 1}, sort=[("_id", 1)]):
            bucket = await db.plays.find_one_shared({"_id": head["_id"], "user_id": user_id})
            if bucket is not None:
                buckets.append(bucket)
        window = self._kept.get((user_id, days))
        if window is None or window.stamp != stamp(buckets) or not window.slide(since, until):
            window = Window(buckets, since, until)
        self._kept[(user_id, days)] = window
        self._kept.move_to_end((user_id, days))
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return window
