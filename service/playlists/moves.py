"""Ledger moves the service can name: undo (and redo), resync, fork, diff and timeline of a logged playlist.

Each writing move is one event through ``LedgerWriter.append``, planned against the playlist as it
stands at the attempt, so it shares the writer's commit point, idempotency and crash safety.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from service.errors import InvalidArgument, PlaylistNotYetCreated, PlaylistTooLong
from service.ledger.diffing import diff_answer
from service.ledger.edits import edit_script
from service.ledger.history import buckets_of, events_of, state_after_seq
from service.ledger.idempotency import request_hash
from service.ledger.reader import LedgerReader
from service.ledger.records import EventType, LedgerEvent, Lineage
from service.ledger.state import PlaylistState, meta_patch
from service.ledger.timeline import playlist_timeline
from service.ledger.undo import choose_target
from service.ledger.writer import LedgerWriter
from service.paging import decode_cursor, offset_of, pinned_time
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.timeutil import utc_now


def scripted_result(result: dict[str, Any], event: LedgerEvent) -> dict[str, Any]:
    """A RESYNC's or UNDO's answer, from the event as stored (a retry answers the same)."""
    payload = event["payload"]
    answer = {
        **result,
        "added_count": len(payload["added"]),
        "removed_count": len(payload["removed"]),
        "meta_fields": sorted(payload.get("meta", {})),
    }
    if event["type"] == "UNDO":
        answer["undid"] = {"event_id": payload["undoes"], "type": payload["undoes_type"], "redo": payload["redo"]}
    return answer


def _scripted(current: PlaylistState, target: PlaylistState) -> dict[str, Any]:
    payload: dict[str, Any] = edit_script(current.track_ids, target.track_ids)
    meta = meta_patch(current.meta, target.meta)
    if meta:
        payload["meta"] = meta
    return payload


class LedgerMoves:
    def __init__(
        self, db: Database, settings: Settings, writer: LedgerWriter, reader: LedgerReader, search: SearchEngine
    ) -> None:
        self._db = db
        self._settings = settings
        self._writer = writer
        self._reader = reader
        self._search = search

    @unit_of_work
    async def undo(self, arguments: dict[str, Any], timestamp: datetime | None) -> dict[str, Any]:
        """Append an UNDO restoring the contents before the latest change still in force (or, with
        ``event_id`` naming an UNDO, a redo restoring the contents before that UNDO)."""
        user_id, playlist_id = arguments["user_id"], arguments["playlist_id"]

        async def plan(head: dict[str, Any], state: PlaylistState) -> tuple[EventType, dict[str, Any]]:
            buckets = await buckets_of(self._db, head)
            target = choose_target(events_of(buckets), arguments.get("event_id"))
            restored = state_after_seq(buckets, target.restore_seq)
            return "UNDO", {
                "undoes": target.undoes["event_id"],
                "undoes_type": target.undoes["type"],
                "redo": target.redo,
                **_scripted(state, restored),
            }

        result, event = await self._writer.append(
            user_id, playlist_id, plan, timestamp, arguments.get("client_event_id"), request_hash(arguments)
        )
        await self._search_after(user_id, playlist_id, result, event)
        return scripted_result(result, event)

    @unit_of_work
    async def resync(self, arguments: dict[str, Any], timestamp: datetime | None) -> dict[str, Any]:
        """Record that the playlist now holds exactly ``track_ids`` (the user edited it elsewhere): a
        RESYNC event with the exact edit script, opening a new snapshot."""
        user_id, playlist_id, wanted = arguments["user_id"], arguments["playlist_id"], arguments["track_ids"]
        if len(wanted) > self._settings.max_playlist_tracks:
            raise PlaylistTooLong(
                f"the playlist would hold {len(wanted)} tracks; the limit is {self._settings.max_playlist_tracks}",
                {"field": "track_ids"},
            )

        async def plan(head: dict[str, Any], state: PlaylistState) -> tuple[EventType, dict[str, Any]]:
            payload: dict[str, Any] = edit_script(state.track_ids, wanted)
            if arguments.get("reason") is not None:
                payload["reason"] = arguments["reason"]
            return "RESYNC", payload

        result, event = await self._writer.append(
            user_id,
            playlist_id,
            plan,
            timestamp,
            arguments.get("client_event_id"),
            request_hash(arguments),
            snapshot_source="resync",
        )
        await self._search_after(user_id, playlist_id, result, event)
        return scripted_result(result, event)

    @unit_of_work
    async def fork(self, arguments: dict[str, Any], at_time: datetime | None) -> dict[str, Any]:
        """A new playlist holding the source's contents and metadata now (or at ``at_time``), with
        its lineage; a retry of the same request returns the first answer."""
        user_id, source_id = arguments["user_id"], arguments["playlist_id"]
        at = at_time if at_time is not None else utc_now()
        state, bucket, applied = await self._reader.replayed_at(user_id, source_id, at)
        source = await self._reader.head(user_id, source_id, {"seed_context": 1})
        meta = {"intent_tags": [], **state.meta}
        if arguments.get("name") is not None:
            meta["name"] = arguments["name"]
        lineage: Lineage = {"playlist_id": source_id, "at": at, "seq": bucket["base_seq"] + applied}
        created = await self._writer.create(
            user_id,
            arguments["new_playlist_id"],
            meta,
            list(state.track_ids),
            source.get("seed_context") or {},
            None,
            None,
            request_hash(arguments),
            lineage,
        )
        self._search.playlist_created(
            user_id,
            {"playlist_id": arguments["new_playlist_id"], **meta, "seed_context": source.get("seed_context") or {}},
            created["created_at"],
        )
        stored = await self._reader.head(user_id, arguments["new_playlist_id"], {"forked_from": 1})
        return {**created, "forked_from": stored.get("forked_from") or lineage}

    async def diff(
        self, user_id: int, playlist_id: str, from_time: datetime, to_time: datetime | None, cursor: str | None = None
    ) -> dict[str, Any]:
        """What changed between two moments: tracks added, removed and moved, metadata, events; a
        page of each list, ``cursor`` going on from the page before (its "now" pinned in it)."""
        offsets = None
        if cursor is not None:
            state = decode_cursor(cursor, "diff")
            offsets = {k: offset_of(state, k) for k in ("added", "removed", "moved", "events")}
            pinned = str(state.get("to"))
            if state.get("from") != from_time.isoformat() or to_time not in (None, pinned_time(pinned)):
                raise InvalidArgument("cursor belongs to another from_time or to_time", {"field": "cursor"})
            to_time = pinned_time(pinned)
        until = to_time if to_time is not None else utc_now()
        if until < from_time:
            raise InvalidArgument("to_time is before from_time", {"field": "to_time"})
        after, _, _ = await self._reader.replayed_at(user_id, playlist_id, until)
        try:
            before, _, _ = await self._reader.replayed_at(user_id, playlist_id, from_time)
            existed = True
        except PlaylistNotYetCreated:
            before, existed = PlaylistState([], {}), False
        head = await self._reader.head(user_id, playlist_id, {"bucket_index": 1})
        # Only the buckets that can hold events of the window: a diff costs what it covers.
        buckets = await buckets_of(
            self._db, {**head, "user_id": user_id, "playlist_id": playlist_id}, from_time if existed else None, until
        )
        return diff_answer(playlist_id, from_time, until, before, after, existed, buckets, offsets)

    async def timeline(
        self, user_id: int, playlist_id: str, max_points: int, cursor: str | None = None
    ) -> dict[str, Any]:
        """Track count over the playlist's whole history, in at most ``max_points`` time bins, a
        page of them at a time."""
        head = await self._reader.head(user_id, playlist_id, {"bucket_index": 1})
        return await playlist_timeline(
            self._db, {**head, "user_id": user_id, "playlist_id": playlist_id}, max_points, cursor
        )

    async def _search_after(self, user_id: int, playlist_id: str, result: dict[str, Any], event: LedgerEvent) -> None:
        # An undo that restores a name or tags is re-read by search as an UPDATE_META would be.
        kind = "UPDATE_META" if event["payload"].get("meta") else event["type"]
        await self._search.playlist_changed(user_id, playlist_id, kind, result["timestamp"])
