"""Aging (seed 001): what was not important fades, what was stays.

Measured from a memory's ``timestamp`` (when it was first stated; client times honoured) to the
run's ``now`` (``decision``): importance 8-10 is kept however old; 5-7, older than 30 days and not
fuzzy yet, is compressed to a gist, ``fuzzy: true``; 1-4, older than 60 days, is removed. Every
change first writes an aging record (``memory_aging``), so what a crash leaves is finished by the
next run (``_UserAging._apply``). A second run with the same ``now`` changes nothing: a gist is
fuzzy, a removed memory is gone. A restated gist is clear again (``fuzzy: false``, a new
``updated_at``) and may be compressed again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from service.audit.origin import CallOrigin, acting_as, new_request_id, written_by
from service.background import in_background, repeating
from service.errors import MemoryNotFound
from service.memories.service import MemoryStore
from service.memories.views import memory_view
from service.storage.collection import DuplicateDocument
from service.storage.database import Database
from service.timeutil import as_utc, utc_now
from service.users import stats as user_stats

log = logging.getLogger("taste_memory")

GIST_AFTER = timedelta(days=30)
REMOVE_AFTER = timedelta(days=60)
GIST_CHARS = 140
KEPT_STRING_CHARS = 140  # longer metadata strings are dropped from a gist
RULE_GIST = "importance 5-7, older than 30 days: gist"
RULE_REMOVE = "importance 1-4, older than 60 days: removed"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
FIRST_RUN_AFTER_S = 3600.0
Progress = Callable[[int, dict[str, int]], None]  # after each user: its id, the counts so far


@dataclass(frozen=True)
class Decision:
    action: str  # "compressed" | "removed"
    rule: str


COMPRESS = Decision("compressed", RULE_GIST)
REMOVE = Decision("removed", RULE_REMOVE)


def decision(doc: dict[str, Any], now: datetime) -> Decision | None:
    """What aging does to this memory at ``now`` (None: nothing). "Older than" is strict (exactly
    30 days is not older than 30 days):

    * importance 8-10: kept as it is, however old;
    * importance 5-7, older than 30 days, not fuzzy yet: compressed to a gist (``gist``: the first
      sentence, at most 140 characters; ``trimmed`` metadata), ``fuzzy: true``;
    * importance 1-4, older than 60 days: removed;
    * everything else: untouched.
    """
    importance, age = doc["importance"], as_utc(now) - as_utc(doc["timestamp"])
    if 5 <= importance <= 7 and age > GIST_AFTER and not doc.get("fuzzy"):
        return COMPRESS
    if importance < 5 and age > REMOVE_AFTER:
        return REMOVE
    return None


# A "." after one of these, an initial ("J. Cole") or an initialism ("R.E.M.") ends no sentence.
ABBREVIATIONS = frozenset({"st", "mr", "mrs", "ms", "dr", "jr", "sr", "vs", "feat", "ft", "vol", "no", "op", "pt"})
_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)")


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    for end in _END.finditer(text):
        word = text[: end.start()].rpartition(" ")[2]
        following = text[end.end() :].lstrip()[:1]
        abbreviated = text[end.start()] == "." and (
            (len(word) == 1 and word.isalpha()) or "." in word or word.casefold() in ABBREVIATIONS
        )
        if not abbreviated and not following.islower():
            return text[: end.end()]
    return text


def gist(summary: str, limit: int = GIST_CHARS) -> str:
    """The first sentence, cut at a word boundary with "…" when longer than ``limit``."""
    text = first_sentence(summary)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if not text[limit - 1].isspace() and " " in cut:  # not at a word's end: drop the cut word
        cut = cut.rpartition(" ")[0]
    return cut.rstrip(" ,;:-–—") + "…"


def trimmed(metadata: dict[str, Any]) -> dict[str, Any]:
    """A gist keeps only scalar metadata (numbers, booleans, null, strings up to 140 characters):
    nested objects, lists and long strings are the detail that fades."""
    return {
        key: value
        for key, value in metadata.items()
        if value is None
        or isinstance(value, bool | int | float)
        or (isinstance(value, str) and len(value) <= KEPT_STRING_CHARS)
    }


def record_id(user_id: int, memory_id: str, action: str, updated_at: datetime) -> str:
    """The same change of the same version of the memory is one record, whichever run makes it."""
    ms = (as_utc(updated_at) - EPOCH) // timedelta(milliseconds=1)
    return f"{user_id}:{memory_id}:{action}:{ms}"


async def age_memories(
    db: Database,
    store: MemoryStore,
    now: datetime,
    user_id: int | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Age every user's memories (or one user's) as of ``now``; the dry run decides the same and
    writes nothing. Returns the changes and the counts {examined, compressed, removed, kept}."""
    counts = {"examined": 0, "compressed": 0, "removed": 0, "kept": 0}
    changes: list[dict[str, Any]] = []
    if user_id is None:
        held = await db.memories.count_by_user()
    else:
        held = {user_id: await db.memories.count_documents({"user_id": user_id})}
    for uid in sorted(held):
        aging = _UserAging(db, store, uid, now)
        try:
            if dry_run:
                done = await aging.run(dry_run)
            else:
                async with db.unit():  # one user's aging is committed whole, or not at all
                    done = await aging.run(dry_run)
        except BaseException:
            store.forget_user(uid)  # the store went back: so does the cached view of it
            raise
        counts["examined"] += held[uid]
        for change in done:
            counts[change["action"]] += 1
        counts["kept"] = counts["examined"] - counts["compressed"] - counts["removed"]
        changes.extend(done)
        if progress is not None:
            progress(uid, dict(counts))
        await asyncio.sleep(0)  # one user at a time, others' calls in between
    return {"now": as_utc(now), "dry_run": dry_run, "changes": changes, "counts": counts}


