"""The playlist ledger: history buckets (the record), the playlist document (their projection),
idempotency claims and listing cursors."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from beanie import Document
from pydantic import BaseModel, Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from models.documents.common import WrittenBy
from models.documents.text import PLAYLIST_TEXT_WEIGHTS, text_index


class PlaylistEvent(BaseModel):
    event_id: str
    seq: int
    type: str
    payload: dict[str, Any]
    timestamp: datetime
    recorded_at: datetime
    recorded_ns: int  # server clock at commit: orders the listing "as of" a cursor's moment
    client_event_id: str | None = None
    request_hash: str | None = None
    written_by: WrittenBy | None = None


class Snapshot(BaseModel):
    snapshot_id: str
    seq: int
    created_at: datetime
    source: str  # create | periodic | resync | fork
    track_ids: list[str]
    meta: dict[str, Any]  # name, description, intent_tags as of this snapshot


class SnapshotSummary(BaseModel):
    snapshot_id: str
    seq: int
    created_at: datetime
    source: str
    track_count: int


class PlaylistHistoryBucket(Document):
    """History, append-only: a snapshot and the events that follow it, up to the next snapshot.

    Inserting the bucket for sequence ``s`` or appending event ``s`` to the open bucket is the
    commit point of a change; ``_id`` and the unique index make that point single-winner.
    """

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
    user_id: int
    playlist_id: str
    base_seq: int
    last_seq: int
    prev_base_seq: int | None  # buckets are contiguous forward (next base = last_seq + 1)
    start_time: datetime
    end_time: datetime
    track_id_volume: int  # track IDs carried by the events after the snapshot
    snapshot_track_count: int
    snapshot: Snapshot
    events: list[PlaylistEvent] = []
    created: dict[str, Any] | None = (
        None  # bucket 0 only: created_at, recorded_ns, seed_context, idempotency, written_by, forked_from
    )
    sealed: bool | None = None  # set before a change that must open a new bucket (RESYNC): no more appends
    written_by: WrittenBy | None = None  # of the latest write: what a change-stream event carries

    class Settings:
        name = "playlist_history"
        indexes = [
            IndexModel(
                [("user_id", ASCENDING), ("playlist_id", ASCENDING), ("base_seq", ASCENDING)],
                unique=True,
                name="user_playlist_seq",
            ),
            IndexModel(
                [("user_id", ASCENDING), ("playlist_id", ASCENDING), ("start_time", ASCENDING)],
                name="user_playlist_time",
            ),
            IndexModel(
                [("user_id", ASCENDING), ("events.client_event_id", ASCENDING)], name="user_client_event", sparse=True
            ),
        ]


class PlaylistDocument(Document):
    """The fast path: current contents and recent history of one playlist; a projection of the
    latest history bucket, rolled forward if a crash left it behind."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
    user_id: int
    playlist_id: str
    name: str
    description: str | None = None
    intent_tags: list[str] = []
    seed_context: dict[str, Any] = {}
    created_at: datetime
    created_ns: int
    updated_at: datetime
    touched_ns: int
    seq: int
    open_base_seq: int
    track_ids: list[str]
    track_count: int
    latest_snapshot: Snapshot
    recent_snapshots: list[SnapshotSummary] = []
    recent_events: list[PlaylistEvent] = []
    bucket_index: list[tuple[int, datetime]] = []  # (base_seq, start_time) of every bucket
    forked_from: dict[str, Any] | None = None  # {playlist_id, at} when made by memory_fork_playlist

    class Settings:
        name = "playlists"
        indexes = [
            IndexModel([("user_id", ASCENDING), ("playlist_id", ASCENDING)], unique=True, name="user_playlist"),
            IndexModel(
                [("user_id", ASCENDING), ("updated_at", DESCENDING), ("playlist_id", DESCENDING)], name="user_recent"
            ),
            text_index(list(PLAYLIST_TEXT_WEIGHTS), PLAYLIST_TEXT_WEIGHTS, "user_text"),
        ]


class IdempotencyRecord(Document):
    """Claims a key for one request before its commit, so a key can never name two requests."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
    user_id: int
    scope: str  # create | mutation
    key: str
    request_hash: str
    playlist_id: str
    created_at: datetime | None  # None when re-derived by an import

    class Settings:
        name = "idempotency"
        indexes = [IndexModel([("user_id", ASCENDING)], name="user")]


class ListingCursor(Document):
    """The rest of a playlist listing's order, fixed at its first page (get_playlists paging)."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
    user_id: int
    playlist_ids: list[str]
    created_at: datetime
    expires_at: datetime

    class Settings:
        name = "listing_cursors"
        indexes = [
            IndexModel([("user_id", ASCENDING)], name="user"),
            IndexModel([("expires_at", ASCENDING)], name="expiry", expireAfterSeconds=0),
        ]
