"""A playlist's portability report: which of its tracks the catalog can name on another service,
in playlist order, a page at a time.

The first page pins the moment it read the playlist, and the cursor carries it: later pages read
the playlist as it stood then, so a change logged between pages neither skips nor repeats a track.
"""

from __future__ import annotations

from typing import Any

from service.errors import InvalidArgument
from service.ledger.reader import LedgerReader
from service.paging import PAGE_BYTES, decode_cursor, encode_cursor, fitting, offset_of, pinned_time
from service.storage.database import Database
from service.timeutil import as_utc, utc_now
from service.tracks.catalog import with_ids
from service.tracks.portability import Target, portability_rows


class Portability:
    def __init__(self, db: Database, reader: LedgerReader) -> None:
        self._db = db
        self._reader = reader

    async def report(self, user_id: int, playlist_id: str, target: Target, cursor: str | None) -> dict[str, Any]:
        if cursor is None:
            playlist, bucket, _ = await self._reader.replayed_at(user_id, playlist_id, None)
            at = max(utc_now(), as_utc(bucket["end_time"]))  # a change may be logged for a later moment
            state: dict[str, Any] = {"o": 0, "at": at.isoformat(), "t": target}
        else:
            state = decode_cursor(cursor, "portability")
            if state.get("t") != target:
                raise InvalidArgument("cursor belongs to another target", {"field": "cursor"})
            at = pinned_time(str(state.get("at")))
            playlist, _, _ = await self._reader.replayed_at(user_id, playlist_id, at)
        track_ids = playlist.track_ids
        rows = portability_rows(track_ids, await with_ids(self._db, user_id, track_ids), target)
        start = offset_of(state, "o", end=len(rows))
        end = start + fitting(rows, PAGE_BYTES, start) if start < len(rows) else start
        matched = sum(1 for r in rows if r["status"] == "matched")
        return {
            "user_id": user_id,
            "playlist_id": playlist_id,
            "target": target,
            "as_of": at,
            "track_count": len(rows),
            "counts": {"matched": matched, "unmatched": len(rows) - matched},
            "tracks": rows[start:end],
            "next_cursor": encode_cursor("portability", {**state, "o": end}) if end < len(rows) else None,
        }
