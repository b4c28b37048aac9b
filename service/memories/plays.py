"""Play history (``memory_log_plays``): what the listener actually played, from any source the
agent can read (scrobbles, recently played), kept so recommendations can be checked against it.

Storage: one bucket document per (user, UTC month of ``played_at``), split into a further part
once a part holds ``PLAYS_PER_BUCKET`` plays, so years of listening are a few dozen documents and
no document nears MongoDB's 16 MB limit (5,000 plays of the longest allowed names: ~4.5 MB).
Plays inside a part are ordered by ``played_at``; parts of a month are not ordered between them.
A play already stored is counted as a duplicate, not stored again (``log_plays``: which is the same).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from service.audit.origin import written_by
from service.errors import Conflict, InvalidArgument
from service.storage.database import Database
from service.text.entities import folded_entity
from service.timeutil import as_utc, parse_iso, utc_now
from service.users import stats as user_stats

PLAYS_PER_BUCKET = 5000
WRITE_ATTEMPTS = 5  # re-reads of a month whose parts another writer changed meanwhile

PlayKey = tuple[str, str, datetime]  # folded artist, folded track ("" if none), played_at (UTC)


def month_of(moment: datetime) -> str:
    return f"{moment.year:04d}-{moment.month:02d}"


def bucket_id(user_id: int, month: str, part: int) -> str:
    return f"{user_id}:{month}:{part}"


def play_key(play: dict[str, Any], fold: Any = folded_entity) -> PlayKey:
    track = play.get("track")
    return fold(play["artist"]), fold(track) if track else "", as_utc(play["played_at"])


def _text(value: Any) -> str | None:
    """Optional names: blank counts as absent (a scrobble without an album is common)."""
    if value is None:
        return None
    value = value.strip()
    return value or None


def checked_plays(plays: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plays as stored, or InvalidArgument naming the first bad one. The schema has checked
    types and lengths; this adds what it cannot say: an artist with more than blanks, and a
    played_at that is a real instant."""
    out = []
    for i, play in enumerate(plays):
        artist = play["artist"].strip()
        if not artist:
            raise InvalidArgument("the artist is empty once blanks are removed", {"field": f"plays[{i}].artist"})
        try:
            played_at = parse_iso(play["played_at"])
        except ValueError as exc:
            raise InvalidArgument(str(exc), {"field": f"plays[{i}].played_at"}) from None
        out.append(
            {
                "artist": artist,
                "track": _text(play.get("track")),
                "album": _text(play.get("album")),
                "track_id": play.get("track_id"),
                "played_at": played_at,
            }
        )
    return out


async def log_plays(db: Database, user_id: int, plays: list[dict[str, Any]]) -> dict[str, Any]:
    """Store the plays not stored yet; returns ``{user_id, logged, duplicates}``.

    Identity: a play is (artist, track, played_at) with artist and track folded as memory entities
    are (case, diacritics, "the": ``folded_entity``; no track is "") and played_at to the
    millisecond. Sources overlap (the same scrobble read twice, a recently-played list fetched
    again), so a play already stored, or repeated within the call, is not stored again but counted
    as a duplicate; that also makes a retried call harmless. Only the stored plays of the same
    months and the same instants are folded to compare, so a call's cost follows what it sends."""
    fresh: dict[PlayKey, dict[str, Any]] = {}
    for play in checked_plays(plays):
        fresh.setdefault(play_key(play), play)  # the first of a repeated play within the call is kept
    by_month: defaultdict[str, dict[PlayKey, dict[str, Any]]] = defaultdict(dict)
    for key, play in fresh.items():
        by_month[month_of(play["played_at"])][key] = play
    logged = 0
    for month in sorted(by_month):
        logged += await _store_month(db, user_id, month, by_month[month])
    return {"user_id": user_id, "logged": logged, "duplicates": len(plays) - logged}


async def _store_month(db: Database, user_id: int, month: str, new: dict[PlayKey, dict[str, Any]]) -> int:
    """Writes are optimistic: a part is replaced only if it still holds the plays it was read with
    (its size: plays are only ever added), and a new part only if nobody created it meanwhile;
    otherwise the month is read and merged again. The caller serialises calls of one user in this
    process."""
    written: set[PlayKey] = set()  # by this call: found stored again after a refused write, still ours
    for _ in range(WRITE_ATTEMPTS):
        parts = await db.plays.find({"user_id": user_id, "month": month}, sort=[("part", 1)])
        stored = _stored_keys(parts, {key[2] for key in new})
        pending = sorted(
            ((k, p) for k, p in new.items() if k not in stored and k not in written),
            key=lambda item: item[1]["played_at"],
        )
        if await _append(db, user_id, month, parts, pending, written):
            return len(written)
    raise Conflict(
        "plays of this month were being logged concurrently; retry the call",
        {"field": "plays", "reason": "concurrent_write"},
    )


