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

# More rows than a page can hold (a row takes 100 bytes at least, a page PAGE_BYTES).
PAGE_ROWS = 200


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
        start = offset_of(state, "o", end=len(track_ids))
        if cursor is None:  # the counts once, on the first page; the cursor carries them on
            shown = portability_rows(track_ids, await with_ids(self._db, user_id, track_ids), target)
            state["m"] = sum(1 for r in shown if r["status"] == "matched")
        else:  # a later page reads only the tracks it can show
            window = track_ids[start : start + PAGE_ROWS]
            shown = portability_rows(window, await with_ids(self._db, user_id, window), target, start)
        matched = offset_of(state, "m", end=len(track_ids))
        end = start + (fitting(shown, PAGE_BYTES) if shown else 0)
        return {
            "user_id": user_id,
            "playlist_id": playlist_id,
            "target": target,
            "as_of": at,
            "track_count": len(track_ids),
            "counts": {"matched": matched, "unmatched": len(track_ids) - matched},
            "tracks": shown[: end - start],
            "next_cursor": encode_cursor("portability", {**state, "o": end}) if end < len(track_ids) else None,
        }
