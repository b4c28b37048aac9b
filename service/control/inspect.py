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

from service.context.service import ContextService, shown
from service.control.explain import EventTerms, event_terms, patch_sets, terms_match
from service.control.out_of_sight import out_of_sight
from service.control.switches import Controls
from service.errors import InvalidArgument
from service.limits import json_bytes
from service.paging import FULL_PAGE_BYTES, PAGE_BYTES, decode_cursor, encode_cursor, offset_of
from service.pointers import pointer
from service.storage.database import Database
from service.text.entities import folded_entity
from service.text.sensitive import marked_by, sensitive_paths
from service.timeutil import as_utc

MAX_FIELDS = 200
LISTED_PER_FIELD = 5  # patches and events per field with detail "full"
SUMMARY_PER_FIELD = 2  # by default: the newest, so a page holds more fields
REASON_CHARS = 200
MIN_ROOM = 3_000  # the first page lists no field when the last block leaves less than this


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

    async def inspect(self, user_id: int, cursor: str | None = None, detail: str = "summary") -> dict[str, Any]:
        """- ``enabled``, ``paused_until`` and ``counts``: as ``memory_status`` says them.
        - ``last_context``: the last block ``memory_get_context`` served the user from this process, with
          its diagnostics (what was kept, what was dropped and why; cut as that tool cuts them for
          ``detail``) and when; null when none was served since start-up or since the user's data last
          changed around the write path (forget, import, delete): see ``service.context``. On the
          first page only.
        - ``profile_fields``: a page of the leaves of the profile (an array's elements each on its own,
          as ``memory_explain`` and ``memory_forget`` name them), in profile order, with its provenance: the
          patches of the stored history that set it (``service.control.explain.patch_sets``) and the
          preference events that are its evidence (``terms_match``, the same matching as
          ``memory_explain``). Each list is newest first and cut at ``SUMMARY_PER_FIELD`` rows
          (``LISTED_PER_FIELD`` for ``detail`` "full") with its full count beside it; a patch's reason is cut at ``REASON_CHARS`` (``memory_explain`` gives
          them whole). A page holds the fields that fit ``PAGE_BYTES`` (``FULL_PAGE_BYTES`` for ``detail`` "full"); ``next_cursor`` continues
          (pinned to the profile version: a profile changed between pages is INVALID_ARGUMENT).
          Fields past ``MAX_FIELDS`` are counted in ``unlisted_fields``.
        """
        status = await self._controls.status(user_id)
        answer = {
            **status,
            "last_context": None,
            "profile_fields": [],
            "field_count": 0,
            "unlisted_fields": 0,
            "next_cursor": None,
            "history_complete": True,
            "hidden": None,
            "out_of_sight": None,
        }
        state = decode_cursor(cursor, "inspect") if cursor is not None else {"o": 0}
        if not status["enabled"]:
            return answer | {"hidden": "memory_disabled"}
        served = self._context.last_served(user_id)
        document = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id})
        history = list((document or {}).get("history") or [])
        found = list(leaves((document or {}).get("profile") or {}))
        if found == [([], {})] or not document:  # an empty profile has no fields
            found = []
        version = int((document or {}).get("version") or 0)
        start = offset_of(state, "o", end=min(len(found), MAX_FIELDS))
        if cursor is not None and state.get("v") != version:
            raise InvalidArgument(
                "the profile changed since the first page; call again without cursor", {"field": "cursor"}
            )
        listed = LISTED_PER_FIELD if detail == "full" else SUMMARY_PER_FIELD
        last_context = None if served is None or cursor is not None else shown(dict(served), detail)
        # The first page carries the last block too: the fields get what it leaves of the page
        # (none, when a big block takes it all: the next page has no block).
        profile = (document or {}).get("profile") or {}
        hidden = None if cursor is not None else await out_of_sight(self._db, user_id, profile)
        room = (FULL_PAGE_BYTES if detail == "full" else PAGE_BYTES) - json_bytes([last_context, hidden])
        fields = await self._fields(user_id, history, found[start:MAX_FIELDS], listed, room, sensitive_paths(profile))
        end = start + len(fields)
        return answer | {
            "last_context": last_context,
            "out_of_sight": hidden,
            "profile_fields": fields,
            "field_count": len(found),
            "unlisted_fields": max(0, len(found) - MAX_FIELDS),
            "next_cursor": encode_cursor("inspect", {"o": end, "v": version})
            if end < min(len(found), MAX_FIELDS)
            else None,
            "history_complete": not history or min(int(h.get("version", 0)) for h in history) <= 1,
        }

    async def _fields(
        self,
        user_id: int,
        history: list[dict[str, Any]],
        found: list[tuple[list[str], Any]],
        listed: int,
        room: int,
        marked: list[list[str]],
    ) -> list[dict[str, Any]]:
        """The rows of ``found`` from its start that fit ``room`` bytes (one at least, unless the
        room is less than a field's share: then none, and the next page has more room)."""
        if not found or room < MIN_ROOM:
            return []
        stored = await self._db.preference_events.find(
            {"user_id": user_id}, {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1}
        )
        stored.sort(key=lambda e: (as_utc(e["timestamp"]).timestamp(), str(e["_id"])), reverse=True)
        wanted = {folded_entity(value) for _, value in found if isinstance(value, str)}
        events = await EvidenceIndex.built(stored, wanted)
        rows: list[dict[str, Any]] = []
        used = 0
        for parts, value in found:
            set_by = _set_by(history, parts)
            evidence = _evidence(events, parts, value)
            row = {
                "path": pointer(parts),
                "value": value,
                "set_by": set_by[:listed],
                "set_by_count": len(set_by),
                "evidence": evidence[:listed],
                "evidence_count": len(evidence),
            }
            if marked_by(parts, marked) is not None:  # kept out of the block and of search unless named
                row["sensitive"] = True
            used += json_bytes(row) + 1
            if used > room and rows:
                break
            rows.append(row)
        return rows
