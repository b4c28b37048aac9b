"""The audit log and the change-stream watcher's resume state."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from beanie import Document
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel


class AuditEntry(Document):
    """One change of a canonical record (or a user's deletion), for operators: ``ops.audit``."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
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

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId
    resume_token: dict[str, Any] | None
    last_time: datetime | None
    updated_at: datetime

    class Settings:
        name = "audit_state"
