"""The memory block for the prompt (``memory_get_context``): Prefer / Avoid / Rules / Recent
playlists / Open follow-ups / Resting (under a rest rule), most important and newest first, in a budget.

``gather`` reads the user's records through the service's readers, ``rank`` leaves superseded
likes and dislikes out and orders each section (``focus`` first), ``render`` fits the block to the
budget and writes the diagnostics; ``quoting`` holds the estimator and the quoting that keeps user
text from reading as an instruction. On the embedded engine the events' lines are kept between
calls (``kept``, ordered with the call's other candidates by ``merged``), so a call costs what its
budget holds. It reads only and stores nothing on disk.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Sequence
from contextlib import aclosing
from typing import Any, overload

from service.context import gather
from service.context.candidates import SECTIONS, Candidate
from service.context.gather import Gathered
from service.context.kept import UserContext
from service.context.kept_users import kept_contexts
from service.context.merged import MergedOrder
from service.context.order import ListOrder, Order
from service.context.rank import focus_terms_of, ordered
from service.context.render import render
from service.context.resting import configured, resting_candidates
from service.context.situated import situated
from service.ledger.writer import LedgerWriter
from service.limits import json_bytes
from service.memories.followups import FollowUpService
from service.memories.service import MemoryStore
from service.paging import ANSWER_BYTES, fitting
from service.profiles.choices import EVENT_TYPE as CHOICE_TYPE
from service.profiles.opinions import superseded
from service.profiles.store import Profiles
from service.storage.database import Database
from service.timeutil import utc_now

SERVED_USERS = 1024  # users whose last block is kept (least recently served go first)
SUMMARY_LISTED = 10  # rows of diagnostics.kept and .dropped by default (detail "summary")
_ROOM = ANSWER_BYTES - 1_500  # what block and diagnostics may take (detail "full")


def _fit(rows: list[Any], room: int) -> int:
    """How many rows from the start fit ``room`` bytes (none when not even the first does)."""
    if not rows or json_bytes(rows[0]) + 1 > room:
        return 0
    return fitting(rows, room)


def shown(served: dict[str, Any], detail: str) -> dict[str, Any]:
    """A served block as an answer shows it: the diagnostics' kept and dropped lists cut at
    ``SUMMARY_LISTED`` rows each, or, for ``detail`` "full", at what fits beside the block in one
    answer of ``ANSWER_BYTES``; ``unlisted`` counts every row left out, so the counts stay exact."""
    diagnostics = served["diagnostics"]
    kept, dropped = diagnostics["kept"], diagnostics["dropped"]
    if detail == "full":
        room = _ROOM - json_bytes({**served, "diagnostics": {**diagnostics, "kept": [], "dropped": []}})
        n_kept = _fit(kept, room)
        n_dropped = _fit(dropped, room - json_bytes(kept[:n_kept]))
    else:
        n_kept, n_dropped = min(len(kept), SUMMARY_LISTED), min(len(dropped), SUMMARY_LISTED)
    unlisted = diagnostics["unlisted"]
    return served | {
        "diagnostics": diagnostics
        | {
            "kept": kept[:n_kept],
            "dropped": dropped[:n_dropped],
            "unlisted": {
                "kept": unlisted["kept"] + len(kept) - n_kept,
                "dropped": unlisted["dropped"] + len(dropped) - n_dropped,
            },
        }
    }


EVENT_FIELDS = {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1}


class ContextService:
    """The last block served to each user is kept in this process for ``memory_inspect`` ("what did
    the assistant see?"): serving a block stays a read (no write, no audit entry, nothing for export
    or delete to chase), at the price that a restart, or another server process, has not seen it.
    Anything that changes the user's data around the write path (forget, import, delete) drops it
    (``forget_served``), so it never shows an item that is gone."""

    def __init__(
        self, db: Database, profiles: Profiles, memories: MemoryStore, followups: FollowUpService, writer: LedgerWriter
    ) -> None:
        self._db = db
        self._profiles = profiles
        self._memories = memories
        self._followups = followups
        self._writer = writer
        self._served: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._kept = kept_contexts() if db.engine == "embedded" else None
        self._drops: dict[int, int] = {}  # per user, how often its block was dropped (a block computed
        # across a drop may hold what was just forgotten: it is not kept)

    async def get_context(
        self,
        user_id: int,
        budget_tokens: int,
        focus: str | None = None,
        detail: str = "summary",
        situation: str | None = None,
    ) -> dict[str, Any]:
        drops = self._drops.get(user_id, 0)
        found, opening = await self._gather(user_id, situation, focus)
        focus_terms = focus_terms_of(focus)
        events = await self._events(user_id)
        orders: dict[str, Order]
        gone: Sequence[tuple[Candidate, str]]
        # Nothing kept between calls (MongoDB), or events kept out of sight, which a focus may name:
        # every event read, as gathered.
        if events is None or events.sensitive:
            await gather.event_candidates(self._db, user_id, found, focus)
            await gather.choice_candidates(self._db, user_id, found)
            orders, gone, gone_counts = _read_whole(found, focus_terms)
        else:
            orders = {
                s: MergedOrder(
                    events.sections[s], events.true_key, [c for c in found.candidates if c.section == s], focus_terms
                )
                if s in events.sections
                else ListOrder(ordered([c for c in found.candidates if c.section == s], focus_terms))
                for s in SECTIONS
            }
            gone = _Rows(events)
            gone_counts = dict(events.gone_by_section)
        if not found.resting:  # no rest rule: the block and its diagnostics as before Resting existed
            orders.pop("resting")
        rendered = render(orders, budget_tokens, gone, gone_counts, found.unclassified, opening)
        if self._drops.get(user_id, 0) == drops:
            self._served[user_id] = {"served_at": utc_now(), "budget_tokens": budget_tokens, "focus": focus, **rendered}
            self._served.move_to_end(user_id)
            while len(self._served) > SERVED_USERS:
                self._served.popitem(last=False)
        return {"user_id": user_id, **shown(rendered, detail)}

    def last_served(self, user_id: int) -> dict[str, Any] | None:
        """The last block this process served the user, with its diagnostics; None if none since
        start-up or since the user's data last changed around the write path."""
        return self._served.get(user_id)

    def forget_served(self, user_id: int) -> None:
        """The user's data changed around the write path (forget, import, delete, a failed call
        undone): the last block goes, and so do the lines kept from the events (built again)."""
        self._served.pop(user_id, None)
        self._drops[user_id] = self._drops.get(user_id, 0) + 1
        if self._kept is not None:
            self._kept.forget(user_id)

    async def event_appended(self, user_id: int, event_id: str) -> None:
        """After a preference event is stored (the event write path calls it): the kept lines take
        it in, as stored; with none kept, a build under way is not kept (it may have read too early)."""
        if self._kept is None:
            return
        events = self._kept.get(user_id)
        if events is None:
            self._kept.forget(user_id)
            return
        stored = await self._db.preference_events.find_one({"_id": event_id, "user_id": user_id}, EVENT_FIELDS)
        if stored is None:  # gone meanwhile (forgotten): rebuilt on the next call
            self._kept.forget(user_id)
        else:
            events.add(stored)

    async def _events(self, user_id: int) -> UserContext | None:
        """The user's kept event lines, built from the store on first use (the embedded engine);
        None on MongoDB, where another process may write: each call reads the events itself."""
        if self._kept is None:
            return None
        events = self._kept.get(user_id)
        if events is not None:
            return events
        generation = self._kept.generation(user_id)
        query = {"user_id": user_id, "type": {"$in": list(gather.EVENT_TYPES)}}
        opinions = await self._db.preference_events.find(query, EVENT_FIELDS)
        choices = await self._db.preference_events.find({"user_id": user_id, "type": CHOICE_TYPE}, EVENT_FIELDS)
        events = UserContext.build(opinions, choices)
        self._kept.keep(user_id, events, generation)
        return events

    async def _gather(self, user_id: int, situation: str | None, focus: str | None) -> tuple[Gathered, str | None]:
        """What the block can say, and its first line (the situation it is built for, if any); a
        sensitive memory only when ``focus`` names it."""
        found = Gathered()
        view, opening = situated(await self._profiles.get(user_id), situation)
        gather.profile_candidates(view, found, focus)
        found.resting = configured(view["profile"])
        found.candidates += await resting_candidates(self._db, user_id, view["profile"])
        for memory_type in ("insight", "feedback"):
            rows = await self._memories.query(
                user_id, None, None, memory_type, None, None, gather.MEMORIES_READ, naming=focus
            )
            gather.memory_candidates(rows["memories"], found)
        await self._writer.settle(user_id)  # as get_playlists: heads a failed write left behind, rolled forward
        await gather.playlist_candidates(self._db, user_id, found)
        due: list[dict[str, Any]] = []
        async with aclosing(self._followups.due(user_id)) as open_ones:  # the oldest few: no need to count all
            async for row in open_ones:
                due.append(row)
                if len(due) == gather.FOLLOWUPS_READ:
                    break
        gather.followup_candidates(due, found)
        return found, opening


