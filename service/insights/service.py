"""Reports over one user's whole history: rotation (new tracks vs staples) and recurring feedback.

Both read only that user's records (every query filters on ``user_id``) and store nothing, so
export, import and delete are unaffected; the cost is that user's history, with yields to the
event loop while it is replayed.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from service.insights import feedback, rotation
from service.insights.presence import read_presence
from service.settings import Settings
from service.storage.database import Database
from service.timeutil import utc_now
from service.tracks.catalog import describe_tracks

CLASSIFIED_BETWEEN_YIELDS = 2_000


class InsightService:
    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self.settings = settings

    async def rotation_report(self, user_id: int, days: int, limit: int) -> dict[str, Any]:
        as_of = utc_now()
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
        shown_new, shown_staples = new[:limit], staples[:limit]
        described = await describe_tracks(self._db, user_id, [e["track_id"] for e in shown_new + shown_staples])
        fitted_new, fitted_staples, trimmed = rotation.fit(
            rotation.named(shown_new, described),
            rotation.named(shown_staples, described),
            self.settings.result_budget_bytes,
        )
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
            "new": fitted_new,
            "staples": fitted_staples,
            "truncated": trimmed or len(new) > limit or len(staples) > limit,
        }

    async def feedback_summary(self, user_id: int, limit: int) -> dict[str, Any]:
        return await feedback.summarize(self._db, user_id, limit, self.settings.result_budget_bytes)
