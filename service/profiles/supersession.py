"""Stored supersession marks: ``superseded_by`` on a like/dislike event that a newer one of the same
subject replaces.

The rule is ``service.profiles.opinions.superseded``, a pure function of the user's like/dislike events;
readers (the context block, ``memory_explain``) keep applying it at read time, so a mark never
decides what an agent sees. The stored mark is for operators (``db.preference_events.find({user_id:
1, superseded_by: {$exists: false}})`` lists the opinions in force) and for ``rederive``, which
checks it. It is derived data: the export leaves it out and an import recomputes it.
"""

from __future__ import annotations

import bisect
import json
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from service.audit.origin import written_by
from service.locks import UserLocks
from service.profiles.opinions import subject_of, superseded
from service.storage.database import Database
from service.timeutil import as_utc

TYPES = ("like", "dislike")
FIELD = "superseded_by"
# Who changed the mark (the call's stamp): the audit entry of the update names the call, while
# ``written_by`` stays the event's author.
MARKED_BY = "marked_by"
PROJECTION = {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1, FIELD: 1}
Change = tuple[str | None, str | None]  # (stored mark, derived mark); None: no mark
Place = tuple[datetime, int, str]  # where an event stands in its subject's order (as ``superseded`` orders)
CACHED_USERS = 256

# One registry for the process: the append path, forget and import each recompute a user's marks,
# and they must not interleave for one user whichever facade runs them.
_LOCKS = UserLocks()


@asynccontextmanager
async def marks_held(user_id: int) -> AsyncIterator[None]:
    """Recomputations and appends for one user are serialised here: the one that runs last read
    every event committed before it, and the marks converge. Two server processes on one MongoDB are
    not serialised; a mark one of them left stale is what ``rederive`` reports and repairs."""
    async with _LOCKS.held(user_id):
        yield


async def derived_marks(
    db: Database, user_id: int, strays: bool = False
) -> tuple[dict[str, str], dict[str, str | None]]:
    """(derived marks, stored marks): event id → the id of the event that supersedes it. With
    ``strays`` the stored side also lists events of other types carrying a mark (only an edit made
    around the service puts one there: the write path never does, and skips that read)."""
    events = await db.preference_events.find({"user_id": user_id, "type": {"$in": list(TYPES)}}, PROJECTION)
    if strays:
        events += await db.preference_events.find(
            {"user_id": user_id, "type": {"$nin": list(TYPES)}, FIELD: {"$exists": True}}, PROJECTION
        )
    # The context block reads only like/dislike events with an object payload: the same set here.
    ruled = [e for e in events if e.get("type") in TYPES and isinstance(e.get("payload"), dict)]
    stored = {str(e["_id"]): e.get(FIELD) for e in events}
    return superseded(ruled), stored


async def mark_superseded(db: Database, user_id: int, write: bool = True, strays: bool = False) -> dict[str, Change]:
    """Make the stored marks of the user's events what ``superseded`` derives; return each event whose
    stored mark differed, as (stored, derived). Only those events are written (none if ``write`` is
    false: a dry run). Reads every like and dislike of the user: about 16 ms for 500 of them on the
    embedded engine (a scan), one indexed find on MongoDB."""
    wanted, stored = await derived_marks(db, user_id, strays)
    changes: dict[str, Change] = {}
    for event_id, mark in stored.items():
        target = wanted.get(event_id)
        if mark == target:
            continue
        changes[event_id] = (mark, target)
        if not write:
            continue
        stamp = {MARKED_BY: written_by()}
        update = {"$set": {FIELD: target, **stamp}} if target is not None else {"$unset": {FIELD: ""}, "$set": stamp}
        await db.preference_events.update_one({"_id": event_id, "user_id": user_id}, update)
    return changes


async def remark(db: Database, user_id: int, strays: bool = False) -> dict[str, Change]:
    """Recompute the user's marks whole, serialised per user (after a forget, an import; ``strays``:
    an import, whose records may carry a mark the service would not have written)."""
    async with marks_held(user_id):
        forget_chains(db, user_id)
        return await mark_superseded(db, user_id, strays=strays)


