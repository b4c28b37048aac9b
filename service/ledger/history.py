"""Whole histories of one playlist, for the moves that need more than one bucket (undo, diff).

Buckets are read without copying (``read_bucket``): what these functions return is read-only.
"""

from __future__ import annotations

import asyncio
import bisect
from datetime import datetime
from typing import Any

from service.errors import PlaylistNotFound
from service.ledger.projection import read_bucket, replay_bucket, walk_forward
from service.ledger.records import Bucket, LedgerEvent
from service.ledger.state import PlaylistState
from service.storage.database import Database
from service.timeutil import as_utc


async def buckets_of(
    db: Database, head: dict[str, Any], since: datetime | None = None, until: datetime | None = None
) -> list[Bucket]:
    """Every bucket of the playlist, oldest first (following newer ones the document may trail);
    with ``since``/``until``, only those that can hold events in that window."""
    index = head["bucket_index"]
    starts = [as_utc(start) for _, start in index]
    first = max(0, bisect.bisect_right(starts, since) - 1) if since is not None else 0
    last = bisect.bisect_right(starts, until) if until is not None else len(index)
    buckets: list[Bucket] = []
    for position, (base_seq, _) in enumerate(index[first : max(last, first + 1)]):
        bucket = await read_bucket(db, head["user_id"], head["playlist_id"], base_seq)
        if bucket is None:  # pragma: no cover - buckets are never deleted while the playlist exists
            raise PlaylistNotFound("playlist history is missing", {"field": "playlist_id"})
        buckets.append(bucket)
        if position % 32 == 31:
            await asyncio.sleep(0)  # a long history is read in turns with other sessions
    if last < len(index):
        return buckets
    _, newer = await walk_forward(db, buckets[-1])
    return buckets + [b for b in newer if until is None or as_utc(b["start_time"]) <= until]


def events_of(buckets: list[Bucket]) -> list[LedgerEvent]:
    """Every event, in sequence order (each lives in exactly one bucket)."""
    return [event for bucket in buckets for event in bucket["events"]]


def state_after_seq(buckets: list[Bucket], seq: int) -> PlaylistState:
    """The state once the events up to ``seq`` applied (0: the creation)."""
    bucket = max((b for b in buckets if b["base_seq"] <= seq), key=lambda b: b["base_seq"])
    state, _ = replay_bucket(bucket, max_tracks=1 << 62, until_seq=seq)
    return state


def events_between(buckets: list[Bucket], after: datetime | None, until: datetime) -> list[LedgerEvent]:
    """Events with ``after < timestamp <= until`` (every event up to ``until`` when ``after`` is None)."""
    return [
        event
        for bucket in buckets
        for event in bucket["events"]
        if (after is None or as_utc(event["timestamp"]) > after) and as_utc(event["timestamp"]) <= until
    ]
