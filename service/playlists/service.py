"""The PRD's ledger tools: log a playlist's creation and each change, list, read and reconstruct;
each write keeps search in step, and every answer stays within the result budget."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from service.ledger.idempotency import request_hash
from service.ledger.listing import list_playlists
from service.ledger.reader import LedgerReader
from service.ledger.records import PlaylistDetails
from service.ledger.writer import LedgerWriter
from service.limits import require_at_most
from service.playlists.reports import RuleReports, Setting, split
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.tracks.naming import name_tracks
from service.tracks.service import TrackService


class PlaylistService:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        writer: LedgerWriter,
        reader: LedgerReader,
        search: SearchEngine,
        tracks: TrackService,
    ) -> None:
        self._db = db
        self.settings = settings
        self._writer = writer
        self._reader = reader
        self._search = search
        self._reports = RuleReports(db, tracks)

    @unit_of_work
    async def create(self, arguments: dict[str, Any], created_at: datetime | None) -> dict[str, Any]:
        arguments, extension = split(arguments)
        require_at_most(
            arguments.get("intent_tags", []), self.settings.max_intent_tags_bytes, "intent_tags", "intent_tags"
        )
        require_at_most(
            arguments.get("seed_context", {}), self.settings.max_payload_bytes, "seed_context", "seed_context"
        )
        meta = {"name": arguments["name"], "intent_tags": arguments.get("intent_tags", [])}
        setting = await self._reports.setting(arguments["user_id"], extension, meta["intent_tags"])
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
        return await self._reported(arguments, extension, setting, result)

    @unit_of_work
    async def mutate(self, arguments: dict[str, Any], timestamp: datetime | None) -> dict[str, Any]:
        arguments, extension = split(arguments)
        setting = await self._reports.setting(arguments["user_id"], extension, [])
        if arguments["type"] == "UPDATE_META" and isinstance(arguments["payload"], dict):
            require_at_most(
                arguments["payload"].get("intent_tags", []),
                self.settings.max_intent_tags_bytes,
                "payload.intent_tags",
                "intent_tags",
            )
        result = await self._writer.mutate(
            arguments["user_id"],
            arguments["playlist_id"],
            arguments["type"],
            arguments["payload"],
            timestamp,
            arguments.get("client_event_id"),
            request_hash(arguments),
        )
        await self._search.playlist_changed(
            arguments["user_id"], arguments["playlist_id"], arguments["type"], result["timestamp"]
        )
        return await self._reported(arguments, extension, setting, result)

    async def _reported(
        self, arguments: dict[str, Any], extension: dict[str, Any], setting: Setting, result: dict[str, Any]
    ) -> dict[str, Any]:
        """The answer, with the rule report of the playlist as it stands now when asked for (a
        retry's too: it reports the current contents, not those of the first answer)."""
        if not extension.get("check_rules"):
            return result
        user_id = arguments["user_id"]
        head, _ = await self._writer.open_head(user_id, arguments["playlist_id"], shared=True)
        report = await self._reports.report(user_id, list(head["track_ids"]), setting)
        return {**result, "rule_report": report}

    async def page(self, user_id: int, limit: int, cursor: str | None) -> dict[str, Any]:
        """One page of the listing, newest-updated first."""
        await self._writer.settle(user_id)
        return await list_playlists(self._db, user_id, limit, cursor, self.settings.result_budget_bytes)

    async def get(self, user_id: int, playlist_id: str, events_limit: int) -> PlaylistDetails:
        return await self._reader.get_playlist(user_id, playlist_id, events_limit, self.settings.result_budget_bytes)

    async def reconstruct(self, user_id: int, playlist_id: str, at_time: datetime | None) -> dict[str, Any]:
        return await self._reader.reconstruct_at(user_id, playlist_id, at_time)

    async def name_tracks(self, user_id: int, track_ids: list[str]) -> dict[str, Any]:
        """Catalog names for a playlist answer's track IDs (``include_tracks``), within its budget."""
        return await name_tracks(self._db, user_id, track_ids, self.settings.result_budget_bytes)