class _UserAging:
    def __init__(self, db: Database, store: MemoryStore, user_id: int, now: datetime) -> None:
        self.db, self.store, self.user_id, self.now = db, store, user_id, now

    async def run(self, dry_run: bool) -> list[dict[str, Any]]:
        # Real MongoDB reads only the memories that may be due (the embedded engine's copy is kept whole).
        maybe_due = {"importance": {"$lt": 8}, "timestamp": {"$lt": as_utc(self.now) - GIST_AFTER}}
        index = await self.store.index_of(self.user_id, maybe_due)
        due = [(a.doc, found) for a in index.by_id.values() if (found := decision(a.doc, self.now)) is not None]
        changes = []
        for doc, found in due:
            if dry_run:
                changes.append(self._change(doc, found, _compressed(doc, {}) if found is COMPRESS else None))
                continue
            # memory_add's lock: no restatement between the decision, taken again on the stored
            # memory (the cached copy may trail another process's write), and the change.
            async with self.store.held(self.user_id):
                try:
                    stored = await self.store.get(self.user_id, doc["memory_id"])
                except MemoryNotFound:  # gone meanwhile (its user's data deleted)
                    continue
                if (found := decision(stored, self.now)) is not None:
                    changes.append(await self._apply(stored, found))
        return changes

    def _change(self, doc: dict[str, Any], found: Decision, after: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "memory_id": doc["memory_id"],
            "action": found.action,
            "rule": found.rule,
            "before_summary": doc["summary"],
            "after_summary": after["summary"] if after else None,
        }

    async def _apply(self, doc: dict[str, Any], found: Decision) -> dict[str, Any]:
        """Every change first writes an aging record (``memory_aging``: the rule, the memory's public
        view before and after, or null once removed) and counts it, then changes the memory, then the
        cached copy and search (``MemoryStore.stored``/``removed``), then counts a removal; a user's
        changes are committed together (``age_memories``). What a crash leaves:

        * embedded store: nothing of a user is durable before that user's commit, so a crash leaves
          each user as before the run or wholly aged; the next run does what is left. An error rather
          than a crash (a write refused, a full disk) undoes that user's changes, as every unit of work
          does.
        * MongoDB (each write durable at once): after the record, before the change, a record of a
          change not made yet: the next run decides the same on the unchanged memory and writes the
          record again under the same id (``record_id`` names the memory's ``updated_at``, unchanged,
          not the run's now, which a later run does not share), replacing it rather than adding a
          second (nor counting it twice), then makes the change. (Only if the memory is restated in
          between, or a later run is given an earlier ``--now``, does that record stay without its
          change.) Between a write and its counter (``aging_event_count`` after the record,
          ``memory_count`` after a removal): that counter one behind until the next start-up's
          recount. The cached copy is the process's own: it goes with it.
        """
        stamp = written_by()
        after = _compressed(doc, {"updated_at": utc_now(), "written_by": stamp}) if found is COMPRESS else None
        record = {
            "_id": record_id(self.user_id, doc["memory_id"], found.action, doc["updated_at"]),
            "user_id": self.user_id,
            "memory_id": doc["memory_id"],
            "action": found.action,
            "rule": found.rule,
            "aged_at": self.now,
            "recorded_at": utc_now(),
            "before": memory_view(doc),
            "after": memory_view(after) if after else None,
            "written_by": stamp,
        }
        try:
            await self.db.memory_aging.insert_one(record)
            await user_stats.count_records_added(self.db, self.user_id, "aging_event_count", 1)
        except DuplicateDocument:  # a run that stopped before the change: its record (counted), made current
            await self.db.memory_aging.replace_one(record)
        key = {"_id": doc["_id"], "user_id": self.user_id}
        if after is not None:
            changed = {k: after[k] for k in ("summary", "metadata", "fuzzy", "updated_at", "written_by")}
            await self.db.memories.update_one(key, {"$set": changed})
            self.store.stored(self.user_id, after)
        else:
            removed = await self.db.memories.delete_many(key)
            self.store.removed(self.user_id, [doc["memory_id"]])
            await user_stats.count_records_added(self.db, self.user_id, "memory_count", -removed)
        return self._change(doc, found, after)


