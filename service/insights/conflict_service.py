"""``memory_list_conflicts`` and ``memory_resolve_conflict``: stated versus played, for the person to
settle. Open conflicts are derived at each read (``conflicts.detect``); nothing is stored for them.
A resolution is an ordinary preference event written through the facade's own append path (source
"user", naming the subject, its payload's ``conflict`` saying which and how), so supersession,
provenance, audit, search, export, import, delete, forget and rederive see it as any event:
``keep_statement`` says the same opinion again, ``update_preference`` the opposite one (a like for
a disliked subject, a dislike for a liked one), both superseding the stated one; ``dismiss`` is a
note. Every resolution spends the evidence up to its moment: the conflict stays closed until new
evidence crosses the threshold again (plays after it, or 180 more days unplayed); forgetting the
resolution event reopens it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from service.errors import ConflictNotFound, ResolvedOtherwise
from service.insights import conflict_reads as reads
from service.insights.conflicts import (
    DISLIKE_DAYS,
    LIKED_BUT_UNPLAYED,
    PLAYED_DESPITE_DISLIKE,
    UNPLAYED_DAYS,
    Found,
    detect,
)
from service.locks import UserLocks
from service.paging import PAGE_BYTES, decode_cursor, encode_cursor, fitting, offset_of, pinned_time
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.timeutil import as_utc, utc_now

AppendEvent = Callable[[int, str, dict[str, Any], str, datetime | None], Awaitable[dict[str, Any]]]
SOURCE = "user"
NOT_FOUND = "no open conflict with this id for this user; call memory_list_conflicts"
# (kind, resolution) -> (event type, how the event says it)
OUTCOMES: dict[tuple[str, str], tuple[str, str]] = {
    (PLAYED_DESPITE_DISLIKE, "keep_statement"): (
        "dislike",
        "Still dislikes {name}, though played {count} times in {days} days",
    ),
    (PLAYED_DESPITE_DISLIKE, "update_preference"): ("like", "Now likes {name}: played {count} times in {days} days"),
    (PLAYED_DESPITE_DISLIKE, "dismiss"): (
        "note",
        "Set aside: dislikes {name} but played it {count} times in {days} days",
    ),
    (LIKED_BUT_UNPLAYED, "keep_statement"): ("like", "Still likes {name}, though not played in {days} days"),
    (LIKED_BUT_UNPLAYED, "update_preference"): ("dislike", "No longer into {name}: not played in {days} days"),
    (LIKED_BUT_UNPLAYED, "dismiss"): ("note", "Set aside: likes {name} but has not played it in {days} days"),
}

# Two resolutions of one conflict at once in this process make one event, not two.
_LOCKS = UserLocks()


def conflict_id(user_id: int, found: Found) -> str:
    """Opaque and stable: the user, the kind, the folded subject and the resolution it follows (so
    a conflict that comes back after a resolution is a new one)."""
    settled = found.settled.event_id if found.settled is not None else None
    key = json.dumps([user_id, found.kind, *found.opinion.subject, settled], ensure_ascii=False)
    return "cf_" + hashlib.sha256(key.encode()).hexdigest()[:32]


def view(cid: str, found: Found, as_of: datetime) -> dict[str, Any]:
    opinion = found.opinion
    return {
        "conflict_id": cid,
        "kind": found.kind,
        "subject": {opinion.subject[0]: opinion.name},
        "stated": {"event_ids": list(opinion.event_ids), "text": opinion.text, "at": opinion.at},
        "played": {"count": found.count, "days": found.days, "examples": [dict(p.shown) for p in found.examples]},
        "detected_at": as_of,
    }


class ConflictService:
    def __init__(self, db: Database, settings: Settings, append_event: AppendEvent) -> None:
        self._db = db
        self.settings = settings
        self._append_event = append_event

    async def _open(self, user_id: int, now: datetime) -> list[tuple[str, Found]]:
        opinions = await reads.opinions_in_force(self._db, user_id)
        if not opinions:
            return []
        likes = any(o.type == "like" for o in opinions)
        genres = any(o.subject[0] == "genre" for o in opinions)
        days = UNPLAYED_DAYS if likes else DISLIKE_DAYS
        plays, logged = await reads.plays_within(self._db, user_id, now, days, genres)
        found = detect(opinions, plays, logged, await reads.settlements(self._db, user_id), now)
        return [(conflict_id(user_id, f), f) for f in found]

    async def list(self, user_id: int, limit: int, cursor: str | None) -> dict[str, Any]:
        """A page of the open conflicts, at most ``limit`` and within ``PAGE_BYTES``; the cursor pins
        the first page's moment, so the windows stay put while paging."""
        state = decode_cursor(cursor, "conflicts") if cursor is not None else {}
        as_of = pinned_time(str(state.get("as_of"))) if cursor is not None else utc_now()
        found = await self._open(user_id, as_of)
        start = offset_of(state, "offset", end=len(found)) if cursor is not None else 0
        rows = [view(cid, f, as_of) for cid, f in found[start : start + limit]]
        shown = fitting(rows, min(PAGE_BYTES, self.settings.result_budget_bytes)) if rows else 0
        after = start + shown
        more = after < len(found)
        return {
            "user_id": user_id,
            "as_of": as_of,
            "conflicts": rows[:shown],
            "total": len(found),
            "next_cursor": encode_cursor("conflicts", {"offset": after, "as_of": as_of.isoformat()}) if more else None,
        }

    @unit_of_work
    async def resolve(self, user_id: int, cid: str, resolution: str, note: str | None) -> dict[str, Any]:
        """Record the outcome; a conflict already resolved the same way answers that resolution again
        (nothing written), another way CONFLICT; an unknown id (or another user's) NOT_FOUND."""
        async with _LOCKS.held(user_id):
            done = await reads.resolution_named(self._db, user_id, cid)
            if done is not None:
                return self._settled_answer(user_id, cid, resolution, done)
            match = next((f for c, f in await self._open(user_id, utc_now()) if c == cid), None)
            if match is None:
                raise ConflictNotFound(NOT_FOUND, {"field": "conflict_id"})
            event_type, sentence = OUTCOMES[(match.kind, resolution)]
            opinion = match.opinion
            text = sentence.format(name=opinion.name, count=match.count, days=match.days)
            payload: dict[str, Any] = {
                opinion.subject[0]: opinion.name,
                "raw_text": f"{text} ({note.strip()})" if note and note.strip() else text,
                "conflict": {
                    "id": cid,
                    "kind": match.kind,
                    "resolution": resolution,
                    "stated_event_id": opinion.event_ids[0],
                    "played_count": match.count,
                    "days": match.days,
                },
            }
            if note is not None:
                payload["note"] = note
            stored = await self._append_event(user_id, event_type, payload, SOURCE, None)
            return _answer(user_id, cid, stored["event_id"], event_type, payload, stored["timestamp"], SOURCE)

    @staticmethod
    def _settled_answer(user_id: int, cid: str, resolution: str, event: dict[str, Any]) -> dict[str, Any]:
        recorded = event["payload"]["conflict"].get("resolution")
        if recorded != resolution:
            raise ResolvedOtherwise(
                f"this conflict was already resolved with {recorded}",
                {"field": "resolution", "reason": "already_resolved", "resolution": recorded},
            )
        at = as_utc(event["timestamp"])
        return _answer(
            user_id, cid, str(event["_id"]), event["type"], event["payload"], at, event.get("source", SOURCE)
        )


def _answer(
    user_id: int, cid: str, event_id: str, event_type: str, payload: dict[str, Any], at: datetime, source: str
) -> dict[str, Any]:
    conflict = payload["conflict"]
    return {
        "user_id": user_id,
        "conflict_id": cid,
        "kind": conflict["kind"],
        "resolution": conflict["resolution"],
        "event": {"event_id": event_id, "type": event_type, "source": source, "payload": payload, "timestamp": at},
    }
