"""A playlist's track count over time, for the memory page's timeline picture (and any agent).

The whole history is replayed with ``apply_event_to_counts`` (the track-count projection of the
ledger's pure transition, ``state.apply_event``) from the creation snapshot, bucket after bucket,
then cut into at most ``max_points`` bins of equal time width (``downsample``). The creation is
moment 0 (type ``CREATE``, or ``FORK`` for a fork, whose FORK event is its creation), so the
picture starts where the playlist did; ``events_total`` counts it. The points come a page at a
time (``next_cursor``), so the answer stays small whatever ``max_points``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.errors import InvalidArgument
from service.ledger.history import buckets_of
from service.ledger.records import Bucket
from service.ledger.state import apply_event_to_counts
from service.paging import PAGE_BYTES, decode_cursor, encode_cursor, fitting, offset_of
from service.timeutil import as_utc


@dataclass(frozen=True)
class Moment:
    seq: int
    time: datetime
    type: str
    track_count: int  # after the event


def _counter(track_ids: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for track in track_ids:
        counts[track] = counts.get(track, 0) + 1
    return counts


def replay_moments(buckets: list[Bucket]) -> list[Moment]:
    """Every moment of the history, oldest first, with the track count after it. Each later
    bucket's snapshot length is checked on the way: a snapshot is the truth, so were a count ever to
    differ, the replay restarts from the snapshot's tracks."""
    first = buckets[0]
    created: Mapping[str, Any] = first.get("created") or {}
    snapshot = first["snapshot"]
    counts = _counter(snapshot["track_ids"])
    total = len(snapshot["track_ids"])
    creation = "FORK" if created.get("forked_from") or snapshot.get("source") == "fork" else "CREATE"
    moments = [Moment(0, as_utc(created.get("created_at") or first["start_time"]), creation, total)]
    for bucket in buckets:
        base = bucket["base_seq"]
        for event in bucket["events"]:
            seq = event["seq"]
            if seq == 0:
                continue  # a fork's FORK event: the creation, moment 0
            total += apply_event_to_counts(counts, event["type"], event["payload"])
            if seq == base and total != len(bucket["snapshot"]["track_ids"]):  # pragma: no cover - never seen
                counts = _counter(bucket["snapshot"]["track_ids"])
                total = len(bucket["snapshot"]["track_ids"])
            moments.append(Moment(seq, as_utc(event["timestamp"]), event["type"], total))
    return moments


def downsample(moments: list[Moment], max_points: int) -> list[dict[str, Any]]:
    """At most ``max_points`` bins of consecutive moments: equal time widths over the history (one
    bin per moment when they are few enough), each with its seq and time range, the track count's
    min, max and value at its end, and how many moments of each type it holds. Empty bins are
    left out."""
    if not moments:
        return []
    if len(moments) <= max_points:
        groups = [[m] for m in moments]
    else:
        start = moments[0].time
        span = (moments[-1].time - start).total_seconds()
        groups = []
        current_bin = -1
        for moment in moments:
            offset = (moment.time - start).total_seconds()
            index = min(max_points - 1, int(offset / span * max_points)) if span > 0 else 0
            index = max(index, current_bin)  # times never go back in a history; stay contiguous anyway
            if index != current_bin:
                groups.append([])
                current_bin = index
            groups[-1].append(moment)
    points = []
    for group in groups:
        types: dict[str, int] = {}
        for moment in group:
            types[moment.type] = types.get(moment.type, 0) + 1
        counts = [moment.track_count for moment in group]
        points.append(
            {
                "from": group[0].time,
                "to": group[-1].time,
                "seq_from": group[0].seq,
                "seq_to": group[-1].seq,
                "track_count_min": min(counts),
                "track_count_max": max(counts),
                "track_count_end": counts[-1],
                "types": types,
            }
        )
    return points


async def playlist_timeline(db: Any, head: dict[str, Any], max_points: int, cursor: str | None) -> dict[str, Any]:
    """A page of the timeline of the playlist whose document (with ``bucket_index``) is ``head``:
    the points that fit ``PAGE_BYTES`` from the cursor's offset. The cursor pins the last seq of
    the first page, so events logged between pages neither move the bins nor add points."""
    moments = replay_moments(await buckets_of(db, head))
    state = decode_cursor(cursor, "timeline") if cursor is not None else {"o": 0, "s": moments[-1].seq, "p": max_points}
    last_seq = offset_of(state, "s")
    if state.get("p") != max_points:
        raise InvalidArgument("cursor belongs to another max_points", {"field": "cursor"})
    moments = [m for m in moments if m.seq <= last_seq]
    points = downsample(moments, max_points)
    start = offset_of(state, "o", end=len(points))
    end = start + fitting(points, PAGE_BYTES, start)
    return {
        "user_id": head["user_id"],
        "playlist_id": head["playlist_id"],
        "events_total": len(moments),
        "track_count": moments[-1].track_count,
        "points": points[start:end],
        "point_count": len(points),
        "next_cursor": encode_cursor("timeline", {**state, "o": end}) if end < len(points) else None,
    }
