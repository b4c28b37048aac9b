"""What conflict detection reads, and only that, of one user: the like/dislike events (to know which
are in force, as every reader applies supersession), the resolutions recorded so far, and the plays
of the months a window touches (plus, while fewer than 100 are seen, the sizes of older months).
Every query names the user.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from service.insights.conflicts import KINDS, MIN_LOGGED, SUBJECT_FIELDS, Opinion, Play, Settled, Subject, in_window
from service.memories.plays import month_of
from service.profiles.opinions import subject_of
from service.storage.database import Database
from service.text.entities import folded_entity
from service.timeutil import as_utc
from service.tracks.catalog import describe_tracks

OPINION_TYPES = ("like", "dislike")
PROJECTION = {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1}
TEXT_CHARS = 300
SAID_BEFORE = 10  # event ids of the same opinion said again, at most

Place = tuple[datetime, int, str]


def _place(event: dict[str, Any]) -> Place:
    return as_utc(event["timestamp"]), event.get("recorded_ns") or 0, str(event["_id"])


def single_subject(payload: Any) -> tuple[Subject, str] | None:
    """((field, folded name), name as written) when the payload names exactly one artist or one
    genre (a track, an album or a mix of them is not something plays can contradict here)."""
    if not isinstance(payload, dict):
        return None
    subject = subject_of(payload)
    if subject is None or len(subject) != 1 or subject[0][0] not in SUBJECT_FIELDS:
        return None
    name = payload[subject[0][0]]
    if not isinstance(name, str) or not subject[0][1]:
        return None
    return subject[0], name.strip()


def _text(event: dict[str, Any], name: str) -> str:
    said = event["payload"].get("raw_text")
    if isinstance(said, str) and said.strip():
        return said.strip()[:TEXT_CHARS]
    return f"{'Dislikes' if event['type'] == 'dislike' else 'Likes'} {name}"[:TEXT_CHARS]


async def opinions_in_force(db: Database, user_id: int) -> list[Opinion]:
    events = await db.preference_events.find({"user_id": user_id, "type": {"$in": list(OPINION_TYPES)}}, PROJECTION)
    ruled = [e for e in events if isinstance(e.get("payload"), dict)]
    chains: dict[Subject, list[dict[str, Any]]] = {}
    for event in ruled:
        found = single_subject(event["payload"])
        if found is not None:
            chains.setdefault(found[0], []).append(event)
    opinions = []
    for subject, chain in chains.items():
        chain.sort(key=_place, reverse=True)
        newest = chain[0]  # in force: supersession groups by the same subject (``superseded``)
        said = [str(e["_id"]) for e in chain[:SAID_BEFORE]]
        run = next((i for i, e in enumerate(chain) if e["type"] != newest["type"]), len(chain))
        name = single_subject(newest["payload"])
        assert name is not None
        opinions.append(
            Opinion(
                newest["type"], subject, name[1], as_utc(newest["timestamp"]), tuple(said[:run]), _text(newest, name[1])
            )
        )
    return opinions


def resolution_of(event: dict[str, Any]) -> tuple[str, Subject, dict[str, Any]] | None:
    """(kind, subject, the payload's ``conflict``) of an event that settled a conflict; None for any
    other event (imported data is not trusted blindly)."""
    payload = event.get("payload")
    conflict = payload.get("conflict") if isinstance(payload, dict) else None
    found = single_subject(payload)
    if not isinstance(conflict, dict) or conflict.get("kind") not in KINDS or found is None:
        return None
    return conflict["kind"], found[0], conflict


async def settlements(db: Database, user_id: int) -> dict[tuple[str, Subject], Settled]:
    """The newest resolution of each (kind, subject), whatever became of its event's opinion since."""
    events = await db.preference_events.find(
        {"user_id": user_id, "payload.conflict.kind": {"$in": list(KINDS)}}, PROJECTION
    )
    newest: dict[tuple[str, Subject], dict[str, Any]] = {}
    for event in events:
        found = resolution_of(event)
        if found is None:
            continue
        key = (found[0], found[1])
        if key not in newest or _place(event) > _place(newest[key]):
            newest[key] = event
    return {key: Settled(as_utc(e["timestamp"]), str(e["_id"])) for key, e in newest.items()}


async def resolution_named(db: Database, user_id: int, conflict_id: str) -> dict[str, Any] | None:
    """The stored event that resolved ``conflict_id`` for this user, if one still exists."""
    events = await db.preference_events.find(
        {"user_id": user_id, "payload.conflict.id": conflict_id}, {**PROJECTION, "source": 1}
    )
    events = [e for e in events if resolution_of(e) is not None]
    return max(events, key=_place) if events else None


async def plays_within(
    db: Database, user_id: int, now: datetime, days: int, with_genres: bool
) -> tuple[list[Play], int]:
    """The plays of the last ``days`` days, and how many plays are logged in all (counted exactly up
    to ``MIN_LOGGED``: past it, older months are not read)."""
    first = month_of(now - timedelta(days=days))
    raw: list[dict[str, Any]] = []
    logged = 0
    for head in await db.plays.find({"user_id": user_id, "month": {"$gte": first}}, {"_id": 1}):
        bucket = await db.plays.find_one_shared({"_id": head["_id"], "user_id": user_id})
        if bucket is not None:  # read-only: the stored document itself on the embedded engine
            logged += len(bucket["plays"])
            raw += [p for p in bucket["plays"] if in_window(as_utc(p["played_at"]), now, days)]
    if logged < MIN_LOGGED:
        for head in await db.plays.find({"user_id": user_id, "month": {"$lt": first}}, {"_id": 1}):
            bucket = await db.plays.find_one_shared({"_id": head["_id"], "user_id": user_id})
            logged += len(bucket["plays"]) if bucket is not None else 0
            if logged >= MIN_LOGGED:
                break
    genres: dict[str, frozenset[str]] = {}
    if with_genres:
        described = await describe_tracks(db, user_id, [p["track_id"] for p in raw if p.get("track_id")])
        genres = {t: frozenset(folded_entity(g) for g in d["genres"] or []) for t, d in described.items()}
    memo: dict[str, str] = {}
    plays = []
    for p in raw:
        if p["artist"] not in memo:
            memo[p["artist"]] = folded_entity(p["artist"])
        artist = memo[p["artist"]]
        at = as_utc(p["played_at"])
        shown = {"artist": p["artist"], "track": p.get("track"), "played_at": at}
        plays.append(Play(at, artist, genres.get(p.get("track_id") or "", frozenset()), shown))
    return plays, logged