def _compressed(doc: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    return {
        **doc,
        "summary": gist(doc["summary"]),
        "metadata": trimmed(doc.get("metadata") or {}),
        "fuzzy": True,
        **changes,
    }


class AgingService:
    """``service.aging``: the CLI's ``age`` and the server's periodic run."""

    def __init__(self, db: Database, store: MemoryStore) -> None:
        self._db = db
        self._store = store

    async def run(
        self,
        now: datetime | None = None,
        user_id: int | None = None,
        dry_run: bool = False,
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        return await age_memories(self._db, self._store, now or utc_now(), user_id, dry_run, progress)


@contextlib.asynccontextmanager
async def aging_periodically(aging: AgingService, every: float) -> AsyncIterator[asyncio.Task[None] | None]:
    """For the server's lifetime (``MEMORY_AGING_INTERVAL_S``, 0 = never): a run every ``every``
    seconds, the first one interval after start (an hour at most), not at start: a start-up is
    neither slowed nor raced by it, and a server restarted again and again does not age each time.
    (One restarted more often than hourly never ages: ``memory-service age`` from cron does.)
    A failed run is logged and the next period tries again."""
    if every <= 0:
        yield None
        return

    async def age_once() -> None:
        with acting_as(CallOrigin("local", "aging", new_request_id())):
            counts = (await aging.run())["counts"]
        log.info(
            "memory aging: %d memories examined, %d compressed, %d removed, %d kept",
            counts["examined"],
            counts["compressed"],
            counts["removed"],
            counts["kept"],
        )

    async with in_background(
        repeating(age_once, every, min(every, FIRST_RUN_AFTER_S), "memory aging"), "memory-aging"
    ) as task:
        yield task
