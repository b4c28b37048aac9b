"""``memory_inspect``: what is stored about the user and why it was used, in one answer: the
switches and counts (as ``memory_status``), the last context block served from this process, and
every profile field with its provenance (``Inspector.inspect`` says each part).

Memory turned off: switches and counts are shown (they are what the user controls), but no stored
content: ``profile_fields`` is empty, ``last_context`` null and ``hidden`` says why, as every read
answers nothing while memory is off.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from service.context.service import ContextService
from service.control.explain import EventTerms, event_terms, patch_sets, terms_match
from service.control.switches import Controls
from service.pointers import pointer
from service.storage.database import Database
from service.text.entities import folded_entity
from service.timeutil import as_utc

MAX_FIELDS = 200
LISTED_PER_FIELD = 5
REASON_CHARS = 200


def leaves(value: Any, parts: list[str] | None = None) -> Iterator[tuple[list[str], Any]]:
    """Every leaf of a JSON value with its path; an empty object or array is a leaf itself."""
    parts = parts or []
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from leaves(item, [*parts, key])
    elif isinstance(value, list) and value:
        for i, item in enumerate(value):
            yield from leaves(item, [*parts, str(i)])
    else:
        yield parts, value


def _cut(reason: Any) -> Any:
    if isinstance(reason, str) and len(reason) > REASON_CHARS:
        return reason[: REASON_CHARS - 1] + "…"
    return reason


def _set_by(history: list[dict[str, Any]], parts: list[str]) -> list[dict[str, Any]]:
    rows = [
        {
            "version": e["version"],
            "applied_at": e.get("applied_at"),
            "source": e.get("source"),
            "reason": _cut(e.get("reason")),
        }
        for e in history
        if patch_sets(e.get("patch"), parts) is not None
    ]
    return sorted(rows, key=lambda r: r["version"], reverse=True)


class EvidenceIndex:
    """The user's events by what ``terms_match`` compares, so each field is looked up, not matched
    against every event: exact and folded subject names, payload keys, and the runs of words of each
    folded raw_text that equal a field value looked for (``wanted``; a value of more than
    ``RUN_WORDS`` words is matched the slow way, event by event). The same answers as
    ``terms_match``, in the order the events were given. Building hands the event loop back every
    ``SLICE`` events: a user with many events must not stall the other sessions."""

    RUN_WORDS = 6
    SLICE = 500

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.terms: list[EventTerms | None] = []
        self._by: dict[tuple[str, str], set[int]] = {}

    @classmethod
    async def built(cls, events: list[dict[str, Any]], wanted: set[str]) -> EvidenceIndex:
        index = cls(events)
        lengths = sorted({len(w.split()) for w in wanted if len(w.split()) <= cls.RUN_WORDS})
        for i, event in enumerate(events):
            if i % cls.SLICE == cls.SLICE - 1:
                await asyncio.sleep(0)
            found = event_terms(event)
            index.terms.append(found)
            if found is not None:
                index._put(i, found, wanted, lengths)
        return index

    def _put(self, i: int, found: EventTerms, wanted: set[str], lengths: list[int]) -> None:
        for kind, values in (("exact", found.exact), ("folded", found.folded), ("key", found.keys)):
            for value in values:
                self._by.setdefault((kind, value), set()).add(i)
        if found.raw is None:
            return
        words = found.raw.split()
        for start in range(len(words)):
            for length in lengths:
                run = " ".join(words[start : start + length])
                if start + length <= len(words) and run in wanted:
                    self._by.setdefault(("run", run), set()).add(i)

    def matching(self, folded: set[str], exact: set[str], key: str | None) -> list[dict[str, Any]]:
        hits: set[int] = set()
        if key is not None:
            hits |= self._by.get(("key", key), set())
        for value in exact:
            hits |= self._by.get(("exact", value), set())
        for value in folded:
            hits |= self._by.get(("folded", value), set())
            if len(value.split()) <= self.RUN_WORDS:
                hits |= self._by.get(("run", value), set())
            else:
                hits |= {i for i, found in enumerate(self.terms) if terms_match(found, {value}, set(), None)}
        return [self.events[i] for i in sorted(hits)]


def _evidence(index: EvidenceIndex, parts: list[str], value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        folded, exact, key = {folded_entity(value)} - {""}, {value.strip()} - {""}, None
    else:  # a rule such as 2: the events that name the field (``max_tracks_per_artist``)
        folded, exact = set(), set()
        key = next((p for p in reversed(parts) if not p.isdigit()), None)
    if not folded and not exact and key is None:
        return []
    return [
        {"id": str(e["_id"]), "type": e["type"], "timestamp": e["timestamp"]}
        for e in index.matching(folded, exact, key)
    ]


class Inspector:
    def __init__(self, db: Database, controls: Controls, context: ContextService) -> None:
        self._db = db
        self._controls = controls
        self._context = context

    async def inspect(self, user_id: int) -> dict[str, Any]:
        """- ``enabled``, ``paused_until`` and ``counts``: as ``memory_status`` says them.
        - ``last_context``: the last block ``memory_get_context`` served the user from this process, with
          its diagnostics (what was kept, what was dropped and why) and when; null when none was served
          since start-up or since the user's data last changed around the write path (forget, import,
          delete): see ``service.context``.
        - ``profile_fields``: every leaf of the profile (an array's elements each on its own, as
          ``memory_explain`` and ``memory_forget`` name them), in profile order, with its provenance: the
          patches of the stored history that set it (``service.control.explain.patch_sets``) and the
          preference events that are its evidence (``terms_match``, the same matching as
          ``memory_explain``). Each list is newest first and cut at ``LISTED_PER_FIELD`` rows with its
          full count beside it; a patch's reason is cut at ``REASON_CHARS`` (``memory_explain`` gives
          them whole), so the answer stays far below the message limit however long the history.
          Fields past ``MAX_FIELDS`` are counted in ``unlisted_fields``.
        """
        status = await self._controls.status(user_id)
        answer = {
            **status,
            "last_context": None,
            "profile_fields": [],
            "unlisted_fields": 0,
            "history_complete": True,
            "hidden": None,
        }
        if not status["enabled"]:
            return answer | {"hidden": "memory_disabled"}
        served = self._context.last_served(user_id)
        document = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id})
        history = list((document or {}).get("history") or [])
        found = list(leaves((document or {}).get("profile") or {}))
        fields = await self._fields(user_id, history, found[:MAX_FIELDS]) if document else []
        return answer | {
            "last_context": None if served is None else dict(served),
            "profile_fields": fields,
            "unlisted_fields": max(0, len(found) - MAX_FIELDS) if fields else 0,
            "history_complete": not history or min(int(h.get("version", 0)) for h in history) <= 1,
        }

    async def _fields(
        self, user_id: int, history: list[dict[str, Any]], found: list[tuple[list[str], Any]]
    ) -> list[dict[str, Any]]:
        if found == [([], {})]:  # an empty profile has no fields
            return []
        stored = await self._db.preference_events.find(
            {"user_id": user_id}, {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1}
        )
        stored.sort(key=lambda e: (as_utc(e["timestamp"]).timestamp(), str(e["_id"])), reverse=True)
        wanted = {folded_entity(value) for _, value in found if isinstance(value, str)}
        events = await EvidenceIndex.built(stored, wanted)
        rows = []
        for parts, value in found:
            set_by = _set_by(history, parts)
            evidence = _evidence(events, parts, value)
            rows.append(
                {
                    "path": pointer(parts),
                    "value": value,
                    "set_by": set_by[:LISTED_PER_FIELD],
                    "set_by_count": len(set_by),
                    "evidence": evidence[:LISTED_PER_FIELD],
                    "evidence_count": len(evidence),
                }
            )
        return rows
