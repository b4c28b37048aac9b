"""The tracks an import names with a Spotify id, added to the catalog through the catalog's own
upsert. Only tracks the catalog does not hold yet: an upsert rewrites every field, and a history
knows a track's name, artist and album, not the genres or energy a stored track may have. Rows
without a Spotify id (account data, Last.fm) add no catalog entry: a track's id is its Spotify id."""

from __future__ import annotations

import asyncio
from typing import Any

from service.storage.database import Database
from service.tracks.service import TrackService

NAME_MAX, ARTIST_MAX, ALBUM_MAX = 300, 200, 300  # memory_upsert_tracks' own limits
UPSERT_SLICE = 50  # tracks per upsert (about 1 ms each): the loop is given back between slices
# Tracks per unit of work: one commit each (a synced write), encoded on the loop (about 30 ms).
UNIT_TRACKS = 500


async def add_tracks(db: Database, tracks: TrackService, user_id: int, stored: list[dict[str, Any]]) -> int:
    """Add the catalog entries of ``stored`` plays not in the catalog, each slice its own unit of
    work; returns how many."""
    named: dict[str, dict[str, Any]] = {}
    # The earliest play names the track, so the order rows were stored in does not matter.
    for entry in sorted(stored, key=lambda e: (e["played_at"], e["track"] or "", e["artist"], e["album"] or "")):
        track_id, name, artist, album = entry["track_id"], entry["track"], entry["artist"], entry["album"]
        if not track_id or not name or len(name) > NAME_MAX or len(artist) > ARTIST_MAX:
            continue
        named.setdefault(
            track_id,
            {
                "track_id": track_id,
                "name": name,
                "artists": [artist],
                "album": album if album and len(album) <= ALBUM_MAX else None,
            },
        )
    if not named:
        return 0
    known = await tracks.describe(user_id, list(named))
    new = [track for track_id, track in named.items() if track_id not in known]
    if not new:
        return 0
    added = 0
    for unit in range(0, len(new), UNIT_TRACKS):
        async with db.unit():
            for start in range(unit, min(len(new), unit + UNIT_TRACKS), UPSERT_SLICE):
                done = await tracks.upsert_tracks(user_id, new[start : start + UPSERT_SLICE])
                added += int(done["inserted"])
                await asyncio.sleep(0)  # thousands of new tracks: other sessions are served between slices
    return added
