"""History buckets: how a new one looks and when the open one is full."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.audit.origin import written_by
from service.errors import TimestampOutOfOrder
from service.ledger.keys import bucket_id
from service.ledger.records import Bucket, BucketHeader, Creation, EventType, LedgerEvent, Lineage
from service.ledger.state import PlaylistState, apply_event
from service.timeutil import utc_now


@dataclass(frozen=True)
class SnapshotPolicy:
    every: int
    min_event_share: float
    bucket_max_track_ids: int
    replay_budget: int = 500_000

    def bucket_is_full(self, bucket: BucketHeader) -> bool:
        """Decided from the stored bucket alone, so racing writers agree."""
        if bucket.get("sealed"):  # a change that must open the next bucket sealed this one
            return True
        events = bucket["last_seq"] - bucket["base_seq"]
        snapshot_len = bucket["snapshot_track_count"]
        if snapshot_len + bucket["track_id_volume"] >= self.bucket_max_track_ids:
            return True
        # A reconstruction replays up to a bucket's events over a list of about the snapshot's
        # length: bounding events × length bounds its cost for large playlists, whose small
        # edits would otherwise take hundreds of events to reach the share below.
        if events * snapshot_len >= self.replay_budget:
            return True
        return events >= self.every - 1 and bucket["track_id_volume"] >= self.min_event_share * snapshot_len


def create_result(bucket: Bucket) -> dict[str, Any]:
    return {
        "playlist_id": bucket["playlist_id"],
        "snapshot_id": bucket["snapshot"]["snapshot_id"],
        "created_at": creation_of(bucket)["created_at"],
        "stored_track_count": len(bucket["snapshot"]["track_ids"]),
    }


def creation_of(bucket: BucketHeader) -> Creation:
    """What bucket 0 holds of the creation (every bucket 0 has it)."""
    created = bucket["created"]
    if created is None:
        raise ValueError(f"bucket {bucket['_id']} is not a playlist's first")
    return created


def mutation_result(bucket: BucketHeader, event: LedgerEvent) -> dict[str, Any]:
    opened = bucket["base_seq"] == event["seq"]
    return {
        "event_id": event["event_id"],
        "playlist_id": bucket["playlist_id"],
        "timestamp": event["timestamp"],
        "new_snapshot_id": bucket["snapshot"]["snapshot_id"] if opened else None,
    }


def first_bucket(
    user_id: int,
    playlist_id: str,
    meta: dict[str, Any],
    track_ids: list[str],
    seed_context: dict[str, Any],
    moment: datetime,
    idempotency_key: str | None,
    digest: str,
    lineage: Lineage | None = None,
) -> Bucket:
    """Bucket 0: the creation snapshot and what the create request said. A fork's bucket 0 also
    holds its FORK event at sequence 0 (the creation itself: replay starts after it, undo never
    reaches it) so the lineage shows in the playlist's events."""
    events: list[LedgerEvent] = []
    if lineage is not None:
        payload = {"forked_from": lineage, "track_count": len(track_ids)}
        events.append(new_event(0, "FORK", payload, moment, None, digest))
    created: Creation = {
        "created_at": moment,
        "recorded_ns": time.time_ns(),
        "seed_context": seed_context,
        "idempotency_key": idempotency_key,
        "request_hash": digest,
        "written_by": written_by(),
    }
    if lineage is not None:
        created["forked_from"] = lineage
    return {
        "_id": bucket_id(user_id, playlist_id, 0),
        "user_id": user_id,
        "playlist_id": playlist_id,
        "base_seq": 0,
        "last_seq": 0,
        "prev_base_seq": None,
        "start_time": moment,
        "end_time": moment,
        "track_id_volume": 0,
        "snapshot_track_count": len(track_ids),
        "snapshot": {
            "snapshot_id": str(uuid.uuid4()),
            "seq": 0,
            "created_at": moment,
            "source": "create" if lineage is None else "fork",
            "track_ids": list(track_ids),
            "meta": meta,
        },
        "events": events,
        "created": created,
        "written_by": written_by(),
    }


def new_event(
    seq: int, event_type: EventType, payload: dict[str, Any], moment: datetime, client_event_id: str | None, digest: str
) -> LedgerEvent:
    return {
        "event_id": str(uuid.uuid4()),
        "seq": seq,
        "type": event_type,
        "payload": payload,
        "timestamp": moment,
        "recorded_at": utc_now(),
        "recorded_ns": time.time_ns(),
        "client_event_id": client_event_id,
        "request_hash": digest,
        "written_by": written_by(),
    }


def next_bucket(previous: BucketHeader, event: LedgerEvent, state: PlaylistState, source: str = "periodic") -> Bucket:
    """The bucket opened by ``event``: a snapshot of the state after it, then later events."""
    seq = event["seq"]
    return {
        "_id": bucket_id(previous["user_id"], previous["playlist_id"], seq),
        "user_id": previous["user_id"],
        "playlist_id": previous["playlist_id"],
        "base_seq": seq,
        "last_seq": seq,
        "prev_base_seq": previous["base_seq"],
        "start_time": event["timestamp"],
        "end_time": event["timestamp"],
        "track_id_volume": 0,
        "snapshot_track_count": len(state.track_ids),
        "snapshot": {
            "snapshot_id": str(uuid.uuid4()),
            "seq": seq,
            "created_at": event["timestamp"],
            "source": source,
            "track_ids": list(state.track_ids),
            "meta": dict(state.meta),
        },
        # The event that produced the snapshot is kept here so every event lives in one bucket.
        "events": [event],
        "created": None,
        "written_by": event.get("written_by") or written_by(),
    }


def prepared_event(
    bucket: BucketHeader,
    state: PlaylistState,
    event_type: EventType,
    payload: dict[str, Any],
    timestamp: datetime | None,
    client_event_id: str | None,
    digest: str,
    max_tracks: int,
) -> tuple[LedgerEvent, PlaylistState]:
    """The event at the next sequence number of the open ``bucket`` and the state after it; raises
    if it cannot apply (``TimestampOutOfOrder`` before the last logged change, or the state's own)."""
    last_change = bucket["end_time"]
    moment = timestamp or max(utc_now(), last_change)
    if moment < last_change:
        raise TimestampOutOfOrder(
            "timestamp is before the playlist's last logged change", {"field": "timestamp", "last_change": last_change}
        )
    new_state = apply_event(state, event_type, payload, max_tracks)
    event = new_event(bucket["last_seq"] + 1, event_type, payload, moment, client_event_id, digest)
    return event, new_state
