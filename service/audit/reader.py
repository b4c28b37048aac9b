"""The operator's view of the audit trail (``ops.audit``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from service.audit.trail import list_entries
from service.storage.database import Database


class AuditReader:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def entries(
        self,
        user_id: int | None,
        playlist_id: str | None,
        since: datetime | None,
        until: datetime | None,
        limit: int,
        cursor: str | None,
    ) -> dict[str, Any]:
        return await list_entries(self._db.audit_log, user_id, playlist_id, since, until, limit, cursor)
