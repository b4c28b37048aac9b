"""The user's switches over their memory (seed 003): memory on or off, and a pause.

- **Off** (``memory_set_enabled(false)``): every write for the user is refused (``CONFLICT``,
  ``memory_disabled``) and every read answers as for a user with no data, computed, not imitated:
  the call pipeline runs the read on the facade's empty twin (``MemoryService.empty_twin``).
  Nothing is deleted: turning memory on brings it all back.
- **Paused** until a time (``memory_pause``): writes are refused (``memory_paused``, with
  ``until``); reads work.
- The switch tools themselves, and deleting data, always work: removing data is never refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from service.audit.origin import written_by
from service.errors import MemoryDisabled, MemoryPaused
from service.memories.plays import play_counts
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.timeutil import as_utc, utc_now

# What ``memory_status`` counts: (name in the answer, collection).
COUNTED = (
    ("preference_events", "preference_events"),
    ("playlists", "playlists"),
    ("tracks", "tracks"),
    ("memories", "memories"),
    ("play_buckets", "plays"),
    ("aging_records", "memory_aging"),
)


class Controls:
    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self.settings = settings

    async def state(self, user_id: int) -> dict[str, Any]:
        """``{enabled, paused_until}``: the pause only while it lasts."""
        stored = await self._db.memory_controls.find_one({"_id": user_id, "user_id": user_id}) or {}
        until = stored.get("paused_until")
        if until is not None and as_utc(until) <= utc_now():
            until = None
        return {"enabled": stored.get("enabled", True), "paused_until": as_utc(until) if until else None}

    async def _store(self, user_id: int, **changes: Any) -> dict[str, Any]:
        await self._db.memory_controls.update_one(
            {"_id": user_id, "user_id": user_id},
            {
                "$set": {**changes, "updated_at": utc_now(), "written_by": written_by()},
                "$setOnInsert": {k: v for k, v in {"enabled": True, "paused_until": None}.items() if k not in changes},
            },
            upsert=True,
        )
        return await self.status(user_id)

    @unit_of_work
    async def set_enabled(self, user_id: int, enabled: bool) -> dict[str, Any]:
        return await self._store(user_id, enabled=enabled)

    @unit_of_work
    async def pause(self, user_id: int, until: datetime | None) -> dict[str, Any]:
        """Pause until ``until`` (None: resume now)."""
        return await self._store(user_id, paused_until=until)

    async def status(self, user_id: int) -> dict[str, Any]:
        counts = {
            name: await getattr(self._db, collection).count_documents({"user_id": user_id})
            for name, collection in COUNTED
        }
        counts["plays"], counts["skips"] = await play_counts(self._db, user_id)
        profile = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"version": 1})
        counts["profile_version"] = profile["version"] if profile else 0
        return {"user_id": user_id, **await self.state(user_id), "counts": counts}

    async def refuse_write(self, user_id: int) -> None:
        state = await self.state(user_id)
        if not state["enabled"]:
            raise MemoryDisabled(
                "memory is turned off for this user: nothing is stored (memory_set_enabled)",
                {"reason": "memory_disabled"},
            )
        if state["paused_until"] is not None:
            raise MemoryPaused(
                "memory is paused for this user: nothing is stored until the pause ends",
                {"reason": "memory_paused", "until": state["paused_until"]},
            )

    async def hides_reads(self, user_id: int) -> bool:
        return not (await self.state(user_id))["enabled"]
