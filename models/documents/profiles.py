"""The taste profile (one document per user) and the append-only preference events."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from beanie import Document
from pydantic import BaseModel, Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from models.documents.common import WrittenBy
from models.documents.text import EVENT_TEXT_WEIGHTS, text_index


class ProfilePatch(BaseModel):
    version: int
    patch: dict[str, Any]
    reason: str | None = None
    source: str
    applied_at: datetime
    written_by: WrittenBy | None = None


class ProfileDocument(Document):
    id: int = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
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
    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
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
    marked_by: WrittenBy | None = None  # the call whose write last changed that mark (its audit stamp)

    class Settings:
        name = "preference_events"
        indexes = [
            IndexModel([("user_id", ASCENDING), ("timestamp", DESCENDING)], name="user_time"),
            text_index(["$**"], EVENT_TEXT_WEIGHTS, "user_text"),
        ]
