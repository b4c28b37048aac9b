"""Reads of the ledger: exact contents at any moment, one playlist's details, the listing."""

from __future__ import annotations

import bisect
import json
from datetime import datetime
from typing import Any

from service.errors import PlaylistNotFound, PlaylistNotYetCreated
from service.ledger.keys import head_id
from service.ledger.projection import load_bucket, read_bucket, replay_bucket, walk_forward
from service.ledger.records import Bucket, LedgerEvent, PlaylistDetails
from service.ledger.state import PlaylistState
from service.ledger.writer import LedgerWriter
from service.storage.database import Database
from service.timeutil import as_utc, utc_now


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


class LedgerReader:
    def __init__(self, db: Database, writer: LedgerWriter) -> None:
        self._db = db
        self._writer = writer

    async def head(self, user_id: int, playlist_id: str, projection: dict[str, int] | None = None) -> dict[str, Any]:
        """The playlist document (or the fields of ``projection``); NOT_FOUND if never logged."""
        head = await self._db.playlists.find_one({"_id": head_id(user_id, playlist_id), "user_id": user_id}, projection)
        if head is None:
            # Roll forward a creation a crash interrupted; raises if the playlist was never logged.
            head, _ = await self._writer.open_head(user_id, playlist_id)
        return head

    async def replayed_at(
        self, user_id: int, playlist_id: str, at_time: datetime | None
    ) -> tuple[PlaylistState, Bucket, int]:
        """The state at ``at_time`` (latest if None), the bucket replayed and how many of its events
        applied: one bucket read plus a short replay."""
        head = await self.head(user_id, playlist_id, {"bucket_index": 1})
        index = head["bucket_index"]
        if at_time is not None and at_time < as_utc(index[0][1]):
            raise PlaylistNotYetCreated(
                "the playlist did not exist yet at at_time", {"field": "at_time", "created_at": index[0][1]}
            )
        if at_time is None:
            position = len(index) - 1
        else:
            starts = [as_utc(entry[1]) for entry in index]
            position = bisect.bisect_right(starts, at_time) - 1
        bucket = await read_bucket(self._db, user_id, playlist_id, index[position][0])
        if bucket is None:  # pragma: no cover - buckets are never deleted while the playlist exists
            raise PlaylistNotFound("playlist history is missing", {"field": "playlist_id"})
        if position == len(index) - 1:
            # The document may trail the buckets after a crash: newer buckets are contiguous.
            _newest, newer = await walk_forward(self._db, bucket)
            for candidate in newer:
                if at_time is None or as_utc(candidate["start_time"]) <= at_time:
                    bucket = candidate
        state, applied = replay_bucket(bucket, max_tracks=1 << 62, until=at_time)
        return state, bucket, applied

    async def reconstruct_at(self, user_id: int, playlist_id: str, at_time: datetime | None) -> dict[str, Any]:
        """Exact track list at ``at_time`` (latest if None)."""
        state, bucket, applied = await self.replayed_at(user_id, playlist_id, at_time)
        last_change = as_utc(bucket["end_time"])
        as_of = at_time if at_time is not None else max(utc_now(), last_change)
        return {
            "playlist_id": playlist_id,
            "as_of": as_of,
            "track_ids": state.track_ids,
            "reconstruction": {"used_snapshot_id": bucket["snapshot"]["snapshot_id"], "applied_event_count": applied},
        }

    async def get_playlist(
        self, user_id: int, playlist_id: str, events_limit: int, budget_bytes: int = 400_000
    ) -> PlaylistDetails:
        """Metadata, latest snapshot and the newest ``events_limit`` events, oldest first.

        The answer must fit one MCP message (the official SSE client refuses more than 1 MiB and
        the envelope is carried twice), so older events are left out once the answer would pass
        ``budget_bytes``; the export has all of them."""
        # Checked against the newest bucket (two reads by _id), so never behind the ledger.
        head, _ = await self._writer.open_head(user_id, playlist_id)
        events = head["recent_events"]
        if events_limit > len(events) and head["seq"] > len(events):
            events = await self._older_events(head, events_limit)
        events = events[-events_limit:] if events_limit else []
        if any(e.get("payload_in_history") for e in events):
            full = {e["seq"]: e for e in await self._older_events(head, head["seq"] - events[0]["seq"] + 1)}
            events = [full.get(e["seq"], e) if e.get("payload_in_history") else e for e in events]
        room = budget_bytes - _json_size(head["latest_snapshot"]["track_ids"])
        kept: list[LedgerEvent] = []
        for event in reversed(events):
            room -= _json_size(event["payload"]) + 200
            if room < 0:
                break
            kept.append(event)
        return {"head": head, "recent_events": kept[::-1]}

    async def _older_events(self, head: dict[str, Any], limit: int) -> list[LedgerEvent]:
        collected: dict[int, LedgerEvent] = {}
        base: int | None = head["open_base_seq"]
        while base is not None and len(collected) < limit:
            bucket = await load_bucket(self._db, head["user_id"], head["playlist_id"], base)
            if bucket is None:
                break
            for event in bucket["events"]:
                collected.setdefault(event["seq"], event)
            base = bucket.get("prev_base_seq")
        return [collected[s] for s in sorted(collected)]