# -- the append path ----------------------------------------------------------------------------
def _place(event: dict[str, Any]) -> Place:
    return as_utc(event["timestamp"]), event.get("recorded_ns") or 0, str(event["_id"])


def _subject_key(payload: Any) -> str | None:
    subject = subject_of(payload) if isinstance(payload, dict) else None
    return None if subject is None else json.dumps(subject)


class Chains:
    """Per user, each subject's like/dislike events in order (embedded engine only)."""

    def __init__(self) -> None:
        self.users: OrderedDict[int, dict[str, list[Place]]] = OrderedDict()

    def get(self, user_id: int) -> dict[str, list[Place]] | None:
        chains = self.users.get(user_id)
        if chains is not None:
            self.users.move_to_end(user_id)
        return chains

    def keep(self, user_id: int, chains: dict[str, list[Place]]) -> None:
        self.users[user_id] = chains
        while len(self.users) > CACHED_USERS:
            self.users.popitem(last=False)


# Per open Database (a dataclass, so unhashable: by identity, checked through a weak reference).
_CHAINS: dict[int, tuple[weakref.ref[Database], Chains]] = {}


def _chains_of(db: Database, create: bool) -> Chains | None:
    found = _CHAINS.get(id(db))
    if found is not None and found[0]() is db:
        return found[1]
    if not create:
        return None
    kept, key = Chains(), id(db)
    _CHAINS[key] = (weakref.ref(db, lambda _: _CHAINS.pop(key, None)), kept)
    return kept


def forget_chains(db: Database, user_id: int) -> None:
    """The user's data changed around the append path (forget, import, delete, a repair)."""
    kept = _chains_of(db, create=False)
    if kept is not None:
        kept.users.pop(user_id, None)


async def _build(db: Database, user_id: int) -> dict[str, list[Place]]:
    """The user's chains from one read, the stored marks made to agree on the way."""
    await mark_superseded(db, user_id)
    events = await db.preference_events.find({"user_id": user_id, "type": {"$in": list(TYPES)}}, PROJECTION)
    chains: dict[str, list[Place]] = {}
    for event in events:
        key = _subject_key(event.get("payload"))
        if key is not None:
            chains.setdefault(key, []).append(_place(event))
    for chain in chains.values():
        chain.sort()
    return chains


async def opinion_appended(db: Database, user_id: int, event_id: str) -> None:
    """After a like/dislike is stored: the event before it in its subject's order is superseded by
    it, and it by the one after (if any: it was back-dated).

    On the embedded engine, which one process owns, the chains are kept per user in memory
    (``Chains``: built from one read on the user's first opinion, dropped whenever the user's data
    changes around the write path), so an append costs two writes however many opinions the user
    has; a whole recomputation per like made loading 2,400 events five times slower. On MongoDB
    another process may write, so nothing is kept and an append recomputes the user's marks from one
    indexed read. Forgetting an event and an import recompute the user's marks whole (``remark``)."""
    async with marks_held(user_id):
        if db.engine != "embedded":
            await mark_superseded(db, user_id)
            return
        kept = _chains_of(db, create=True)
        assert kept is not None
        chains = kept.get(user_id)
        if chains is None:  # the first opinion since start (or since a change around this path)
            kept.keep(user_id, await _build(db, user_id))
            return
        event = await db.preference_events.find_one({"_id": event_id, "user_id": user_id}, PROJECTION)
        if event is None:
            return
        key = _subject_key(event.get("payload"))
        if key is None:
            return
        chain = chains.setdefault(key, [])
        place = _place(event)
        at = bisect.bisect_left(chain, place)
        chain.insert(at, place)
        if at > 0:
            await db.preference_events.update_one(
                {"_id": chain[at - 1][2], "user_id": user_id}, {"$set": {FIELD: event_id, MARKED_BY: written_by()}}
            )
        if at + 1 < len(chain):
            await db.preference_events.update_one(
                {"_id": event_id, "user_id": user_id}, {"$set": {FIELD: chain[at + 1][2], MARKED_BY: written_by()}}
            )
