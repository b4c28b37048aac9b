"""The per-user track catalog: idempotent upserts and lookups by id.

Documents are keyed ``"<user_id>:<track_id>"`` so a lookup of many ids is one ``_id $in`` query
(answered from the embedded engine's key map without a scan) that still filters on ``user_id``.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from service.audit.origin import written_by
from service.errors import ExternalIdHeld
from service.storage.database import Database
from service.timeutil import utc_now
from service.tracks.identity import held, identity_filter, spelled

# The fields a caller describes a track with; everything else on the document is bookkeeping.
TRACK_FIELDS = ("track_id", "name", "artists", "album", "duration_ms", "popularity", "genres", "energy")
_DEFAULTS: dict[str, Any] = {"album": None, "duration_ms": None, "popularity": None, "genres": [], "energy": None}


SCAN_SLICE = 2000  # stored tracks gone through between two turns of the event loop


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


async def catalogued(db: Database, user_id: int, track_ids: list[str]) -> set[str]:
    """Which of ``track_ids`` the user's catalog holds (read by key, only the ids)."""
    keys = [track_key(user_id, t) for t in dict.fromkeys(track_ids)]
    found = await db.tracks.find({"_id": {"$in": keys}, "user_id": user_id}, {"track_id": 1})
    return {doc["track_id"] for doc in found}


