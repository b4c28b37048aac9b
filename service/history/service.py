"""The one way a listening history is imported, for the command line and the memory page alike:
refused for a quarantined user and, as every write is, for a user whose memory is off or paused;
afterwards what this process derived from the user's plays and catalog is built again from the
store, so the next call of a running server sees the imported plays and tracks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from service.history.importer import HistoryImporter, Outcome, Progress
from service.history.plan import AUTO
from service.storage.database import Database
from service.tracks.service import TrackService

UserHook = Callable[[int], Awaitable[None]]


class HistoryService:
    def __init__(self, db: Database, tracks: TrackService, refuse_write: UserHook, reloaded: UserHook) -> None:
        self._db = db
        self._tracks = tracks
        self._refuse_write = refuse_write  # the switches' own check (service.control sits beside this package)
        self._reloaded = reloaded

    async def import_history(
        self,
        user_id: int,
        path: Path,
        wanted: str = AUTO,
        include_private: bool = False,
        progress: Progress | None = None,
    ) -> Outcome:
        self._db.refuse_quarantined(user_id)
        await self._refuse_write(user_id)
        try:
            return await HistoryImporter(self._db, self._tracks).run(user_id, path, wanted, include_private, progress)
        finally:
            # Whole files may be in even when a later one failed: the derived views (catalog index,
            # search index, the last context block, kept event lines) are rebuilt from the store.
            await self._reloaded(user_id)
