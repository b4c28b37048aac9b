"""The per-user track catalog: idempotent upserts and lookups by id.

Documents are keyed ``"<user_id>:<track_id>"`` so a lookup of many ids is one ``_id $in`` query
(answered from the embedded engine's key map without a scan) that still filters on ``user_id``.
"""

from __future__ import annotations

from typing import Any

from service.audit.origin import written_by
from service.storage.database import Database
from service.timeutil import utc_now

# The fields a caller describes a track with; everything else on the document is bookkeeping.
TRACK_FIELDS = ("track_id", "name", "artists", "album", "duration_ms", "popularity", "genres", "energy")
_DEFAULTS: dict[str, Any] = {"album": None, "duration_ms": None, "popularity": None, "genres": [], "energy": None}


def track_key(user_id: int, track_id: str) -> str:
    return f"{user_id}:{track_id}"


def describe(document: dict[str, Any]) -> dict[str, Any]:
    """The public shape of a stored track (every field present, null when unknown)."""
    return {name: document.get(name, _DEFAULTS.get(name)) for name in TRACK_FIELDS}


def normalised(track: dict[str, Any]) -> dict[str, Any]:
    """A track as given, with omitted optional fields at their defaults, so an upsert that
    omits a field it gave before clears it (the call says what is known now)."""
    return {name: track.get(name, _DEFAULTS.get(name)) for name in TRACK_FIELDS}


async def describe_tracks(db: Database, user_id: int, track_ids: list[str]) -> dict[str, dict[str, Any]]:
    """``{track_id: {track_id, name, artists, album, duration_ms, popularity, genres, energy}}`` for
    each id of ``track_ids`` in the user's catalog; unknown ids are absent."""
    if not track_ids:
        return {}
    keys = [track_key(user_id, t) for t in dict.fromkeys(track_ids)]
    found = await db.tracks.find({"_id": {"$in": keys}, "user_id": user_id})
    return {doc["track_id"]: describe(doc) for doc in found}


async def all_tracks(db: Database, user_id: int) -> list[dict[str, Any]]:
    """Every track of the user's catalog in its public shape (the resolver's index, export)."""
    return [describe(doc) for doc in await db.tracks.find({"user_id": user_id}, sort=[("_id", 1)])]


async def upsert_tracks(db: Database, user_id: int, tracks: list[dict[str, Any]]) -> dict[str, Any]:
    """Insert new tracks, rewrite changed ones, leave identical ones untouched (no write, no
    audit entry). A track listed twice in one call: the last description wins."""
    latest: dict[str, dict[str, Any]] = {}
    for track in tracks:
        latest[track["track_id"]] = normalised(track)
    stored = {
        doc["track_id"]: doc
        for doc in await db.tracks.find({"_id": {"$in": [track_key(user_id, t) for t in latest]}, "user_id": user_id})
    }
    counts = {"inserted": 0, "updated": 0, "unchanged": 0}
    changed: list[str] = []
    now = utc_now()
    for track_id, fields in latest.items():
        current = stored.get(track_id)
        if current is not None and describe(current) == fields:
            counts["unchanged"] += 1
            continue
        document = {
            "_id": track_key(user_id, track_id),
            "user_id": user_id,
            **fields,
            "first_seen_at": current["first_seen_at"] if current is not None else now,
            "updated_at": now,
            "written_by": written_by(),
        }
        await db.tracks.replace_one(document)
        counts["inserted" if current is None else "updated"] += 1
        changed.append(track_id)
    return {**counts, "changed": changed, "at": now}
