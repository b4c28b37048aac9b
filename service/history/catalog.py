"""The tracks an import names by an id (a Spotify id, a Last.fm mbid: ``track_ids``), added to the
catalog through the catalog's own upsert, with the external ids the id stands for. Only tracks the
catalog does not hold yet, by their id or as another track holding the same Spotify id or mbid: an
upsert rewrites every field, and a history knows a track's name, artist and album, not the genres
or energy a stored track may have. Rows naming no id (account data, most Last.fm scrobbles) add
no catalog entry. Every step goes in slices with the loop given back between them: one file names
up to tens of thousands of plays and tracks."""

from __future__ import annotations

import asyncio
from typing import Any

from service.history.track_ids import external_ids, known_as
from service.storage.database import Database
from service.tracks.service import TrackService

NAME_MAX, ARTIST_MAX, ALBUM_MAX = 300, 200, 300  # memory_upsert_tracks' own limits
UPSERT_SLICE = 50  # tracks per upsert (about 1 ms each): the loop is given back between slices
# Tracks carrying external ids: each upsert of them reads the catalog's ids once (to merge a
# recording it holds already), so they go in fewer, larger calls.
UPSERT_SLICE_WITH_IDS = 500
# Tracks per unit of work: one commit each (a synced write), encoded on the loop (about 30 ms).
UNIT_TRACKS = 500
LOOKUP_SLICE = 1000  # track ids looked up, or plays gone through, between two turns of the loop


async def add_tracks(db: Database, tracks: TrackService, user_id: int, stored: list[dict[str, Any]]) -> int:
    """Add the catalog entries of ``stored`` plays not in the catalog, each slice its own unit of
    work; returns how many."""
    named = await _naming_plays(stored)
    if not named:
        return 0
    ids = list(named)
    known: set[str] = set()
    for start in range(0, len(ids), LOOKUP_SLICE):
        known |= await tracks.catalogued(user_id, ids[start : start + LOOKUP_SLICE])
        await asyncio.sleep(0)
    new = [track_id for track_id in ids if track_id not in known]
    # Another track may already be the recording, holding the id among its external ids.
    taken = await tracks.held_among(user_id, {pair for track_id in new for pair in known_as(track_id)})
    new_tracks = [_track(named[t]) for t in new if not taken.intersection(known_as(t))]
    added = 0
    plain = [track for track in new_tracks if "external_ids" not in track]
    with_ids = [track for track in new_tracks if "external_ids" in track]
    for batch, size in ((plain, UPSERT_SLICE), (with_ids, UPSERT_SLICE_WITH_IDS)):
        for unit in range(0, len(batch), UNIT_TRACKS):
            async with db.unit():
                for start in range(unit, min(len(batch), unit + UNIT_TRACKS), size):
                    done = await tracks.upsert_tracks(user_id, batch[start : start + size])
                    added += int(done["inserted"])
                    await asyncio.sleep(0)  # thousands of new tracks: other sessions are served between slices
    return added


def _order(entry: dict[str, Any]) -> tuple[Any, ...]:
    return entry["played_at"], entry["track"] or "", entry["artist"], entry["album"] or ""


async def _naming_plays(stored: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Track id → the earliest play naming it (ties broken by the names), so the order rows were
    stored in does not matter."""
    named: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(stored):
        track_id, name, artist = entry["track_id"], entry["track"], entry["artist"]
        if track_id and name and len(name) <= NAME_MAX and len(artist) <= ARTIST_MAX:
            held = named.get(track_id)
            if held is None or _order(entry) < _order(held):
                named[track_id] = entry
        if i % LOOKUP_SLICE == LOOKUP_SLICE - 1:
            await asyncio.sleep(0)
    return named


def _track(entry: dict[str, Any]) -> dict[str, Any]:
    album, ids = entry["album"], external_ids(entry["track_id"])
    return {
        "track_id": entry["track_id"],
        "name": entry["track"],
        "artists": [entry["artist"]],
        "album": album if album and len(album) <= ALBUM_MAX else None,
        **({"external_ids": ids} if ids else {}),
    }
