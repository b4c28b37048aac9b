"""The service facade the tools call: one method per capability, each a unit of work.

Every method commits before it returns (``Database.commit``), so an answered call is durable on
the embedded store; transport and argument validation live in ``tools/``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from service.transfer import export
from service.users import stats as user_stats, directory as users
from service.audit.trail import list_entries
from service.profiles.choices import Choices
from service.context.service import ContextService
from service.control.switches import Controls
from service.control.forget import Forgetter
from service.ledger.idempotency import request_hash
from service.limits import require_at_most
from service.memories.service import MemoryStore
from service.memories.followups import FollowUpService
from service.memories.aging import AgingService
from service.transfer.importer import import_user
from service.control.inspect import Inspector
from service.insights.service import InsightService
from service.ledger.listing import list_playlists
from service.playlists.moves import LedgerMoves
from service.ledger.reader import LedgerReader
from service.ledger.recovery import roll_forward_all
from service.ledger.writer import LedgerWriter
from service.profiles.store import Profiles
from service.control.explain import Provenance
from service.rederive.service import Rederiver
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database
from service.profiles.supersession import TYPES as OPINION_TYPES, opinion_appended
from service.timeutil import utc_now
from service.tracks.service import TrackService
from service.tracks.naming import name_tracks
from service.storage.units import unit_of_work


class MemoryService:
    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self.settings = settings
        self._profiles = Profiles(db, settings.profile_history_cap, settings.max_profile_bytes)
        self._writer = LedgerWriter(db, settings)
        self._reader = LedgerReader(db, self._writer)
        self._search = SearchEngine(db, semantic=settings.semantic_search == "on")
        # Later capabilities, each its own facade (their write methods are units of work too).
        self.moves = LedgerMoves(db, settings, self._writer, self._reader, self._search)
        self.tracks = TrackService(db, settings, self._search)
        self.insights = InsightService(db, settings)
        self.memories = MemoryStore(db, settings, self._search)
        self.controls = Controls(db, settings)
        self.followups = FollowUpService(db, settings, self.memories)
        self.context = ContextService(db, self._profiles, self.memories, self.followups, self._writer)
        self.aging = AgingService(db, self.memories)
        self.choices = Choices(self.append_preference_event)  # memory_record_choice: an ordinary event write
        self.provenance = Provenance(db, self.memories)  # memory_explain
        self.forgetter = Forgetter(db, self._search, self.memories, self._writer)  # memory_forget
        self.rederiver = Rederiver(db, self._writer.caps, self._search, self.memories)  # memory-service rederive
        self.inspector = Inspector(db, self.controls, self.context)  # memory_inspect
        self._search.on_user_reloaded(self.context.forget_served)  # forget, import, delete: the last block goes

    @property
    def database(self) -> Database:
        return self._db

    @unit_of_work
    async def recover(self) -> int:
        """Start-up: roll playlist documents forward, then make the per-user counters agree with
        the records (a crash can leave a counter one bump behind its commit point)."""
        rebuilt = await roll_forward_all(self._db, self._writer.caps)
        await user_stats.recount_all(self._db)
        return rebuilt

    @property
    def meaning_model(self) -> str | None:
        """What ``/readyz`` and the start-up log say of search by meaning (None: off)."""
        return self._search.meaning_model

    async def build_search_index(self) -> tuple[int, float]:
        """Build every user's search index, one user at a time, yielding between them: the server's
        background warm-up (a search builds its user's index on first use anyway). Returns
        (entries indexed, seconds); nothing to build on real MongoDB."""
        if not self._search.in_memory:
            return 0, 0.0
        listed = await users.list_users(self._db, 2**31)
        return await self._search.warm_up([row["user_id"] for row in listed])

    async def get_profile(self, user_id: int) -> dict[str, Any]:
        return await self._profiles.get(user_id)

    @unit_of_work
    async def update_profile(
        self, user_id: int, patch: dict[str, Any], reason: str | None, source: str, create_if_missing: bool
    ) -> dict[str, Any]:
        require_at_most(patch, self.settings.max_profile_bytes, "patch", "the patch")
        require_at_most(reason, self.settings.max_payload_bytes, "reason", "the reason")
        view = await self._profiles.update(user_id, patch, reason, source, create_if_missing)
        await user_stats.note_profile(self._db, user_id, view["version"], view["updated_at"])
        self._search.profile_changed(user_id, view)
        return view

    @unit_of_work
    async def append_preference_event(
        self, user_id: int, event_type: str, payload: dict[str, Any], source: str, timestamp: datetime | None
    ) -> dict[str, Any]:
        require_at_most(payload, self.settings.max_payload_bytes, "payload", "the payload")
        result = await self._profiles.append_event(user_id, event_type, payload, source, timestamp)
        await user_stats.count_preference_event(self._db, user_id)
        if event_type in OPINION_TYPES:  # a newer opinion of a subject marks the older one superseded
            await opinion_appended(self._db, user_id, result["event_id"])
        self._search.event_appended(user_id, {
            "_id": result["event_id"], "type": event_type, "source": source, "payload": payload,
            "timestamp": result["timestamp"],
        })
        return result

    @unit_of_work
    async def log_playlist_create(self, arguments: dict[str, Any], created_at: datetime | None) -> dict[str, Any]:
        require_at_most(arguments.get("intent_tags", []), self.settings.max_intent_tags_bytes, "intent_tags",
                        "intent_tags")
        require_at_most(arguments.get("seed_context", {}), self.settings.max_payload_bytes, "seed_context",
                        "seed_context")
        meta = {"name": arguments["name"], "intent_tags": arguments.get("intent_tags", [])}
        if "description" in arguments:
            meta["description"] = arguments["description"]
        result = await self._writer.create(
            arguments["user_id"],
            arguments["playlist_id"],
            meta,
            arguments["track_ids"],
            arguments.get("seed_context", {}),
            created_at,
            arguments.get("idempotency_key"),
            request_hash(arguments),
        )
        self._search.playlist_created(arguments["user_id"], arguments, result["created_at"])
        return result

    @unit_of_work
    async def log_playlist_mutation(self, arguments: dict[str, Any], timestamp: datetime | None) -> dict[str, Any]:
        if arguments["type"] == "UPDATE_META" and isinstance(arguments["payload"], dict):
            require_at_most(arguments["payload"].get("intent_tags", []), self.settings.max_intent_tags_bytes,
                            "payload.intent_tags", "intent_tags")
        result = await self._writer.mutate(
            arguments["user_id"],
            arguments["playlist_id"],
            arguments["type"],
            arguments["payload"],
            timestamp,
            arguments.get("client_event_id"),
            request_hash(arguments),
        )
        await self._search.playlist_changed(arguments["user_id"], arguments["playlist_id"], arguments["type"],
                                            result["timestamp"])
        return result

    async def get_playlists(self, user_id: int, limit: int, cursor: str | None) -> dict[str, Any]:
        await self._writer.settle(user_id)
        return await list_playlists(self._db, user_id, limit, cursor, self.settings.result_budget_bytes)

    async def get_playlist(self, user_id: int, playlist_id: str, events_limit: int) -> dict[str, Any]:
        return await self._reader.get_playlist(user_id, playlist_id, events_limit, self.settings.result_budget_bytes)

    async def reconstruct_playlist(self, user_id: int, playlist_id: str, at_time: datetime | None) -> dict[str, Any]:
        return await self._reader.reconstruct_at(user_id, playlist_id, at_time)

    async def name_tracks(self, user_id: int, track_ids: list[str]) -> dict[str, Any]:
        """Catalog names for a playlist answer's track IDs (``include_tracks``), within its budget."""
        return await name_tracks(self._db, user_id, track_ids, self.settings.result_budget_bytes)

    async def search(self, user_id: int, query: str, limit: int, detail: str = "lean") -> list[dict[str, Any]]:
        return await self._search.search(user_id, query, limit, detail)

    async def export_user_data(self, user_id: int, cursor: str | None) -> dict[str, Any]:
        return await export.export_part(self._db, user_id, cursor, self.settings.export_part_bytes)

    async def export_everything(self, user_id: int, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
        return await export.export_all(self._db, user_id, progress)

    async def import_user_data(self, parts: list[Any], user_id: int, replace: bool = False) -> dict[str, int]:
        """Counts per kind (the CLI's answer); see ``import_user``."""
        return (await self.import_user(parts, user_id, replace))["imported"]

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
            counts, replaced = await import_user(self._db, parts, user_id, self._writer.caps, replace)
        finally:  # whatever the import reached, the index holds only what is stored
            await self._search.user_reloaded(user_id)
        await user_stats.recount(self._db, user_id)
        return counts, replaced

    async def delete_user_data(self, user_id: int) -> dict[str, Any]:
        await self._delete_user(user_id)
        # Only once the delete is committed: the checkpoint then overwrites the old page images.
        await self._db.scrub()
        return {"user_id": user_id, "deleted_at": utc_now(), "deleted": True}

    @unit_of_work
    async def _delete_user(self, user_id: int) -> None:
        try:
            await users.delete_user(self._db, user_id)
        finally:  # whatever the delete reached, the index holds only what is still stored
            await self._search.user_reloaded(user_id)

    async def list_users(self, limit: int, visible: set[int] | None = None) -> list[dict[str, Any]]:
        await self._writer.settle()
        return await users.list_users(self._db, limit, visible)

    async def audit(
        self,
        user_id: int | None,
        playlist_id: str | None,
        since: datetime | None,
        until: datetime | None,
        limit: int,
        cursor: str | None,
    ) -> dict[str, Any]:
        return await list_entries(self._db.audit_log, user_id, playlist_id, since, until, limit, cursor)
