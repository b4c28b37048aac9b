"""Stored supersession marks: ``superseded_by`` on a like/dislike event that a newer one of the same
subject replaces (issue 12).

The rule is ``service.context.rank.superseded``, a pure function of the user's like/dislike events;
readers (the context block, ``memory_explain``) keep applying it at read time, so a mark never
decides what an agent sees. The stored mark is for operators (``db.preference_events.find({user_id:
1, superseded_by: {$exists: false}})`` lists the opinions in force) and for ``rederive``, which
checks it. It is derived data: the export leaves it out and an import recomputes it.

Every change of the set of like/dislike events recomputes the user's marks (``mark_superseded``):
after an append, after forgetting an event, after an import. A recomputation reads every like and
dislike of the user, so two of them for one user are serialised here (``marks_held``): the one that
runs last read every event committed before it, and the marks converge. Two server processes on
one MongoDB are not serialised; a mark one of them left stale is what ``rederive`` reports and
repairs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from service.context.rank import superseded
from service.memories.locks import UserLocks
from service.storage import Database

TYPES = ("like", "dislike")
FIELD = "superseded_by"
PROJECTION = {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1, FIELD: 1}
Change = tuple[str | None, str | None]  # (stored mark, derived mark); None: no mark

# One registry for the process: the append path, forget and import each recompute a user's marks,
# and they must not interleave for one user whichever facade runs them.
_LOCKS = UserLocks()


@asynccontextmanager
async def marks_held(user_id: int) -> AsyncIterator[None]:
    async with _LOCKS.held(user_id):
        yield


async def derived_marks(db: Database, user_id: int,
                        strays: bool = False) -> tuple[dict[str, str], dict[str, str | None]]:
    """(derived marks, stored marks): event id → the id of the event that supersedes it. With
    ``strays`` the stored side also lists events of other types carrying a mark (only an edit made
    around the service puts one there: the write path never does, and skips that read)."""
    events = await db.preference_events.find({"user_id": user_id, "type": {"$in": list(TYPES)}}, PROJECTION)
    if strays:
        events += await db.preference_events.find(
            {"user_id": user_id, "type": {"$nin": list(TYPES)}, FIELD: {"$exists": True}}, PROJECTION)
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
        update = {"$set": {FIELD: target}} if target is not None else {"$unset": {FIELD: ""}}
        await db.preference_events.update_one({"_id": event_id, "user_id": user_id}, update)
    return changes


async def remark(db: Database, user_id: int, strays: bool = False) -> dict[str, Change]:
    """The write path's form: recompute the user's marks, serialised per user (``strays``: an
    import, whose records may carry a mark the service would not have written)."""
    async with marks_held(user_id):
        return await mark_superseded(db, user_id, strays=strays)
