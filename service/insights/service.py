"""Reports over one user's whole history: rotation (new tracks vs staples) and recurring feedback.

Both read only that user's records (every query filters on ``user_id``) and store nothing, so
export, import and delete are unaffected; the cost is that user's history, with yields to the
event loop while it is replayed.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from service.errors import InvalidArgument
from service.insights import feedback, rotation
from service.insights.presence import read_presence
from service.paging import PAGE_BYTES, decode_cursor, encode_cursor, offset_of, pinned_time, shares
from service.settings import Settings
from service.storage.database import Database
from service.timeutil import utc_now
from service.tracks.catalog import describe_tracks

CLASSIFIED_BETWEEN_YIELDS = 2_000


class InsightService:
    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self.settings = settings

    async def rotation_report(self, user_id: int, days: int, limit: int, cursor: str | None = None) -> dict[str, Any]:
        """A page of each list: at most ``limit`` entries and together within ``PAGE_BYTES``;
        ``next_cursor`` goes on (with the first page's moment pinned, so the window stays put)."""
        state = decode_cursor(cursor, "rotation") if cursor is not None else {}
        as_of = pinned_time(str(state.get("as_of"))) if cursor is not None else utc_now()
        presence = await read_presence(self._db, user_id)
        new: list[dict[str, Any]] = []
        staples: list[dict[str, Any]] = []
        tracks = list(presence.stays)
        for start in range(0, len(tracks), CLASSIFIED_BETWEEN_YIELDS):
            found_new, found_staples = rotation.classify(
                presence, as_of, days, tracks[start : start + CLASSIFIED_BETWEEN_YIELDS]
            )
            new += found_new
            staples += found_staples
            await asyncio.sleep(0)  # tens of thousands of tracks must not stall other sessions
        rotation.in_order(new, staples)
        at = {"new": 0, "staples": 0}
        if cursor is not None:
            at = {k: offset_of(state, k, end=len(v)) for k, v in (("new", new), ("staples", staples))}
            if state.get("days") != days:
                raise InvalidArgument("cursor belongs to another days", {"field": "cursor"})
        shown_new, shown_staples = new[at["new"] : at["new"] + limit], staples[at["staples"] : at["staples"] + limit]
        described = await describe_tracks(self._db, user_id, [e["track_id"] for e in shown_new + shown_staples])
        lists = {"new": rotation.named(shown_new, described), "staples": rotation.named(shown_staples, described)}
        taken = shares(lists, {"new": 0, "staples": 0}, min(PAGE_BYTES, self.settings.result_budget_bytes))
        after = {k: at[k] + taken[k] for k in lists}
        more = after["new"] < len(new) or after["staples"] < len(staples)
        in_rotation = len(presence.stays)
        return {
            "as_of": as_of,
            "days": days,
            "window_start": as_of - timedelta(days=days),
            "totals": {
                "playlists": presence.playlist_count,
                "tracks_in_rotation": in_rotation,
                "new": len(new),
                "staples": len(staples),
                "other": in_rotation - len(new) - len(staples),
            },
            "new": lists["new"][: taken["new"]],
            "staples": lists["staples"][: taken["staples"]],
            "truncated": more or any(at.values()),
            "next_cursor": encode_cursor("rotation", {**after, "as_of": as_of.isoformat(), "days": days})
            if more
            else None,
        }

    async def feedback_summary(self, user_id: int, limit: int) -> dict[str, Any]:
        return await feedback.summarize(self._db, user_id, limit, self.settings.result_budget_bytes)