async def held_among(db: Database, user_id: int, wanted: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Which of the (key, id) pairs ``wanted`` some catalog track holds. The embedded engine goes
    through the stored tracks themselves, giving the loop back every ``SCAN_SLICE`` (its matcher
    took 0.33 s at 20,000 tracks in one go); MongoDB answers from the per-key indexes."""
    if not wanted:
        return set()
    if db.engine != "embedded":
        clauses = identity_filter(sorted(wanted), lambda t: track_key(user_id, t))
        found = await db.tracks.find({"user_id": user_id, "$or": clauses}, {"track_id": 1, "external_ids": 1})
        return {pair for doc in found for pair in held(doc) if pair in wanted}
    taken: set[tuple[str, str]] = set()
    for i, doc in enumerate(await db.tracks.find_shared({"user_id": user_id})):
        if doc.get("user_id") == user_id:
            taken.update(pair for pair in held(doc) if pair in wanted)
        if i % SCAN_SLICE == SCAN_SLICE - 1:
            await asyncio.sleep(0)
    return taken


async def holders_of(db: Database, user_id: int, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(key, id) → the catalog track holding it, for each of ``pairs`` some track holds (the first
    catalogued when two do, left from before merging)."""
    if not pairs:
        return {}
    projection, order = {"track_id": 1, "external_ids": 1}, [("first_seen_at", 1), ("_id", 1)]
    if db.engine == "embedded":
        # The embedded engine answers an $or of $in lists by testing every list against every track
        # (seconds at 10,000 tracks); reading the ids of the catalog and matching here takes ms.
        found = await db.tracks.find({"user_id": user_id}, projection, sort=order)
    else:  # MongoDB answers from the per-key indexes
        clauses = identity_filter(pairs, lambda t: track_key(user_id, t))
        found = await db.tracks.find({"user_id": user_id, "$or": clauses}, projection, sort=order)
    wanted = set(pairs)
    holders: dict[tuple[str, str], str] = {}
    for doc in found:
        for pair in held(doc):
            if pair in wanted:
                holders.setdefault(pair, doc["track_id"])
    return holders


async def find_by_ids(db: Database, user_id: int, pairs: list[tuple[str, str]]) -> dict[str, Any] | None:
    """The catalog track known by any of the (key, id) ``pairs`` (the first catalogued if two are),
    in its public shape; None when none is. A Spotify id is first looked up as a track's own id
    (one read by key, the common case: the ledger's ids are Spotify ids)."""
    own = [value for key, value in pairs if key == "spotify"]
    if own:
        found = await describe_tracks(db, user_id, own)
        if found:
            return found[own[0]] if own[0] in found else next(iter(found.values()))
    if db.engine == "embedded":
        # The engine's matcher tests every track of the user (54 ms at 12,500 tracks); the stored
        # tracks themselves, matched here, take a few ms.
        held_by = []
        for doc in await db.tracks.find_shared({"user_id": user_id}):
            ids = doc.get("external_ids")
            if ids and doc.get("user_id") == user_id:
                for key, value in pairs:
                    if ids.get(key) == value:
                        held_by.append(doc)
                        break
        first = min(held_by, key=lambda doc: (doc["first_seen_at"], doc["_id"]), default=None)
        return copy.deepcopy(describe(first)) if first is not None else None
    for key, value in pairs:  # one equality each: no $in list for the engine to test per track
        matches = await db.tracks.find(
            {"user_id": user_id, f"external_ids.{key}": value}, sort=[("first_seen_at", 1), ("_id", 1)], limit=1
        )
        if matches:
            return describe(matches[0])
    return None


async def with_ids(db: Database, user_id: int, track_ids: list[str]) -> dict[str, dict[str, Any]]:
    """As ``describe_tracks``, each track with its ``external_ids`` too."""
    if not track_ids:
        return {}
    keys = [track_key(user_id, t) for t in dict.fromkeys(track_ids)]
    found = await db.tracks.find({"_id": {"$in": keys}, "user_id": user_id})
    return {doc["track_id"]: {**describe(doc), "external_ids": doc.get("external_ids") or {}} for doc in found}


async def all_tracks(db: Database, user_id: int) -> list[dict[str, Any]]:
    """Every track of the user's catalog in its public shape (the resolver's index, export)."""
    return [describe(doc) for doc in await db.tracks.find({"user_id": user_id}, sort=[("_id", 1)])]


async def _holders(db: Database, user_id: int, latest: dict[str, dict[str, Any]]) -> dict[tuple[str, str], str]:
    """``holders_of`` every id the upserted tracks name (none asked when they name no external id,
    the common call, which then costs what it did before)."""
    pairs = [pair for t, track in latest.items() if track["external_ids"] for pair in held({"track_id": t, **track})]
    return await holders_of(db, user_id, pairs)


def _merge_target(
    track_id: str, ids: dict[str, str], holders: dict[tuple[str, str], str], index: int
) -> tuple[str, str | None]:
    """(the track this upsert writes, the key it was merged by or None): another track holding
    one of its ids is the same recording. CONFLICT when its ids name two other tracks."""
    others = {(k, holders[(k, v)]) for k, v in held({"track_id": track_id, "external_ids": ids}) if (k, v) in holders}
    others = {(k, t) for k, t in others if t != track_id}
    targets = {t for _, t in others}
    if len(targets) > 1:
        key = sorted(others)[0][0]
        raise ExternalIdHeld(
            f"the external ids of track {track_id} belong to different catalog tracks ({', '.join(sorted(targets))})",
            {
                "field": f"tracks[{index}].external_ids.{key}",
                "reason": "external_id_held",
                "track_ids": sorted(targets),
            },
        )
    if not targets:
        return track_id, None
    return targets.pop(), min(k for k, _ in others)


async def upsert_tracks(db: Database, user_id: int, tracks: list[dict[str, Any]]) -> dict[str, Any]:
    """Insert new tracks, rewrite changed ones, leave identical ones untouched (no write, no
    audit entry). A track listed twice in one call: the last description wins.

    External ids are added to what the track already holds (a call that does not know them does
    not forget them). A new track naming an id another catalog track holds is that track (the
    same recording): the existing track's id and description win, it gains the new track's ids,
    and the answer lists the merge; a track already catalogued that names an id another track
    holds is CONFLICT (two stored tracks are never merged: playlists and plays name both)."""
    latest: dict[str, dict[str, Any]] = {}
    positions: dict[str, int] = {}
    for index, track in enumerate(tracks):
        latest[track["track_id"]] = {**normalised(track), "external_ids": spelled(track.get("external_ids"))}
        positions[track["track_id"]] = index
    holders = await _holders(db, user_id, latest)
    wanted = set(latest) | set(holders.values())
    stored = {
        doc["track_id"]: doc
        for doc in await db.tracks.find({"_id": {"$in": [track_key(user_id, t) for t in wanted]}, "user_id": user_id})
    }
    counts = {"inserted": 0, "updated": 0, "unchanged": 0}
    writes: dict[str, dict[str, Any]] = {}  # planned whole before the first write: a refusal writes nothing
    merged: list[dict[str, str]] = []
    now = utc_now()
    for track_id, given in latest.items():
        ids = given.pop("external_ids")
        if track_id in stored:
            _refuse_held(track_id, ids, holders, positions[track_id])
            target, by = track_id, None
        else:
            target, by = _merge_target(track_id, ids, holders, positions[track_id])
        current = stored.get(target)
        if by is not None:
            merged.append({"track_id": track_id, "into": target, "by": by})
        fields = describe(current) if by is not None and current is not None else given
        known = {**((current or {}).get("external_ids") or {}), **ids}
        if current is not None and describe(current) == fields and (current.get("external_ids") or {}) == known:
            counts["unchanged"] += 1
            continue
        document = {
            "_id": track_key(user_id, target),
            "user_id": user_id,
            **fields,
            **({"external_ids": known} if known else {}),  # most tracks have none: no empty field
            "first_seen_at": current["first_seen_at"] if current is not None else now,
            "updated_at": now,
            "written_by": written_by(),
        }
        counts["inserted" if current is None else "updated"] += 1
        stored[target] = writes[target] = document
        for pair in held(document):  # a later track of this call may be the same recording
            holders.setdefault(pair, target)
    for document in writes.values():
        await db.tracks.replace_one(document)
    return {**counts, "changed": list(writes), "merged": merged, "at": now}


def _refuse_held(track_id: str, ids: dict[str, str], holders: dict[tuple[str, str], str], index: int) -> None:
    """CONFLICT when a catalogued track is given an id another catalogued track holds."""
    for key, value in ids.items():
        other = holders.get((key, value))
        if other is not None and other != track_id:
            raise ExternalIdHeld(
                f"{key} {value} already belongs to catalog track {other}",
                {"field": f"tracks[{index}].external_ids.{key}", "reason": "external_id_held", "track_ids": [other]},
            )
