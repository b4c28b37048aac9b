"""Per-user documents beside the data: the counters the bootstrap call reads, and the switches."""

from __future__ import annotations

from datetime import datetime

from beanie import Document
from pydantic import Field
from pymongo import ASCENDING, IndexModel

from models.documents.common import WrittenBy


class UserStats(Document):
    """Counters of one user kept by the write path (``ops.list_users`` reads these, not the
    records); derived data: re-counted from the records at start-up and after an import, never
    exported."""

    id: int = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
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


class MemoryControls(Document):
    """The user's switches (``memory_set_enabled``, ``memory_pause``): with memory off nothing is
    stored and every read answers as for a user with no data; paused, nothing is stored until
    ``paused_until``. No document: on, not paused."""

    id: int = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
    user_id: int
    enabled: bool = True
    paused_until: datetime | None = None
    updated_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "memory_controls"
        indexes = [IndexModel([("user_id", ASCENDING)], name="user")]
