"""The profile tools' capability: read and merge-patch the profile, append what the user said;
each write keeps the per-user counters, the stored supersession marks and search in step."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from service.limits import require_at_most
from service.profiles.store import Profiles
from service.profiles.supersession import TYPES as OPINION_TYPES
from service.profiles.supersession import opinion_appended
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.text import sensitive
from service.users import stats as user_stats


class ProfileService:
    def __init__(self, db: Database, settings: Settings, search: SearchEngine) -> None:
        self._db = db
        self.settings = settings
        self.store = Profiles(db, settings.profile_history_cap, settings.max_profile_bytes)
        self._search = search
        self._appended: list[Callable[[int, str], Awaitable[None]]] = []

    def on_event_appended(self, listener: Callable[[int, str], Awaitable[None]]) -> None:
        """Call ``listener(user_id, event_id)`` after each event is stored, within its write: what
        is kept beside the store from the events (the context block's lines) takes it in."""
        self._appended.append(listener)

    async def get(self, user_id: int) -> dict[str, Any]:
        return await self.store.get(user_id)

    @unit_of_work
    async def update(
        self, user_id: int, patch: dict[str, Any], reason: str | None, source: str, create_if_missing: bool
    ) -> dict[str, Any]:
        require_at_most(patch, self.settings.max_profile_bytes, "patch", "the patch")
        require_at_most(reason, self.settings.max_payload_bytes, "reason", "the reason")
        if patch.get(sensitive.FIELDS_KEY) is not None:  # null deletes it; a list replaces it whole
            sensitive.checked_fields(patch)
        view = await self.store.update(user_id, patch, reason, source, create_if_missing)
        await user_stats.note_profile(self._db, user_id, view["version"], view["updated_at"])
        self._search.profile_changed(user_id, view)
        return view

    @unit_of_work
    async def append_event(
        self, user_id: int, event_type: str, payload: dict[str, Any], source: str, timestamp: datetime | None
    ) -> dict[str, Any]:
        require_at_most(payload, self.settings.max_payload_bytes, "payload", "the payload")
        sensitive.checked_payload(payload)
        result = await self.store.append_event(user_id, event_type, payload, source, timestamp)
        await user_stats.count_preference_event(self._db, user_id)
        if event_type in OPINION_TYPES:  # a newer opinion of a subject marks the older one superseded
            await opinion_appended(self._db, user_id, result["event_id"])
        self._search.event_appended(
            user_id,
            {
                "_id": result["event_id"],
                "type": event_type,
                "source": source,
                "payload": payload,
                "timestamp": result["timestamp"],
            },
        )
        for listener in self._appended:
            await listener(user_id, result["event_id"])
        return result
