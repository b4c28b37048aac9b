"""Beanie documents: the collections, their shapes and the indexes their queries need.

Identifiers are deterministic strings (``"<user>:<playlist>"`` …) so that every write names the
document it touches; that is what lets the embedded store commit exactly the documents a call
changed, and lets a retry after a crash land on the same document instead of a twin.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from beanie import Document
from pydantic import BaseModel, Field
from pymongo import ASCENDING, DESCENDING, TEXT, IndexModel

# Search: one weighted text index per collection (MongoDB allows one), led by user_id so a
# ``$text`` query is always scoped to one user. The embedded engine ranks with the same weights.
PLAYLIST_TEXT_WEIGHTS: dict[str, int] = {
    "name": 10,
    "intent_tags": 6,
    "description": 4,
    # seed_context is free-form: its usual keys are indexed (the embedded engine reads all of it).
    **{
        f"seed_context.{key}": 2
        for key in (
            "artists",
            "artists.name",
            "seed_artists",
            "genres",
            "notes",
            "inspiration",
            "mood",
            "prompt",
            "query",
        )
    },
}
EVENT_TEXT_WEIGHTS: dict[str, int] = {"payload.raw_text": 4}  # every other string of the event: 1
TRACK_TEXT_WEIGHTS: dict[str, int] = {"name": 6, "artists": 4, "album": 2}
MEMORY_TEXT_WEIGHTS: dict[str, int] = {"entities": 6, "summary": 3}
TEXT_LANGUAGE = "english"


def _text_index(fields: list[str], weights: dict[str, int], name: str) -> IndexModel:
    keys = [("user_id", ASCENDING)] + [(f, TEXT) for f in fields]
    return IndexModel(
        keys, weights=weights, default_language=TEXT_LANGUAGE, language_override="_text_language", name=name
    )


class WrittenBy(BaseModel):
    """Who wrote a record: the verified principal, the tool and the server's request id.
    Records written before auth existed (or imported from such an export) carry none."""

    principal: str
    tool: str | None = None
    request_id: str | None = None


class ProfilePatch(BaseModel):
    version: int
    patch: dict[str, Any]
    reason: str | None = None
    source: str
    applied_at: datetime
    written_by: WrittenBy | None = None


class ProfileDocument(Document):
    id: int = Field(alias="_id")  # type: ignore[assignment]
    user_id: int
    profile: dict[str, Any] = {}
    version: int = 0
    created_at: datetime
    updated_at: datetime
    history: list[ProfilePatch] = []
    written_by: WrittenBy | None = None  # of the latest write: what a change-stream event carries

    class Settings:
        name = "profiles"
        indexes = [IndexModel([("user_id", ASCENDING)], unique=True, name="user")]


class PreferenceEventDocument(Document):
    id: str = Field(alias="_id")  # type: ignore[assignment]
    user_id: int
    type: str
    source: str
    payload: dict[str, Any]
    timestamp: datetime
    recorded_at: datetime
    recorded_ns: int
    written_by: WrittenBy | None = None  # the call that recorded it
    imported_by: WrittenBy | None = None  # the import that wrote it into this store, if any
    # Derived (service/profiles/supersession.py): on a like/dislike, the id of the newer one of its subject.
    superseded_by: str | None = None

    class Settings:
        name = "preference_events"
        indexes = [
            IndexModel([("user_id", ASCENDING), ("timestamp", DESCENDING)], name="user_time"),
            _text_index(["$**"], EVENT_TEXT_WEIGHTS, "user_text"),
        ]


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

    id: str = Field(alias="_id")  # type: ignore[assignment]
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

    id: str = Field(alias="_id")  # type: ignore[assignment]
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
            _text_index(list(PLAYLIST_TEXT_WEIGHTS), PLAYLIST_TEXT_WEIGHTS, "user_text"),
        ]


class IdempotencyRecord(Document):
    """Claims a key for one request before its commit, so a key can never name two requests."""

    id: str = Field(alias="_id")  # type: ignore[assignment]
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

    id: str = Field(alias="_id")  # type: ignore[assignment]
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


class AuditEntry(Document):
    """One change of a canonical record (or a user's deletion), for operators: ``ops.audit``."""

    id: str = Field(alias="_id")  # type: ignore[assignment]
    time: datetime
    collection: str | None  # None for the tombstone of a deleted user
    operation: str  # insert | update | replace | delete_user_data
    user_id: int | None
    playlist_id: str | None = None
    document_key: str | None
    tool: str | None
    request_id: str | None
    principal: str | None
    via: str  # write_path (embedded engine) | change_stream | backfill

    class Settings:
        name = "audit_log"
        indexes = [
            IndexModel([("user_id", ASCENDING), ("time", DESCENDING), ("_id", DESCENDING)], name="user_time"),
            IndexModel(
                [("user_id", ASCENDING), ("playlist_id", ASCENDING), ("time", DESCENDING)], name="user_playlist_time"
            ),
            IndexModel([("time", DESCENDING), ("_id", DESCENDING)], name="time"),
        ]


class AuditStreamState(Document):
    """Where the change-stream watcher stopped: its resume token and the time of the last change."""

    id: str = Field(alias="_id")  # type: ignore[assignment]
    resume_token: dict[str, Any] | None
    last_time: datetime | None
    updated_at: datetime

    class Settings:
        name = "audit_state"


class UserStats(Document):
    """Counters of one user kept by the write path (``ops.list_users`` reads these, not the
    records); derived data: re-counted from the records at start-up and after an import, never
    exported."""

    id: int = Field(alias="_id")  # type: ignore[assignment]
    user_id: int
    playlist_count: int = 0
    preference_event_count: int = 0
    profile_version: int = 0
    updated_at: datetime | None = None
    track_count: int = 0  # catalog tracks (not listed by ops.list_users; they make the user listed)
    memory_count: int = 0  # typed memories, play buckets and aging records: the same
    play_bucket_count: int = 0
    aging_event_count: int = 0

    class Settings:
        name = "user_stats"


class TrackDocument(Document):
    """What the assistant learned about one track, per user (``memory_upsert_tracks``): the
    catalog that names tracks, resolves half-remembered titles and checks playlist rules."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # "<user_id>:<track_id>"
    user_id: int
    track_id: str
    name: str
    artists: list[str]
    album: str | None = None
    duration_ms: int | None = None
    popularity: int | None = None
    genres: list[str] = []
    energy: float | None = None  # 0..1 when known: low-energy tracks are the arc's breathers
    first_seen_at: datetime
    updated_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "tracks"
        indexes = [
            IndexModel([("user_id", ASCENDING), ("track_id", ASCENDING)], name="user_track"),
            _text_index(list(TRACK_TEXT_WEIGHTS), TRACK_TEXT_WEIGHTS, "user_text"),
        ]


class TrackChoice(Document):
    """A confirmed resolution (``memory_confirm_track``): this text means this track for this user."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # "<user_id>:<digest of the folded text>"
    user_id: int
    text: str
    folded: str
    track_id: str
    confirmations: int = 1
    confirmed_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "track_choices"
        indexes = [IndexModel([("user_id", ASCENDING), ("folded", ASCENDING)], name="user_folded")]


class MemoryDocument(Document):
    """A typed memory (``memory_add``): a recommendation, insight, event, feedback or discussion,
    with an importance; a restatement within 30 days updates it (``seen_count``) instead of adding
    a twin, and aging compresses (``fuzzy``) or removes it."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # "<user_id>:<memory_id>"
    user_id: int
    memory_id: str
    type: str
    entities: list[str]
    entity_key: str  # the folded entities, sorted and joined: what deduplication compares
    summary: str
    importance: int
    metadata: dict[str, Any] = {}
    timestamp: datetime  # when it was first stated (client times honoured); aging counts from it
    last_seen_at: datetime  # the latest restatement: the deduplication window counts from it
    seen_count: int = 1
    fuzzy: bool = False
    validated_at: datetime | None = None  # recommendations: first memory_validate_recommendation
    created_at: datetime
    updated_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "memories"
        indexes = [
            IndexModel(
                [("user_id", ASCENDING), ("type", ASCENDING), ("entity_key", ASCENDING), ("last_seen_at", DESCENDING)],
                name="user_dedup",
            ),
            IndexModel([("user_id", ASCENDING), ("timestamp", DESCENDING)], name="user_time"),
            _text_index(list(MEMORY_TEXT_WEIGHTS), MEMORY_TEXT_WEIGHTS, "user_text"),
        ]


class Play(BaseModel):
    artist: str
    track: str | None = None
    album: str | None = None
    track_id: str | None = None
    played_at: datetime


class PlayBucket(Document):
    """Play history (``memory_log_plays``) in buckets of one month, split past a size, so a
    listener's years of plays are a few dozen documents rather than one per play."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # "<user_id>:<YYYY-MM>:<part>"
    user_id: int
    month: str  # "YYYY-MM" of played_at (UTC)
    part: int
    plays: list[Play]  # ordered by played_at
    updated_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "plays"
        indexes = [IndexModel([("user_id", ASCENDING), ("month", ASCENDING), ("part", ASCENDING)], name="user_month")]


class MemoryAgingEvent(Document):
    """What aging did to one memory (compressed to a gist, or removed), with the memory before
    and after, so nothing fades without a trace.

    ``_id`` is ``"<user_id>:<memory_id>:<action>:<ms>"``, ``ms`` the memory's ``updated_at``
    before the change (milliseconds since the epoch): one record per change, however often a run is
    retried (a run stopped between the record and the change writes the same record again), and a
    new one when a gist restated (a new ``updated_at``, ``fuzzy: false``) is compressed again."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # "<user_id>:<memory_id>:<action>:<ms>"
    user_id: int
    memory_id: str
    action: str  # "compressed" | "removed"
    rule: str  # which rule applied (service.memories.aging.RULE_GIST / RULE_REMOVE)
    aged_at: datetime  # the run's "now"
    recorded_at: datetime
    before: dict[str, Any]
    after: dict[str, Any] | None = None
    written_by: WrittenBy | None = None

    class Settings:
        name = "memory_aging"
        indexes = [IndexModel([("user_id", ASCENDING), ("memory_id", ASCENDING)], name="user_memory")]


class MemoryControls(Document):
    """The user's switches (``memory_set_enabled``, ``memory_pause``): with memory off nothing is
    stored and every read answers as for a user with no data; paused, nothing is stored until
    ``paused_until``. No document: on, not paused."""

    id: int = Field(alias="_id")  # type: ignore[assignment]
    user_id: int
    enabled: bool = True
    paused_until: datetime | None = None
    updated_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "memory_controls"
        indexes = [IndexModel([("user_id", ASCENDING)], name="user")]


DOCUMENT_MODELS: list[type[Document]] = [
    ProfileDocument,
    PreferenceEventDocument,
    PlaylistDocument,
    PlaylistHistoryBucket,
    IdempotencyRecord,
    ListingCursor,
    AuditEntry,
    AuditStreamState,
    UserStats,
    TrackDocument,
    TrackChoice,
    MemoryDocument,
    PlayBucket,
    MemoryAgingEvent,
    MemoryControls,
]
