"""The playlist document as a projection of the history buckets.

``derive_head`` computes it from the buckets alone and ``rebuild_head`` stores that (after a crash,
at start-up; ``rederive`` compares it with the stored one first);
``advance_head`` is the cheap incremental form the writer applies after each commit.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast, overload

from service.ledger.buckets import creation_of
from service.ledger.keys import bucket_id, head_id
from service.ledger.records import Bucket, BucketHeader, LedgerEvent, RecentEvent, Snapshot, SnapshotSummary
from service.ledger.state import PlaylistState, apply_event, track_id_volume
from service.storage.database import Database
from service.timeutil import as_utc

# mongomock copies every field a read returns: reads that need no track lists leave them out.
BUCKET_HEADER = {"snapshot.track_ids": 0, "events": 0}


# An event carrying more track IDs than this is kept on the playlist document without its
# payload (read from history when asked for), so 50 recent events cannot push it past 16 MB.
RECENT_EVENT_MAX_IDS = 200


def recent_entry(event: LedgerEvent) -> RecentEvent:
    if track_id_volume(event["type"], event["payload"]) <= RECENT_EVENT_MAX_IDS:
        return event
    return {**event, "payload": None, "payload_in_history": True}


def snapshot_summary(snapshot: Snapshot) -> SnapshotSummary:
    return {
        "snapshot_id": snapshot["snapshot_id"],
        "seq": snapshot["seq"],
        "created_at": snapshot["created_at"],
        "source": snapshot["source"],
        "track_count": len(snapshot["track_ids"]),
    }


def replay_bucket(
    bucket: Bucket, max_tracks: int, until: Any = None, until_seq: int | None = None
) -> tuple[PlaylistState, int]:
    """State after the bucket's events (those at or before ``until`` and ``until_seq`` if given)
    and how many applied."""
    snapshot = bucket["snapshot"]
    state = PlaylistState(list(snapshot["track_ids"]), dict(snapshot["meta"]))
    applied = 0
    for event in bucket["events"]:
        if event["seq"] <= bucket["base_seq"]:
            continue
        if (until is not None and as_utc(event["timestamp"]) > until) or (
            until_seq is not None and event["seq"] > until_seq
        ):
            break
        # Stored events were valid when committed; replay trusts them and skips their checks.
        state = apply_event(state, event["type"], event["payload"], max_tracks=1 << 62, replaying=True)
        applied += 1
    return state, applied


# A read with a projection holds at most a header's fields (BUCKET_HEADER: exactly those).
@overload
async def load_bucket(db: Database, user_id: int, playlist_id: str, base_seq: int) -> Bucket | None: ...
@overload
async def load_bucket(
    db: Database, user_id: int, playlist_id: str, base_seq: int, projection: dict[str, int] | None
) -> BucketHeader | None: ...
async def load_bucket(
    db: Database, user_id: int, playlist_id: str, base_seq: int, projection: dict[str, int] | None = None
) -> Bucket | BucketHeader | None:
    found = await db.history.find_one(
        {"_id": bucket_id(user_id, playlist_id, base_seq), "user_id": user_id}, projection
    )
    return cast(Bucket | None, found)  # the stored document, as the writer built it


async def read_bucket(db: Database, user_id: int, playlist_id: str, base_seq: int) -> Bucket | None:
    """A whole bucket for replay only, without copying it (read-only; dates may be naive UTC)."""
    found = await db.history.find_one_shared({"_id": bucket_id(user_id, playlist_id, base_seq), "user_id": user_id})
    return cast(Bucket | None, found)  # the stored document, as the writer built it


@overload
async def walk_forward(db: Database, bucket: Bucket) -> tuple[Bucket, list[Bucket]]: ...
@overload
async def walk_forward(
    db: Database, bucket: BucketHeader, projection: dict[str, int] | None
) -> tuple[BucketHeader, list[BucketHeader]]: ...
async def walk_forward(
    db: Database, bucket: BucketHeader, projection: dict[str, int] | None = None
) -> tuple[BucketHeader, Sequence[BucketHeader]]:
    """Follow contiguous buckets past ``bucket``; return the newest and every newer one seen."""
    newer: list[BucketHeader] = []
    while True:
        following = await load_bucket(db, bucket["user_id"], bucket["playlist_id"], bucket["last_seq"] + 1, projection)
        if following is None:
            return bucket, newer
        newer.append(following)
        bucket = following


def head_fields(bucket: BucketHeader, state: PlaylistState) -> dict[str, Any]:
    """Fields of the playlist document that follow from its newest bucket."""
    last_event_time = bucket["end_time"]
    return {
        "name": state.meta.get("name"),
        "description": state.meta.get("description"),
        "intent_tags": state.meta.get("intent_tags", []),
        "seq": bucket["last_seq"],
        "track_ids": state.track_ids,
        "track_count": len(state.track_ids),
        "updated_at": last_event_time,
        "open_base_seq": bucket["base_seq"],
        "latest_snapshot": bucket["snapshot"],
    }


async def derive_head(
    db: Database, user_id: int, playlist_id: str, caps: dict[str, int], trust_index: bool = True
) -> dict[str, Any] | None:
    """The playlist document as its history buckets say, without storing it; None if never created.

    ``trust_index``: start the walk at the newest bucket the stored document's ``bucket_index``
    names (the writer's repairs: cheap for a long history); ``rederive`` walks from the first
    bucket instead, so a damaged stored document cannot shape what it is compared with."""
    first = await load_bucket(db, user_id, playlist_id, 0)
    if first is None:
        return None
    start = first
    index: list[list[Any]] = [[0, first["start_time"]]]
    if trust_index:
        head = await db.playlists.find_one(
            {"_id": head_id(user_id, playlist_id), "user_id": user_id}, {"bucket_index": 1}
        )
        if head is not None and head.get("bucket_index"):
            index = [list(entry) for entry in head["bucket_index"]]
            start = await load_bucket(db, user_id, playlist_id, index[-1][0]) or first
            if start is first:
                index = [[0, first["start_time"]]]
    newest, newer = await walk_forward(db, start)
    index.extend([b["base_seq"], b["start_time"]] for b in newer)

    # Recent events and snapshot summaries come from the newest buckets, walking back.
    recent_events: list[LedgerEvent] = []
    recent_snapshots: list[SnapshotSummary] = []
    bucket: Bucket | None = newest
    while bucket is not None and (len(recent_events) < caps["events"] or len(recent_snapshots) < caps["snapshots"]):
        recent_events = bucket["events"] + recent_events
        recent_snapshots.insert(0, snapshot_summary(bucket["snapshot"]))
        prev = bucket.get("prev_base_seq")
        bucket = None if prev is None else await load_bucket(db, user_id, playlist_id, prev)
    # Ordered by sequence and trimmed to the cap.
    unique = {e["seq"]: e for e in recent_events}
    recent = [recent_entry(unique[s]) for s in sorted(unique)][-caps["events"] :]

    state, _ = replay_bucket(newest, max_tracks=1 << 62)
    created = creation_of(first)
    return {
        "_id": head_id(user_id, playlist_id),
        "user_id": user_id,
        "playlist_id": playlist_id,
        "seed_context": created["seed_context"],
        "created_at": created["created_at"],
        "created_ns": created["recorded_ns"],
        "touched_ns": time.time_ns(),
        "recent_snapshots": recent_snapshots[-caps["snapshots"] :],
        "recent_events": recent,
        "bucket_index": index,
        "forked_from": created.get("forked_from"),
        **head_fields(newest, state),
    }


async def store_head(db: Database, document: dict[str, Any]) -> None:
    # Concurrent rebuilds and writers race here: never move the document back to an older state.
    await db.playlists.replace_one(document, condition={"seq": {"$lte": document["seq"]}})


async def rebuild_head(db: Database, user_id: int, playlist_id: str, caps: dict[str, int]) -> dict[str, Any] | None:
    """Derive the playlist document from the history buckets and store it; None if never created."""
    document = await derive_head(db, user_id, playlist_id, caps)
    if document is not None:
        await store_head(db, document)
    return document


def advance_head(
    event: LedgerEvent, state: PlaylistState, bucket_after: BucketHeader, new_bucket: bool, caps: dict[str, int]
) -> dict[str, Any]:
    """The update that moves the playlist document from ``seq - 1`` to the event's ``seq``."""
    update: dict[str, Any] = {
        "$set": {**head_fields(bucket_after, state), "touched_ns": time.time_ns()},
        "$push": {"recent_events": {"$each": [recent_entry(event)], "$slice": -caps["events"]}},
    }
    if not new_bucket:
        update["$set"].pop("latest_snapshot")
    else:
        opened = cast(Bucket, bucket_after)  # a bucket this event opened is whole (buckets.next_bucket)
        update["$push"]["recent_snapshots"] = {
            "$each": [snapshot_summary(opened["snapshot"])],
            "$slice": -caps["snapshots"],
        }
        update["$push"]["bucket_index"] = [bucket_after["base_seq"], bucket_after["start_time"]]
    return update
