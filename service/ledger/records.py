"""The ledger's records as the writer builds them, the history buckets store them and the tools
answer them: typed dicts, so they stay plain dicts (BSON in, JSON out) and nothing changes on the
wire. ``models.documents.ledger`` declares the same shapes for the database.

A bucket read with ``projection.BUCKET_HEADER`` leaves out the snapshot's track list and the events:
``BucketHeader`` is what such a read holds, and a whole ``Bucket`` is one too."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, NotRequired, TypedDict

from typing_extensions import ReadOnly

# The PRD's four changes, the service's own RESYNC and UNDO, and FORK (a fork's creation).
EventType = Literal["ADD_TRACKS", "REMOVE_TRACKS", "REORDER", "UPDATE_META", "RESYNC", "UNDO", "FORK"]


class _EventFields(TypedDict):
    event_id: str
    seq: int
    type: EventType
    timestamp: datetime
    recorded_at: datetime
    recorded_ns: int
    # Always written by this service; an event imported from an older export may lack them.
    client_event_id: NotRequired[str | None]
    request_hash: NotRequired[str]
    written_by: NotRequired[dict[str, Any]]


class LedgerEvent(_EventFields):
    """One change, as stored in its history bucket (``buckets.new_event``)."""

    payload: dict[str, Any]


class EventWithoutPayload(_EventFields):
    """A recent event on the playlist document whose payload (too many track IDs) stays in history."""

    payload: None
    payload_in_history: Literal[True]


# An entry of the playlist document's ``recent_events``.
RecentEvent = LedgerEvent | EventWithoutPayload


class SnapshotHeader(TypedDict):
    snapshot_id: str
    seq: int
    created_at: datetime
    source: str  # create | periodic | resync | fork
    meta: dict[str, Any]  # name, description, intent_tags as of this snapshot


class Snapshot(SnapshotHeader):
    """The contents at the sequence number that opened a bucket."""

    track_ids: list[str]


class SnapshotSummary(TypedDict):
    """A snapshot as the playlist document lists it (``recent_snapshots``)."""

    snapshot_id: str
    seq: int
    created_at: datetime
    source: str
    track_count: int


class Lineage(TypedDict):
    """Where a fork came from: its source playlist, the moment and the sequence number forked."""

    playlist_id: str
    at: datetime
    seq: int


class Creation(TypedDict):
    """What the create request said (bucket 0 only)."""

    created_at: datetime
    recorded_ns: int
    seed_context: dict[str, Any] | None
    idempotency_key: str | None
    request_hash: str | None
    written_by: NotRequired[dict[str, Any]]
    forked_from: NotRequired[Lineage]


class BucketHeader(TypedDict):
    _id: str
    user_id: int
    playlist_id: str
    base_seq: int
    last_seq: int
    prev_base_seq: int | None
    start_time: datetime
    end_time: datetime
    track_id_volume: int  # track IDs carried by the events after the snapshot
    snapshot_track_count: int
    snapshot: ReadOnly[SnapshotHeader]
    created: Creation | None
    sealed: NotRequired[bool]  # set before a change that must open a new bucket
    written_by: dict[str, Any]


class Bucket(BucketHeader):
    """A history bucket: the snapshot that opens it and the events that follow it."""

    snapshot: Snapshot
    events: list[LedgerEvent]


class PlaylistDetails(TypedDict):
    """One playlist as ``memory_get_playlist`` reads it: its document and its newest events, oldest first."""

    head: dict[str, Any]  # the playlist document (its latest_snapshot a Snapshot)
    recent_events: list[LedgerEvent]
