"""Typed memories, play buckets and the aging records."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from beanie import Document
from pydantic import BaseModel, Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from models.documents.common import WrittenBy
from models.documents.text import MEMORY_TEXT_WEIGHTS, text_index


class MemoryDocument(Document):
    """A typed memory (``memory_add``): a recommendation, insight, event, feedback or discussion,
    with an importance; a restatement within 30 days updates it (``seen_count``) instead of adding
    a twin, and aging compresses (``fuzzy``) or removes it."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId: "<user_id>:<memory_id>"
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
    sensitive: bool = False  # kept out of the block and of search unless asked for by name
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
            text_index(list(MEMORY_TEXT_WEIGHTS), MEMORY_TEXT_WEIGHTS, "user_text"),
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

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId: "<user_id>:<YYYY-MM>:<part>"
    user_id: int
    month: str  # "YYYY-MM" of played_at (UTC)
    part: int
    plays: list[Play]  # ordered by played_at
    skips: list[Play] | None = None  # streams under 30 s from an imported history: never read as plays
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

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId: "<user_id>:<memory_id>:<action>:<ms>"
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
