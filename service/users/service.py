"""Users as a whole, as the tools see them: who has data, and deleting everything of one user.

The ledger's roll-forward and the search index's reload are handed in by the facade, so this
package stays below both."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from service.storage.database import Database
from service.storage.units import unit_of_work
from service.timeutil import utc_now
from service.users import directory


class UserService:
    def __init__(
        self, db: Database, settle: Callable[[], Awaitable[None]], reload_user: Callable[[int], Awaitable[None]]
    ) -> None:
        self._db = db
        self._settle = settle  # playlist documents a failed write left behind, rolled forward
        self._reload_user = reload_user  # the search index of a user whose data changed wholesale

    async def listed(self, limit: int, visible: set[int] | None = None) -> list[dict[str, Any]]:
        await self._settle()
        return await directory.list_users(self._db, limit, visible)

    async def delete(self, user_id: int) -> dict[str, Any]:
        await self._delete(user_id)
        # Only once the delete is committed: the checkpoint then overwrites the old page images.
        await self._db.scrub()
        return {"user_id": user_id, "deleted_at": utc_now(), "deleted": True}

    @unit_of_work
    async def _delete(self, user_id: int) -> None:
        try:
            await directory.delete_user(self._db, user_id)
        finally:  # whatever the delete reached, the index holds only what is still stored
            await self._reload_user(user_id)
