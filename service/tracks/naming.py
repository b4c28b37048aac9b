"""Names beside IDs: the ``tracks`` array that ``include_tracks`` adds to playlist answers."""

from __future__ import annotations

import json
from typing import Any

from service.storage.database import Database
from service.tracks.catalog import describe_tracks

UNKNOWN = {"name": None, "artists": None, "duration_ms": None}


async def name_tracks(db: Database, user_id: int, track_ids: list[str], budget_bytes: int) -> dict[str, Any]:
    """``tracks[i]`` describes ``track_ids[i]`` ({track_id, name, artists, duration_ms}; null fields
    for an ID the catalog does not know). The answer already carries the IDs: the descriptions
    fill what is left of ``budget_bytes`` after them, from the start, and ``tracks_truncated``
    says whether they stop before the list does (one message must stay under 1 MiB)."""
    known = await describe_tracks(db, user_id, track_ids)
    room = budget_bytes - len(json.dumps(track_ids, ensure_ascii=False))
    tracks: list[dict[str, Any]] = []
    for track_id in track_ids:
        found = known.get(track_id)
        entry = {"track_id": track_id, **({k: found[k] for k in UNKNOWN} if found else UNKNOWN)}
        room -= len(json.dumps(entry, ensure_ascii=False)) + 1
        if room < 0:
            break
        tracks.append(entry)
    return {"tracks": tracks, "tracks_truncated": len(tracks) < len(track_ids)}