def _stored_keys(parts: list[dict[str, Any]], instants: set[datetime]) -> set[PlayKey]:
    """Keys of the stored plays at the instants being logged (only those can be duplicates)."""
    memo: dict[str, str] = {}

    def fold(text: str) -> str:
        if text not in memo:
            memo[text] = folded_entity(text)
        return memo[text]

    return {play_key(p, fold) for part in parts for p in part["plays"] if as_utc(p["played_at"]) in instants}


async def _append(
    db: Database,
    user_id: int,
    month: str,
    parts: list[dict[str, Any]],
    pending: list[tuple[PlayKey, dict[str, Any]]],
    written: set[PlayKey],
) -> bool:
    """Fill the month's last part up to the limit, then new parts, adding what each write stored
    to ``written``; False if another writer got there first (the caller reads the month again)."""
    now, stamp = utc_now(), written_by()
    last = parts[-1] if parts else None
    if pending and last is not None and len(last["plays"]) < PLAYS_PER_BUCKET:
        room = PLAYS_PER_BUCKET - len(last["plays"])
        taken, pending = pending[:room], pending[room:]
        merged = sorted([*last["plays"], *(p for _, p in taken)], key=lambda p: as_utc(p["played_at"]))
        document = {**last, "plays": merged, "updated_at": now, "written_by": stamp}
        if not await db.plays.replace_one(document, condition={"plays": {"$size": len(last["plays"])}}):
            return False
        written.update(k for k, _ in taken)
    part = max((p["part"] for p in parts), default=-1) + 1
    for start in range(0, len(pending), PLAYS_PER_BUCKET):
        chunk = pending[start : start + PLAYS_PER_BUCKET]
        document = {
            "_id": bucket_id(user_id, month, part),
            "user_id": user_id,
            "month": month,
            "part": part,
            "plays": [p for _, p in chunk],
            "updated_at": now,
            "written_by": stamp,
        }
        # Never matches a stored part: if this one exists already, the write is refused.
        if not await db.plays.replace_one(document, condition={"part": {"$lt": 0}}):
            return False
        await user_stats.count_records_added(db, user_id, "play_bucket_count", 1)
        written.update(k for k, _ in chunk)
        part += 1
    return True


# -- reading -----------------------------------------------------------------------------------
async def buckets(db: Database, user_id: int) -> AsyncIterator[dict[str, Any]]:
    """Every play bucket of the user, read-only: on the embedded engine the stored documents
    themselves (no copy of thousands of plays), so callers must not change them."""
    for head in await db.plays.find({"user_id": user_id}, {"_id": 1}, sort=[("_id", 1)]):
        bucket = await db.plays.find_one_shared({"_id": head["_id"], "user_id": user_id})
        if bucket is not None:
            yield bucket


def counting(user_id: int) -> list[dict[str, Any]]:
    """The pipeline MongoDB counts a user's plays and skips with, from its index on user_id."""
    return [
        {"$match": {"user_id": user_id}},
        {
            "$group": {
                "_id": None,
                "plays": {"$sum": {"$size": "$plays"}},
                "skips": {"$sum": {"$size": {"$ifNull": ["$skips", []]}}},
            }
        },
    ]


async def play_counts(db: Database, user_id: int) -> tuple[int, int]:
    """How many plays and skips the user has stored. The embedded engine counts its stored buckets
    themselves (an aggregation would copy every play first: seconds for years of listening)."""
    if db.engine != "embedded":
        rows = await db.plays.aggregate(counting(user_id))
        return (int(rows[0]["plays"]), int(rows[0]["skips"])) if rows else (0, 0)
    plays = skips = 0
    for bucket in await db.plays.find_shared({"user_id": user_id}):
        if bucket.get("user_id") == user_id:
            plays += len(bucket["plays"])
            skips += len(bucket.get("skips") or ())
    return plays, skips


async def has_plays(db: Database, user_id: int) -> bool:
    return await db.plays.find_one({"user_id": user_id, "plays.0": {"$exists": True}}, {"_id": 1}) is not None


async def plays_per_track(db: Database, user_id: int) -> Counter[str]:
    """How often each track_id was played (plays logged without a track_id are not counted)."""
    counts: Counter[str] = Counter()
    async for bucket in buckets(db, user_id):
        counts.update(p["track_id"] for p in bucket["plays"] if p.get("track_id"))
    return counts
