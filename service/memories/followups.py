"""Following up on recommendations: were they played? (``memory_log_plays``,
``memory_validate_recommendation``, ``memory_open_followups``.)

A recommendation is matched against the plays exactly, on folded names: by the work it names when
that was ever played, else by its artist (``count_plays`` gives the rules). A validation marks the
memory ``validated_at`` the first time (later ones change nothing), which takes it off the open
follow-ups; the answer itself is computed afresh from the plays each time.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from service.audit.origin import written_by
from service.errors import MemoryNotFound, NotARecommendation
from service.locks import UserLocks
from service.memories import plays
from service.memories.keys import memory_key
from service.memories.service import MemoryStore
from service.memories.views import days_between
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.text.entities import folded_entity
from service.timeutil import as_utc, utc_now

DEFAULT_CHECK_AFTER_DAYS = 7


@dataclass
class Counted:
    matched_on: str | None = None
    since: int = 0
    before: int = 0
    first_after: datetime | None = None
    artist_names: tuple[str, ...] = ()
    work_names: tuple[str, ...] = ()


def check_after_days(doc: dict[str, Any]) -> int:
    value = (doc.get("metadata") or {}).get("check_after_days", DEFAULT_CHECK_AFTER_DAYS)
    return value if type(value) is int else DEFAULT_CHECK_AFTER_DAYS  # memory_add refuses any other


class FollowUpService:
    def __init__(self, db: Database, settings: Settings, store: MemoryStore) -> None:
        self._db = db
        self.settings = settings
        self._store = store
        self._locks = UserLocks()  # one log_plays per user at a time in this process

    @unit_of_work
    async def log_plays(self, user_id: int, logged: list[dict[str, Any]]) -> dict[str, Any]:
        async with self._locks.held(user_id):
            return await plays.log_plays(self._db, user_id, logged)

    @unit_of_work
    async def validate_recommendation(self, user_id: int, memory_id: str) -> dict[str, Any]:
        doc = await self._store.get(user_id, memory_id)
        if doc["type"] != "recommendation":
            raise NotARecommendation(
                f"memory {memory_id} is a {doc['type']}, not a recommendation",
                {"field": "memory_id", "reason": "not_a_recommendation"},
            )
        now = utc_now()
        recommended_at = as_utc(doc["timestamp"])
        counted = await count_plays(self._db, user_id, doc["entities"], recommended_at)
        logged = counted.matched_on is not None or await plays.has_plays(self._db, user_id)
        if doc.get("validated_at") is None:
            await self._mark_validated(user_id, memory_id, now)
        days, wait = days_between(recommended_at, now), check_after_days(doc)
        return {
            "user_id": user_id,
            "memory_id": memory_id,
            "recommendation": {
                "entities": list(doc["entities"]),
                "summary": doc["summary"],
                "recommended_at": recommended_at,
                "days_since": days,
                "check_after_days": wait,
            },
            "validation": {
                "plays_since_rec": counted.since,
                "plays_before_rec": counted.before,
                "user_heard_before": counted.before > 0,
                "first_play_after": counted.first_after,
                "matched_on": counted.matched_on,
                "plays_logged": logged,
            },
            "follow_up_suggestion": suggestion(doc["entities"], counted, logged, days, wait),
        }

    async def _mark_validated(self, user_id: int, memory_id: str, now: datetime) -> None:
        """Set validated_at once, under the memory lock (memory_add's restatements and aging
        hold it too), so the kept copy the open follow-ups read is never patched from a stale one."""
        async with self._store.held(user_id):
            try:
                stored = await self._store.get(user_id, memory_id)
            except MemoryNotFound:  # removed meanwhile (aged out, the user's data deleted)
                return
            if stored.get("validated_at") is not None:
                return
            changes = {"validated_at": now, "updated_at": now, "written_by": written_by()}
            try:
                # Only if still not validated: another process's first validation wins.
                applied = await self._db.memories.update_one(
                    {"_id": memory_key(user_id, memory_id), "user_id": user_id, "validated_at": None}, {"$set": changes}
                )
            except BaseException:
                self._store.forget_user(user_id)  # whatever reached the store, the next read sees it
                raise
            if applied:
                self._store.stored(user_id, {**stored, **changes})

    async def open_followups(self, user_id: int, limit: int) -> dict[str, Any]:
        """Recommendations due for a check (timestamp + check_after_days passed) and not validated
        yet, oldest first; ``total`` counts them all, however few ``limit`` lets through."""
        due = [row async for row in self.due(user_id)]
        return {"user_id": user_id, "followups": due[:limit], "total": len(due)}

    async def due(self, user_id: int) -> AsyncGenerator[dict[str, Any], None]:
        """The open follow-ups oldest first, one by one: a reader that needs a few stops early.
        The memories' analysed copy keeps the open recommendations in that order, so only they are
        walked, not every memory."""
        now = utc_now()
        # On MongoDB only the open recommendations are read; the embedded engine's kept copy has all.
        index = await self._store.index_of(user_id, {"type": "recommendation", "validated_at": None})
        for recommended_at, memory_id in list(index.open_recommendations):  # a copy: a write may come meanwhile
            analysed = index.by_id.get(memory_id)
            if analysed is None:
                continue
            doc = analysed.doc
            wait = check_after_days(doc)
            try:
                due_at = recommended_at + timedelta(days=wait)
            except OverflowError:  # due after the year 9999: not now
                continue
            if due_at <= now:
                yield {
                    "memory_id": doc["memory_id"],
                    "entities": list(doc["entities"]),
                    "summary": doc["summary"],
                    "recommended_at": recommended_at,
                    "days_since": days_between(recommended_at, now),
                    "check_after_days": wait,
                    "due_at": due_at,
                }


async def count_plays(db: Database, user_id: int, entities: list[str], since: datetime) -> Counted:
    """The plays that speak for a recommendation of ``entities`` made at ``since``, matched exactly:

    1. The memory's entities are folded as everywhere in memories (case, diacritics, "the"). A play
       is a *candidate* if its folded artist, album or track equals a folded entity.
    2. Entities equal to some candidate's artist are *artist entities*; the others are *work
       entities* (albums, tracks, or names the plays never mention).
    3. If any play ever matches a work entity on its album or track (and, when there are artist
       entities, is by one of those artists), only such plays count: ``matched_on`` "work". A
       recommendation of "Odessey and Oracle" by "The Zombies" counts plays of that album, not every
       Zombies song. Otherwise the plays of the artist entities count: ``matched_on`` "artist" (the
       work itself was never played: the suggestion says so). No candidate at all: ``matched_on``
       null and every count 0.
    4. Counted plays at or after the recommendation's ``timestamp`` are ``plays_since_rec``, earlier
       ones ``plays_before_rec`` (``user_heard_before`` when there are any).
    """
    names: dict[str, str] = {}  # folded entity → its first spelling in the memory
    for entity in entities:
        names.setdefault(folded_entity(entity), entity)
    memo: dict[str, str] = {}

    def fold(text: str | None) -> str | None:
        if not text:
            return None
        if text not in memo:
            memo[text] = folded_entity(text)
        return memo[text]

    candidates: list[tuple[str | None, str | None, str | None, datetime]] = []
    async for bucket in plays.buckets(db, user_id):
        for play in bucket["plays"]:
            artist, track, album = fold(play["artist"]), fold(play.get("track")), fold(play.get("album"))
            if artist in names or track in names or album in names:
                candidates.append((artist, track, album, play["played_at"]))
    if not candidates:
        return Counted()
    artists = {a for a, _, _, _ in candidates if a in names}
    works = set(names) - artists

    def of_work(artist: str | None, track: str | None, album: str | None) -> bool:
        return (track in works or album in works) and (not artists or artist in artists)

    matched_on = "work" if any(of_work(a, t, al) for a, t, al, _ in candidates) else "artist"
    counted = Counted(
        matched_on,
        artist_names=tuple(names[a] for a in names if a in artists),
        work_names=tuple(names[w] for w in names if w in works),
    )
    for artist, track, album, played_at in candidates:
        if of_work(artist, track, album) if matched_on == "work" else artist in artists:
            moment = as_utc(played_at)
            if moment >= since:
                counted.since += 1
                if counted.first_after is None or moment < counted.first_after:
                    counted.first_after = moment
            else:
                counted.before += 1
    return counted


# -- the follow-up suggestion ------------------------------------------------------------------
REPEAT_PLAYS = 5  # plays since the recommendation that make it "on repeat"


def _plays(n: int) -> str:
    return "1 play" if n == 1 else f"{n} plays"


def _ago(days: int) -> str:
    return "today" if days == 0 else "1 day ago" if days == 1 else f"{days} days ago"


def _listed(names: Sequence[str]) -> str:
    return ", ".join(dict.fromkeys(names))


def suggestion(entities: Sequence[str], c: Counted, logged: bool, days: int, wait: int) -> str:
    """One or two sentences for the agent to say or act on, from the numbers alone: honest
    when there is nothing to check against, when it is too early, and when it was no discovery."""
    if not logged:
        return (
            f"No play history is logged for this user, so there is nothing to check {_listed(entities)} "
            "against; log their recent plays with memory_log_plays (scrobbles, recently played), then "
            "validate again."
        )
    ago, works, artists = _ago(days), _listed(c.work_names), _listed(c.artist_names)
    if c.matched_on == "artist" and works:
        if c.since:
            before = f" ({_plays(c.before)} before)" if c.before else ""
            return (
                f"No play of {works} itself is logged, but {artists} got {_plays(c.since)} since you "
                f"recommended it {ago}{before}. They are listening to the artist; ask whether they got to {works}."
            )
        return (
            f"No play of {works} itself is logged, and {artists} got {_plays(c.before)} before you recommended "
            f"it {ago} but none since. They knew the artist already; ask whether {works} reached them."
        )
    subject = (
        (f"{works} by {artists}" if works and artists else works)
        if c.matched_on == "work"
        else artists
        if c.matched_on == "artist"
        else _listed(entities)
    )
    if c.before:
        if not c.since:
            return (
                f"They already knew {subject}: {_plays(c.before)} logged before you recommended it {ago}, none "
                "since. It was no discovery; ask how they feel about it now rather than whether it landed."
            )
        return (
            f"They already knew {subject} ({_plays(c.before)} before the recommendation) and it got "
            f"{_plays(c.since)} since you recommended it {ago}. A welcome reminder more than a discovery."
        )
    if not c.since:
        if days < wait:
            return (
                f"Too early to tell: you recommended {subject} {ago} and no play of it is logged yet; check "
                f"again once {wait} days have passed."
            )
        return (
            f"No play of {subject} is logged since you recommended it {ago}. They haven't touched it yet; "
            "did it not land?"
        )
    first = c.first_after.date().isoformat() if c.first_after else ""
    if c.since == 1:
        return (
            f"{subject} was played once since you recommended it {ago} (on {first}). They gave it a try; "
            "ask what they thought."
        )
    if c.since < REPEAT_PLAYS:
        return (
            f"{subject} got {c.since} plays since you recommended it {ago}, the first on {first}. It is "
            "catching on; a good moment to suggest something in the same vein."
        )
    return (
        f"On repeat: {subject} got {c.since} plays since you recommended it {ago} ({REPEAT_PLAYS} or more). "
        "Great call; build on it."
    )