class _Rows(Sequence[tuple[Candidate, str]]):
    """The kept superseded opinions as render reads them: a slice, never the whole list."""

    def __init__(self, events: UserContext) -> None:
        self._events = events

    def __len__(self) -> int:
        return len(self._events.gone)

    @overload
    def __getitem__(self, index: int) -> tuple[Candidate, str]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[Candidate, str]]: ...
    def __getitem__(self, index: int | slice) -> tuple[Candidate, str] | list[tuple[Candidate, str]]:
        if isinstance(index, slice):
            start, stop, _ = index.indices(len(self))
            return self._events.superseded_rows(start, stop)
        return self._events.superseded_rows(index, index + 1)[0]


def _read_whole(
    found: Gathered, focus_terms: frozenset[str]
) -> tuple[dict[str, Order], list[tuple[Candidate, str]], dict[str, int]]:
    """Every candidate read and ranked in this call: orders, superseded rows (newest first), their counts."""
    replaced = superseded(found.events)
    live = [c for c in found.candidates if not (c.kind == "preference_event" and c.ref in replaced)]
    gone = [(c, replaced[c.ref]) for c in found.candidates if c.kind == "preference_event" and c.ref in replaced]
    gone.sort(key=lambda item: (-item[0].moment, item[0].ref))
    orders: dict[str, Order] = {
        s: ListOrder(ordered([c for c in live if c.section == s], focus_terms)) for s in SECTIONS
    }
    return orders, gone, dict(Counter(c.section for c, _ in gone))
