"""The memory block for the prompt (``memory_get_context``, issue 12): Prefer / Avoid / Rules /
Recent playlists / Open follow-ups, most important and newest first, within a token budget.

``gather`` reads the user's records through the service's readers, ``rank`` leaves superseded
likes and dislikes out and orders each section (``focus`` first), ``render`` fits the block to the
budget and writes the diagnostics; ``quoting`` holds the estimator and the quoting that keeps user
text from reading as an instruction. It reads only and stores nothing (the last block served is
kept for ``memory_inspect`` later, when that lands).
"""

from __future__ import annotations

from typing import Any

from service.context import gather
from service.context.candidates import SECTIONS
from service.context.gather import Gathered
from service.context.rank import focus_terms_of, ordered, superseded
from service.context.render import render
from service.ledger.writer import LedgerWriter
from service.memories import MemoryStore
from service.memories.followups import FollowUpService
from service.profiles import Profiles
from service.storage import Database


class ContextService:
    def __init__(self, db: Database, profiles: Profiles, memories: MemoryStore, followups: FollowUpService,
                 writer: LedgerWriter) -> None:
        self._db = db
        self._profiles = profiles
        self._memories = memories
        self._followups = followups
        self._writer = writer

    async def get_context(self, user_id: int, budget_tokens: int, focus: str | None = None) -> dict[str, Any]:
        found = await self._gather(user_id)
        replaced = superseded(found.events)
        live = [c for c in found.candidates if not (c.kind == "preference_event" and c.ref in replaced)]
        gone = [(c, replaced[c.ref]) for c in found.candidates
                if c.kind == "preference_event" and c.ref in replaced]
        gone.sort(key=lambda item: (-item[0].moment, item[0].ref))
        focus_terms = focus_terms_of(focus)
        ranked = {s: ordered([c for c in live if c.section == s], focus_terms) for s in SECTIONS}
        return {"user_id": user_id, **render(ranked, budget_tokens, gone, found.unclassified)}

    async def _gather(self, user_id: int) -> Gathered:
        found = Gathered()
        gather.profile_candidates(await self._profiles.get(user_id), found)
        await gather.event_candidates(self._db, user_id, found)
        await gather.choice_candidates(self._db, user_id, found)
        for memory_type in ("insight", "feedback"):
            rows = await self._memories.query(user_id, None, None, memory_type, None, None, gather.MEMORIES_READ)
            gather.memory_candidates(rows["memories"], found)
        await self._writer.settle(user_id)  # as get_playlists: heads a failed write left behind, rolled forward
        await gather.playlist_candidates(self._db, user_id, found)
        due = await self._followups.open_followups(user_id, gather.FOLLOWUPS_READ)
        gather.followup_candidates(due["followups"], found)
        return found
