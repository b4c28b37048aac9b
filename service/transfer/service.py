"""Export and import of a user's whole memory, as the tools and the command line use them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.transfer import export
from service.transfer.importer import import_user
from service.users import stats as user_stats


class TransferService:
    def __init__(self, db: Database, settings: Settings, caps: dict[str, int], search: SearchEngine) -> None:
        self._db = db
        self.settings = settings
        self._caps = caps
        self._search = search

    async def export_part(self, user_id: int, cursor: str | None) -> dict[str, Any]:
        """One part of the export, within the budget one message can carry; continue from its cursor."""
        return await export.export_part(self._db, user_id, cursor, self.settings.export_part_bytes)

    async def export_all(self, user_id: int, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
        return await export.export_all(self._db, user_id, progress)

    async def import_counts(self, parts: list[Any], user_id: int, replace: bool = False) -> dict[str, int]:
        """Counts per kind (the command line's answer); see ``import_user``."""
        counts: dict[str, int] = (await self.import_user(parts, user_id, replace))["imported"]
        return counts

    async def import_user(self, parts: list[Any], user_id: int, replace: bool = False) -> dict[str, Any]:
        """An export (its parts) for ``user_id``: built and checked whole, then written; a user
        with data is refused unless ``replace``, which deletes that data first (only once the new
        data is known good)."""
        counts, replaced = await self._import(parts, user_id, replace)
        if replaced:  # as for a delete: once committed, the checkpoint overwrites the old page images
            await self._db.scrub()
        return {"user_id": user_id, "imported": counts, "replaced": replaced}

    @unit_of_work
    async def _import(self, parts: list[Any], user_id: int, replace: bool) -> tuple[dict[str, int], bool]:
        try:
            counts, replaced = await import_user(self._db, parts, user_id, self._caps, replace)
        finally:  # whatever the import reached, the index holds only what is stored
            await self._search.user_reloaded(user_id)
        await user_stats.recount(self._db, user_id)
        return counts, replaced
