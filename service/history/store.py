"""Imported rows into the play store's month buckets: plays into a bucket's ``plays``, skips into
its ``skips`` (which no reader of plays looks at, so a skip never counts as a play; export,
import, forget and delete carry the bucket whole). A row is stored once: its identity is the play
store's (folded artist, folded track, played_at), with played_at compared to the second, since
exports stamp seconds (or minutes) and a play logged by the tool may carry milliseconds. A part
holds at most ``PLAYS_PER_BUCKET`` plays and skips together.

An import writes small parts (``IMPORT_PART`` rows): the embedded engine copies a whole part on
every write and read, and a 2,500-row part held the event loop for 70 ms each time. The month's
stored parts are read as shared documents (no copy), one at a time."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.audit.origin import written_by
from service.errors import Conflict
from service.memories.plays import PLAYS_PER_BUCKET, WRITE_ATTEMPTS, bucket_id
from service.storage.database import Database
from service.text.entities import folded_entity
from service.timeutil import as_utc, utc_now
from service.users import stats as user_stats

Key = tuple[str, str, datetime]  # folded artist, folded track ("" if none), played_at to the second
Pending = tuple[Key, dict[str, Any], bool]  # key, the stored play, is a skip
IMPORT_PART = 500  # rows an import adds to one part in one write (about 10 ms of copying)


@dataclass(frozen=True)
class Part:
    """A stored part as read (shared: never modified) and its sizes at that moment."""

    document: dict[str, Any]
    plays: int
    skips: int | None  # None: the part has no ``skips`` field


class Folding:
    """``folded_entity`` remembered: a history names the same few thousand artists and tracks
    hundreds of thousands of times."""

    def __init__(self) -> None:
        self._memo: dict[str, str] = {}

    def __call__(self, name: str | None) -> str:
        if not name:
            return ""
        folded = self._memo.get(name)
        if folded is None:
            folded = self._memo[name] = folded_entity(name)
        return folded

    def key(self, artist: str, track: str | None, moment: datetime) -> Key:
        return self(artist), self(track), as_utc(moment).replace(microsecond=0)


async def store_month(db: Database, user_id: int, month: str, new: dict[Key, Pending], fold: Folding) -> set[Key]:
    """Store the rows of ``new`` (all of ``month``) not stored yet; returns the keys it stored.
    Writes are optimistic, as ``memories.plays`` writes: a part is replaced only if it still holds
    what it was read with, otherwise the month is read again."""
    written: set[Key] = set()
    instants = {key[2] for key in new}
    for _ in range(WRITE_ATTEMPTS):
        parts = await _read_month(db, user_id, month)
        stored = await _stored_keys(parts, instants, fold)
        pending = sorted(
            (item for key, item in new.items() if key not in stored and key not in written),
            key=lambda item: item[1]["played_at"],
        )
        if await _append(db, user_id, month, parts, pending, written):
            return written
    raise Conflict(
        "plays of this month were being logged concurrently; run the import again",
        {"field": "path", "reason": "concurrent_write"},
    )


async def _read_month(db: Database, user_id: int, month: str) -> list[Part]:
    heads = await db.plays.find({"user_id": user_id, "month": month}, {"_id": 1}, sort=[("part", 1)])
    parts = []
    for head in heads:
        document = await db.plays.find_one_shared({"_id": head["_id"], "user_id": user_id})
        if document is not None:
            skips = document.get("skips")
            parts.append(Part(document, len(document["plays"]), None if skips is None else len(skips)))
        await asyncio.sleep(0)  # a month of a heavy listener is many parts
    return parts


async def _stored_keys(parts: list[Part], instants: set[datetime], fold: Folding) -> set[Key]:
    keys = set()
    for part in (p.document for p in parts):
        for entry in (*part["plays"], *(part.get("skips") or ())):
            moment = as_utc(entry["played_at"]).replace(microsecond=0)
            if moment in instants:
                keys.add((fold(entry["artist"]), fold(entry.get("track")), moment))
        await asyncio.sleep(0)  # a part at a time: a re-import compares every stored row
    return keys


def _unchanged(part: Part) -> dict[str, Any]:
    """The condition that the part still holds what it was read with (entries are only added)."""
    return {
        "plays": {"$size": part.plays},
        "skips": {"$size": part.skips} if part.skips is not None else {"$exists": False},
    }


def _merged(part: dict[str, Any], taken: list[Pending]) -> dict[str, Any]:
    plays = [*part["plays"], *(p for _, p, skip in taken if not skip)]
    skips = [*(part.get("skips") or ()), *(p for _, p, skip in taken if skip)]
    merged = {**part, "plays": sorted(plays, key=lambda p: as_utc(p["played_at"]))}
    if skips:
        merged["skips"] = sorted(skips, key=lambda p: as_utc(p["played_at"]))
    return merged


async def _append(
    db: Database, user_id: int, month: str, parts: list[Part], pending: list[Pending], written: set[Key]
) -> bool:
    """Add to the month's last part (conditioned on it, so a play another writer added meanwhile
    is never stored twice), then new parts; False if another writer got there first."""
    now, stamp = utc_now(), written_by()
    last = parts[-1] if parts else None
    if pending and last is not None:
        room = min(IMPORT_PART, PLAYS_PER_BUCKET - last.plays - (last.skips or 0))
        if room > 0:
            taken, pending = pending[:room], pending[room:]
            document = {**_merged(last.document, taken), "updated_at": now, "written_by": stamp}
            if not await db.plays.replace_one(document, condition=_unchanged(last)):
                return False
            written.update(key for key, _, _ in taken)
            await asyncio.sleep(0)
    part = max((p.document["part"] for p in parts), default=-1) + 1
    for start in range(0, len(pending), IMPORT_PART):
        chunk = pending[start : start + IMPORT_PART]
        empty: dict[str, Any] = {
            "_id": bucket_id(user_id, month, part),
            "user_id": user_id,
            "month": month,
            "part": part,
            "plays": [],
        }
        document = {**_merged(empty, chunk), "updated_at": now, "written_by": stamp}
        # Never matches a stored part: if this one exists already, the write is refused.
        if not await db.plays.replace_one(document, condition={"part": {"$lt": 0}}):
            return False
        await user_stats.count_records_added(db, user_id, "play_bucket_count", 1)
        written.update(key for key, _, _ in chunk)
        part += 1
        await asyncio.sleep(0)
    return True
