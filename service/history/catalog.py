"""The tracks an import names by an id (a Spotify id, a Last.fm mbid: ``track_ids``), added to the
catalog through the catalog's own upsert, with the external ids the id stands for. Only tracks the
catalog does not hold yet, by their id or as another track holding the same Spotify id or mbid: an
upsert rewrites every field, and a history knows a track's name, artist and album, not the genres
or energy a stored track may have. Rows naming no id (account data, most Last.fm scrobbles) add
no catalog entry."""

from __future__ import annotations

import asyncio
from typing import Any

from service.history.track_ids import external_ids, known_as
from service.storage.database import Database
from service.tracks.identity import held
from service.tracks.service import TrackService

NAME_MAX, ARTIST_MAX, ALBUM_MAX = 300, 200, 300  # memory_upsert_tracks' own limits
UPSERT_SLICE = 50  # tracks per upsert (about 1 ms each): the loop is given back between slices
# Tracks carrying external ids: each upsert of them reads the catalog's ids once (to merge a
# recording it holds already), so they go in fewer, larger calls.
UPSERT_SLICE_WITH_IDS = 500
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
                **({"external_ids": ids} if (ids := external_ids(track_id)) else {}),
            },
        )
    if not named:
        return 0
    known = await tracks.describe(user_id, list(named))
    new = await _not_held(db, user_id, [track for track_id, track in named.items() if track_id not in known])
    added = 0
    plain = [track for track in new if "external_ids" not in track]
    with_ids = [track for track in new if "external_ids" in track]
    for batch, size in ((plain, UPSERT_SLICE), (with_ids, UPSERT_SLICE_WITH_IDS)):
        for unit in range(0, len(batch), UNIT_TRACKS):
            async with db.unit():
                for start in range(unit, min(len(batch), unit + UNIT_TRACKS), size):
                    done = await tracks.upsert_tracks(user_id, batch[start : start + size])
                    added += int(done["inserted"])
                    await asyncio.sleep(0)  # thousands of new tracks: other sessions are served between slices
    return added


async def _not_held(db: Database, user_id: int, new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``new`` without the tracks another catalog track already is: one holding the same Spotify id
    or mbid among its external ids (a track whose own id it is was found by id). Only tracks with
    external ids can, so only those are read: most catalogs have few. The embedded engine still
    tests every track of the user against the filter: 0.33 s at 20,000 tracks, once per file that
    names a track not in the catalog."""
    wanted = {pair for track in new for pair in known_as(track["track_id"])}
    if not wanted:
        return new
    holders = await db.tracks.find(
        {"user_id": user_id, "external_ids": {"$exists": True}}, {"track_id": 1, "external_ids": 1}
    )
    taken = {pair for doc in holders for pair in held(doc) if pair in wanted}
    return [track for track in new if not taken.intersection(known_as(track["track_id"]))]
